package org.verbs4j.softiwarp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
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
import org.verbs4j.api.WcStatus;
import org.verbs4j.api.WorkCompletions;
import org.verbs4j.api.internal.RawMemory;
import org.verbs4j.softiwarp.wire.FpduSink;
import org.verbs4j.softiwarp.wire.MpaConnection;
import org.verbs4j.softiwarp.wire.MpaSettings;
import org.verbs4j.lab.Async;

/**
 * A QP against a bare {@link MpaConnection} playing the peer (as siw would): what goes on the wire, the Terminate
 * codes the QP sends, and a peer that stops reading.
 */
class DataPathWireTest {
    private final SendRequests sends = SendRequests.allocate(4, 2);
    private final ReceiveRequests recvs = ReceiveRequests.allocate(4, 2);
    private final WorkCompletions wc = WorkCompletions.allocate(16);
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private ConnectedPair.Side qpSide;
    private MpaConnection peer;
    private final CountDownLatch ended = new CountDownLatch(1);

    @AfterEach
    void closeAll() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        if (qpSide != null) {
            qpSide.close();
        }
        if (peer != null) {
            peer.close();
        }
        sends.close();
        recvs.close();
        wc.close();
    }

    /** The QP is the responder; the bare connection the initiator. */
    private void connect(MpaSettings settings) throws Exception {
        qpSide = new ConnectedPair.Side(16, false, false, false);
        try (ServerSocketChannel server = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            CompletableFuture<MpaConnection> accepted = Async.supply(() -> {
                try {
                    return MpaConnection.awaitRequest(server.accept(), settings).accept(new byte[0]);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            peer = MpaConnection.connect(SocketChannel.open(server.getLocalAddress()), settings, new byte[0]);
            qpSide.qp.establish(accepted.get(10, TimeUnit.SECONDS), ended::countDown);
        }
    }

    private MemoryRegion mr(int length, int access) {
        MemoryRegion m = qpSide.memory(length, access);
        toClose.add(m);
        return m;
    }

    /** Records what the bare peer receives. */
    static final class Sink implements FpduSink {
        final StringBuilder log = new StringBuilder();
        final ByteBuffer data = ByteBuffer.allocate(1 << 16);

        @Override
        public void onTagged(int opcode, boolean last, int stag, long taggedOffset, ByteBuffer payload) {
            log.append("tagged ").append(opcode).append(last ? " L" : "").append(';');
            data.put(payload);
        }

        @Override
        public void onUntagged(int opcode, boolean last, int queue, int msn, int messageOffset, int invalidateStag,
                ByteBuffer payload) {
            log.append("untagged ").append(opcode).append(" msn ").append(msn).append(last ? " L" : "").append(';');
            data.put(payload);
        }

        @Override
        public void onReadRequest(int msn, int sinkStag, long sinkOffset, int length, int sourceStag,
                long sourceOffset) {
            log.append("read request ").append(length).append(';');
        }

        @Override
        public void onAtomicResponse(int msn, int requestId, long originalValue) {
            log.append("atomic response ").append(msn).append(' ').append(requestId).append(' ')
                    .append(originalValue).append(';');
        }

        @Override
        public void onTerminate(int layer, int errorType, int errorCode, ByteBuffer headerCopy) {
            log.append("terminate ").append(layer).append('/').append(errorType).append('/').append(errorCode)
                    .append(';');
        }
    }

    private Sink pollPeerUntil(String contains) throws Exception {
        Sink sink = new Sink();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!sink.log.toString().contains(contains)) {
            if (peer.poll(sink) < 0 && !sink.log.toString().contains(contains)) {
                throw new AssertionError("the stream ended with " + sink.log);
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no " + contains + " in " + sink.log);
            }
            Thread.onSpinWait();
        }
        return sink;
    }

    @Test
    void aQpAndABarePeerExchangeSendsAndServeARead() throws Exception {
        connect(MpaSettings.siwDefaults());
        MemoryRegion m = mr(4096, ConnectedPair.ALL);
        RawMemory.fill(m.address() + 1024, 100, (byte) 0x42);
        recvs.count(1).at(0).clear().wrId(9).sge(m, 0, 64);
        qpSide.qp.postReceive(recvs);
        peer.send(ByteBuffer.wrap("hello".getBytes()));
        qpSide.await(wc, 1);
        assertEquals(5, wc.byteLength(0));
        assertEquals('h', RawMemory.getByte(m.address()));
        sends.count(1).at(0).clear().wrId(1).opcode(Opcode.SEND).flags(SendFlags.SOLICITED).sge(m, 1024, 10);
        qpSide.qp.postSend(sends);
        Sink s = pollPeerUntil("untagged 5 msn 1 L;");
        assertEquals(10, s.data.position());
        // the peer reads 100 bytes: nobody on the QP's side polls, its progress thread answers
        peer.readRequest(0x1234, 0, 100, m.rkey(), m.address() + 1024);
        s = pollPeerUntil("tagged 2 L;");
        assertEquals(100, s.data.position());
        assertEquals(0x42, s.data.get(99));
    }

    @Test
    void theTerminatesCarryTheCodesOfSiw() throws Exception {
        connect(MpaSettings.siwDefaults());
        MemoryRegion m = mr(4096, ConnectedPair.ALL);
        peer.write(m.rkey() ^ 0x10000, m.address(), ByteBuffer.allocate(8));
        assertEquals("terminate 1/1/0;", pollPeerUntil("terminate").log.toString(), "DDP, tagged, invalid STag");
        assertTrue(ended.await(5, TimeUnit.SECONDS));
        assertEquals(QpState.ERR, qpSide.qp.state());
    }

    @Test
    void aReadRequestOutOfBoundsGetsAnRdmapProtectionTerminate() throws Exception {
        connect(MpaSettings.siwDefaults());
        MemoryRegion m = mr(4096, ConnectedPair.ALL);
        peer.readRequest(0x1234, 0, 100, m.rkey(), m.address() + 4000);
        assertEquals("terminate 0/1/1;", pollPeerUntil("terminate").log.toString(), "RDMAP, protection, bounds");
    }

    @Test
    void aSendWithoutAReceiveGetsADdpNoBufferTerminate() throws Exception {
        connect(MpaSettings.siwDefaults());
        peer.send(ByteBuffer.allocate(4));
        assertEquals("terminate 1/2/2;", pollPeerUntil("terminate").log.toString(), "DDP, untagged, no buffer");
        assertTrue(ended.await(5, TimeUnit.SECONDS));
    }

    @Test
    void aSendWithInvalidateOfAnUnknownStagFailsTheReceive() throws Exception {
        connect(MpaSettings.siwDefaults());
        MemoryRegion m = mr(64, Access.LOCAL_WRITE);
        recvs.count(1).at(0).clear().wrId(5).sge(m, 0, 64);
        qpSide.qp.postReceive(recvs);
        peer.send(4, 0x7777700, ByteBuffer.allocate(4));
        qpSide.await(wc, 1);
        assertEquals(WcStatus.REM_INV_REQ_ERR, wc.status(0));
        assertEquals("terminate 0/2/9;", pollPeerUntil("terminate").log.toString(), "RDMAP, operation, cannot invalidate");
    }

    @Test
    void aPeerThatStopsReadingNeverBlocksAPostAndEndsTheQpAfterTheTimeout() throws Exception {
        connect(MpaSettings.siwDefaults().withTimeoutMillis(400));
        MemoryRegion m = mr(1 << 20, Access.LOCAL_WRITE);
        sends.count(1).at(0).clear().opcode(Opcode.RDMA_WRITE).flags(SendFlags.SIGNALED).sge(m, 0, 1 << 20)
                .rdma(0x1000, 0x100);
        long start = System.nanoTime();
        for (int i = 0; i < 12; i++) { // 12 MiB: far more than the socket buffers take
            sends.at(0).wrId(i);
            qpSide.qp.postSend(sends);
        }
        long postMillis = (System.nanoTime() - start) / 1_000_000;
        assertTrue(postMillis < 400, "the posts returned in " + postMillis + " ms");
        assertTrue(ended.await(5, TimeUnit.SECONDS), "the QP ended");
        assertEquals(QpState.ERR, qpSide.qp.state());
        int flushed = 0;
        int n;
        while ((n = qpSide.cq.poll(wc)) > 0) {
            for (int i = 0; i < n; i++) {
                if (wc.status(i) == WcStatus.WR_FLUSH_ERR) {
                    flushed++;
                }
            }
        }
        assertTrue(flushed > 0, "the Writes not sent are flushed");
    }

    @Test
    void aReadRequestBeyondTheIrdEndsTheQp() throws Exception {
        connect(MpaSettings.siwDefaults().withTimeoutMillis(10_000)); // IRD 1; no stall time-out here
        assertEquals(1, qpSide.qp.connection().ird());
        MemoryRegion m = mr(8 << 20, ConnectedPair.ALL);
        // the peer reads nothing: the first response (8 MiB) stays half sent. As in siw, the response being sent
        // holds no IRD place (it left the queue when it started): the second Request takes the one place, the third
        // is beyond it
        peer.readRequest(0x1234, 0, 8 << 20, m.rkey(), m.address());
        Thread.sleep(100);
        peer.readRequest(0x1234, 0, 16, m.rkey(), m.address());
        Thread.sleep(100);
        assertEquals(QpState.RTS, qpSide.qp.state(), "one Request queued behind the response being sent");
        peer.readRequest(0x1234, 0, 16, m.rkey(), m.address());
        assertTrue(ended.await(3, TimeUnit.SECONDS), "the QP ended at once, not after the stall time-out");
        assertEquals(QpState.ERR, qpSide.qp.state());
    }

    /**
     * A QP that offers RFC 7306 to a responder that echoes the Request's flag byte in its Reply, as Linux siw does
     * (siw_accept sends the Request's bits back): the offer comes back, the accept bit does not, so the extensions
     * stay off; the four opcodes are refused at post, and the first bytes the peer ever gets are those of the next
     * plain Send (MSN 1).
     */
    @Test
    void aPeerThatEchoesTheOfferLikeSiwGetsNoExtensionsAndNotAByteOfThem() throws Exception {
        qpSide = new ConnectedPair.Side(16, false, false, false);
        MemoryRegion m = mr(4096, Access.ALL_REMOTE);
        try (ServerSocketChannel server = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            CompletableFuture<SocketChannel> echo = Async.supply(() -> {
                try {
                    SocketChannel ch = server.accept();
                    ByteBuffer frame = ByteBuffer.allocate(24); // 20-byte header, IRD and ORD words, no ULP data
                    while (frame.hasRemaining()) {
                        ch.read(frame);
                    }
                    byte[] b = frame.array();
                    System.arraycopy("MPA ID Rep Frame".getBytes(java.nio.charset.StandardCharsets.US_ASCII), 0, b,
                            0, 16);
                    ch.write(ByteBuffer.wrap(b)); // flags, revision, PD_Length and the words as they came
                    return ch;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            MpaConnection c = MpaConnection.connect(SocketChannel.open(server.getLocalAddress()),
                    MpaSettings.siwDefaults().withRfc7306(true), new byte[0]);
            try (SocketChannel raw = echo.get(10, TimeUnit.SECONDS)) {
                assertFalse(c.rfc7306(), "an echoed offer is not an acceptance");
                qpSide.qp.establish(c, ended::countDown);
                for (Opcode op : new Opcode[] {Opcode.RDMA_WRITE_WITH_IMM, Opcode.SEND_WITH_IMM,
                        Opcode.ATOMIC_FETCH_AND_ADD, Opcode.ATOMIC_CMP_AND_SWP}) {
                    sends.count(1).at(0).clear().wrId(1).opcode(op).flags(SendFlags.SIGNALED).sge(m, 0, 8)
                            .atomic(m.address(), m.rkey(), 1, 2);
                    PostException e = assertThrows(PostException.class, () -> qpSide.qp.postSend(sends));
                    assertTrue(e.getMessage().contains(op.name()) && e.getMessage().contains("did not negotiate RFC 7306"),
                            e.getMessage());
                }
                sends.at(0).clear().wrId(2).opcode(Opcode.SEND).flags(SendFlags.SIGNALED).sge(m, 0, 10);
                qpSide.qp.postSend(sends);
                raw.configureBlocking(false);
                ByteBuffer in = ByteBuffer.allocate(64);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (in.position() < 36 && System.nanoTime() < deadline) {
                    raw.read(in);
                }
                assertEquals(36, in.position(), "one Send FPDU: 2 + 18 + 10 bytes, 2 of pad, the CRC word");
                assertEquals(28, in.getShort(0), "ULPDU_Length of a 10-byte Send");
                assertEquals(0x41, in.get(2) & 0xFF, "untagged, last");
                assertEquals(0x43, in.get(3) & 0xFF, "RDMAP Send");
                assertEquals(0, in.getInt(8), "queue 0");
                assertEquals(1, in.getInt(12), "MSN 1: nothing went before it");
            }
        }
    }

    /**
     * A bare peer that negotiated RFC 7306: its Atomic Requests (queue 1, after a Read Request there) are answered
     * on queue 3 with their ids and the original values, in order; its Immediate Data alone takes a receive.
     */
    @Test
    void aBarePeerGetsAtomicResponsesOnQueueThreeAndItsImmediateDataTakesAReceive() throws Exception {
        connect(MpaSettings.siwDefaults().withIrdOrd(4, 4).withRfc7306(true));
        assertTrue(peer.rfc7306());
        MemoryRegion m = mr(4096, Access.ALL_REMOTE);
        RawMemory.putLong(m.address() + 64, 40L);
        peer.readRequest(0x99, 0, 8, m.rkey(), m.address() + 64);
        peer.atomicRequest(0, 0x1234, m.rkey(), m.address() + 64, 2L, 0L, 0L, 0L); // FetchAdd 2
        peer.atomicRequest(2, 0x1235, m.rkey(), m.address() + 64, 7L, -1L, 42L, -1L); // CmpSwap 42 -> 7
        Sink s = pollPeerUntil("atomic response 2 ");
        assertEquals("tagged 2 L;atomic response 1 4660 40;atomic response 2 4661 42;", s.log.toString());
        assertEquals(7L, RawMemory.getLong(m.address() + 64));
        recvs.count(1).at(0).clear().wrId(77).sge(m, 0, 16);
        qpSide.qp.postReceive(recvs);
        peer.write(m.rkey(), m.address() + 1024, ByteBuffer.wrap(new byte[300]));
        peer.immediate(true, 0x01020304, 0);
        qpSide.await(wc, 1);
        assertEquals(77, wc.wrId(0));
        assertEquals(org.verbs4j.api.WcOpcode.RECV_RDMA_WITH_IMM, wc.opcode(0));
        assertEquals(300, wc.byteLength(0));
        assertEquals(0x01020304, wc.immData(0));
    }
}
