package org.verbs4j.softiwarp.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * Hostile input for a fixed time budget, seed printed: random and mutated MPA frames and FPDUs, in process and
 * over loopback TCP. Only documented errors may come out; the listener keeps serving good peers.
 */
class WireFuzzTest {
    private static final long BUDGET_NANOS = TimeUnit.MILLISECONDS.toNanos(1500);
    private static final long SEED = Long.getLong("verbs4j.fuzz.seed", System.nanoTime());

    private static Random random(String what) {
        System.out.println("WireFuzzTest." + what + " seed " + SEED + " (-Dverbs4j.fuzz.seed=" + SEED
                + " to repeat)");
        return new Random(SEED);
    }

    /** Valid FPDUs of every kind, CRC on, for mutating. */
    private static ByteBuffer goodStream(Random rnd) {
        ByteBuffer wire = ByteBuffer.allocate(16384);
        DdpSegmenter s = new DdpSegmenter(true, Fpdu.mulpduForMss(536));
        byte[] data = new byte[rnd.nextInt(2000)];
        rnd.nextBytes(data);
        s.startUntagged(Rdmap.SEND, Ddp.QN_SEND, 1, 0, ByteBuffer.wrap(data));
        s.writeTo(wire);
        s.startTagged(Rdmap.WRITE, 5, 100, ByteBuffer.wrap(data));
        s.writeTo(wire);
        ByteBuffer rr = ByteBuffer.allocate(Rdmap.READ_REQUEST_LENGTH);
        Rdmap.putReadRequest(rr, 0, 1, 2, 3, 4, 5);
        s.startUntagged(Rdmap.READ_REQUEST, Ddp.QN_READ_REQUEST, 1, 0, rr);
        s.writeTo(wire);
        return wire.flip();
    }

    private static void mutate(ByteBuffer b, Random rnd) {
        int n = 1 + rnd.nextInt(4);
        for (int i = 0; i < n && b.limit() > 0; i++) {
            int at = rnd.nextInt(b.limit());
            switch (rnd.nextInt(3)) {
                case 0: b.put(at, (byte) (b.get(at) ^ 1 << rnd.nextInt(8))); break;
                case 1: b.put(at, (byte) rnd.nextInt()); break;
                default: b.limit(at); break;
            }
        }
    }

    @Test
    void receiverOnlyReportsDocumentedErrors() {
        Random rnd = random("receiver");
        long end = System.nanoTime() + BUDGET_NANOS;
        int runs = 0;
        int refused = 0;
        while (System.nanoTime() < end) {
            ByteBuffer in;
            if (rnd.nextBoolean()) {
                in = goodStream(rnd);
                mutate(in, rnd);
            } else {
                byte[] junk = new byte[rnd.nextInt(300)];
                rnd.nextBytes(junk);
                in = ByteBuffer.wrap(junk);
            }
            boolean crc = rnd.nextBoolean();
            FpduReceiver r = new FpduReceiver(crc, 1 + Ddp.UNTAGGED_HEADER + rnd.nextInt(0xFFFF - 19), true);
            RecordingSink sink = new RecordingSink();
            int limit = in.limit();
            int n = r.receive(in, sink);
            assertTrue(in.position() <= limit && in.limit() == limit, "buffer bounds kept");
            if (n < 0 && r.error() != null) {
                refused++;
            }
            runs++;
        }
        System.out.println("WireFuzzTest.receiver: " + runs + " inputs, " + refused + " refused");
        assertTrue(refused > 0 && runs > 100);
    }

    @Test
    void mpaDecoderOnlyThrowsWireException() {
        Random rnd = random("mpa");
        long end = System.nanoTime() + BUDGET_NANOS;
        int runs = 0;
        while (System.nanoTime() < end) {
            ByteBuffer b = validRequest(rnd);
            mutate(b, rnd);
            try {
                int n = new MpaFrame().decode(b, true);
                assertTrue(n == 0 || n <= MpaFrame.MAX_FRAME);
            } catch (WireException expected) {
                assertTrue(expected.error().name().startsWith("MPA_"));
            }
            runs++;
        }
        assertTrue(runs > 100);
    }

    private static ByteBuffer validRequest(Random rnd) {
        MpaFrame f = new MpaFrame();
        f.request = true;
        f.crc = rnd.nextBoolean();
        f.ird = rnd.nextInt(129);
        f.ord = rnd.nextInt(129);
        f.privateData(new byte[rnd.nextInt(64)]);
        ByteBuffer b = ByteBuffer.allocate(f.encodedLength());
        f.encode(b);
        return b.flip();
    }

    @Test
    void listenerSurvivesHostilePeersAndServesGoodOnes() throws Exception {
        Random rnd = random("tcp");
        Queue<Throwable> undocumented = new ConcurrentLinkedQueue<>();
        AtomicInteger served = new AtomicInteger();
        MpaSettings settings = MpaSettings.siwDefaults().withTimeoutMillis(300);
        try (ServerSocketChannel server = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            Thread listener = new Thread(() -> serve(server, settings, undocumented, served), "fuzz-listener");
            listener.start();
            long end = System.nanoTime() + BUDGET_NANOS;
            int peers = 0;
            while (System.nanoTime() < end) {
                hostilePeer(server.getLocalAddress(), rnd);
                peers++;
            }
            System.out.println("WireFuzzTest.tcp: " + peers + " hostile peers");
            for (boolean crc : new boolean[] {false, true}) {
                try (MpaConnection good = MpaConnection.connect(SocketChannel.open(server.getLocalAddress()),
                        MpaSettings.siwDefaults().withCrcRequired(crc), "good".getBytes())) {
                    good.send(ByteBuffer.wrap("ping".getBytes()));
                    RecordingSink sink = new RecordingSink();
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                    while (sink.events.isEmpty() && System.nanoTime() < deadline) {
                        good.poll(sink);
                    }
                    assertArrayEquals("pong".getBytes(), sink.untaggedBytes.toByteArray(), "good peer served");
                }
            }
            server.close();
            listener.join(5000);
        }
        assertEquals(List.of(), List.copyOf(undocumented));
        assertTrue(served.get() >= 2);
    }

    private static void hostilePeer(java.net.SocketAddress address, Random rnd) throws IOException {
        try (SocketChannel ch = SocketChannel.open(address)) {
            int kind = rnd.nextInt(3);
            if (kind == 0) {
                ByteBuffer b = validRequest(rnd);
                mutate(b, rnd);
                ch.write(b);
            } else {
                ByteBuffer req = validRequest(rnd);
                req.put(16, (byte) 0);
                ch.write(req);
                ByteBuffer reply = ByteBuffer.allocate(MpaFrame.MAX_FRAME);
                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
                ch.configureBlocking(false);
                while (reply.position() < 24 && System.nanoTime() < deadline) {
                    if (ch.read(reply) < 0) {
                        return;
                    }
                }
                ByteBuffer frames;
                if (kind == 1) {
                    frames = goodStream(rnd);
                    mutate(frames, rnd);
                } else {
                    byte[] junk = new byte[rnd.nextInt(2000)];
                    rnd.nextBytes(junk);
                    frames = ByteBuffer.wrap(junk);
                }
                while (frames.hasRemaining() && System.nanoTime() < deadline) {
                    ch.write(frames);
                }
            }
        } catch (IOException reset) {
            // the listener may close first: that is its right
        }
    }

    /** Accepts until the server closes; a "good" peer gets "pong" for its first SEND. */
    private static void serve(ServerSocketChannel server, MpaSettings settings, Queue<Throwable> undocumented,
                              AtomicInteger served) {
        while (server.isOpen()) {
            SocketChannel ch;
            try {
                ch = server.accept();
            } catch (ClosedChannelException closed) {
                return;
            } catch (IOException e) {
                undocumented.add(e);
                return;
            }
            try (MpaConnection.Incoming in = MpaConnection.awaitRequest(ch, settings);
                 MpaConnection c = in.accept(new byte[0])) {
                boolean good = new String(in.privateData()).equals("good");
                RecordingSink sink = new RecordingSink();
                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(good ? 5000 : 300);
                while (System.nanoTime() < deadline && c.poll(sink) >= 0) {
                    if (good && !sink.events.isEmpty()) {
                        c.send(ByteBuffer.wrap("pong".getBytes()));
                        served.incrementAndGet();
                        break;
                    }
                }
            } catch (WireException documented) {
                // what a hostile peer earns
            } catch (IOException e) {
                if (!isReset(e)) {
                    undocumented.add(e);
                }
            } catch (RuntimeException | Error e) {
                undocumented.add(e);
            }
        }
    }

    private static boolean isReset(IOException e) {
        String m = String.valueOf(e.getMessage());
        return m.contains("reset") || m.contains("Broken pipe");
    }

    static {
        // keep CRC32C loaded before the budget starts
        new CRC32C().update(1);
    }
}
