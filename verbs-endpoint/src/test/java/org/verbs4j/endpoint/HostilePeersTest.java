package org.verbs4j.endpoint;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.verbs4j.api.Gid;
import org.verbs4j.api.QpEndpoint;

/**
 * The manual mode's listener against hostile peers, on the host (no RDMA device): a completion that answers
 * like the server (its 100 bytes, then the client's ready byte) stands in for the queue pair's set-up.
 */
class HostilePeersTest {
    private static final byte[] REPLY = new byte[Endpoints.HELLO];

    private final List<String> drops = new CopyOnWriteArrayList<>();
    private final List<Socket> sockets = new ArrayList<>();
    private ManualAcceptor<AutoCloseable> server;

    private ManualAcceptor<AutoCloseable> listen(int maxPending, Duration handshakeTimeout) {
        return listen(maxPending, handshakeTimeout, 16);
    }

    private ManualAcceptor<AutoCloseable> listen(int maxPending, Duration handshakeTimeout, int backlog) {
        server = new ManualAcceptor<>(new InetSocketAddress("127.0.0.1", 0), backlog,
                new TcpExchange.Limits(Endpoints.HELLO, maxPending, handshakeTimeout), Endpoints::checkHello,
                peer -> {
                    peer.write(REPLY);
                    // as EndpointServer: after the first message each read is bounded by the handshake time-out
                    byte[] ready = peer.read(1, handshakeTimeout, "the ready byte");
                    if (ready[0] != Endpoints.READY) {
                        throw new EndpointException("the peer " + peer.remote() + " sent " + ready[0]);
                    }
                    return () -> { };
                }, drops::add);
        return server;
    }

    @AfterEach
    void close() throws IOException {
        for (Socket s : sockets) {
            s.close();
        }
        if (server != null) {
            server.close();
        }
    }

    /** A client's first message as an endpoint sends it: the QP address text, its NUL, the 48-byte handshake. */
    static byte[] hello() {
        byte[] hello = new byte[Endpoints.HELLO];
        byte[] text = new QpEndpoint(1, 0x1234, 0x5678, Gid.ZERO).toWire().getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(text, 0, hello, 0, text.length);
        byte[] hs = new Handshake(true, 16, 4096, 0, 0, 0, 0x1000, 7, 3).encode();
        System.arraycopy(hs, 0, hello, Endpoints.QP_WIRE, hs.length);
        return hello;
    }

    private Socket open() throws IOException {
        Socket s = new Socket();
        sockets.add(s);
        s.connect(server.localAddress(), 5000);
        return s;
    }

    /** Plays a good client; returns the milliseconds from its TCP connection to the accepted result. */
    private long goodPeer() throws IOException {
        long t0 = System.nanoTime();
        try (Socket s = open()) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(hello());
            assertArrayEquals(REPLY, s.getInputStream().readNBytes(Endpoints.HELLO));
            s.getOutputStream().write(Endpoints.READY);
            server.accept(Duration.ofSeconds(10));
        }
        return (System.nanoTime() - t0) / 1_000_000;
    }

    /** Waits for the server to close {@code s}: true on EOF (or reset) within {@code ms}. */
    private static boolean closedWithin(Socket s, int ms) throws IOException {
        s.setSoTimeout(ms);
        InputStream in = s.getInputStream();
        try {
            while (true) {
                if (in.read(new byte[256]) < 0) {
                    return true;
                }
            }
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true; // connection reset
        }
    }

    private String port(Socket s) {
        return ":" + s.getLocalPort();
    }

    /** Sends {@code bytes} from a new connection; the server must close it soon, with a log line naming it. */
    private Socket expectDrop(byte[] bytes, String reason) throws IOException {
        Socket s = open();
        s.getOutputStream().write(bytes);
        assertTrue(closedWithin(s, 5000), "dropped when its bytes are in, not after the time-out");
        assertTrue(dropNamed(s, reason), drops.toString());
        return s;
    }

    private boolean dropNamed(Socket s, String reason) {
        return drops.stream().anyMatch(l -> l.contains(port(s)) && l.contains(reason));
    }

    @Test
    void goodPeerIsServedWhileTwoSilentPeersAreConnected() throws IOException {
        listen(16, Duration.ofSeconds(20));
        open();
        open();
        long ms = goodPeer();
        assertTrue(ms < 5000, "served in " + ms + " ms, not after the silent peers' 20 s");
        assertEquals(2, server.pending(), "the silent peers are still waiting for their deadline");
    }

    /**
     * Peers whose first message is good and who then never send the ready byte each hold a handshake thread until
     * their time-out; there are as many threads as pending handshakes allowed, so a good peer is still served at
     * once (with a fixed pool of two, the third stalled peer made it wait).
     */
    @Test
    void peersStalledAfterAGoodFirstMessageDoNotHoldUpAGoodOne() throws IOException {
        listen(16, Duration.ofSeconds(20));
        List<Socket> stalled = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            Socket s = open();
            s.setSoTimeout(10_000);
            s.getOutputStream().write(hello());
            assertArrayEquals(REPLY, s.getInputStream().readNBytes(Endpoints.HELLO), "the server answered it");
            stalled.add(s);
        }
        long ms = goodPeer();
        assertTrue(ms < 5000, "served in " + ms + " ms, not after the stalled peers' 20 s");
        assertEquals(6, server.pending(), "the stalled peers wait for their deadline");
        assertTrue(drops.isEmpty(), drops.toString());
    }

    @Test
    void aFloodIsCutAtTheFirstMessageSize() throws IOException {
        listen(16, Duration.ofSeconds(20));
        Socket s = open();
        OutputStream out = s.getOutputStream();
        byte[] chunk = new byte[64 * 1024];
        long written = 0;
        long limit = 100L << 20;
        try {
            while (written < limit) {
                out.write(chunk);
                written += chunk.length;
            }
        } catch (IOException e) {
            // the server closed the connection
        }
        assertTrue(written < 32L << 20, "the server took " + written + " bytes of a 100 MB flood");
        assertTrue(closedWithin(s, 5000));
        assertTrue(dropNamed(s, "sent more than the 100 bytes expected"), drops.toString());
        assertTrue(goodPeer() < 5000);
    }

    @Test
    void aHugeLengthIsJustGarbage() throws IOException {
        listen(16, Duration.ofSeconds(20));
        expectDrop(ByteBuffer.allocate(Endpoints.HELLO).putInt(Integer.MAX_VALUE).array(), "did not send a QP address");
        // a well-formed address with a handshake that claims the largest sizes allocates nothing on this side
        byte[] h = hello();
        ByteBuffer.wrap(h, Endpoints.QP_WIRE + 8, 8).putInt(Integer.MAX_VALUE).putInt(Integer.MAX_VALUE);
        Handshake claimed = Handshake.decode(java.util.Arrays.copyOfRange(h, Endpoints.QP_WIRE, Endpoints.HELLO), "p");
        assertEquals(Integer.MAX_VALUE, claimed.messageSize());
    }

    @Test
    void randomGarbageIsDropped() throws IOException {
        listen(16, Duration.ofSeconds(20));
        Random r = new Random(13);
        for (int i = 0; i < 20; i++) {
            byte[] b = new byte[Endpoints.HELLO];
            r.nextBytes(b);
            expectDrop(b, "");
        }
        byte[] badMtu = hello();
        badMtu[Endpoints.QP_WIRE + 6] = 9;
        expectDrop(badMtu, "path MTU 9");
        assertTrue(goodPeer() < 5000);
    }

    @Test
    void silentAndSlowPeersAreDroppedAtTheirDeadline() throws Exception {
        listen(16, Duration.ofMillis(1500));
        Socket silent = open();
        Socket slow = open();
        long t0 = System.nanoTime();
        OutputStream out = slow.getOutputStream();
        try {
            for (int i = 0; i < 20; i++) {
                out.write('0');
                Thread.sleep(200);
            }
        } catch (IOException e) {
            // dropped
        }
        assertTrue(closedWithin(silent, 5000));
        assertTrue(closedWithin(slow, 5000));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms < 6000, "dropped after " + ms + " ms");
        assertTrue(dropNamed(silent, "no complete TCP exchange within 1500 ms (0 bytes"), drops.toString());
        assertTrue(dropNamed(slow, "no complete TCP exchange within 1500 ms"), drops.toString());
        // a peer that sends its message but not the ready byte gets the same deadline
        Socket stalls = open();
        stalls.getOutputStream().write(hello());
        assertTrue(closedWithin(stalls, 5000));
        // after its first message passed, the handshake thread's read of the ready byte times out
        assertTrue(dropNamed(stalls, "within 1500 ms (100 bytes received")
                || dropNamed(stalls, "the ready byte did not arrive in time"), drops.toString());
        // the count drops when the server's side of the connection has closed, just after the peer saw EOF
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        while (server.pending() != 0 && System.nanoTime() < end) {
            Thread.sleep(10);
        }
        assertEquals(0, server.pending());
    }

    @Test
    void halfOpenConnectionsBeyondTheLimitAreClosedAtOnce() throws Exception {
        // a backlog that holds them all: beyond it the kernel, not the server, keeps a connection waiting
        listen(32, Duration.ofSeconds(8), 1024);
        List<Socket> many = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            many.add(open());
        }
        long t0 = System.nanoTime();
        List<Socket> left = new ArrayList<>(many);
        while (left.size() > 32 && System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(5)) {
            List<Socket> still = new ArrayList<>();
            for (Socket s : left) {
                if (!closedWithin(s, 5)) {
                    still.add(s);
                }
            }
            left = still;
        }
        assertEquals(32, left.size(), "open after " + (System.nanoTime() - t0) / 1_000_000 + " ms");
        assertTrue(server.pending() <= 32, server.pending() + " pending");
        assertTrue(drops.stream().filter(l -> l.contains("maxPendingHandshakes")).count() >= 500 - 32);
        for (int i = 0; i < left.size(); i++) {
            assertTrue(closedWithin(left.get(i), 20_000), "pending connection " + i + " is closed by its deadline");
        }
        assertTrue(goodPeer() < 5000, "served once the silent ones are gone");
        assertEquals(0, server.pending());
    }

    /** A close on another thread wakes every accept waiting, at once, with an exception; later accepts throw too. */
    @Test
    void closeWakesTheThreadsWaitingInAccept() throws Exception {
        listen(16, Duration.ofSeconds(20));
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            List<java.util.concurrent.Future<AutoCloseable>> waiting = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                waiting.add(pool.submit(() -> server.accept(Duration.ofMinutes(2))));
            }
            Thread.sleep(300); // both are in accept
            long t0 = System.nanoTime();
            server.close();
            for (java.util.concurrent.Future<AutoCloseable> f : waiting) {
                java.util.concurrent.ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(
                        java.util.concurrent.ExecutionException.class, () -> f.get(10, java.util.concurrent.TimeUnit.SECONDS));
                org.junit.jupiter.api.Assertions.assertInstanceOf(IllegalStateException.class, e.getCause());
                assertTrue(e.getCause().getMessage().contains("closed"), e.getCause().getMessage());
            }
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(ms < 8000, "woken after " + ms + " ms, not at their 2-minute time-out");
            org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                    () -> server.accept(Duration.ofSeconds(1)));
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void acceptTimesOutWhenOnlyHostilePeersCame() throws IOException {
        listen(16, Duration.ofSeconds(20));
        open().getOutputStream().write(new byte[Endpoints.HELLO]);
        EndpointException e = assertThrows(EndpointException.class, () -> server.accept(Duration.ofMillis(500)));
        assertTrue(e.getMessage().contains("no peer completed the TCP exchange"), e.getMessage());
    }
}
