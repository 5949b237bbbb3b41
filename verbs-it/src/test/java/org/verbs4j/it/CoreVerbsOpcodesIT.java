package org.verbs4j.it;

import org.verbs4j.lab.QpPair;

import org.verbs4j.lab.Lab;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.verbs4j.lab.QpPair.pattern;
import static org.verbs4j.lab.QpPair.take;
import static org.verbs4j.lab.QpPair.takeOne;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.stream.Stream;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.Opcode;
import org.verbs4j.api.PostException;
import org.verbs4j.api.QueuePair;
import org.verbs4j.api.ReceiveRequests;
import org.verbs4j.api.SendFlags;
import org.verbs4j.api.SendRequests;
import org.verbs4j.api.TransportType;
import org.verbs4j.api.WcFlags;
import org.verbs4j.api.WcOpcode;
import org.verbs4j.api.WcStatus;
import org.verbs4j.api.internal.RawMemory;
import org.verbs4j.lab.QpPair.Wc;

/**
 * Every send opcode of an RC queue pair moves real bytes, and the completions on both sides carry the right
 * wr_id, status, opcode, byte_len, immediate data and QP number. Plus scatter/gather, inline data, unsignaled
 * requests, chains and zero-byte messages. Runs on every lab device; atomics only where the device
 * reports atomic support, immediate data only where the connection has it: InfiniBand transport always, iWARP only
 * with RFC 7306 (the software iWARP device between two verbs4j peers; never Linux siw, which refuses at post).
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class CoreVerbsOpcodesIT {
    private static final int IMM = 0xCAFEBABE;

    /** Asserts a successful completion with the given fields; {@code byteLen} -1 skips that check. */
    static void expectOk(Wc w, long wrId, WcOpcode opcode, int byteLen, QueuePair qp, String what) {
        assertEquals(WcStatus.SUCCESS, w.status(), what + ": " + w);
        assertEquals(wrId, w.wrId(), what + " wr_id: " + w);
        assertEquals(opcode, w.opcode(), what + " opcode: " + w);
        if (byteLen >= 0) {
            assertEquals(byteLen, w.byteLen(), what + " byte_len: " + w);
        }
        assertEquals(qp.qpNumber(), w.qpNum(), what + " qp_num: " + w);
    }

    /**
     * Posts on A; where the connection refuses the opcode (immediate data on iWARP without RFC 7306: Linux siw) the
     * test is skipped, with why. An iWARP device that reports atomics speaks RFC 7306 (the software iWARP device,
     * whose two QPs here are both verbs4j), so it must accept immediate data too.
     */
    static void postNeedingImm(QpPair p, SendRequests s, String what) {
        try {
            p.a.qp.postSend(s);
        } catch (PostException e) {
            assertNotEquals(TransportType.IB, p.transport, p.device + " is an InfiniBand-transport device and must accept "
                    + what + "; the post failed: " + e.getMessage());
            assertTrue(Lab.isLinuxSiw(p.attrs) || !p.attrs.supportsAtomics(), p.device + " reports atomic_cap "
                    + p.attrs.atomicCap().text() + " (RFC 7306 between verbs4j peers) and must accept " + what
                    + "; the post failed: " + e.getMessage());
            assertTrue(e.getMessage().startsWith("ibv_post_send failed"), e.getMessage());
            assertEquals(0, e.failedIndex(), "the refused request: " + e.getMessage());
            Assumptions.abort(p.device + " (" + p.transport.text() + ") refuses " + what + " at post, with a clear "
                    + "PostException: " + e.getMessage() + ". iWARP's RDMAP (RFC 5040) has no immediate data; "
                    + "RFC 7306 adds it, which this peer did not negotiate.");
        }
        assertFalse(Lab.isLinuxSiw(p.attrs), p.device + " is Linux siw, which has no RFC 7306, yet accepted " + what);
    }

    private static void postReceive(QueuePair qp, ReceiveRequests r, long wrId, MemoryRegion mr, long offset, int length) {
        r.count(1);
        r.at(0).wrId(wrId).sge(mr.address() + offset, length, mr.lkey());
        qp.postReceive(r);
    }

    /**
     * The address of the 8 bytes at {@code offset} in B's region, set to {@code initial}, for an atomic
     * operation; skips the test on a device without atomic operations.
     */
    private static long atomicTarget(QpPair p, long offset, long initial) {
        assumeTrue(p.attrs.supportsAtomics(), p.device + " has atomic_cap " + p.attrs.atomicCap().text()
                + ": no atomic operations");
        p.b.mr.putLong(offset, initial);
        return p.b.mr.address() + offset;
    }

    private static void assertNoCompletion(QpPair.Side s, String why) {
        List<Wc> extra = QpPair.drain(s.cq, 100);
        assertEquals(List.of(), extra, s + ": " + why);
    }

    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void send(String device) {
        try (QpPair p = QpPair.open(device); SendRequests s = SendRequests.allocate(4, 4);
                ReceiveRequests r = ReceiveRequests.allocate(4, 4)) {
            byte[] data = pattern(1000, 1);
            p.a.mr.putBytes(100, data);
            p.b.mr.fill(0, 4096, (byte) 0xee);
            postReceive(p.b.qp, r, 0xB0, p.b.mr, 0, 4096);
            s.at(0).wrId(0xA0).opcode(Opcode.SEND).flags(SendFlags.SIGNALED).sge(p.a.mr.address() + 100, 1000, p.a.mr.lkey());
            p.a.qp.postSend(s);
            expectOk(takeOne(p.a.cq), 0xA0, WcOpcode.SEND, 1000, p.a.qp, "send completion");
            Wc recv = takeOne(p.b.cq);
            expectOk(recv, 0xB0, WcOpcode.RECV, 1000, p.b.qp, "receive completion");
            assertFalse(recv.hasImm(), "a SEND carries no immediate data: " + recv);
            assertArrayEquals(data, p.b.mr.getBytes(0, 1000), "received bytes");
            assertEquals((byte) 0xee, p.b.mr.getBytes(1000, 1)[0], "nothing written past the message");
            assertNoCompletion(p.a, "one completion per signaled request");
            assertNoCompletion(p.b, "one completion per receive");
        }
    }

    /**
     * A message with immediate data: SEND_WITH_IMM lands in the receive's buffer; RDMA_WRITE_WITH_IMM where the
     * write says, and consumes a receive (a small one: its buffer is not used) for the immediate data.
     */
    record WithImm(Opcode op, int length, long landing, long receiveOffset, int receiveLength, WcOpcode sent,
            WcOpcode received) {
    }

    static Stream<Arguments> withImmediateData() {
        return Lab.devicesWith(new WithImm(Opcode.SEND_WITH_IMM, 300, 512, 512, 1024, WcOpcode.SEND, WcOpcode.RECV),
                new WithImm(Opcode.RDMA_WRITE_WITH_IMM, 2000, 4096, 0, 16, WcOpcode.RDMA_WRITE,
                        WcOpcode.RECV_RDMA_WITH_IMM));
    }

    @ParameterizedTest
    @MethodSource("withImmediateData")
    void withImmediateData(String device, WithImm c) {
        try (QpPair p = QpPair.open(device); SendRequests s = SendRequests.allocate(4, 4);
                ReceiveRequests r = ReceiveRequests.allocate(4, 4)) {
            byte[] data = pattern(c.length(), c.op().value());
            p.a.mr.putBytes(0, data);
            postReceive(p.b.qp, r, 0xB1, p.b.mr, c.receiveOffset(), c.receiveLength());
            s.at(0).wrId(0xA1).opcode(c.op()).flags(SendFlags.SIGNALED).immData(IMM)
                    .sge(p.a.mr.address(), c.length(), p.a.mr.lkey());
            if (c.op() == Opcode.RDMA_WRITE_WITH_IMM) {
                s.at(0).rdma(p.b.mr.address() + c.landing(), p.b.mr.rkey());
            }
            postNeedingImm(p, s, c.op().name());
            expectOk(takeOne(p.a.cq), 0xA1, c.sent(), c.length(), p.a.qp, "sender's completion");
            Wc recv = takeOne(p.b.cq);
            // byte_len of RECV_RDMA_WITH_IMM is the length of the write, not of the receive's buffer
            expectOk(recv, 0xB1, c.received(), c.length(), p.b.qp, "receive completion");
            assertTrue(recv.hasImm(), "WITH_IMM flag: " + recv);
            assertEquals(IMM, recv.imm(), "imm_data in host order: " + recv);
            assertArrayEquals(data, p.b.mr.getBytes(c.landing(), c.length()), "received bytes");
        }
    }

    /** RDMA WRITE (A's bytes at {@code localOffset} to B's at {@code remoteOffset}) or READ (the other way). */
    record OneSided(Opcode op, int length, long localOffset, long remoteOffset, WcOpcode completion) {
    }

    static Stream<Arguments> oneSided() {
        return Lab.devicesWith(new OneSided(Opcode.RDMA_WRITE, 5000, 0, 7000, WcOpcode.RDMA_WRITE),
                new OneSided(Opcode.RDMA_READ, 3000, 100, 10000, WcOpcode.RDMA_READ));
    }

    /**
     * The bytes land where the request says and nowhere else (5000 written: several MTUs), and the target
     * consumes no receive and completes nothing.
     */
    @ParameterizedTest
    @MethodSource("oneSided")
    void oneSided(String device, OneSided c) {
        try (QpPair p = QpPair.open(device); SendRequests s = SendRequests.allocate(4, 4)) {
            boolean write = c.op() == Opcode.RDMA_WRITE;
            QpPair.Side source = write ? p.a : p.b;
            QpPair.Side sink = write ? p.b : p.a;
            long sinkOffset = write ? c.remoteOffset() : c.localOffset();
            byte[] data = pattern(c.length(), c.op().value() + 3);
            source.mr.putBytes(write ? c.localOffset() : c.remoteOffset(), data);
            sink.mr.fill(0, 16384, (byte) 0x55);
            // iWARP: the read response is an RDMA write into the sink, so its region needs REMOTE_WRITE
            // (the fixture's buffers have it)
            s.at(0).wrId(0xA2).opcode(c.op()).flags(SendFlags.SIGNALED).sge(p.a.mr.address() + c.localOffset(),
                    c.length(), p.a.mr.lkey()).rdma(p.b.mr.address() + c.remoteOffset(), p.b.mr.rkey());
            p.a.qp.postSend(s);
            expectOk(takeOne(p.a.cq), 0xA2, c.completion(), c.length(), p.a.qp, "requester's completion");
            if (write) {
                // on iWARP the write's completion does not mean placement: a read behind it does (B's bytes 0..8
                // into A's at 15000, away from both targets)
                QpPair.awaitWritesPlaced(p.a.qp, p.a.cq, p.a.mr, 15000, p.b.mr.address(), p.b.mr.rkey());
            }
            assertArrayEquals(data, sink.mr.getBytes(sinkOffset, c.length()), "transferred bytes");
            assertEquals(0x55, sink.mr.getBytes(sinkOffset - 1, 1)[0], "byte before the target untouched");
            assertEquals(0x55, sink.mr.getBytes(sinkOffset + c.length(), 1)[0], "byte after the target untouched");
            assertNoCompletion(p.b, "a one-sided operation completes nothing on the target");
        }
    }

    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void atomicCompareAndSwap(String device) {
        try (QpPair p = QpPair.open(device); SendRequests s = SendRequests.allocate(4, 4)) {
            long remote = atomicTarget(p, 4096, 42L);
            p.a.mr.putLong(0, -1L);
            // compare 42 (equal): swaps in 0x1122334455667788 and returns 42
            s.at(0).wrId(0xA5).opcode(Opcode.ATOMIC_CMP_AND_SWP).flags(SendFlags.SIGNALED)
                    .sge(p.a.mr.address(), 8, p.a.mr.lkey()).atomic(remote, p.b.mr.rkey(), 42L, 0x1122334455667788L);
            p.a.qp.postSend(s);
            expectOk(takeOne(p.a.cq), 0xA5, WcOpcode.COMP_SWAP, 8, p.a.qp, "compare-and-swap completion");
            assertEquals(42L, p.a.mr.getLong(0), "old value returned into the local buffer");
            assertEquals(0x1122334455667788L, p.b.mr.getLong(4096), "remote memory swapped");
            // compare 42 again (now unequal): no swap, returns the current value
            s.at(0).wrId(0xA6).atomic(remote, p.b.mr.rkey(), 42L, 7L);
            p.a.qp.postSend(s);
            expectOk(takeOne(p.a.cq), 0xA6, WcOpcode.COMP_SWAP, 8, p.a.qp, "failed compare-and-swap completion");
            assertEquals(0x1122334455667788L, p.a.mr.getLong(0), "current value returned");
            assertEquals(0x1122334455667788L, p.b.mr.getLong(4096), "remote memory unchanged when compare fails");
        }
    }

    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void atomicFetchAndAdd(String device) {
        try (QpPair p = QpPair.open(device); SendRequests s = SendRequests.allocate(4, 4)) {
            long remote = atomicTarget(p, 8, 1000L);
            for (int i = 0; i < 3; i++) {
                s.at(0).wrId(0xA7 + i).opcode(Opcode.ATOMIC_FETCH_AND_ADD).flags(SendFlags.SIGNALED)
                        .sge(p.a.mr.address() + 64 + i * 8, 8, p.a.mr.lkey()).atomic(remote, p.b.mr.rkey(), 5L, 0L);
                p.a.qp.postSend(s);
                expectOk(takeOne(p.a.cq), 0xA7 + i, WcOpcode.FETCH_ADD, 8, p.a.qp, "fetch-and-add completion " + i);
                assertEquals(1000L + 5L * i, p.a.mr.getLong(64 + i * 8), "old value returned, add " + i);
            }
            assertEquals(1015L, p.b.mr.getLong(8), "remote memory after three adds of 5");
        }
    }

    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void gatherOnSendScatterOnReceive(String device) {
        try (QpPair p = QpPair.open(device); SendRequests s = SendRequests.allocate(4, 4);
                ReceiveRequests r = ReceiveRequests.allocate(4, 4)) {
            assertTrue(p.a.qp.capabilities().maxSendSge() >= 3 && p.b.qp.capabilities().maxRecvSge() >= 3,
                    "asked for 4 SGEs: " + p.a.qp.capabilities());
            byte[] x = pattern(100, 6);
            byte[] y = pattern(300, 7);
            byte[] z = pattern(50, 8);
            p.a.mr.putBytes(0, x);
            p.a.mr.putBytes(1000, y);
            p.a.mr.putBytes(5000, z);
            p.b.mr.fill(0, 8192, (byte) 0x77);
            MemoryRegion bm = p.b.mr;
            r.at(0).wrId(0xB8).sge(0, bm.address(), 200, bm.lkey()).sge(1, bm.address() + 3000, 100, bm.lkey())
                    .sge(2, bm.address() + 6000, 400, bm.lkey()).numSge(3);
            r.count(1);
            p.b.qp.postReceive(r);
            MemoryRegion am = p.a.mr;
            s.at(0).wrId(0xA8).opcode(Opcode.SEND).flags(SendFlags.SIGNALED).sge(0, am.address(), 100, am.lkey())
                    .sge(1, am.address() + 1000, 300, am.lkey()).sge(2, am.address() + 5000, 50, am.lkey()).numSge(3);
            assertEquals(450, s.at(0).totalLength());
            p.a.qp.postSend(s);
            expectOk(takeOne(p.a.cq), 0xA8, WcOpcode.SEND, 450, p.a.qp, "gathered send");
            expectOk(takeOne(p.b.cq), 0xB8, WcOpcode.RECV, 450, p.b.qp, "scattered receive");
            byte[] all = new byte[450];
            System.arraycopy(x, 0, all, 0, 100);
            System.arraycopy(y, 0, all, 100, 300);
            System.arraycopy(z, 0, all, 400, 50);
            // 450 bytes fill the receive's entries in order: 200, then 100, then 150 of the last 400
            byte[] got = new byte[450];
            bm.getBytes(0, got, 0, 200);
            bm.getBytes(3000, got, 200, 100);
            bm.getBytes(6000, got, 300, 150);
            assertArrayEquals(all, got, "bytes gathered from 3 entries, scattered over 3 entries");
            assertEquals(0x77, bm.getBytes(6150, 1)[0], "rest of the last entry untouched");
            assertEquals(0x77, bm.getBytes(200, 1)[0], "between entries untouched");
        }
    }

    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void scatterOnRdmaRead(String device) {
        try (QpPair p = QpPair.open(device); SendRequests s = SendRequests.allocate(4, 4)) {
            int sges = Math.min(3, Math.min(p.attrs.maxSgeRd(), p.a.qp.capabilities().maxSendSge()));
            assumeTrue(sges >= 2, device + " has max_sge_rd " + p.attrs.maxSgeRd() + ": an RDMA read scatters into one "
                    + "entry only");
            byte[] data = pattern(600, 9);
            p.b.mr.putBytes(2048, data);
            MemoryRegion am = p.a.mr;
            s.at(0).wrId(0xA9).opcode(Opcode.RDMA_READ).flags(SendFlags.SIGNALED).sge(0, am.address(), 200, am.lkey())
                    .sge(1, am.address() + 4000, 400, am.lkey()).numSge(2).rdma(p.b.mr.address() + 2048, p.b.mr.rkey());
            p.a.qp.postSend(s);
            expectOk(takeOne(p.a.cq), 0xA9, WcOpcode.RDMA_READ, 600, p.a.qp, "scattered read");
            byte[] got = new byte[600];
            am.getBytes(0, got, 0, 200);
            am.getBytes(4000, got, 200, 400);
            assertArrayEquals(data, got, "read bytes over two entries");
        }
    }

    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void inlineSendNeedsNoRegistrationAndFreesTheBufferAtOnce(String device) {
        try (QpPair p = QpPair.open(device); SendRequests s = SendRequests.allocate(4, 4);
                ReceiveRequests r = ReceiveRequests.allocate(4, 4)) {
            int max = p.a.qp.capabilities().maxInlineData();
            assertTrue(max >= 64, "asked for 64 bytes of inline data, the QP has " + p.a.qp.capabilities());
            int len = Math.min(max, 64);
            byte[] data = pattern(len, 10);
            // unregistered memory, lkey 0: inline data is copied into the work request at post time
            ByteBuffer plain = ByteBuffer.allocateDirect(len + 64);
            long addr = RawMemory.addressOf(plain);
            RawMemory.copyFromArray(data, 0, len, addr);
            postReceive(p.b.qp, r, 0xBA, p.b.mr, 0, 1024);
            s.at(0).wrId(0xAA).opcode(Opcode.SEND).flags(SendFlags.SIGNALED | SendFlags.INLINE).sge(addr, len, 0);
            p.a.qp.postSend(s);
            RawMemory.fill(addr, len, (byte) 0); // reusable at once: the device already has the bytes
            expectOk(takeOne(p.a.cq), 0xAA, WcOpcode.SEND, len, p.a.qp, "inline send");
            expectOk(takeOne(p.b.cq), 0xBA, WcOpcode.RECV, len, p.b.qp, "receive of the inline send");
            assertArrayEquals(data, p.b.mr.getBytes(0, len), "the bytes as they were at post time");

            // more than max_inline_data: libibverbs leaves it to the provider. Either the post is refused, or the
            // provider really copies the bytes (rxe and siw accept max_inline_data + 1 in the lab; see the report)
            ByteBuffer big = ByteBuffer.allocateDirect(max + 1);
            byte[] bigData = pattern(max + 1, 11);
            RawMemory.copyFromArray(bigData, 0, max + 1, RawMemory.addressOf(big));
            postReceive(p.b.qp, r, 0xBB, p.b.mr, 1024, 1024);
            s.at(0).wrId(0xAB).sge(RawMemory.addressOf(big), max + 1, 0);
            try {
                p.a.qp.postSend(s);
            } catch (PostException e) {
                assertEquals(0, e.failedIndex(), e.getMessage());
                assertTrue(e.getMessage().contains("ibv_post_send"), e.getMessage());
                assertNoCompletion(p.a, "a refused post completes nothing");
                return;
            }
            RawMemory.fill(RawMemory.addressOf(big), max + 1, (byte) 0);
            Wc over = takeOne(p.a.cq);
            System.out.println("OBSERVED " + device + ": inline send of max_inline_data + 1 = " + (max + 1)
                    + " bytes accepted: " + over);
            expectOk(over, 0xAB, WcOpcode.SEND, max + 1, p.a.qp, "accepted inline send beyond max_inline_data");
            expectOk(takeOne(p.b.cq), 0xBB, WcOpcode.RECV, max + 1, p.b.qp, "its receive");
            assertArrayEquals(bigData, p.b.mr.getBytes(1024, max + 1), "an accepted inline send delivers its bytes");
        }
    }

    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void unsignaledWritesWithASignaledOneEveryEight(String device) {
        try (QpPair p = QpPair.open(device); SendRequests s = SendRequests.allocate(32, 1)) {
            for (int i = 0; i < 32; i++) {
                p.a.mr.putBytes(i * 64L, pattern(64, 100 + i));
                s.at(i).wrId(i).opcode(Opcode.RDMA_WRITE).flags(i % 8 == 7 ? SendFlags.SIGNALED : 0)
                        .sge(p.a.mr.address() + i * 64L, 64, p.a.mr.lkey()).rdma(p.b.mr.address() + 8192 + i * 64L,
                                p.b.mr.rkey());
            }
            s.count(32);
            p.a.qp.postSend(s);
            List<Wc> wcs = take(p.a.cq, 4);
            for (int k = 0; k < 4; k++) {
                expectOk(wcs.get(k), k * 8 + 7, WcOpcode.RDMA_WRITE, 64, p.a.qp, "signaled write " + k);
            }
            assertNoCompletion(p.a, "unsignaled requests complete silently");
            for (int i = 0; i < 32; i++) {
                assertArrayEquals(pattern(64, 100 + i), p.b.mr.getBytes(8192 + i * 64L, 64), "write " + i);
            }
        }
    }

    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void chainedRequestsCompleteInOrder(String device) {
        int n = 8;
        try (QpPair p = QpPair.open(device); SendRequests s = SendRequests.allocate(n, 1);
                ReceiveRequests r = ReceiveRequests.allocate(n, 1)) {
            for (int i = 0; i < n; i++) {
                r.at(i).wrId(1000 + i).sge(p.b.mr.address() + i * 512L, 512, p.b.mr.lkey());
                p.a.mr.putBytes(i * 512L, pattern(100 + i, 200 + i));
                s.at(i).wrId(2000 + i).opcode(Opcode.SEND).flags(SendFlags.SIGNALED)
                        .sge(p.a.mr.address() + i * 512L, 100 + i, p.a.mr.lkey());
            }
            r.count(n);
            s.count(n);
            p.b.qp.postReceive(r);
            p.a.qp.postSend(s);
            List<Wc> sent = take(p.a.cq, n);
            List<Wc> recv = take(p.b.cq, n);
            for (int i = 0; i < n; i++) {
                expectOk(sent.get(i), 2000 + i, WcOpcode.SEND, 100 + i, p.a.qp, "chained send " + i);
                expectOk(recv.get(i), 1000 + i, WcOpcode.RECV, 100 + i, p.b.qp, "chained receive " + i);
                assertArrayEquals(pattern(100 + i, 200 + i), p.b.mr.getBytes(i * 512L, 100 + i), "message " + i);
            }
        }
    }

    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void zeroByteSend(String device) {
        try (QpPair p = QpPair.open(device); SendRequests s = SendRequests.allocate(4, 4);
                ReceiveRequests r = ReceiveRequests.allocate(4, 4)) {
            p.b.mr.fill(0, 64, (byte) 0x33);
            postReceive(p.b.qp, r, 0xBC, p.b.mr, 0, 64);
            s.at(0).wrId(0xAC).opcode(Opcode.SEND).flags(SendFlags.SIGNALED).numSge(0);
            p.a.qp.postSend(s);
            expectOk(takeOne(p.a.cq), 0xAC, WcOpcode.SEND, 0, p.a.qp, "zero-byte send");
            Wc recv = takeOne(p.b.cq);
            expectOk(recv, 0xBC, WcOpcode.RECV, 0, p.b.qp, "zero-byte receive");
            assertEquals(0x33, p.b.mr.getBytes(0, 1)[0], "buffer untouched");
        }
    }

    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void zeroByteWriteWithImm(String device) {
        try (QpPair p = QpPair.open(device); SendRequests s = SendRequests.allocate(4, 4);
                ReceiveRequests r = ReceiveRequests.allocate(4, 4)) {
            // the receive has a buffer: siw refuses a receive with no SGE (ibv_post_recv returns -EINVAL)
            postReceive(p.b.qp, r, 0xBD, p.b.mr, 0, 16);
            s.at(0).wrId(0xAD).opcode(Opcode.RDMA_WRITE_WITH_IMM).flags(SendFlags.SIGNALED).immData(0x0BADF00D).numSge(0)
                    .rdma(p.b.mr.address(), p.b.mr.rkey());
            postNeedingImm(p, s, "a zero-byte RDMA_WRITE_WITH_IMM");
            expectOk(takeOne(p.a.cq), 0xAD, WcOpcode.RDMA_WRITE, 0, p.a.qp, "zero-byte write");
            Wc recv = takeOne(p.b.cq);
            expectOk(recv, 0xBD, WcOpcode.RECV_RDMA_WITH_IMM, 0, p.b.qp, "its receive");
            assertEquals(0x0BADF00D, recv.imm(), recv.toString());
            assertTrue((recv.flags() & WcFlags.WITH_IMM) != 0, recv.toString());
        }
    }
}
