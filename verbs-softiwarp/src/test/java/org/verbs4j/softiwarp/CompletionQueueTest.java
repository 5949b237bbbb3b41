package org.verbs4j.softiwarp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.verbs4j.api.AsyncEvent;
import org.verbs4j.api.AsyncEventType;
import org.verbs4j.api.CompletionChannel;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.VerbsException;
import org.verbs4j.api.WcFlags;
import org.verbs4j.api.WcOpcode;
import org.verbs4j.api.WcStatus;
import org.verbs4j.api.WorkCompletions;

class CompletionQueueTest {
    private static final int OK = WcStatus.SUCCESS.value();
    private final DeviceContext ctx = SoftIwarp.devices().get(0).open();
    private final WorkCompletions wc = WorkCompletions.allocate(16);

    @AfterEach
    void close() {
        wc.close();
        for (var child : ((SoftDeviceContext) ctx).openChildren()) {
            if (child instanceof CompletionQueue) {
                child.close();
            }
        }
        for (var child : ((SoftDeviceContext) ctx).openChildren()) {
            child.close();
        }
        ctx.close();
    }

    private SoftCompletionQueue cq(int entries, CompletionChannel ch) {
        return (SoftCompletionQueue) ctx.createCompletionQueue(entries, ch, 0);
    }

    @Test
    void completionsArePolledInOrderWithEveryFieldAsIbvWc() {
        SoftCompletionQueue cq = cq(8, null);
        assertEquals(0, cq.poll(wc));
        assertTrue(cq.complete(7, OK, WcOpcode.RDMA_WRITE.value(), 4096, 0, 33, 0, false));
        assertTrue(cq.complete(8, OK, WcOpcode.RECV.value(), 12, Integer.reverseBytes(0x01020304), 33,
                WcFlags.WITH_IMM, false));
        assertTrue(cq.complete(9, WcStatus.WR_FLUSH_ERR.value(), WcOpcode.SEND.value(), 0, 0, 33, 0, false));
        assertEquals(2, cq.poll(wc, 2));
        assertEquals(7, wc.wrId(0));
        assertEquals(WcOpcode.RDMA_WRITE, wc.opcode(0));
        assertEquals(4096, wc.byteLength(0));
        assertEquals(33, wc.qpNum(0));
        assertTrue(wc.ok(0));
        assertEquals(8, wc.wrId(1));
        assertEquals(WcOpcode.RECV, wc.opcode(1));
        assertTrue(wc.hasImmData(1));
        assertEquals(0x01020304, wc.immData(1));
        assertEquals(1, cq.poll(wc));
        assertEquals(9, wc.wrId(0));
        assertEquals(WcStatus.WR_FLUSH_ERR, wc.status(0));
        assertEquals(0, cq.poll(wc));
    }

    @Test
    void theQueueHasAtLeastTheEntriesAskedWithinTheDevicesLimit() {
        assertEquals(8, cq(5, null).capacity());
        assertEquals(2, cq(1, null).capacity(), "a ring of one slot could not see an overrun");
        assertEquals(64, cq(64, null).capacity());
        assertEquals(22, assertThrows(VerbsException.class, () -> cq(0, null)).errno());
        assertEquals(22, assertThrows(VerbsException.class, () -> cq(SiwAttributes.MAX_CQE + 1, null)).errno());
        assertEquals(22, assertThrows(VerbsException.class, () -> ctx.createCompletionQueue(4, null, 1)).errno());
    }

    @Test
    void aFullQueueLosesTheCompletionAndRaisesCqErr() throws Exception {
        BlockingQueue<AsyncEvent> events = new ArrayBlockingQueue<>(4);
        ctx.setAsyncEventListener(events::add);
        SoftCompletionQueue cq = cq(2, null);
        assertTrue(cq.complete(1, OK, 0, 0, 0, 1, 0, false));
        assertTrue(cq.complete(2, OK, 0, 0, 0, 1, 0, false));
        assertFalse(cq.complete(3, OK, 0, 0, 0, 1, 0, false));
        assertTrue(cq.overrun());
        AsyncEvent e = events.poll(5, TimeUnit.SECONDS);
        assertEquals(AsyncEventType.CQ_ERR, e.type());
        assertSame(cq, e.completionQueue());
        assertEquals(2, cq.poll(wc));
        assertEquals(2, wc.wrId(1));
    }

    @Test
    void theSmallestQueueOverrunsToo() throws Exception {
        BlockingQueue<AsyncEvent> events = new ArrayBlockingQueue<>(4);
        ctx.setAsyncEventListener(events::add);
        SoftCompletionQueue cq = cq(1, null);
        for (int i = 0; i < cq.capacity(); i++) {
            assertTrue(cq.complete(10 + i, OK, 0, 0, 0, 1, 0, false));
        }
        assertFalse(cq.complete(99, OK, 0, 0, 0, 1, 0, false), "full: lost, not written over an unpolled entry");
        assertEquals(AsyncEventType.CQ_ERR, events.poll(5, TimeUnit.SECONDS).type());
        assertEquals(cq.capacity(), cq.poll(wc));
        assertEquals(10, wc.wrId(0));
    }

    @Test
    void resizeKeepsTheQueuedCompletionsInOrderAndRefusesTooFewEntries() {
        SoftCompletionQueue cq = cq(4, null);
        for (int i = 0; i < 4; i++) {
            assertTrue(cq.complete(i, OK, 0, 0, 0, 1, 0, false));
        }
        cq.resize(100);
        assertEquals(128, cq.capacity());
        for (int i = 4; i < 100; i++) {
            assertTrue(cq.complete(i, OK, 0, 0, 0, 1, 0, false));
        }
        assertEquals(22, assertThrows(VerbsException.class, () -> cq.resize(64)).errno());
        long next = 0;
        for (int n; (n = cq.poll(wc)) > 0;) {
            for (int i = 0; i < n; i++) {
                assertEquals(next++, wc.wrId(i));
            }
        }
        assertEquals(100, next);
        cq.resize(2);
        assertEquals(2, cq.capacity());
    }

    @Test
    void anArmedQueueFiresOnceOnItsChannel() {
        CompletionChannel ch = ctx.createCompletionChannel();
        SoftCompletionQueue cq = cq(16, ch);
        assertSame(ch, cq.channel());
        assertTrue(cq.complete(1, OK, 0, 0, 0, 1, 0, false));
        assertNull(ch.awaitEvent(20, TimeUnit.MILLISECONDS), "not armed: no event");
        cq.requestNotify(false);
        assertTrue(cq.complete(2, OK, 0, 0, 0, 1, 0, false));
        assertTrue(cq.complete(3, OK, 0, 0, 0, 1, 0, false));
        assertSame(cq, ch.awaitEvent(1, TimeUnit.SECONDS));
        assertNull(ch.awaitEvent(20, TimeUnit.MILLISECONDS), "one event per arm");
        assertEquals(-1, ch.fd());
    }

    @Test
    void solicitedOnlyFiresOnASolicitedOrAFailedCompletion() {
        CompletionChannel ch = ctx.createCompletionChannel();
        SoftCompletionQueue cq = cq(16, ch);
        cq.requestNotify(true);
        assertTrue(cq.complete(1, OK, WcOpcode.RECV.value(), 0, 0, 1, 0, false));
        assertNull(ch.awaitEvent(20, TimeUnit.MILLISECONDS), "an unsolicited success does not fire");
        assertTrue(cq.complete(2, OK, WcOpcode.RECV.value(), 0, 0, 1, 0, true));
        assertSame(cq, ch.awaitEvent(1, TimeUnit.SECONDS));
        cq.requestNotify(true);
        assertTrue(cq.complete(3, WcStatus.WR_FLUSH_ERR.value(), WcOpcode.RECV.value(), 0, 0, 1, 0, false));
        assertSame(cq, ch.awaitEvent(1, TimeUnit.SECONDS), "an error fires");
        cq.requestNotify(true);
        cq.requestNotify(false); // widens to the next completion
        assertTrue(cq.complete(4, OK, WcOpcode.RECV.value(), 0, 0, 1, 0, false));
        assertSame(cq, ch.awaitEvent(1, TimeUnit.SECONDS));
    }

    @Test
    void aBlockedWaitWakesAtTheCompletionOfAnotherThread() throws Exception {
        CompletionChannel ch = ctx.createCompletionChannel();
        SoftCompletionQueue cq = cq(16, ch);
        cq.requestNotify(false);
        Thread producer = new Thread(() -> {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                return;
            }
            cq.complete(5, OK, 0, 0, 0, 1, 0, false);
        });
        producer.start();
        assertSame(cq, ch.awaitEvent(10, TimeUnit.SECONDS));
        assertEquals(1, cq.poll(wc));
        producer.join();
    }

    @Test
    void closingTheChannelWakesItsWaiterAndIsRefusedWhileAQueueUsesIt() throws Exception {
        CompletionChannel ch = ctx.createCompletionChannel();
        CompletionQueue cq = cq(4, ch);
        assertThrows(IllegalStateException.class, ch::close);
        cq.close();
        AtomicReference<Throwable> waiter = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                ch.awaitEvent(30, TimeUnit.SECONDS);
            } catch (Throwable e) {
                waiter.set(e);
            }
        });
        t.start();
        Thread.sleep(50);
        ch.close();
        t.join(5000);
        assertFalse(t.isAlive());
        assertTrue(waiter.get() instanceof IllegalStateException, String.valueOf(waiter.get()));
        assertThrows(IllegalStateException.class, () -> cq.poll(wc));
    }

    @Test
    void concurrentProducersLoseNothingAndDuplicateNothing() throws Exception {
        SoftCompletionQueue cq = cq(1024, null);
        int producers = 3;
        int each = 20_000;
        Thread[] threads = new Thread[producers];
        for (int p = 0; p < producers; p++) {
            int id = p;
            threads[p] = new Thread(() -> {
                for (int i = 0; i < each; i++) {
                    while (!cq.complete(((long) id << 32) | i, OK, 0, 0, 0, id, 0, false)) {
                        Thread.onSpinWait(); // full: the poller catches up (an overrun here only in this test)
                    }
                }
            });
            threads[p].start();
        }
        int[] next = new int[producers];
        int total = 0;
        int idle = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (total < producers * each && System.nanoTime() < deadline) {
            int n = cq.poll(wc);
            for (int i = 0; i < n; i++) {
                int id = (int) (wc.wrId(i) >>> 32);
                assertEquals(next[id]++, (int) wc.wrId(i), "each producer's completions in its order");
            }
            total += n;
            if (n == 0 && ++idle % 16 == 0) {
                try {
                    cq.resize(idle % 32 == 0 ? 2048 : 1024); // a resize racing the producers keeps every entry
                } catch (VerbsException e) {
                    assertEquals(22, e.errno()); // more queued than 1024 meanwhile
                }
            }
        }
        for (Thread t : threads) {
            t.join();
        }
        assertEquals(producers * each, total);
    }

    @Test
    void completingAndPollingAllocateNothing() {
        java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        assumeTrue(bean instanceof com.sun.management.ThreadMXBean, "no com.sun.management.ThreadMXBean");
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) bean;
        assumeTrue(mx.isThreadAllocatedMemorySupported());
        mx.setThreadAllocatedMemoryEnabled(true);
        SoftCompletionQueue cq = cq(64, null);
        long sum = 0;
        for (int round = 0; round < 3; round++) {
            long before = mx.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 100_000; i++) {
                cq.complete(i, OK, 0, 64, 0, 1, 0, false);
                sum += cq.poll(wc);
            }
            long bytes = mx.getCurrentThreadAllocatedBytes() - before;
            if (round == 2) {
                assertTrue(bytes < 4096, bytes + " bytes allocated by 100 000 completions and polls");
            }
        }
        assertEquals(300_000, sum);
    }
}
