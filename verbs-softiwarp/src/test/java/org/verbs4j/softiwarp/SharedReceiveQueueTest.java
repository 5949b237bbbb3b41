package org.verbs4j.softiwarp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.verbs4j.api.Access;
import org.verbs4j.api.AsyncEvent;
import org.verbs4j.api.AsyncEventType;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.PostException;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.QpAttributes;
import org.verbs4j.api.QpInitAttributes;
import org.verbs4j.api.QpState;
import org.verbs4j.api.QpType;
import org.verbs4j.api.QueuePair;
import org.verbs4j.api.ReceiveRequests;
import org.verbs4j.api.SharedReceiveQueue;
import org.verbs4j.api.SrqAttributes;
import org.verbs4j.api.VerbsException;
import org.verbs4j.api.WorkCompletions;

class SharedReceiveQueueTest {
    private final BlockingQueue<AsyncEvent> events = new ArrayBlockingQueue<>(8);
    private final DeviceContext ctx = SoftIwarp.devices().get(0).open();
    private final ProtectionDomain pd = ctx.allocProtectionDomain();
    private final CompletionQueue cq = ctx.createCompletionQueue(16);
    private final MemoryRegion mr = pd.allocateMemory(4096, Access.LOCAL_WRITE);
    private final ReceiveRequests recvs = ReceiveRequests.allocate(8, 1);
    private SharedReceiveQueue srq;
    private QueuePair qp;

    SharedReceiveQueueTest() {
        ctx.setAsyncEventListener(events::add);
    }

    @AfterEach
    void close() {
        if (qp != null) {
            qp.close();
        }
        if (srq != null) {
            srq.close();
        }
        recvs.close();
        mr.close();
        cq.close();
        pd.close();
        ctx.close();
    }

    private void post(int n) {
        recvs.count(n);
        for (int i = 0; i < n; i++) {
            recvs.at(i).clear().wrId(i).sge(mr, 64L * i, 64);
        }
        srq.postReceive(recvs);
    }

    private static void take(SoftSharedReceiveQueue q, int n) {
        assertTrue(q.queue().tryConsume());
        try {
            for (int i = 0; i < n; i++) {
                assertTrue(q.queue().peek() != 0);
                q.pop();
            }
        } finally {
            q.queue().endConsume();
        }
    }

    @Test
    void theLimitEventFiresOnceWhenFewerThanTheLimitRemain() throws Exception {
        srq = pd.createSharedReceiveQueue(8, 1, 3);
        assertEquals(new SrqAttributes(8, 1, 3), srq.query());
        post(5);
        SoftSharedReceiveQueue s = (SoftSharedReceiveQueue) srq;
        take(s, 2); // 3 left: not below the limit
        assertNull(events.poll(50, TimeUnit.MILLISECONDS));
        take(s, 1); // 2 left
        AsyncEvent e = events.poll(5, TimeUnit.SECONDS);
        assertEquals(AsyncEventType.SRQ_LIMIT_REACHED, e.type());
        assertSame(srq, e.sharedReceiveQueue());
        assertEquals(0, srq.query().limit(), "the event disarms the limit");
        take(s, 1);
        assertNull(events.poll(50, TimeUnit.MILLISECONDS), "once per arm");
        srq.armLimit(2);
        take(s, 1);
        assertEquals(AsyncEventType.SRQ_LIMIT_REACHED, events.poll(5, TimeUnit.SECONDS).type());
    }

    @Test
    void sizesAndLimitsOutsideTheDevicesAreEinvalAndAFullQueueEnomem() {
        assertEquals(22, assertThrows(VerbsException.class, () -> pd.createSharedReceiveQueue(0, 1, 0)).errno());
        assertEquals(22, assertThrows(VerbsException.class, () -> pd.createSharedReceiveQueue(4, 7, 0)).errno());
        assertEquals(22, assertThrows(VerbsException.class, () -> pd.createSharedReceiveQueue(4, 1, 5)).errno());
        assertTrue(((SoftProtectionDomain) pd).openChildren().stream().noneMatch(c -> c instanceof SharedReceiveQueue), "a failed create leaves nothing");
        srq = pd.createSharedReceiveQueue(4, 1, 0);
        assertEquals(22, assertThrows(VerbsException.class, () -> srq.armLimit(5)).errno());
        post(3);
        assertEquals(12, assertThrows(PostException.class, () -> post(2)).errno());
        assertThrows(IllegalArgumentException.class, () -> post(5));
    }

    @Test
    void aQpOnAnSrqTakesNoReceivesOfItsOwnAndSaysLastWqeReachedInError() throws Exception {
        srq = pd.createSharedReceiveQueue(8, 1, 0);
        qp = pd.createQueuePair(new QpInitAttributes(QpType.RC, cq, cq).srq(srq));
        assertSame(srq, qp.srq());
        assertEquals(0, qp.capabilities().maxRecvWr());
        assertThrows(IllegalStateException.class, srq::close, "the QP uses it");
        qp.modify(new QpAttributes().state(QpState.INIT));
        recvs.count(1);
        recvs.at(0).clear().wrId(1).sge(mr, 0, 64);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> qp.postReceive(recvs));
        assertTrue(e.getMessage().contains("takes its receives from SharedReceiveQueue"), e.getMessage());
        post(2);
        qp.modify(new QpAttributes().state(QpState.ERR));
        AsyncEvent last = events.poll(5, TimeUnit.SECONDS);
        assertEquals(AsyncEventType.QP_LAST_WQE_REACHED, last.type());
        assertSame(qp, last.queuePair());
        try (WorkCompletions wc = WorkCompletions.allocate(4)) {
            assertEquals(0, cq.poll(wc), "the SRQ's receives are not flushed: they serve the other QPs");
        }
        assertEquals(2, ((SoftSharedReceiveQueue) srq).queue().size());
    }
}
