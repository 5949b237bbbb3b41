package org.verbs4j.softiwarp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.verbs4j.api.Access;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.Opcode;
import org.verbs4j.api.PostException;
import org.verbs4j.api.QpState;
import org.verbs4j.api.ReceiveRequests;
import org.verbs4j.api.SendFlags;
import org.verbs4j.api.SendRequests;
import org.verbs4j.api.WcFlags;
import org.verbs4j.api.WcOpcode;
import org.verbs4j.api.WcStatus;
import org.verbs4j.api.WorkCompletions;
import org.verbs4j.api.internal.RawMemory;
import org.verbs4j.softiwarp.wire.MpaSettings;
import org.verbs4j.lab.Async;

/**
 * RFC 7306 between two soft QPs that negotiated it: immediate data with Sends and Writes, FetchAdd and CmpSwap, the
 * responder's checks, and the refusal at post on a connection that did not negotiate it.
 */
class Rfc7306Test {
    static final MpaSettings ON = DataPathTest.SETTINGS.withRfc7306(true);
    static final int ATOMIC = Access.ALL_REMOTE;

    private final SendRequests sends = SendRequests.allocate(8, 4);
    private final ReceiveRequests recvs = ReceiveRequests.allocate(8, 4);
    private final WorkCompletions wc = WorkCompletions.allocate(16);
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final List<ConnectedPair> pairs = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        for (ConnectedPair p : pairs) {
            p.close();
        }
        sends.close();
        recvs.close();
        wc.close();
    }

    private ConnectedPair pair(MpaSettings settings) throws Exception {
        ConnectedPair p = new ConnectedPair(16, settings);
        pairs.add(p);
        return p;
    }

    private MemoryRegion mr(ConnectedPair.Side s, int length, int access) {
        MemoryRegion m = s.memory(length, access);
        toClose.add(m);
        return m;
    }

    private void postRecv(ConnectedPair.Side s, MemoryRegion m, long at, int length, long id) {
        recvs.count(1).at(0).clear().wrId(id).sge(m, at, length);
        s.qp.postReceive(recvs);
    }

    @Test
    void bothSidesSeeTheNegotiation() throws Exception {
        ConnectedPair p = pair(ON);
        assertTrue(p.a.qp.dataPath().rfc7306());
        assertTrue(p.b.qp.dataPath().rfc7306());
        ConnectedPair off = pair(DataPathTest.SETTINGS);
        assertFalse(off.a.qp.dataPath().rfc7306());
        assertFalse(off.b.qp.dataPath().rfc7306());
        // what the API tells applications (and RdmaEndpoint.supportsImmediateData) follows the negotiation
        assertTrue(p.a.qp.supportsImmediateData() && p.b.qp.supportsImmediateData());
        assertFalse(off.a.qp.supportsImmediateData() || off.b.qp.supportsImmediateData());
    }

    @Test
    void aWriteWithImmediateTakesAReceiveAndASendWithImmediateCarriesItsBits() throws Exception {
        ConnectedPair p = pair(ON);
        MemoryRegion ma = mr(p.a, 8192, Access.LOCAL_WRITE);
        MemoryRegion mb = mr(p.b, 8192, ConnectedPair.ALL);
        for (int i = 0; i < 4000; i++) {
            RawMemory.putByte(ma.address() + i, (byte) (i * 7 + 1));
        }
        postRecv(p.b, mb, 0, 16, 21);
        postRecv(p.b, mb, 512, 1024, 22);
        postRecv(p.b, mb, 1600, 16, 23);
        postRecv(p.b, mb, 1700, 64, 24);

        sends.count(1).at(0).clear().wrId(11).opcode(Opcode.RDMA_WRITE_WITH_IMM).flags(SendFlags.SIGNALED)
                .immData(0xCAFEBABE).sge(ma, 0, 2000).rdma(mb.address() + 4096, mb.rkey());
        p.a.qp.postSend(sends);
        p.a.await(wc, 1);
        assertEquals(WcStatus.SUCCESS, wc.status(0), wc.toString(0));
        assertEquals(WcOpcode.RDMA_WRITE, wc.opcode(0));
        assertEquals(2000, wc.byteLength(0));
        p.b.await(wc, 1);
        assertEquals(WcStatus.SUCCESS, wc.status(0), wc.toString(0));
        assertEquals(21, wc.wrId(0));
        assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, wc.opcode(0));
        assertEquals(2000, wc.byteLength(0), "byte_len of a write with immediate: the write's length");
        assertTrue(wc.hasImmData(0));
        assertEquals(0xCAFEBABE, wc.immData(0));
        for (int i = 0; i < 2000; i++) {
            assertEquals((byte) (i * 7 + 1), RawMemory.getByte(mb.address() + 4096 + i), "byte " + i);
        }
        assertEquals(0, RawMemory.getByte(mb.address()), "the receive's buffer is not written");

        sends.at(0).clear().wrId(12).opcode(Opcode.SEND_WITH_IMM).flags(SendFlags.SIGNALED | SendFlags.SOLICITED)
                .immData(0x12345678).sge(ma, 100, 300);
        p.a.qp.postSend(sends);
        p.a.await(wc, 1);
        assertEquals(WcOpcode.SEND, wc.opcode(0));
        assertEquals(300, wc.byteLength(0));
        p.b.await(wc, 1);
        assertEquals(22, wc.wrId(0), "one receive for a send with immediate");
        assertEquals(WcOpcode.RECV, wc.opcode(0));
        assertEquals(300, wc.byteLength(0));
        assertTrue(wc.hasImmData(0));
        assertEquals(0x12345678, wc.immData(0));
        assertEquals((byte) (100 * 7 + 1), RawMemory.getByte(mb.address() + 512));

        // a zero-byte write with immediate: byte_len 0; then a plain send carries no immediate
        sends.at(0).clear().wrId(13).opcode(Opcode.RDMA_WRITE_WITH_IMM).flags(SendFlags.SIGNALED).immData(-1)
                .numSge(0).rdma(mb.address(), mb.rkey());
        p.a.qp.postSend(sends);
        sends.at(0).clear().wrId(14).opcode(Opcode.SEND).flags(SendFlags.SIGNALED).sge(ma, 0, 8);
        p.a.qp.postSend(sends);
        p.a.await(wc, 2);
        p.b.await(wc, 2);
        assertEquals(23, wc.wrId(0));
        assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, wc.opcode(0));
        assertEquals(0, wc.byteLength(0));
        assertEquals(-1, wc.immData(0));
        assertEquals(24, wc.wrId(1));
        assertEquals(WcOpcode.RECV, wc.opcode(1));
        assertFalse(wc.hasImmData(1), wc.toString(1));
        assertEquals(0, wc.flags(1) & WcFlags.WITH_IMM);
    }

    @Test
    void fetchAddAndCompareSwapReturnTheOldValueAndChangeTheTarget() throws Exception {
        ConnectedPair p = pair(ON);
        MemoryRegion ma = mr(p.a, 4096, Access.LOCAL_WRITE);
        MemoryRegion mb = mr(p.b, 4096, ATOMIC);
        RawMemory.putLong(mb.address() + 8, 1000L);
        for (int i = 0; i < 3; i++) {
            sends.count(1).at(0).clear().wrId(30 + i).opcode(Opcode.ATOMIC_FETCH_AND_ADD).flags(SendFlags.SIGNALED)
                    .sge(ma, 64 + i * 8, 8).atomic(mb.address() + 8, mb.rkey(), 5L, 0L);
            p.a.qp.postSend(sends);
            p.a.await(wc, 1);
            assertEquals(WcStatus.SUCCESS, wc.status(0), wc.toString(0));
            assertEquals(WcOpcode.FETCH_ADD, wc.opcode(0));
            assertEquals(8, wc.byteLength(0));
            assertEquals(1000L + 5 * i, RawMemory.getLong(ma.address() + 64 + i * 8));
        }
        assertEquals(1015L, RawMemory.getLong(mb.address() + 8));

        RawMemory.putLong(mb.address() + 16, 42L);
        sends.at(0).clear().wrId(40).opcode(Opcode.ATOMIC_CMP_AND_SWP).flags(SendFlags.SIGNALED).sge(ma, 0, 8)
                .atomic(mb.address() + 16, mb.rkey(), 42L, 0x1122334455667788L);
        p.a.qp.postSend(sends);
        p.a.await(wc, 1);
        assertEquals(WcOpcode.COMP_SWAP, wc.opcode(0));
        assertEquals(42L, RawMemory.getLong(ma.address()));
        assertEquals(0x1122334455667788L, RawMemory.getLong(mb.address() + 16));
        sends.at(0).atomic(mb.address() + 16, mb.rkey(), 42L, 7L).wrId(41);
        p.a.qp.postSend(sends);
        p.a.await(wc, 1);
        assertEquals(0x1122334455667788L, RawMemory.getLong(ma.address()), "the current value, compare failed");
        assertEquals(0x1122334455667788L, RawMemory.getLong(mb.address() + 16), "unchanged");

        // more atomics than the ORD (4) posted at once: they wait for ORD slots and complete in order
        for (int i = 0; i < 8; i++) {
            sends.at(i).clear().wrId(50 + i).opcode(Opcode.ATOMIC_FETCH_AND_ADD).flags(SendFlags.SIGNALED)
                    .sge(ma, 256 + i * 8, 8).atomic(mb.address() + 8, mb.rkey(), 1L, 0L);
        }
        sends.count(8);
        p.a.qp.postSend(sends);
        p.a.await(wc, 8);
        for (int i = 0; i < 8; i++) {
            assertEquals(50 + i, wc.wrId(i));
            assertEquals(1015L + i, RawMemory.getLong(ma.address() + 256 + i * 8));
        }
        assertEquals(1023L, RawMemory.getLong(mb.address() + 8));
    }

    @Test
    void atomicsAndReadsMixedStayInOrder() throws Exception {
        ConnectedPair p = pair(ON);
        MemoryRegion ma = mr(p.a, 4096, ConnectedPair.ALL);
        MemoryRegion mb = mr(p.b, 4096, ATOMIC);
        RawMemory.putLong(mb.address(), 7L);
        sends.count(3);
        sends.at(0).clear().wrId(1).opcode(Opcode.ATOMIC_FETCH_AND_ADD).flags(SendFlags.SIGNALED).sge(ma, 0, 8)
                .atomic(mb.address(), mb.rkey(), 3L, 0L);
        sends.at(1).clear().wrId(2).opcode(Opcode.RDMA_READ).flags(SendFlags.SIGNALED).sge(ma, 8, 8)
                .rdma(mb.address(), mb.rkey());
        sends.at(2).clear().wrId(3).opcode(Opcode.ATOMIC_CMP_AND_SWP).flags(SendFlags.SIGNALED).sge(ma, 16, 8)
                .atomic(mb.address(), mb.rkey(), 10L, 100L);
        p.a.qp.postSend(sends);
        p.a.await(wc, 3);
        assertEquals(WcOpcode.FETCH_ADD, wc.opcode(0));
        assertEquals(WcOpcode.RDMA_READ, wc.opcode(1));
        assertEquals(WcOpcode.COMP_SWAP, wc.opcode(2));
        assertEquals(7L, RawMemory.getLong(ma.address()));
        assertEquals(10L, RawMemory.getLong(ma.address() + 8), "the read sees the add before it");
        assertEquals(10L, RawMemory.getLong(ma.address() + 16));
        assertEquals(100L, RawMemory.getLong(mb.address()));
    }

    /** Two QPs (two connections, two responders) fetch-add the same counter N times each: exactly 2N, no value twice. */
    @Test
    void twoQpsFetchAddingOneCounterConcurrentlyLoseNothing() throws Exception {
        ConnectedPair p1 = pair(ON);
        ConnectedPair p2 = pair(ON);
        ByteBuffer counter = ByteBuffer.allocateDirect(4096);
        MemoryRegion t1 = p1.b.pd.registerMemory(counter, ATOMIC);
        toClose.add(t1);
        MemoryRegion t2 = p2.b.pd.registerMemory(counter, ATOMIC);
        toClose.add(t2);
        int n = 3000;
        ConcurrentHashMap<Long, Boolean> seen = new ConcurrentHashMap<>();
        CompletableFuture<Void> f1 = Async.run(() -> fetchAdds(p1.a, t1, n, seen));
        CompletableFuture<Void> f2 = Async.run(() -> fetchAdds(p2.a, t2, n, seen));
        f1.get(60, TimeUnit.SECONDS);
        f2.get(60, TimeUnit.SECONDS);
        assertEquals(2L * n, counter.order(java.nio.ByteOrder.nativeOrder()).getLong(0));
        assertEquals(2 * n, seen.size(), "every original value returned once");
    }

    private static void fetchAdds(ConnectedPair.Side s, MemoryRegion target, int n,
            ConcurrentHashMap<Long, Boolean> seen) {
        int window = 4;
        try (SendRequests wr = SendRequests.allocate(window, 1); WorkCompletions got = WorkCompletions.allocate(window)) {
            MemoryRegion local = s.memory(8 * window, Access.LOCAL_WRITE);
            try {
                for (int done = 0; done < n; done += window) {
                    int k = Math.min(window, n - done);
                    wr.count(k);
                    for (int i = 0; i < k; i++) {
                        wr.at(i).clear().wrId(done + i).opcode(Opcode.ATOMIC_FETCH_AND_ADD).flags(SendFlags.SIGNALED)
                                .sge(local, 8L * i, 8).atomic(target.address(), target.rkey(), 1L, 0L);
                    }
                    s.qp.postSend(wr);
                    s.await(got, k);
                    for (int i = 0; i < k; i++) {
                        if (!got.ok(i)) {
                            throw new AssertionError(got.toString(i));
                        }
                        long v = RawMemory.getLong(local.address() + 8L * i);
                        if (seen.put(v, Boolean.TRUE) != null) {
                            throw new AssertionError("the value " + v + " was returned twice");
                        }
                    }
                }
            } finally {
                local.close();
            }
        }
    }

    /** A refused Atomic Request: the requester's completion, the responder's QP in ERR, the target untouched. */
    private void refused(int access, long offset, boolean foreignStag, WcStatus expected) throws Exception {
        ConnectedPair p = pair(ON);
        MemoryRegion ma = mr(p.a, 4096, Access.LOCAL_WRITE);
        MemoryRegion mb = mr(p.b, 4096, access);
        RawMemory.putLong(mb.address() + 64, 77L);
        RawMemory.putLong(ma.address(), -5L);
        int rkey = foreignStag ? mb.rkey() ^ 0x100 : mb.rkey();
        sends.count(1).at(0).clear().wrId(9).opcode(Opcode.ATOMIC_FETCH_AND_ADD).flags(SendFlags.SIGNALED)
                .sge(ma, 0, 8).atomic(mb.address() + offset, rkey, 1L, 0L);
        p.a.qp.postSend(sends);
        p.a.await(wc, 1);
        assertEquals(9, wc.wrId(0));
        assertEquals(expected, wc.status(0), wc.toString(0));
        assertEquals(WcOpcode.FETCH_ADD, wc.opcode(0));
        assertTrue(p.b.ended.await(5, TimeUnit.SECONDS), "the responder sent a Terminate and ended");
        assertTrue(p.a.ended.await(5, TimeUnit.SECONDS), "the requester got the Terminate");
        assertEquals(QpState.ERR, p.b.qp.state());
        assertEquals(QpState.ERR, p.a.qp.state());
        assertEquals(77L, RawMemory.getLong(mb.address() + 64), "the target is untouched");
        for (int i = 0; i < 4096; i += 8) {
            if (i != 64) {
                assertEquals(0L, RawMemory.getLong(mb.address() + i), "byte " + i + " of the target region");
            }
        }
        assertEquals(-5L, RawMemory.getLong(ma.address()), "nothing returned into the local buffer");
    }

    @Test
    void anAtomicWithoutRemoteAtomicAccessIsRefused() throws Exception {
        refused(ConnectedPair.ALL, 64, false, WcStatus.REM_ACCESS_ERR);
    }

    @Test
    void anUnalignedAtomicIsRefused() throws Exception {
        refused(ATOMIC, 68, false, WcStatus.REM_OP_ERR);
    }

    @Test
    void anAtomicOutOfBoundsIsRefused() throws Exception {
        refused(ATOMIC, 4096, false, WcStatus.REM_ACCESS_ERR);
    }

    @Test
    void anAtomicOnAnUnknownStagIsRefused() throws Exception {
        refused(ATOMIC, 64, true, WcStatus.REM_ACCESS_ERR);
    }

    @Test
    void anAtomicWithoutItsEightLocalBytesIsRefusedAtPost() throws Exception {
        ConnectedPair p = pair(ON);
        MemoryRegion ma = mr(p.a, 4096, Access.LOCAL_WRITE);
        sends.count(1).at(0).clear().wrId(9).opcode(Opcode.ATOMIC_CMP_AND_SWP).sge(ma, 0, 4)
                .atomic(0, 0, 1L, 2L);
        PostException e = assertThrows(PostException.class, () -> p.a.qp.postSend(sends));
        assertTrue(e.getMessage().contains("8 bytes"), e.getMessage());
        sends.at(0).numSge(0);
        assertThrows(PostException.class, () -> p.a.qp.postSend(sends));
        assertEquals(0, p.a.qp.sendQueue().size());
    }

    /** Without RFC 7306 on the connection (a peer like Linux siw), the four opcodes are refused at post. */
    @Test
    void withoutTheNegotiationTheExtensionsAreRefusedAtPostAndNothingIsSent() throws Exception {
        ConnectedPair p = pair(DataPathTest.SETTINGS.withRfc7306(false));
        MemoryRegion ma = mr(p.a, 4096, ConnectedPair.ALL);
        MemoryRegion mb = mr(p.b, 4096, ATOMIC);
        for (Opcode op : new Opcode[] {Opcode.RDMA_WRITE_WITH_IMM, Opcode.SEND_WITH_IMM, Opcode.ATOMIC_FETCH_AND_ADD,
                Opcode.ATOMIC_CMP_AND_SWP}) {
            sends.count(1).at(0).clear().wrId(1).opcode(op).flags(SendFlags.SIGNALED).sge(ma, 0, 8);
            if (op == Opcode.RDMA_WRITE_WITH_IMM) {
                sends.at(0).rdma(mb.address(), mb.rkey());
            } else if (op != Opcode.SEND_WITH_IMM) {
                sends.at(0).atomic(mb.address(), mb.rkey(), 1, 2);
            }
            PostException e = assertThrows(PostException.class, () -> p.a.qp.postSend(sends), op.name());
            assertEquals(22, e.errno());
            assertEquals(0, e.failedIndex());
            assertTrue(e.getMessage().startsWith("ibv_post_send failed"), e.getMessage());
            assertTrue(e.getMessage().contains(op.name()) && e.getMessage().contains("did not negotiate")
                    && e.getMessage().contains("RFC 7306"), e.getMessage());
            assertEquals(0, p.a.qp.sendQueue().size(), "nothing queued");
        }
        // the connection is intact and the peer saw nothing: the first message it gets is a plain send
        postRecv(p.b, mb, 0, 64, 5);
        sends.at(0).clear().wrId(2).opcode(Opcode.SEND).flags(SendFlags.SIGNALED).sge(ma, 0, 8);
        p.a.qp.postSend(sends);
        p.b.await(wc, 1);
        assertEquals(5, wc.wrId(0));
        assertEquals(WcOpcode.RECV, wc.opcode(0));
        assertFalse(wc.hasImmData(0));
        assertEquals(0L, RawMemory.getLong(mb.address() + 8));
    }

    @Test
    void partitionedFetchAddDropsTheCarryAtTheMask() {
        assertEquals(3L, QpDataPath.add(1L, 2L, 0L));
        assertEquals(-1L + 5L, QpDataPath.add(-1L, 5L, 0L));
        // two 32-bit fields: the low one overflows, its carry does not reach the high one
        long a = 0x00000001_FFFFFFFFL;
        assertEquals(0x00000002_00000000L, QpDataPath.add(a, 1L, 0L));
        assertEquals(0x00000001_00000000L, QpDataPath.add(a, 1L, 1L << 31));
        assertEquals(0x00000002_00000000L, QpDataPath.add(a, 0x00000001_00000001L, 1L << 31));
    }
}
