package org.verbs4j.softiwarp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;
import org.verbs4j.api.Access;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.Opcode;
import org.verbs4j.api.ReceiveRequests;
import org.verbs4j.api.SendFlags;
import org.verbs4j.api.SendRequests;
import org.verbs4j.api.WorkCompletions;

/** Post and poll in the steady state allocate nothing on the application's thread. */
class DataPathAllocationTest {
    private static final int ROUND_TRIPS = 10_000;
    /** A message sent by a gathering write at {@link #LOOPBACK_MSS}: one segment over the segmenter's minimum. */
    private static final int LARGE = 16384;
    /** FPDUs of loopback's size, as the software device cuts them on {@code lo}. */
    private static final org.verbs4j.softiwarp.wire.MpaSettings LOOPBACK_MSS = DataPathTest.SETTINGS.withSendMss(65484);

    /**
     * Sends of 64 B, copied into the transmit buffer, and of 16 KiB at loopback's MSS, written from the region by a
     * gathering write (one segment, over {@code DdpSegmenter.VIEW_MIN}).
     */
    @Test
    void sendReceiveRoundTripsAllocateNothing() throws Exception {
        sendReceiveRoundTrips(64);
        sendReceiveRoundTrips(LARGE);
    }

    private void sendReceiveRoundTrips(int size) throws Exception {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (ConnectedPair p = new ConnectedPair(16, LOOPBACK_MSS);
                SendRequests sa = SendRequests.allocate(1, 1);
                SendRequests sb = SendRequests.allocate(1, 1);
                ReceiveRequests ra = ReceiveRequests.allocate(1, 1);
                ReceiveRequests rb = ReceiveRequests.allocate(1, 1);
                WorkCompletions wc = WorkCompletions.allocate(4)) {
            MemoryRegion ma = p.a.memory(2 * LARGE, Access.LOCAL_WRITE);
            MemoryRegion mb = p.b.memory(2 * LARGE, Access.LOCAL_WRITE);
            try {
                sa.count(1).at(0).clear().wrId(1).opcode(Opcode.SEND).flags(SendFlags.SIGNALED).sge(ma, 0, size);
                sb.count(1).at(0).clear().wrId(2).opcode(Opcode.SEND).flags(SendFlags.SIGNALED).sge(mb, 0, size);
                ra.count(1).at(0).clear().wrId(3).sge(ma, LARGE, size);
                rb.count(1).at(0).clear().wrId(4).sge(mb, LARGE, size);
                // warm-up: until C2 compiled the loop, the interpreter allocates what escape analysis removes later
                roundTrips(p, sa, sb, ra, rb, wc, 20_000);
                long tid = Thread.currentThread().getId();
                // The progress threads race the poller for the tokens; a rare first loss of a race can deoptimise a
                // method, which then runs interpreted (allocating) until it is compiled again. So the steady state is
                // taken as the best of three windows of 10^4 round trips; each window's bytes are in the message.
                StringBuilder windows = new StringBuilder();
                long best = Long.MAX_VALUE;
                for (int w = 0; w < 3 && best != 0; w++) {
                    long before = mx.getThreadAllocatedBytes(tid);
                    roundTrips(p, sa, sb, ra, rb, wc, ROUND_TRIPS);
                    long after = mx.getThreadAllocatedBytes(tid);
                    long baseline = mx.getThreadAllocatedBytes(tid) - after; // the measurement's own cost (0)
                    best = Math.min(best, after - before - baseline);
                    windows.append(after - before - baseline).append(' ');
                }
                assertEquals(0, best, size + " B: bytes allocated per window of " + ROUND_TRIPS + " round trips: "
                        + windows);
            } finally {
                ma.close();
                mb.close();
            }
        }
    }

    /**
     * Sends of 16 KiB from three regions in turn (as an endpoint's message region and RDMA regions, or rping's
     * buffers, take turns): the gathering write's buffers are kept per region, so the steady state allocates nothing.
     */
    @Test
    void largeSendsFromRegionsInTurnAllocateNothing() throws Exception {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        int regions = 3;
        try (ConnectedPair p = new ConnectedPair(16, LOOPBACK_MSS);
                ReceiveRequests rb = ReceiveRequests.allocate(1, 1);
                WorkCompletions wc = WorkCompletions.allocate(4)) {
            MemoryRegion mb = p.b.memory(LARGE, Access.LOCAL_WRITE);
            MemoryRegion[] from = new MemoryRegion[regions];
            SendRequests[] sends = new SendRequests[regions];
            try {
                for (int k = 0; k < regions; k++) {
                    from[k] = p.a.memory(LARGE, Access.LOCAL_WRITE);
                    sends[k] = SendRequests.allocate(1, 1);
                    sends[k].count(1).at(0).clear().wrId(k).opcode(Opcode.SEND).flags(SendFlags.SIGNALED)
                            .sge(from[k], 0, LARGE);
                }
                rb.count(1).at(0).clear().wrId(9).sge(mb, 0, LARGE);
                long tid = Thread.currentThread().getId();
                StringBuilder windows = new StringBuilder();
                long best = Long.MAX_VALUE;
                for (int w = -1; w < 3 && best != 0; w++) {
                    long before = mx.getThreadAllocatedBytes(tid);
                    int n = w < 0 ? 20_000 : ROUND_TRIPS; // the first pass warms up
                    for (int i = 0; i < n; i++) {
                        p.b.qp.postReceive(rb);
                        p.a.qp.postSend(sends[i % regions]);
                        awaitCompletions(p.b, wc, 1);
                        awaitCompletions(p.a, wc, 1);
                    }
                    long after = mx.getThreadAllocatedBytes(tid);
                    if (w >= 0) {
                        best = Math.min(best, after - before);
                        windows.append(after - before).append(' ');
                    }
                }
                assertEquals(0, best, "bytes allocated per window of " + ROUND_TRIPS + " sends: " + windows);
            } finally {
                for (int k = 0; k < regions; k++) {
                    if (sends[k] != null) {
                        sends[k].close();
                    }
                    if (from[k] != null) {
                        from[k].close();
                    }
                }
                mb.close();
            }
        }
    }

    /**
     * Memory sent from by gathering writes and then deregistered is freed while the QPs live on: neither they nor
     * their connections hold a buffer over it between messages. 64 MiB of direct memory, registered in two PDs (an
     * {@code allocateMemory} region, and its buffer registered again) and sent from by a QP of each, go back once
     * both regions are closed and dropped; the QP goes on sending from another region, data checked.
     */
    @Test
    void aClosedRegionSentFromWithoutACopyIsFreedWhileTheQpsLive() throws Exception {
        java.lang.management.BufferPoolMXBean direct = ManagementFactory
                .getPlatformMXBeans(java.lang.management.BufferPoolMXBean.class).stream()
                .filter(b -> b.getName().equals("direct")).findFirst().orElseThrow();
        int big = 64 << 20;
        try (ConnectedPair p = new ConnectedPair(16, LOOPBACK_MSS);
                ConnectedPair q = new ConnectedPair(16, LOOPBACK_MSS);
                SendRequests s = SendRequests.allocate(1, 1);
                ReceiveRequests r = ReceiveRequests.allocate(1, 1);
                WorkCompletions wc = WorkCompletions.allocate(4)) {
            MemoryRegion pb = p.b.memory(LARGE, Access.LOCAL_WRITE);
            MemoryRegion qb = q.b.memory(LARGE, Access.LOCAL_WRITE);
            MemoryRegion other = p.a.memory(LARGE, Access.LOCAL_WRITE);
            try {
                long before = direct.getMemoryUsed();
                MemoryRegion from = p.a.pd.allocateMemory(big, Access.LOCAL_WRITE);
                assertTrue(direct.getMemoryUsed() >= before + big, "the region is direct memory");
                MemoryRegion fromQ = q.a.pd.registerMemory(from.buffer(), Access.LOCAL_WRITE);
                for (int i = 0; i < 8; i++) {
                    ConnectedPair pair = i % 2 == 0 ? p : q;
                    MemoryRegion to = i % 2 == 0 ? pb : qb;
                    MemoryRegion src = i % 2 == 0 ? from : fromQ;
                    long at = (long) i * 4 * LARGE + 7;
                    for (int k = 0; k < LARGE; k++) {
                        org.verbs4j.api.internal.RawMemory.putByte(from.address() + at + k, (byte) (k * 13 + i));
                    }
                    sendAndCheck(pair, s, r, wc, src, at, to, i);
                }
                from.close();
                fromQ.close();
                from = null;
                fromQ = null;
                long deadline = System.nanoTime() + 20_000_000_000L;
                while (direct.getMemoryUsed() > before + big / 2 && System.nanoTime() < deadline) {
                    System.gc();
                    Thread.sleep(20);
                }
                assertTrue(direct.getMemoryUsed() <= before + big / 2, "the closed region's memory is still held: "
                        + (direct.getMemoryUsed() - before) + " bytes over the level before it");
                for (int k = 0; k < LARGE; k++) {
                    org.verbs4j.api.internal.RawMemory.putByte(other.address() + k, (byte) (k * 13 + 8));
                }
                sendAndCheck(p, s, r, wc, other, 0, pb, 8);
            } finally {
                pb.close();
                qb.close();
                other.close();
            }
        }
    }

    /** One send of {@link #LARGE} bytes from {@code from} at {@code at} over {@code pair}, the bytes checked. */
    private static void sendAndCheck(ConnectedPair pair, SendRequests s, ReceiveRequests r, WorkCompletions wc,
            MemoryRegion from, long at, MemoryRegion to, int seed) {
        r.count(1).at(0).clear().wrId(2).sge(to, 0, LARGE);
        s.count(1).at(0).clear().wrId(1).opcode(Opcode.SEND).flags(SendFlags.SIGNALED).sge(from, at, LARGE);
        pair.b.qp.postReceive(r);
        pair.a.qp.postSend(s);
        awaitCompletions(pair.b, wc, 1);
        awaitCompletions(pair.a, wc, 1);
        for (int k = 0; k < LARGE; k++) {
            assertEquals((byte) (k * 13 + seed), org.verbs4j.api.internal.RawMemory.getByte(to.address() + k),
                    "byte " + k + " of message " + seed);
        }
    }

    /**
     * The RFC 7306 opcodes in the steady state: A writes with immediate to B (B's receive completes as
     * RECV_RDMA_WITH_IMM), B answers with a send with immediate, A fetch-adds B's counter; nothing is allocated.
     */
    @Test
    void immediateDataAndAtomicRoundTripsAllocateNothing() throws Exception {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (ConnectedPair p = new ConnectedPair(16, DataPathTest.SETTINGS.withRfc7306(true));
                SendRequests sa = SendRequests.allocate(2, 1);
                SendRequests sb = SendRequests.allocate(1, 1);
                ReceiveRequests ra = ReceiveRequests.allocate(1, 1);
                ReceiveRequests rb = ReceiveRequests.allocate(1, 1);
                WorkCompletions wc = WorkCompletions.allocate(4)) {
            MemoryRegion ma = p.a.memory(4096, Access.LOCAL_WRITE);
            MemoryRegion mb = p.b.memory(4096, Access.ALL_REMOTE);
            try {
                sa.count(2);
                sa.at(0).clear().wrId(1).opcode(Opcode.RDMA_WRITE_WITH_IMM).flags(SendFlags.SIGNALED).immData(7)
                        .sge(ma, 0, 64).rdma(mb.address() + 2048, mb.rkey());
                sa.at(1).clear().wrId(5).opcode(Opcode.ATOMIC_FETCH_AND_ADD).flags(SendFlags.SIGNALED)
                        .sge(ma, 512, 8).atomic(mb.address() + 8, mb.rkey(), 1L, 0L);
                sb.count(1).at(0).clear().wrId(2).opcode(Opcode.SEND_WITH_IMM).flags(SendFlags.SIGNALED).immData(9)
                        .sge(mb, 0, 64);
                ra.count(1).at(0).clear().wrId(3).sge(ma, 1024, 64);
                rb.count(1).at(0).clear().wrId(4).sge(mb, 1024, 64);
                roundTrips(p, sa, sb, ra, rb, wc, 20_000, 3);
                long tid = Thread.currentThread().getId();
                StringBuilder windows = new StringBuilder();
                long best = Long.MAX_VALUE;
                int runs = 0;
                for (int w = 0; w < 3 && best != 0; w++) {
                    long before = mx.getThreadAllocatedBytes(tid);
                    roundTrips(p, sa, sb, ra, rb, wc, ROUND_TRIPS, 3);
                    runs++;
                    long after = mx.getThreadAllocatedBytes(tid);
                    long baseline = mx.getThreadAllocatedBytes(tid) - after;
                    best = Math.min(best, after - before - baseline);
                    windows.append(after - before - baseline).append(' ');
                }
                assertEquals(0, best, "bytes allocated per window of " + ROUND_TRIPS + " round trips: " + windows);
                assertEquals(20_000L + (long) runs * ROUND_TRIPS,
                        org.verbs4j.api.internal.RawMemory.getLong(mb.address() + 8), "every fetch-add landed");
            } finally {
                ma.close();
                mb.close();
            }
        }
    }

    /**
     * Event-driven round trips (each side arms its CQ, polls once more, waits on its channel): the waiting thread
     * sleeps on its QP's socket and delivers what wakes it (a selector, a completion, the channel's event), and
     * allocates nothing doing so.
     */
    @Test
    void eventDrivenRoundTripsAllocateNothing() throws Exception {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        int warmUp = 20_000;
        int window = 5_000;
        int total = warmUp + 3 * window;
        try (ConnectedPair p = new ConnectedPair(16, DataPathTest.SETTINGS, true, false, false);
                SendRequests sa = SendRequests.allocate(1, 1);
                ReceiveRequests ra = ReceiveRequests.allocate(1, 1);
                WorkCompletions wc = WorkCompletions.allocate(1)) {
            MemoryRegion ma = p.a.memory(4096, Access.LOCAL_WRITE);
            MemoryRegion mb = p.b.memory(4096, Access.LOCAL_WRITE);
            java.util.concurrent.atomic.AtomicReference<Throwable> echoFailed =
                    new java.util.concurrent.atomic.AtomicReference<>();
            Thread echo = new Thread(() -> {
                try (SendRequests sb = SendRequests.allocate(1, 1); ReceiveRequests rb = ReceiveRequests.allocate(1, 1);
                        WorkCompletions w = WorkCompletions.allocate(1)) {
                    sb.count(1).at(0).clear().wrId(2).opcode(Opcode.SEND).sge(mb, 0, 64);
                    for (int i = 0; i < total; i++) {
                        DataPathTest.awaitByEvent(p.b, w, i);
                        rb.count(1).at(0).clear().wrId(i + 1).sge(mb, 1024, 64);
                        p.b.qp.postReceive(rb);
                        p.b.qp.postSend(sb);
                    }
                } catch (Throwable t) {
                    echoFailed.set(t);
                }
            }, "echo, waiting on its channel");
            try {
                try (ReceiveRequests first = ReceiveRequests.allocate(1, 1)) {
                    first.count(1).at(0).clear().wrId(0).sge(mb, 1024, 64);
                    p.b.qp.postReceive(first); // before A's first send (iWARP: no receive-not-ready retry)
                }
                echo.start();
                sa.count(1).at(0).clear().wrId(1).opcode(Opcode.SEND).sge(ma, 0, 64);
                int done = 0;
                done = eventRoundTrips(p, sa, ra, ma, wc, done, warmUp);
                long tid = Thread.currentThread().getId();
                StringBuilder windows = new StringBuilder();
                long best = Long.MAX_VALUE;
                for (int w = 0; w < 3; w++) {
                    long before = mx.getThreadAllocatedBytes(tid);
                    done = eventRoundTrips(p, sa, ra, ma, wc, done, window);
                    long after = mx.getThreadAllocatedBytes(tid);
                    long baseline = mx.getThreadAllocatedBytes(tid) - after;
                    best = Math.min(best, after - before - baseline);
                    windows.append(after - before - baseline).append(' ');
                }
                echo.join(10_000);
                if (echoFailed.get() != null) {
                    throw new AssertionError("the echo side failed", echoFailed.get());
                }
                assertEquals(0, best, "bytes allocated per window of " + window + " event-driven round trips: " + windows);
            } finally {
                echo.join(10_000);
                ma.close();
                mb.close();
            }
        }
    }

    /** A's side of {@code n} event-driven round trips from number {@code done} on. {@return the count after them} */
    private static int eventRoundTrips(ConnectedPair p, SendRequests sa, ReceiveRequests ra, MemoryRegion ma,
            WorkCompletions wc, int done, int n) {
        for (int i = done; i < done + n; i++) {
            ra.count(1).at(0).clear().wrId(i).sge(ma, 1024, 64);
            p.a.qp.postReceive(ra);
            p.a.qp.postSend(sa);
            DataPathTest.awaitByEvent(p.a, wc, i);
        }
        return done + n;
    }

    /** A sends to B, B answers; each side polls its CQ for its send and receive completions. */
    private static void roundTrips(ConnectedPair p, SendRequests sa, SendRequests sb, ReceiveRequests ra,
            ReceiveRequests rb, WorkCompletions wc, int n) {
        roundTrips(p, sa, sb, ra, rb, wc, n, 2);
    }

    /** As above; {@code aCompletions}: A's completions per round (its sends and its receive). */
    private static void roundTrips(ConnectedPair p, SendRequests sa, SendRequests sb, ReceiveRequests ra,
            ReceiveRequests rb, WorkCompletions wc, int n, int aCompletions) {
        for (int i = 0; i < n; i++) {
            p.a.qp.postReceive(ra);
            p.b.qp.postReceive(rb);
            p.a.qp.postSend(sa);
            awaitCompletions(p.b, wc, 1); // B's receive
            p.b.qp.postSend(sb);
            awaitCompletions(p.a, wc, aCompletions); // A's sends and receive
            awaitCompletions(p.b, wc, 1); // B's send
        }
    }

    private static void awaitCompletions(ConnectedPair.Side s, WorkCompletions wc, int n) {
        int got = 0;
        long spins = 0;
        while (got < n) {
            int k = s.cq.poll(wc, n - got);
            for (int j = 0; j < k; j++) {
                if (!wc.ok(j)) {
                    throw new AssertionError("completion failed: " + wc.status(j));
                }
            }
            got += k;
            if (++spins > 2_000_000_000L) {
                throw new AssertionError("no completion");
            }
        }
    }
}
