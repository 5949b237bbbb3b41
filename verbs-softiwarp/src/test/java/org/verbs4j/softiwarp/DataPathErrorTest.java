package org.verbs4j.softiwarp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.verbs4j.api.Access;
import org.verbs4j.api.AsyncEvent;
import org.verbs4j.api.AsyncEventType;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.Opcode;
import org.verbs4j.api.QpState;
import org.verbs4j.api.ReceiveRequests;
import org.verbs4j.api.SendFlags;
import org.verbs4j.api.SendRequests;
import org.verbs4j.api.VerbsException;
import org.verbs4j.api.WcOpcode;
import org.verbs4j.api.WcStatus;
import org.verbs4j.api.WorkCompletions;
import org.verbs4j.api.internal.RawMemory;

/** What a peer may not do, and what happens to the QPs when it tries or goes away. */
class DataPathErrorTest {
    private final SendRequests sends = SendRequests.allocate(8, 4);
    private final ReceiveRequests recvs = ReceiveRequests.allocate(8, 4);
    private final WorkCompletions wc = WorkCompletions.allocate(16);
    private final java.util.List<AutoCloseable> toClose = new java.util.ArrayList<>();
    private final BlockingQueue<AsyncEvent> eventsA = new LinkedBlockingQueue<>();
    private final BlockingQueue<AsyncEvent> eventsB = new LinkedBlockingQueue<>();
    private ConnectedPair pair;

    @AfterEach
    void closeAll() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        if (pair != null) {
            pair.close();
        }
        sends.close();
        recvs.close();
        wc.close();
    }

    private ConnectedPair pair() throws Exception {
        pair = new ConnectedPair(16, DataPathTest.SETTINGS);
        pair.a.ctx.setAsyncEventListener(eventsA::add);
        pair.b.ctx.setAsyncEventListener(eventsB::add);
        return pair;
    }

    private MemoryRegion mr(ConnectedPair.Side s, int length, int access) {
        MemoryRegion m = s.memory(length, access);
        toClose.add(m);
        return m;
    }

    private static void assertZero(MemoryRegion m) {
        for (long i = 0; i < m.length(); i++) {
            if (RawMemory.getByte(m.address() + i) != 0) {
                throw new AssertionError("byte " + i + " was written");
            }
        }
    }

    private static void assertEnded(ConnectedPair.Side s) throws InterruptedException {
        assertTrue(s.ended.await(5, TimeUnit.SECONDS), "onEnd ran");
        assertEquals(QpState.ERR, s.qp.state());
        assertEquals(1, s.endRuns.get(), "onEnd ran once");
    }

    private static void assertEvent(BlockingQueue<AsyncEvent> events, AsyncEventType type)
            throws InterruptedException {
        AsyncEvent e = events.poll(5, TimeUnit.SECONDS);
        assertTrue(e != null && e.type() == type, type + ", got " + e);
    }

    /** As siw: a Terminate received moves the QP to ERR with no async event. */
    private static void assertNoEvent(BlockingQueue<AsyncEvent> events) throws InterruptedException {
        assertEquals(null, events.poll(100, TimeUnit.MILLISECONDS));
    }

    /** A Write the target refuses: nothing lands, both QPs end in ERR with QP_FATAL, later work is flushed. */
    private void refusedWrite(int rkeyDelta, long offset, int access) throws Exception {
        ConnectedPair p = pair();
        MemoryRegion src = mr(p.a, 8192, Access.LOCAL_WRITE);
        RawMemory.fill(src.address(), 8192, (byte) 0x5a);
        MemoryRegion target = mr(p.b, 4096, access);
        sends.count(1).at(0).clear().wrId(1).opcode(Opcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                .sge(src, 0, 4096).rdma(target.address() + offset, target.rkey() + rkeyDelta);
        p.a.qp.postSend(sends);
        p.a.await(wc, 1);
        assertEquals(WcStatus.SUCCESS, wc.status(0), "a Write completes once sent, as in siw");
        assertEnded(p.b);
        assertEnded(p.a);
        assertEvent(eventsB, AsyncEventType.QP_ACCESS_ERR);
        assertNoEvent(eventsA);
        assertZero(target);
        sends.at(0).clear().wrId(2).opcode(Opcode.SEND).sge(src, 0, 1);
        p.a.qp.postSend(sends);
        p.a.await(wc, 1);
        assertEquals(WcStatus.WR_FLUSH_ERR, wc.status(0));
        assertEquals(2, wc.wrId(0));
    }

    @Test
    void aWriteWithAWrongRkeyIsRefused() throws Exception {
        refusedWrite(1, 0, ConnectedPair.ALL);
    }

    @Test
    void aWriteOutOfBoundsPlacesNothingOutsideTheRegion() throws Exception {
        ConnectedPair p = pair();
        MemoryRegion src = mr(p.a, 8192, Access.LOCAL_WRITE);
        RawMemory.fill(src.address(), 8192, (byte) 0x5a);
        // the region is the middle 4 KiB of 12 KiB of memory: the guard pages around it must stay zero
        MemoryRegion memory = mr(p.b, 3 * 4096, Access.LOCAL_WRITE);
        MemoryRegion region = p.b.pd.registerMemory(memory.address() + 4096, 4096, ConnectedPair.ALL);
        toClose.add(region);
        sends.count(1).at(0).clear().wrId(1).opcode(Opcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                .sge(src, 0, 4096).rdma(region.address() + 1, region.rkey());
        p.a.qp.postSend(sends);
        p.a.await(wc, 1);
        assertEnded(p.b);
        assertEnded(p.a);
        for (int i = 0; i < 4096; i++) {
            assertEquals(0, RawMemory.getByte(memory.address() + i), "before the region");
            assertEquals(0, RawMemory.getByte(memory.address() + 8192 + i), "after the region");
        }
        // a tagged message has no total length on the wire: its segments inside the region are placed (as siw
        // does), the first one reaching outside is refused whole
        assertEquals(0, RawMemory.getByte(memory.address() + 4096 + 4095), "the refused segment placed nothing");
    }

    @Test
    void aWriteIntoARegionWithoutRemoteWriteIsRefused() throws Exception {
        refusedWrite(0, 0, Access.LOCAL_WRITE | Access.REMOTE_READ);
    }

    private void refusedRead(int rkeyDelta, long offset, int length, int access) throws Exception {
        ConnectedPair p = pair();
        MemoryRegion sink = mr(p.a, 8192, Access.LOCAL_WRITE);
        MemoryRegion source = mr(p.b, 4096, access);
        RawMemory.fill(source.address(), 4096, (byte) 0x33);
        sends.count(2);
        sends.at(0).clear().wrId(1).opcode(Opcode.RDMA_READ).flags(SendFlags.SIGNALED).sge(sink, 0, length)
                .rdma(source.address() + offset, source.rkey() + rkeyDelta);
        sends.at(1).clear().wrId(2).opcode(Opcode.RDMA_READ).flags(SendFlags.SIGNALED).sge(sink, 0, 16)
                .rdma(source.address(), source.rkey());
        p.a.qp.postSend(sends);
        p.a.await(wc, 2);
        assertEquals(1, wc.wrId(0));
        assertEquals(WcStatus.REM_ACCESS_ERR, wc.status(0));
        assertEquals(WcOpcode.RDMA_READ, wc.opcode(0));
        assertEquals(2, wc.wrId(1));
        assertEquals(WcStatus.WR_FLUSH_ERR, wc.status(1));
        assertEnded(p.a);
        assertEnded(p.b);
        assertEvent(eventsB, AsyncEventType.QP_REQ_ERR);
        assertZero(sink);
    }

    @Test
    void aReadWithAWrongRkeyFailsWithARemoteAccessError() throws Exception {
        refusedRead(0x100, 0, 64, ConnectedPair.ALL);
    }

    @Test
    void aReadOutOfBoundsFailsWithARemoteAccessError() throws Exception {
        refusedRead(0, 4000, 200, ConnectedPair.ALL);
    }

    @Test
    void aReadOfARegionWithoutRemoteReadFailsWithARemoteAccessError() throws Exception {
        refusedRead(0, 0, 64, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
    }

    @Test
    void aSendWithNoReceivePostedEndsBothQps() throws Exception {
        ConnectedPair p = pair();
        MemoryRegion src = mr(p.a, 64, Access.LOCAL_WRITE);
        sends.count(1).at(0).clear().wrId(1).opcode(Opcode.SEND).sge(src, 0, 8);
        p.a.qp.postSend(sends);
        assertEnded(p.b);
        assertEnded(p.a);
        assertNoEvent(eventsB); // siw raises none for a Send without a receive
        assertNoEvent(eventsA);
    }

    @Test
    void aSendLongerThanTheReceiveFailsItWithALengthError() throws Exception {
        ConnectedPair p = pair();
        MemoryRegion src = mr(p.a, 64, Access.LOCAL_WRITE);
        MemoryRegion dst = mr(p.b, 64, Access.LOCAL_WRITE);
        recvs.count(2);
        recvs.at(0).clear().wrId(7).sge(dst, 0, 16);
        recvs.at(1).clear().wrId(8).sge(dst, 16, 16);
        p.b.qp.postReceive(recvs);
        sends.count(1).at(0).clear().wrId(1).opcode(Opcode.SEND).sge(src, 0, 64);
        p.a.qp.postSend(sends);
        p.b.await(wc, 2);
        assertEquals(7, wc.wrId(0));
        assertEquals(WcStatus.LOC_LEN_ERR, wc.status(0));
        assertEquals(8, wc.wrId(1));
        assertEquals(WcStatus.WR_FLUSH_ERR, wc.status(1));
        assertEnded(p.b);
        assertEnded(p.a);
        assertEvent(eventsB, AsyncEventType.QP_FATAL);
    }

    @Test
    void aPeerThatDisconnectsFlushesTheOutstandingWork() throws Exception {
        ConnectedPair p = pair();
        MemoryRegion dst = mr(p.a, 64, Access.LOCAL_WRITE);
        recvs.count(3);
        for (int i = 0; i < 3; i++) {
            recvs.at(i).clear().wrId(i).sge(dst, i * 16, 16);
        }
        p.a.qp.postReceive(recvs);
        p.b.qp.disconnect();
        p.b.qp.disconnect();
        assertEnded(p.b);
        p.a.await(wc, 3);
        for (int i = 0; i < 3; i++) {
            assertEquals(i, wc.wrId(i));
            assertEquals(WcStatus.WR_FLUSH_ERR, wc.status(i));
            assertEquals(WcOpcode.RECV, wc.opcode(i));
        }
        assertEnded(p.a);
        assertEquals(null, eventsA.poll(100, TimeUnit.MILLISECONDS), "a close is no QP_FATAL");
    }

    @Test
    void aModifyToErrEndsTheConnectionAndAResetForgetsTheWork() throws Exception {
        ConnectedPair p = pair();
        MemoryRegion dst = mr(p.a, 64, Access.LOCAL_WRITE);
        recvs.count(1).at(0).clear().wrId(1).sge(dst, 0, 16);
        p.a.qp.postReceive(recvs);
        MemoryRegion dstB = mr(p.b, 16, Access.LOCAL_WRITE);
        recvs.at(0).clear().wrId(2).sge(dstB, 0, 16);
        p.b.qp.postReceive(recvs);
        p.a.qp.modify(new org.verbs4j.api.QpAttributes().state(QpState.ERR));
        assertEnded(p.a);
        p.a.await(wc, 1);
        assertEquals(WcStatus.WR_FLUSH_ERR, wc.status(0));
        assertTrue(p.b.ended.await(5, TimeUnit.SECONDS), "the peer sees the close");
        p.b.await(wc, 1);
        assertEquals(2, wc.wrId(0));
        assertEquals(WcStatus.WR_FLUSH_ERR, wc.status(0));
        p.a.qp.modify(new org.verbs4j.api.QpAttributes().state(QpState.RESET));
        p.a.qp.modify(new org.verbs4j.api.QpAttributes().state(QpState.INIT));
        assertEquals(1, p.a.endRuns.get());
    }

    @Test
    void aResetOfAConnectedQpClosesTheConnectionWithoutCompletions() throws Exception {
        ConnectedPair p = pair();
        MemoryRegion dst = mr(p.a, 64, Access.LOCAL_WRITE);
        recvs.count(1).at(0).clear().wrId(1).sge(dst, 0, 16);
        p.a.qp.postReceive(recvs);
        p.a.qp.modify(new org.verbs4j.api.QpAttributes().state(QpState.RESET));
        assertTrue(p.a.ended.await(5, TimeUnit.SECONDS));
        assertEquals(QpState.RESET, p.a.qp.state());
        assertEquals(0, p.a.cq.poll(wc));
        assertTrue(p.b.ended.await(5, TimeUnit.SECONDS), "the peer sees the close");
    }

    @Test
    void establishIsRefusedOutsideInitAndRtr() throws Exception {
        ConnectedPair p = pair();
        assertEquals(QpState.RTS, p.a.qp.state());
        VerbsException e = assertThrows(VerbsException.class, () -> p.a.qp.establish(null, null));
        assertEquals(22, e.errno());
    }

    @Test
    void closingAQpWhileAnotherThreadPostsAndPollsThrowsCleanly() throws Exception {
        ConnectedPair p = pair();
        MemoryRegion src = mr(p.a, 4096, Access.LOCAL_WRITE);
        MemoryRegion target = mr(p.b, 4096, ConnectedPair.ALL);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        java.util.concurrent.CountDownLatch running = new java.util.concurrent.CountDownLatch(1);
        Thread poster = new Thread(() -> {
            try (SendRequests s = SendRequests.allocate(1, 1); WorkCompletions w = WorkCompletions.allocate(16)) {
                s.count(1).at(0).clear().opcode(Opcode.RDMA_WRITE).flags(SendFlags.SIGNALED).sge(src, 0, 4096)
                        .rdma(target.address(), target.rkey());
                for (long i = 0; ; i++) {
                    try {
                        s.at(0).wrId(i);
                        p.a.qp.postSend(s);
                    } catch (org.verbs4j.api.PostException full) {
                        // the queue is full until polled
                    }
                    p.a.cq.poll(w);
                    running.countDown();
                }
            } catch (IllegalStateException expected) {
                // the QP is closed: the documented way out
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        poster.start();
        assertTrue(running.await(5, TimeUnit.SECONDS));
        Thread.sleep(50);
        p.a.qp.close();
        poster.join(5000);
        assertTrue(!poster.isAlive());
        assertEquals(null, failure.get());
        assertTrue(p.a.ended.await(5, TimeUnit.SECONDS));
        assertTrue(p.b.ended.await(5, TimeUnit.SECONDS), "the peer sees the close");
        assertThrows(IllegalStateException.class, () -> p.a.qp.postSend(sends));
    }

    @Test
    void closingATargetQpDuringWritesIsSafe() throws Exception {
        ConnectedPair p = pair();
        MemoryRegion src = mr(p.a, 65536, Access.LOCAL_WRITE);
        MemoryRegion target = mr(p.b, 65536, ConnectedPair.ALL);
        sends.count(1).at(0).clear().opcode(Opcode.RDMA_WRITE).sge(src, 0, 65536)
                .rdma(target.address(), target.rkey());
        Thread writer = new Thread(() -> {
            try {
                for (int i = 0; i < 100000 && p.a.qp.state() == QpState.RTS; i++) {
                    try {
                        p.a.qp.postSend(sends);
                    } catch (org.verbs4j.api.PostException full) {
                        Thread.onSpinWait();
                    }
                }
            } catch (RuntimeException e) {
                // ended meanwhile
            }
        });
        writer.start();
        Thread.sleep(50);
        p.b.qp.close();
        assertTrue(p.a.ended.await(5, TimeUnit.SECONDS));
        writer.join(5000);
        assertEquals(QpState.ERR, p.a.qp.state());
    }

    @Test
    void disconnectRacingCloseRunsOnEndOnceAndNeverTouchesFreedQueues() throws Exception {
        for (int round = 0; round < 10; round++) {
            ConnectedPair p = new ConnectedPair(16, DataPathTest.SETTINGS);
            try {
                MemoryRegion dst = p.a.memory(64, Access.LOCAL_WRITE);
                try (ReceiveRequests r = ReceiveRequests.allocate(4, 1)) {
                    r.count(4);
                    for (int i = 0; i < 4; i++) {
                        r.at(i).clear().wrId(i).sge(dst, i * 16, 16);
                    }
                    p.a.qp.postReceive(r);
                }
                java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
                Thread disconnector = new Thread(() -> {
                    try {
                        go.await();
                        p.a.qp.disconnect();
                        p.b.qp.disconnect();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                disconnector.start();
                go.countDown();
                p.a.qp.close();
                disconnector.join(5000);
                assertTrue(p.a.ended.await(5, TimeUnit.SECONDS));
                assertTrue(p.b.ended.await(5, TimeUnit.SECONDS));
                assertEquals(1, p.a.endRuns.get());
                assertEquals(1, p.b.endRuns.get());
                dst.close();
            } finally {
                p.close();
            }
        }
    }

    @Test
    void aReadIntoASinkWithoutLocalWriteFailsLocally() throws Exception {
        ConnectedPair p = pair();
        MemoryRegion sink = mr(p.a, 64, Access.REMOTE_READ); // no LOCAL_WRITE
        MemoryRegion source = mr(p.b, 64, ConnectedPair.ALL);
        RawMemory.fill(source.address(), 64, (byte) 1);
        sends.count(1).at(0).clear().wrId(1).opcode(Opcode.RDMA_READ).sge(sink, 0, 64)
                .rdma(source.address(), source.rkey());
        p.a.qp.postSend(sends);
        p.a.await(wc, 1);
        assertEquals(WcStatus.LOC_PROT_ERR, wc.status(0));
        assertEnded(p.a);
        assertEvent(eventsA, AsyncEventType.QP_ACCESS_ERR);
        assertZero(sink);
    }
}
