package org.verbs4j.endpoint;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listening side of {@link ConnectionMode#MANUAL}: many TCP exchanges at once, none able to hold up another.
 * The event loop collects each peer's first message into a fixed buffer and checks it (a flood, garbage and
 * silence end there, with a log line); a peer whose message passed goes to one of {@link #WORKERS} threads,
 * which connects it ({@link Completion}); the connected results wait, at most {@code backlog} of them, for
 * {@link #accept}.
 *
 * @param <T> what a completed exchange gives ({@link RdmaEndpoint} in the server)
 */
final class ManualAcceptor<T extends AutoCloseable> implements AutoCloseable {
    /** Threads that connect peers whose first message passed the check. */
    static final int WORKERS = 2;
    private static final Logger LOG = LoggerFactory.getLogger(ManualAcceptor.class);

    /** Connects a peer whose first message passed the check, on a worker thread. */
    interface Completion<T> {
        /**
         * Ends the exchange with {@code peer}. A {@link LocalFailure} is this side's fault and reaches
         * {@link #accept}; any other exception is the peer's: it is dropped with a log line.
         */
        T complete(TcpExchange.Peer peer);
    }

    /** A failure of this side (device, resources) while connecting a peer: {@link #accept} throws the cause. */
    static final class LocalFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        LocalFailure(RuntimeException cause) {
            super(cause);
        }
    }

    private record Result<T>(T value, RuntimeException failure) {
    }

    private volatile String where;
    private final TcpExchange tcp;
    private final ExecutorService workers;
    private final BlockingQueue<Result<T>> ready;
    private final AtomicInteger dropped = new AtomicInteger();
    private volatile boolean closed;

    /**
     * Listens on {@code address}.
     *
     * @param check  checks a peer's first message on the event loop, without blocking (throws
     *               {@link EndpointException})
     * @param backlog the most completed exchanges waiting for {@link #accept}
     * @param onDrop  also told each drop's log line (tests), or {@code null}
     */
    ManualAcceptor(InetSocketAddress address, int backlog, TcpExchange.Limits limits,
            java.util.function.BiConsumer<byte[], String> check, Completion<T> completion,
            java.util.function.Consumer<String> onDrop) {
        this.ready = new ArrayBlockingQueue<>(backlog);
        AtomicInteger n = new AtomicInteger();
        this.workers = Executors.newFixedThreadPool(WORKERS, r -> {
            Thread t = new Thread(r, "verbs4j-endpoint-handshake-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        TcpExchange.Gate gate = new TcpExchange.Gate() {
            @Override
            public void check(byte[] first, String peer) {
                check.accept(first, peer);
            }

            @Override
            public void admit(TcpExchange.Peer peer) {
                try {
                    workers.execute(() -> serve(peer, completion));
                } catch (RejectedExecutionException e) {
                    peer.drop("the server is closing");
                }
            }

            @Override
            public void dropped(String peer, String reason) {
                dropped.incrementAndGet();
                String line = where + ": dropped the peer " + peer + ": " + reason;
                LOG.warn(line);
                if (onDrop != null) {
                    onDrop.accept(line);
                }
            }
        };
        try {
            this.where = "endpoint server on " + address;
            this.tcp = TcpExchange.listen(address, backlog, limits, gate);
            this.where = "endpoint server on " + tcp.localAddress();
        } catch (RuntimeException e) {
            workers.shutdownNow();
            throw e;
        }
    }

    private void serve(TcpExchange.Peer peer, Completion<T> completion) {
        T value;
        try {
            value = completion.complete(peer);
        } catch (LocalFailure e) {
            RuntimeException cause = (RuntimeException) e.getCause();
            peer.drop("this side failed: " + cause.getMessage());
            ready.offer(new Result<>(null, cause));
            return;
        } catch (RuntimeException e) {
            peer.drop(e.getMessage());
            return;
        }
        peer.finish();
        try {
            ready.put(new Result<>(value, null));
            if (closed) {
                drain();
            }
        } catch (InterruptedException e) {
            closeQuietly(value);
        }
    }

    /** The address listened on. */
    InetSocketAddress localAddress() {
        return tcp.localAddress();
    }

    /** TCP exchanges open now. */
    int pending() {
        return tcp.pending();
    }

    /** Peers dropped so far (each with a log line). */
    int dropped() {
        return dropped.get();
    }

    /**
     * The next completed exchange, waiting up to {@code timeout}.
     *
     * @throws EndpointException when none completed in time, or this side failed to connect a peer
     */
    T accept(Duration timeout) {
        Result<T> r;
        try {
            r = ready.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EndpointException("interrupted while waiting for a connection", e);
        }
        if (r == null) {
            throw new EndpointException("no peer completed the TCP exchange with " + where + " within "
                    + timeout.toMillis() + " ms");
        }
        if (r.failure() != null) {
            throw r.failure();
        }
        return r.value();
    }

    /** Stops listening, drops the exchanges in progress and closes the completed ones nobody accepted. */
    @Override
    public void close() {
        closed = true;
        tcp.close();
        workers.shutdownNow();
        try {
            workers.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        drain();
    }

    private void drain() {
        Result<T> r;
        while ((r = ready.poll()) != null) {
            if (r.value() != null) {
                closeQuietly(r.value());
            }
        }
    }

    private void closeQuietly(T value) {
        try {
            value.close();
        } catch (Exception e) {
            LOG.warn("{}: closing a connection nobody accepted: {}", where, e.toString());
        }
    }
}
