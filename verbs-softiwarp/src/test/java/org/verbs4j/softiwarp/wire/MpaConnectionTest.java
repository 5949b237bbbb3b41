package org.verbs4j.softiwarp.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.verbs4j.lab.Async;

class MpaConnectionTest {
    private ServerSocketChannel server;

    @BeforeEach
    void listen() throws IOException {
        server = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    }

    @AfterEach
    void stop() throws IOException {
        server.close();
    }

    private SocketChannel dial() throws IOException {
        return SocketChannel.open(server.getLocalAddress());
    }

    /** The responder in another thread: awaits the Request, accepts with the given private data. */
    private CompletableFuture<MpaConnection> respond(MpaSettings settings, byte[] replyData) {
        return Async.supply(() -> {
            try {
                MpaConnection.Incoming in = MpaConnection.awaitRequest(server.accept(), settings);
                return in.accept(replyData);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** A close on another thread cancels the key a handshake waits on: that is a closed channel, an IOException. */
    @Test
    void aKeyCancelledByACloseIsAClosedChannel() throws IOException {
        try (java.nio.channels.Selector sel = java.nio.channels.Selector.open();
                SocketChannel ch = SocketChannel.open()) {
            ch.configureBlocking(false);
            java.nio.channels.SelectionKey key = ch.register(sel, 0);
            MpaConnection.interest(key, java.nio.channels.SelectionKey.OP_READ);
            ch.close();
            assertThrows(java.nio.channels.ClosedChannelException.class,
                    () -> MpaConnection.interest(key, java.nio.channels.SelectionKey.OP_READ));
        }
    }

    @Test
    void handshakeNegotiatesCrcAsSiwDoes() throws Exception {
        boolean[][] cases = {{false, false, false}, {true, false, true}, {false, true, true}, {true, true, true}};
        for (boolean[] c : cases) {
            CompletableFuture<MpaConnection> passive = respond(MpaSettings.siwDefaults().withCrcRequired(c[1]),
                    new byte[] {9});
            try (MpaConnection active = MpaConnection.connect(dial(),
                    MpaSettings.siwDefaults().withCrcRequired(c[0]), new byte[] {1, 2});
                 MpaConnection responder = passive.get(5, TimeUnit.SECONDS)) {
                assertEquals(c[2], active.crcEnabled());
                assertEquals(c[2], responder.crcEnabled());
                assertArrayEquals(new byte[] {9}, active.peerPrivateData());
                assertArrayEquals(new byte[] {1, 2}, responder.peerPrivateData());
            }
        }
    }

    @Test
    void irdAndOrdCrossOver() throws Exception {
        CompletableFuture<MpaConnection> passive = respond(MpaSettings.siwDefaults().withIrdOrd(8, 2), new byte[0]);
        try (MpaConnection active = MpaConnection.connect(dial(), MpaSettings.siwDefaults().withIrdOrd(4, 16),
                new byte[0]);
             MpaConnection responder = passive.get(5, TimeUnit.SECONDS)) {
            assertEquals(2, responder.ord(), "min(initiator IRD 4, responder ORD 2)");
            assertEquals(8, responder.ird(), "min(initiator ORD 16, responder IRD 8)");
            assertEquals(responder.ord(), active.ird());
            assertEquals(responder.ird(), active.ord());
        }
    }

    @Test
    void rejectCarriesPrivateDataAndClosesTheConnection() throws Exception {
        CompletableFuture<Void> passive = Async.run(() -> {
            try {
                MpaConnection.awaitRequest(server.accept(), MpaSettings.siwDefaults()).reject("busy".getBytes());
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        WireException e = assertThrows(WireException.class,
                () -> MpaConnection.connect(dial(), MpaSettings.siwDefaults(), new byte[0]));
        assertEquals(WireError.MPA_REJECTED, e.error());
        assertArrayEquals("busy".getBytes(), e.privateData());
        passive.get(5, TimeUnit.SECONDS);
    }

    @Test
    void silentPeersTimeOut() throws Exception {
        try (SocketChannel silent = dial()) {
            long t0 = System.nanoTime();
            WireException e = assertThrows(WireException.class, () -> MpaConnection.awaitRequest(server.accept(),
                    MpaSettings.siwDefaults().withTimeoutMillis(200)));
            assertEquals(WireError.MPA_TIMEOUT, e.error());
            assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(3));
        }
    }

    @Test
    void segmentedMessagesArriveWholeInBothDirectionsWithCrc() throws Exception {
        MpaSettings crc = MpaSettings.siwDefaults().withCrcRequired(true);
        CompletableFuture<MpaConnection> passive = respond(crc, new byte[0]);
        byte[] send = new byte[100_000];
        byte[] write = new byte[70_000];
        new Random(7).nextBytes(send);
        new Random(8).nextBytes(write);
        try (MpaConnection active = MpaConnection.connect(dial(), crc, new byte[0]);
             MpaConnection responder = passive.get(5, TimeUnit.SECONDS)) {
            // the responder speaks first, so FPDUs may share a segment with the Reply
            responder.send(ByteBuffer.wrap(send));
            responder.write(77, 4096, ByteBuffer.wrap(write));
            responder.readRequest(1, 2, 3, 4, 5);
            RecordingSink sink = new RecordingSink();
            int frames = pollUntil(active, sink, 70 + 50 + 1);
            assertEquals(send.length, sink.untaggedBytes.size());
            assertArrayEquals(send, sink.untaggedBytes.toByteArray());
            assertArrayEquals(write, sink.taggedBytes.toByteArray());
            assertEquals("RR msn=1 sink=1/2 len=3 src=4/5", sink.events.get(frames - 1));
            assertTrue(sink.events.get(0).startsWith("U op=3 last=false qn=0 msn=1 mo=0 inv=0 len=1424"));

            active.send(Rdmap.SEND_SE, 0, ByteBuffer.wrap(new byte[] {5}));
            RecordingSink back = new RecordingSink();
            pollUntil(responder, back, 1);
            assertEquals("U op=5 last=true qn=0 msn=1 mo=0 inv=0 len=1", back.events.get(0));
        }
    }

    @Test
    void aBadCrcGetsATerminateAndClosesTheConnection() throws Exception {
        CompletableFuture<MpaConnection> passive = respond(MpaSettings.siwDefaults(), new byte[0]);
        SocketChannel raw = dial();
        try (MpaConnection active = MpaConnection.connect(raw, MpaSettings.siwDefaults().withCrcRequired(true),
                new byte[0]);
             MpaConnection responder = passive.get(5, TimeUnit.SECONDS)) {
            ByteBuffer bad = ByteBuffer.allocate(64);
            bad.put(2, (byte) 0xC1).put(3, (byte) 0x40).putInt(4, 1);
            Fpdu.seal(bad, 0, Ddp.TAGGED_HEADER, true, new java.util.zip.CRC32C());
            bad.putInt(16, bad.getInt(16) ^ 1).flip();
            // bypass the connection's framer: what a broken peer would put on the wire
            raw.write(bad);
            RecordingSink sink = new RecordingSink();
            WireException e = assertThrows(WireException.class, () -> pollUntil(responder, sink, 1));
            assertEquals(WireError.FPDU_BAD_CRC, e.error());
            assertTrue(sink.events.isEmpty());
            RecordingSink peer = new RecordingSink();
            assertEquals(-1, pollUntil(active, peer, 1));
            assertEquals("TERM layer=2 etype=0 code=2 copy=20", peer.events.get(0));
        }
    }

    @Test
    void sendAndPollDoNotAllocatePerFrame() throws Exception {
        CompletableFuture<MpaConnection> passive = respond(MpaSettings.siwDefaults().withCrcRequired(true),
                new byte[0]);
        try (MpaConnection active = MpaConnection.connect(dial(), MpaSettings.siwDefaults(), new byte[0]);
             MpaConnection responder = passive.get(5, TimeUnit.SECONDS)) {
            ByteBuffer msg = ByteBuffer.allocateDirect(4096);
            FpduSink counting = new CountingSink();
            for (int i = 0; i < 2000; i++) {
                pingPong(active, responder, msg, counting);
            }
            com.sun.management.ThreadMXBean threads =
                    (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 2000; i++) {
                pingPong(active, responder, msg, counting);
            }
            long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            // 2000 round trips of 3 FPDUs each; a few hundred bytes of slack for the JDK's own bookkeeping
            assertTrue(allocated < 2000, "allocated " + allocated + " bytes over 2000 round trips");
        }
    }

    private static void pingPong(MpaConnection a, MpaConnection b, ByteBuffer msg, FpduSink sink)
            throws IOException {
        a.send(msg.clear());
        if (pollUntil(b, sink, 3) != 3) {
            throw new IOException("closed");
        }
    }

    private static int pollUntil(MpaConnection c, FpduSink sink, int frames) throws IOException {
        int got = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (got < frames) {
            int n = c.poll(sink);
            if (n < 0) {
                return -1;
            }
            got += n;
            if (got < frames && System.nanoTime() > deadline) {
                throw new AssertionError("only " + got + " of " + frames + " FPDUs");
            }
        }
        return got;
    }

    private static final class CountingSink implements FpduSink {
        long bytes;

        @Override
        public void onTagged(int opcode, boolean last, int stag, long taggedOffset, ByteBuffer payload) {
            bytes += payload.remaining();
        }

        @Override
        public void onUntagged(int opcode, boolean last, int queue, int msn, int messageOffset, int invalidateStag,
                               ByteBuffer payload) {
            bytes += payload.remaining();
        }

        @Override
        public void onReadRequest(int msn, int sinkStag, long sinkOffset, int length, int sourceStag,
                                  long sourceOffset) {
        }

        @Override
        public void onTerminate(int layer, int errorType, int errorCode, ByteBuffer headerCopy) {
        }
    }
}
