package org.verbs4j.api.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class AbstractResourceTest {
    static class Res extends AbstractResource {
        final String name;
        final List<String> destroyed;

        Res(AbstractResource parent, String name, List<String> destroyed) {
            super(parent);
            this.name = name;
            this.destroyed = destroyed;
            describeForLeakReport(name);
        }

        @Override
        protected String kind() {
            return "Res";
        }

        @Override
        protected void destroy() {
            destroyed.add(name);
        }

        void use() {
            checkOpen();
        }
    }

    /** A parent that closes its children first (as a ConnectionManager its CmIds). */
    static class Owner extends Res {
        String refusal;

        Owner(AbstractResource parent, String name, List<String> destroyed) {
            super(parent, name, destroyed);
        }

        @Override
        protected boolean closesChildren() {
            return true;
        }

        @Override
        protected void beforeClose() {
            if (refusal != null) {
                throw new IllegalStateException(refusal);
            }
            destroyed.add("before " + name);
        }
    }

    @Test
    void cascadingParentClosesItsChildrenFirstThenItself() {
        List<String> log = new ArrayList<>();
        Owner cm = new Owner(null, "cm", log);
        Owner id = new Owner(cm, "id", log);
        Res child = new Res(id, "child", log);
        cm.close();
        assertEquals(List.of("before cm", "before id", "child", "id", "cm"), log);
        assertTrue(cm.isClosed() && id.isClosed() && child.isClosed());
        assertThrows(IllegalStateException.class, child::use, "use after a cascaded close throws");
        cm.close(); // harmless
        assertEquals(5, log.size());
    }

    @Test
    void cascadeStopsWhenAChildRefusesAndLeavesTheParentOpen() {
        List<String> log = new ArrayList<>();
        Owner cm = new Owner(null, "cm", log);
        Res id = new Res(cm, "id", log);
        Res qp = new Res(id, "qp", log); // id refuses to close with an open child
        IllegalStateException e = assertThrows(IllegalStateException.class, cm::close);
        assertTrue(e.getMessage().contains("qp"), e.getMessage());
        assertTrue(!cm.isClosed() && !id.isClosed(), "nothing closed");
        qp.close();
        cm.close();
        assertEquals(List.of("before cm", "qp", "before cm", "id", "cm"), log);
    }

    @Test
    void beforeCloseCanRefuseBeforeAnythingCloses() {
        List<String> log = new ArrayList<>();
        Owner cm = new Owner(null, "cm", log);
        Res id = new Res(cm, "id", log);
        cm.refusal = "context in use by pd";
        IllegalStateException e = assertThrows(IllegalStateException.class, cm::close);
        assertEquals("context in use by pd", e.getMessage());
        assertTrue(!id.isClosed() && log.isEmpty());
        cm.refusal = null;
        cm.close();
        assertTrue(id.isClosed());
    }

    @Test
    void parentWithOpenChildrenRefusesToCloseAndNamesThem() {
        List<String> log = new ArrayList<>();
        Res pd = new Res(null, "pd", log);
        Res mr = new Res(pd, "mr1", log);
        IllegalStateException e = assertThrows(IllegalStateException.class, pd::close);
        assertTrue(e.getMessage().contains("mr1"), e.getMessage());
        assertTrue(log.isEmpty(), "nothing destroyed");
        mr.close();
        pd.close();
        assertEquals(List.of("mr1", "pd"), log);
    }

    @Test
    void useAfterCloseThrowsAndDoubleCloseDestroysOnce() {
        List<String> log = new ArrayList<>();
        Res r = new Res(null, "cq", log);
        r.close();
        r.close();
        assertEquals(List.of("cq"), log);
        IllegalStateException e = assertThrows(IllegalStateException.class, r::use);
        assertTrue(e.getMessage().contains("Res[cq] is closed"), e.getMessage());
    }

    @Test
    void childOfAClosedParentCannotBeMade() {
        List<String> log = new ArrayList<>();
        Res pd = new Res(null, "pd", log);
        pd.close();
        assertThrows(IllegalStateException.class, () -> new Res(pd, "mr", log));
    }

    @Test
    void failedDestroyLeavesTheObjectOpen() {
        Res r = new Res(null, "qp", new ArrayList<>()) {
            @Override
            protected void destroy() {
                throw new IllegalStateException("EBUSY");
            }
        };
        assertThrows(IllegalStateException.class, r::close);
        assertTrue(!r.isClosed());
    }

    @Test
    void unreachableOpenObjectIsReportedAsALeakButAClosedOneIsNot() throws InterruptedException {
        // let objects other tests left open on purpose be collected and counted first
        long before = AbstractResource.leakCount();
        for (int stable = 0; stable < 10; ) {
            System.gc();
            Thread.sleep(20);
            long now = AbstractResource.leakCount();
            stable = now == before ? stable + 1 : 0;
            before = now;
        }
        new Res(null, "closed-properly", new ArrayList<>()).close();
        for (int i = 0; i < 50 && AbstractResource.leakCount() == before; i++) {
            System.gc();
            Thread.sleep(20);
        }
        assertEquals(before, AbstractResource.leakCount(), "a closed object was reported as leaked");
        new Res(null, "leaked", new ArrayList<>());
        for (int i = 0; i < 250 && AbstractResource.leakCount() == before; i++) {
            System.gc();
            Thread.sleep(20);
        }
        assertEquals(before + 1, AbstractResource.leakCount(), "the unclosed object was not reported");
    }
}
