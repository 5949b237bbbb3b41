package org.verbs4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.verbs4j.api.Gid;
import org.verbs4j.api.QpEndpoint;
import org.verbs4j.lab.Async;

/** The pingpong TCP exchange's server against good and hostile clients, on the host (no RDMA device). */
class PingPongExchangeTest {
    private static final QpEndpoint SERVER = new QpEndpoint(0, 0x11, 0x22, Gid.ZERO);
    private static final QpEndpoint CLIENT = new QpEndpoint(0, 0x33, 0x44, Gid.ZERO);
    private static final int TIMEOUT_MS = 1500;

    private ServerSocket listener;

    /** Starts the server's exchange on a port of its own; the future ends with its peer or its failure. */
    private CompletableFuture<QpEndpoint> serve(Consumer<QpEndpoint> connect) throws IOException {
        listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        return Async.supply(() -> {
            try {
                return PingPongExchange.server(listener, SERVER, connect, TIMEOUT_MS);
            } catch (IOException e) {
                throw new PingPongFailure(e.toString());
            }
        });
    }

    private Socket client() throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), listener.getLocalPort()), 5000);
        return s;
    }

    /** The server's failure message, which must come within the exchange's time-out (and a margin). */
    private static String failure(CompletableFuture<QpEndpoint> f) throws Exception {
        long t0 = System.nanoTime();
        try {
            f.get(TIMEOUT_MS + 5000, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            assertInstanceOf(PingPongFailure.class, e.getCause());
            assertTrue(System.nanoTime() - t0 < TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS + 3000));
            return e.getCause().getMessage();
        }
        throw new AssertionError("the server accepted a hostile client");
    }

    @Test
    void aGoodClientIsServed() throws Exception {
        CompletableFuture<QpEndpoint> f = serve(p -> { });
        assertEquals(SERVER, PingPongExchange.client("127.0.0.1", listener.getLocalPort(), CLIENT));
        assertEquals(CLIENT, f.get(5, TimeUnit.SECONDS));
    }

    @Test
    void anOverLongAddressMessageEndsTheExchange() throws Exception {
        CompletableFuture<QpEndpoint> f = serve(p -> { });
        try (Socket s = client()) {
            byte[] longer = java.util.Arrays.copyOf(PingPongExchange.encode(CLIENT), 60);
            java.util.Arrays.fill(longer, 52, 60, (byte) 'x');
            s.getOutputStream().write(longer);
            String m = failure(f);
            assertTrue(m.contains("more than the 52 bytes") || m.contains("did not answer \"done\""), m);
        }
    }

    @Test
    void aClientThatStopsAfterTwoBytesTooManyTimesOut() throws Exception {
        CompletableFuture<QpEndpoint> f = serve(p -> { });
        try (Socket s = client()) {
            OutputStream out = s.getOutputStream();
            out.write(PingPongExchange.encode(CLIENT));
            out.flush();
            Thread.sleep(200); // the server has read its 52 bytes and answered
            out.write(new byte[] {'d', 'o'});
            String m = failure(f);
            assertTrue(m.contains("the peer sent 2 of 5 bytes in 1500 ms"), m);
        }
    }

    @Test
    void garbageIsRefused() throws Exception {
        CompletableFuture<QpEndpoint> f = serve(p -> { throw new AssertionError("connected to garbage"); });
        try (Socket s = client()) {
            byte[] b = new byte[PingPongExchange.MESSAGE_SIZE];
            new Random(13).nextBytes(b);
            s.getOutputStream().write(b);
            String m = failure(f);
            assertTrue(m.contains("Couldn't parse the remote address"), m);
        }
    }

    @Test
    void aSilentClientTimesOut() throws Exception {
        CompletableFuture<QpEndpoint> f = serve(p -> { });
        try (Socket s = client()) {
            String m = failure(f);
            assertTrue(m.contains("the peer sent 0 of 52 bytes in 1500 ms") && m.contains("Couldn't read remote address"), m);
        }
    }

    @Test
    void aFloodIsNotRead() throws Exception {
        CompletableFuture<QpEndpoint> f = serve(p -> { });
        long written = 0;
        try (Socket s = client()) {
            OutputStream out = s.getOutputStream();
            byte[] chunk = new byte[64 * 1024];
            byte[] first = PingPongExchange.encode(CLIENT);
            System.arraycopy(first, 0, chunk, 0, first.length);
            try {
                while (written < 100L << 20) {
                    out.write(chunk);
                    written += chunk.length;
                }
            } catch (IOException e) {
                // the server closed the connection
            }
            assertTrue(failure(f).contains("more than the 52 bytes"));
        }
        assertTrue(written < 32L << 20, "the server let " + written + " bytes of a 100 MB flood in");
    }
}
