package org.verbs4j.softiwarp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.verbs4j.api.Access;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.Opcode;
import org.verbs4j.api.QpAttributes;
import org.verbs4j.api.QpInitAttributes;
import org.verbs4j.api.QpState;
import org.verbs4j.api.QpType;
import org.verbs4j.api.SendFlags;
import org.verbs4j.api.SendRequests;
import org.verbs4j.api.WcStatus;
import org.verbs4j.api.WorkCompletions;
import org.verbs4j.softiwarp.wire.MpaConnection;
import org.verbs4j.softiwarp.wire.MpaSettings;
import org.verbs4j.lab.Async;

/**
 * A hostile iWARP peer against a connected QP, for a fixed time budget, seed printed: after a correct MPA
 * handshake it sends Writes, Read Requests and Sends aimed in and around a registered region (right and wrong
 * STags, offsets before, inside and past the region, lengths up to 64 KiB), truncated, bit-flipped and random
 * frames; half the streams negotiate RFC 7306 and add Atomic Requests (any operation code, aligned or not, in and
 * around the region, with bodies of the right length or too short or too long), Immediate Data with any mark and
 * unasked-for Atomic Responses (on the other half those opcodes must be refused as unexpected). The region sits between two guard zones of the same direct buffer: no guard byte may ever change, and
 * no guard byte may ever come back to the peer in a Read Response. The QP may end (a Terminate, ERR), never the
 * JVM, and after the whole budget the same listener still serves a good peer, whose RDMA READ of the region the
 * progress thread answers (so that thread survived too).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DataPathFuzzTest {
    private static final long BUDGET_NANOS = TimeUnit.MILLISECONDS.toNanos(2500);
    private static final long SEED = Long.getLong("verbs4j.fuzz.seed", System.nanoTime());
    private static final int REGION = 16 * 1024;
    private static final int GUARD = 16 * 1024;
    private static final byte GUARD_BYTE = 0x5A;
    /** Payload bytes are below this, so a run of guard bytes in what the peer receives can only be a leak. */
    private static final int PAYLOAD_BYTE_BOUND = 0x40;
    private static final int LEAK_RUN = 16;
    /** RDMAP's SEND (RFC 5040). */
    private static final int OP_SEND = 3;
    /** RFC 7306's Immediate Data, Immediate Data with SE, Atomic Request and Atomic Response. */
    private static final int OP_IMMEDIATE = 8;
    private static final int OP_ATOMIC_REQUEST = 10;
    private static final int OP_ATOMIC_RESPONSE = 11;

    @Test
    void hostileStreamsNeverTouchMemoryOutsideTheRegionAndTheListenerServesAGoodPeerAfter() throws Exception {
        System.out.println("DataPathFuzzTest seed " + SEED + " (-Dverbs4j.fuzz.seed=" + SEED + " to repeat)");
        Random rnd = new Random(SEED);
        ByteBuffer block = ByteBuffer.allocateDirect(GUARD + REGION + GUARD);
        for (int i = 0; i < block.capacity(); i++) {
            block.put(i, GUARD_BYTE);
        }
        ConnectedPair.Side target = new ConnectedPair.Side(16, false, false, false);
        MemoryRegion mr = target.pd.registerMemory(block.slice(GUARD, REGION), Access.ALL_REMOTE);
        mr.putBytes(0, new byte[REGION]);
        byte[] guardsBefore = guards(block);
        int streams = 0;
        try (ServerSocketChannel listener = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             WorkCompletions wc = WorkCompletions.allocate(32)) {
            long end = System.nanoTime() + BUDGET_NANOS;
            while (System.nanoTime() < end) {
                hostileStream(listener, target, mr, rnd, wc);
                streams++;
                assertArrayEquals(guardsBefore, guards(block), "a guard byte changed (seed " + SEED + ", stream "
                        + streams + ")");
            }
            // the streams did reach placement: some Writes inside the region landed (payload bytes are non-zero
            // mostly), so the guards stayed intact while the target was really writing next to them
            assertFalse(java.util.Arrays.equals(new byte[REGION], mr.getBytes(0, REGION)),
                    "no hostile Write was placed in " + streams + " streams: the test did not reach the data path");
            goodPeerReadsTheRegion(listener, target, mr);
        } finally {
            mr.close();
            target.close();
        }
        assertArrayEquals(guardsBefore, guards(block), "seed " + SEED);
        assertTrue(streams >= 5, "only " + streams + " hostile streams in the budget");
        System.out.println("DataPathFuzzTest: " + streams + " hostile streams");
    }

    /** One connection: MPA by hand, a burst of hostile frames, the target QP destroyed after. */
    private static void hostileStream(ServerSocketChannel listener, ConnectedPair.Side target, MemoryRegion mr,
            Random rnd, WorkCompletions wc) throws Exception {
        SoftQueuePair qp = newQp(target);
        CountDownLatch ended = new CountDownLatch(1);
        CompletableFuture<MpaConnection> accepted = accept(listener);
        try (SocketChannel peer = SocketChannel.open(listener.getLocalAddress())) {
            mpaRequest(peer, rnd.nextBoolean());
            qp.establish(accepted.get(10, TimeUnit.SECONDS), ended::countDown);
            peer.configureBlocking(false);
            ByteBuffer out = ByteBuffer.allocate(1 << 18);
            int frames = 1 + rnd.nextInt(8);
            int[] msn = {1, 1, 1, 1};
            for (int f = 0; f < frames; f++) {
                hostileFrame(out, rnd, mr, msn);
            }
            out.flip();
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
            ByteBuffer in = ByteBuffer.allocate(1 << 18);
            while (System.nanoTime() < deadline && (out.hasRemaining() || ended.getCount() > 0)) {
                try {
                    peer.write(out);
                    if (peer.read(in) < 0) {
                        break;
                    }
                } catch (IOException closedByTheTarget) {
                    break;
                }
                if (!in.hasRemaining()) {
                    noGuardRun(in.flip());
                    in.clear();
                }
                target.cq.poll(wc, wc.capacity());
            }
            noGuardRun(in.flip());
        } finally {
            qp.close();
            while (target.cq.poll(wc, wc.capacity()) > 0) {
                // drain: flushed receives, error completions
            }
        }
    }

    private static SoftQueuePair newQp(ConnectedPair.Side target) {
        SoftQueuePair qp = (SoftQueuePair) target.pd.createQueuePair(new QpInitAttributes(QpType.RC, target.cq,
                target.cq).maxSendWr(16).maxRecvWr(16).maxSendSge(1).maxRecvSge(1));
        qp.modify(new QpAttributes().state(QpState.INIT));
        return qp;
    }

    private static CompletableFuture<MpaConnection> accept(ServerSocketChannel listener) {
        return Async.supply(() -> {
            try {
                return MpaConnection.awaitRequest(listener.accept(), MpaSettings.siwDefaults().withRfc7306(true))
                        .accept(new byte[0]);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /**
     * The initiator's MPA Request (revision 2, IRD/ORD 4, no CRC, no private data, RFC 7306 offered or not), by
     * hand; reads the Reply, which accepts RFC 7306 exactly when it was offered.
     */
    private static void mpaRequest(SocketChannel peer, boolean rfc7306) throws IOException {
        ByteBuffer req = ByteBuffer.allocate(24);
        req.put("MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII)).put((byte) (rfc7306 ? 0x11 : 0x10)).put((byte) 2)
                .putShort((short) 4).putShort((short) 4).putShort((short) 4).flip();
        while (req.hasRemaining()) {
            peer.write(req);
        }
        ByteBuffer rep = ByteBuffer.allocate(20);
        while (rep.hasRemaining()) {
            if (peer.read(rep) < 0) {
                throw new IOException("the target closed during MPA");
            }
        }
        ByteBuffer pd = ByteBuffer.allocate(rep.getShort(18) & 0xFFFF);
        while (pd.hasRemaining()) {
            if (peer.read(pd) < 0) {
                throw new IOException("the target closed during MPA");
            }
        }
        assertEquals("MPA ID Rep Frame", new String(rep.array(), 0, 16, StandardCharsets.US_ASCII));
        assertEquals(0, rep.get(16) & 0x20, "not rejected");
        assertEquals(rfc7306 ? 0x02 : 0, rep.get(16) & 0x03, "RFC 7306 accepted (0x02) only when offered (0x01)");
    }

    /** One frame of a random kind, aimed at {@code mr}; a third of them mutated afterwards. */
    private static void hostileFrame(ByteBuffer out, Random rnd, MemoryRegion mr, int[] msn) {
        int start = out.position();
        int stag = rnd.nextInt(4) == 0 ? rnd.nextInt() : mr.rkey();
        long to = mr.address() - GUARD + rnd.nextInt(GUARD + REGION + GUARD);
        // the RFC 5040 mix as it always was (two Writes in five), RFC 7306 frames in place of some of the junk
        int kind = rnd.nextInt(5);
        if (kind == 4) {
            kind = 4 + rnd.nextInt(4);
        }
        switch (kind) {
            case 0, 1 -> tagged(out, 0, stag, to, payload(rnd, rnd.nextInt(4) == 0 ? rnd.nextInt(65_000) : rnd.nextInt(3000)));
            case 2 -> untagged(out, OP_SEND, 0, msn[0]++, rnd.nextInt(4) == 0 ? rnd.nextInt() : 0,
                    payload(rnd, rnd.nextInt(2000)));
            case 3 -> readRequest(out, rnd.nextInt(), rnd.nextLong(), rnd.nextInt(4) == 0 ? rnd.nextInt()
                    : rnd.nextInt(2 * REGION), stag, to, msn[1]++);
            case 4 -> { // an Atomic Request: mostly well formed and aligned, sometimes not
                ByteBuffer body = ByteBuffer.allocate(rnd.nextInt(4) == 0 ? rnd.nextInt(120) : 52);
                long target = rnd.nextInt(3) == 0 ? to : to & ~7L;
                if (body.capacity() >= 52) {
                    body.putInt(0, rnd.nextInt(4) == 0 ? rnd.nextInt() : rnd.nextInt(3)).putInt(4, rnd.nextInt())
                            .putInt(8, stag).putLong(12, target).putLong(20, rnd.nextLong())
                            .putLong(28, rnd.nextInt(2) == 0 ? -1L : rnd.nextLong()).putLong(36, rnd.nextLong())
                            .putLong(44, rnd.nextInt(2) == 0 ? -1L : rnd.nextLong());
                } else {
                    rnd.nextBytes(body.array());
                }
                untagged(out, OP_ATOMIC_REQUEST, 1, msn[1]++, 0, body.array());
            }
            case 5 -> { // Immediate Data (with SE or not), any mark, sometimes not 8 bytes
                byte[] body = new byte[rnd.nextInt(4) == 0 ? rnd.nextInt(40) : 8];
                rnd.nextBytes(body);
                if (body.length == 8 && rnd.nextBoolean()) {
                    ByteBuffer.wrap(body).putInt(4, rnd.nextInt(3));
                }
                untagged(out, OP_IMMEDIATE + rnd.nextInt(2), 0, msn[0]++, 0, body);
            }
            case 6 -> untagged(out, OP_ATOMIC_RESPONSE, 3, msn[3]++, 0, payload(rnd, rnd.nextInt(3) == 0
                    ? rnd.nextInt(30) : 12)); // never asked for
            default -> {
                byte[] junk = new byte[rnd.nextInt(200)];
                rnd.nextBytes(junk);
                out.put(junk);
            }
        }
        if (rnd.nextInt(3) == 0 && out.position() > start) {
            int n = 1 + rnd.nextInt(4);
            for (int i = 0; i < n; i++) {
                int at = start + rnd.nextInt(out.position() - start);
                out.put(at, (byte) (out.get(at) ^ 1 << rnd.nextInt(8)));
            }
            if (rnd.nextBoolean()) {
                out.position(start + rnd.nextInt(out.position() - start)); // truncated
            }
        }
    }


    private static byte[] payload(Random rnd, int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) rnd.nextInt(PAYLOAD_BYTE_BOUND);
        }
        return b;
    }

    /** A tagged FPDU (RDMA WRITE: opcode 0), last segment, no CRC: 16-byte header, payload, pad, CRC word 0. */
    private static void tagged(ByteBuffer out, int opcode, int stag, long to, byte[] payload) {
        int ulpdu = 14 + payload.length;
        if (ulpdu > 0xFFFF || out.remaining() < ulpdu + 10) {
            return;
        }
        out.putShort((short) ulpdu).put((byte) 0xC1).put((byte) (0x40 | opcode)).putInt(stag).putLong(to).put(payload);
        trailer(out, ulpdu);
    }

    /** An untagged FPDU, last segment: 20-byte header (invalidate STag, QN, MSN, MO 0), payload, pad, CRC 0. */
    private static void untagged(ByteBuffer out, int opcode, int queue, int msn, int invalidate, byte[] payload) {
        int ulpdu = 18 + payload.length;
        if (out.remaining() < ulpdu + 10) {
            return;
        }
        out.putShort((short) ulpdu).put((byte) 0x41).put((byte) (0x40 | opcode)).putInt(invalidate).putInt(queue)
                .putInt(msn).putInt(0).put(payload);
        trailer(out, ulpdu);
    }

    /** A Read Request (opcode 1 on queue 1), 48 bytes and the CRC word. */
    private static void readRequest(ByteBuffer out, int sinkStag, long sinkTo, int length, int sourceStag,
            long sourceTo, int msn) {
        if (out.remaining() < 60) {
            return;
        }
        out.putShort((short) 46).put((byte) 0x41).put((byte) 0x41).putInt(0).putInt(1).putInt(msn).putInt(0)
                .putInt(sinkStag).putLong(sinkTo).putInt(length).putInt(sourceStag).putLong(sourceTo);
        trailer(out, 46);
    }

    private static void trailer(ByteBuffer out, int ulpdu) {
        for (int pad = (4 - (2 + ulpdu) % 4) % 4; pad > 0; pad--) {
            out.put((byte) 0);
        }
        out.putInt(0);
    }

    /** Fails if {@value #LEAK_RUN} guard bytes in a row came back: memory outside the region was read. */
    private static void noGuardRun(ByteBuffer in) {
        int run = 0;
        while (in.hasRemaining()) {
            run = in.get() == GUARD_BYTE ? run + 1 : 0;
            assertFalse(run >= LEAK_RUN, "the target sent " + LEAK_RUN + " guard bytes in a row: it read outside "
                    + "the region (seed " + SEED + ")");
        }
    }

    private static byte[] guards(ByteBuffer block) {
        byte[] g = new byte[2 * GUARD];
        block.get(0, g, 0, GUARD);
        block.get(GUARD + REGION, g, GUARD, GUARD);
        return g;
    }

    /**
     * After the hostile streams: a good initiator through the same listener RDMA-READs the whole region while the
     * target's application polls nothing (the progress thread serves it), and gets the bytes the region holds.
     */
    private static void goodPeerReadsTheRegion(ServerSocketChannel listener, ConnectedPair.Side target,
            MemoryRegion mr) throws Exception {
        byte[] expected = new byte[REGION];
        new Random(SEED).nextBytes(expected);
        mr.putBytes(0, expected);
        SoftQueuePair qp = newQp(target);
        ConnectedPair.Side reader = new ConnectedPair.Side(16, false, false, false);
        try (SendRequests s = SendRequests.allocate(1, 1); WorkCompletions wc = WorkCompletions.allocate(1)) {
            MemoryRegion sink = reader.memory(REGION, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            CompletableFuture<MpaConnection> accepted = accept(listener);
            MpaConnection mine = MpaConnection.connect(SocketChannel.open(listener.getLocalAddress()),
                    MpaSettings.siwDefaults(), new byte[0]);
            qp.establish(accepted.get(10, TimeUnit.SECONDS), () -> { });
            reader.qp.establish(mine, () -> { });
            s.at(0).wrId(7).opcode(Opcode.RDMA_READ).flags(SendFlags.SIGNALED).sge(sink.address(), REGION, sink.lkey())
                    .rdma(mr.address(), mr.rkey());
            reader.qp.postSend(s);
            reader.await(wc, 1);
            assertEquals(WcStatus.SUCCESS, wc.status(0), wc.toString(0));
            assertArrayEquals(expected, sink.getBytes(0, REGION), "the READ after the hostile streams");
            sink.close();
        } finally {
            qp.close();
            reader.close();
        }
    }
}
