package org.verbs4j.api.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The close-safety mechanism without a device: a resource whose "native object" is a flag that destroy
 * clears. A call that sees it cleared between its enter and its leave is the use-after-free that crashes
 * the JVM on a real object; these tests count them.
 */
class CloseGuardTest {

    /** A resource with a fake native object and a blocking wait that close must wake. */
    static final class Fake extends AbstractResource {
        volatile boolean alive = true;
        final AtomicInteger useAfterFree = new AtomicInteger();
        final CountDownLatch woken = new CountDownLatch(1);
        volatile boolean interrupted;

        Fake(AbstractResource parent) {
            super(parent);
            describeForLeakReport("fake");
        }

        @Override
        protected String kind() {
            return "Fake";
        }

        @Override
        protected void destroy() {
            alive = false;
        }

        @Override
        protected void interruptWaits() {
            interrupted = true;
            woken.countDown();
        }

        /** A native call: checks the object is alive all through it. */
        void call(int spins) {
            enter();
            try {
                for (int i = 0; i < spins; i++) {
                    if (!alive) {
                        useAfterFree.incrementAndGet();
                    }
                    Thread.onSpinWait();
                }
            } finally {
                leave();
            }
        }

        /** A blocking wait that only a close ends. */
        void await() throws InterruptedException {
            enter();
            try {
                woken.await();
                checkOpen();
            } finally {
                leave();
            }
        }
    }

    @Test
    void aShutGuardRefusesEntryAndReopens() {
        CloseGuard g = new CloseGuard();
        assertTrue(g.tryEnter());
        assertEquals(1, g.inProgress());
        assertTrue(g.shut());
        assertFalse(g.shut(), "second shut reports it was shut");
        assertFalse(g.tryEnter());
        assertEquals(1, g.inProgress(), "a refused entry leaves no count behind");
        g.leave();
        assertEquals(0, g.inProgress());
        g.awaitIdle("test");
        g.reopen();
        assertTrue(g.tryEnter());
        g.leave();
    }

    @Test
    void closeWaitsForTheCallInProgressAndLaterCallsThrow() throws Exception {
        Fake f = new Fake(null);
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread caller = new Thread(() -> {
            f.enter();
            try {
                inside.countDown();
                release.await();
                if (!f.alive) {
                    f.useAfterFree.incrementAndGet();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                f.leave();
            }
        });
        caller.start();
        inside.await();
        Thread closer = new Thread(f::close);
        closer.start();
        closer.join(200);
        assertTrue(closer.isAlive(), "close waits while a call is inside");
        assertTrue(f.alive, "nothing destroyed under the call");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> f.call(1));
        assertTrue(e.getMessage().contains("is being closed"), e.getMessage());
        release.countDown();
        closer.join(5000);
        caller.join(5000);
        assertFalse(closer.isAlive());
        assertFalse(f.alive);
        assertTrue(f.isClosed());
        assertEquals(0, f.useAfterFree.get());
        assertTrue(assertThrows(IllegalStateException.class, () -> f.call(1)).getMessage().contains("is closed"));
    }

    @Test
    void closeWakesABlockedWaitInsteadOfWaitingForIt() throws Exception {
        Fake f = new Fake(null);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread waiter = new Thread(() -> {
            try {
                f.await();
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        waiter.start();
        while (f.openChildren().isEmpty() && waiter.getState() != Thread.State.WAITING) {
            Thread.onSpinWait();
        }
        long t0 = System.nanoTime();
        f.close();
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        waiter.join(5000);
        assertTrue(f.interrupted);
        assertTrue(ms < 1000, "close took " + ms + " ms");
        assertTrue(failure.get() instanceof IllegalStateException, String.valueOf(failure.get()));
    }

    /** The probe as a test: many callers, a close at a random moment, 200 times; no call sees a freed object. */
    @Test
    void aCloseRacingCallsNeverFreesUnderThem() throws Exception {
        int unexpected = 0;
        for (int rep = 0; rep < 200; rep++) {
            Fake f = new Fake(null);
            List<Thread> callers = new ArrayList<>();
            AtomicInteger other = new AtomicInteger();
            for (int t = 0; t < 2; t++) {
                Thread c = new Thread(() -> {
                    try {
                        while (true) {
                            f.call(ThreadLocalRandom.current().nextInt(1, 50));
                        }
                    } catch (IllegalStateException closed) {
                        // the expected end
                    } catch (Throwable e) {
                        other.incrementAndGet();
                    }
                });
                c.start();
                callers.add(c);
            }
            Thread.sleep(0, ThreadLocalRandom.current().nextInt(1, 200_000));
            f.close();
            for (Thread c : callers) {
                c.join(5000);
                assertFalse(c.isAlive(), "a caller hangs");
            }
            assertEquals(0, f.useAfterFree.get(), "rep " + rep + ": a call saw the freed object");
            unexpected += other.get();
        }
        assertEquals(0, unexpected);
    }

    @Test
    void aChildMadeByACreationInProgressRefusesTheParentsClose() throws Exception {
        Fake parent = new Fake(null);
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch make = new CountDownLatch(1);
        AtomicReference<Fake> child = new AtomicReference<>();
        Thread creator = new Thread(() -> {
            parent.enter();
            try {
                inside.countDown();
                make.await();
                child.set(new Fake(parent));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                parent.leave();
            }
        });
        creator.start();
        inside.await();
        AtomicReference<Throwable> closeFailure = new AtomicReference<>();
        Thread closer = new Thread(() -> {
            try {
                parent.close();
            } catch (Throwable t) {
                closeFailure.set(t);
            }
        });
        closer.start();
        Thread.sleep(50);
        make.countDown();
        closer.join(5000);
        creator.join(5000);
        assertTrue(closeFailure.get() instanceof IllegalStateException, String.valueOf(closeFailure.get()));
        assertTrue(closeFailure.get().getMessage().contains("still in use"));
        assertTrue(parent.alive, "not destroyed: its child is open");
        assertFalse(parent.isClosed());
        parent.call(1); // usable again
        child.get().close();
        parent.close();
        assertFalse(parent.alive);
    }

    @Test
    void useEntersAllOrNone() {
        Fake a = new Fake(null);
        Fake b = new Fake(null);
        b.close();
        assertThrows(IllegalStateException.class, () -> AbstractResource.use(a, null, b));
        try (AbstractResource.Use u = AbstractResource.use(a, null)) {
            assertNull(null);
        }
        a.close(); // would wait forever if use() had left a count behind
        assertTrue(a.isClosed());
    }
}
