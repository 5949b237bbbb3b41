package org.verbs4j.bench.netty;

import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.verbs4j.endpoint.EndpointOptions;
import org.verbs4j.endpoint.EndpointServer;
import org.verbs4j.endpoint.Endpoints;
import org.verbs4j.endpoint.RdmaEndpoint;

/**
 * The endpoint API's server: accepts endpoints and serves each on a thread of its own ({@link ServerStream} over a
 * {@link RawLink}): an echo copies each message from its receive slot into a send slot and sends it, then reposts
 * the receive; a round's messages are checked, counted and answered. Busy polling while a connection is busy;
 * after {@value #IDLE_MILLIS} ms without a message it polls every 100 µs, so that a connection a test has left
 * costs little CPU.
 */
final class RawServer implements AutoCloseable {
    private static final long IDLE_MILLIS = 200;

    private final EndpointServer server;
    private final PrintStream err;
    private final Thread acceptor;
    private final List<RawLink> links = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    RawServer(InetSocketAddress at, EndpointOptions options, PrintStream err) {
        this.server = Endpoints.listen(at, options);
        this.err = err;
        this.acceptor = new Thread(this::acceptLoop, "netty-perf-raw-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    private void acceptLoop() {
        while (!closed) {
            RdmaEndpoint ep;
            try {
                ep = server.accept(Duration.ofMillis(500));
            } catch (org.verbs4j.endpoint.EndpointException e) {
                continue; // none in time: look whether it was closed meanwhile
            } catch (RuntimeException e) {
                if (!closed) {
                    err.println("netty-perf server: raw endpoint accept: " + e.getMessage());
                }
                return;
            }
            if (ep == null) {
                continue;
            }
            RawLink link = new RawLink(ep);
            links.add(link);
            Thread t = new Thread(() -> serve(link), "netty-perf-raw-" + ep.remoteAddress());
            t.setDaemon(true);
            t.start();
        }
    }

    private void serve(RawLink link) {
        ServerStream stream = new ServerStream("raw-endpoint server");
        ByteBuffer ack = ByteBuffer.allocate(ServerStream.ACK_BYTES);
        long idleSince = System.nanoTime();
        try {
            while (!closed) {
                ByteBuffer m = link.received();
                if (m == null) {
                    if (System.nanoTime() - idleSince > TimeUnit.MILLISECONDS.toNanos(IDLE_MILLIS)) {
                        LockSupport.parkNanos(100_000);
                    } else {
                        Thread.onSpinWait();
                    }
                    continue;
                }
                idleSince = System.nanoTime();
                int at = m.position();
                int left = m.remaining();
                while (left > 0) {
                    if (stream.echoing()) {
                        link.sendAll(m, at, left);
                        break;
                    }
                    int used = stream.feed(m, at, left);
                    at += used;
                    left -= used;
                    if (stream.takeAck()) {
                        ack.clear();
                        ack.putLong(0, stream.roundBytes());
                        link.sendAll(ack, 0, ServerStream.ACK_BYTES);
                    }
                }
                link.release();
            }
        } catch (RawLink.LinkClosed e) {
            // the client closed: its test is over
        } catch (RuntimeException e) {
            if (!closed && !link.ep.isClosed()) {
                err.println("netty-perf server: raw endpoint: " + e.getMessage());
            }
        } finally {
            links.remove(link);
            try {
                link.close();
            } catch (RuntimeException e) {
                // closing a broken endpoint
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } finally {
            for (RawLink l : links) {
                try {
                    l.ep.close();
                } catch (RuntimeException e) {
                    // already broken
                }
            }
        }
    }
}
