package org.verbs4j.endpoint;

import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the two listening sides ({@link ManualAcceptor}, {@link CmAcceptor}) share: each peer is connected on a
 * thread of its own, so that a peer that stalls holds up nobody else; the threads are made on demand, at most
 * {@code maxPending} at once (a peer beyond that is dropped); the connected results wait, at most
 * {@code backlog} of them, for {@link #accept}; a dropped peer gets a log line (SLF4J, WARN).
 *
 * @param <T> what a connected peer gives ({@link RdmaEndpoint} in the server)
 */
final class AcceptQueue<T extends AutoCloseable> implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AcceptQueue.class);

    /** A failure of this side (device, resources) while connecting a peer: {@link #accept} throws the cause. */
    static final class LocalFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        LocalFailure(RuntimeException cause) {
            super(cause);
        }

        /** The failure itself. */
        RuntimeException failure() {
            return (RuntimeException) getCause();
        }
    }

    private record Result<T>(T value, RuntimeException failure) {
    }

    private volatile String where;
    /** Left in {@link #ready} by {@link #close}: wakes every {@link #accept} waiting, and stays for the next. */
    private final Result<T> closedMark = new Result<>(null, null);
    private final ThreadPoolExecutor workers;
    private final BlockingQueue<Result<T>> ready;
    private final AtomicInteger dropped = new AtomicInteger();
    private final Consumer<String> onDrop;
    private volatile boolean closed;

    /**
     * @param where      names the server in log lines and messages ("endpoint server on ADDRESS")
     * @param backlog    the most connected peers waiting for {@link #accept}
     * @param maxPending the most peers being connected at once
     * @param onDrop     also told each drop's log line (tests), or {@code null}
     */
    AcceptQueue(String where, int backlog, int maxPending, Consumer<String> onDrop) {
        this.where = where;
        this.ready = new ArrayBlockingQueue<>(backlog);
        this.onDrop = onDrop;
        AtomicInteger n = new AtomicInteger();
        this.workers = new ThreadPoolExecutor(0, maxPending, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
            Thread t = new Thread(r, "verbs4j-endpoint-handshake-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    void where(String where) {
        this.where = where;
    }

    String where() {
        return where;
    }

    /**
     * Connects a peer on a thread of its own: {@code connect} returns the connected value, throws
     * {@link LocalFailure} for this side's failures (they reach {@link #accept}) or any other exception for the
     * peer's (the peer is dropped with {@code onPeerFailure}'s reason). False, and nothing runs, when
     * {@code maxPending} peers are being connected already or this queue is closed.
     */
    boolean submit(java.util.function.Supplier<T> connect, Consumer<String> onPeerFailure) {
        try {
            workers.execute(() -> serve(connect, onPeerFailure));
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    private void serve(java.util.function.Supplier<T> connect, Consumer<String> onPeerFailure) {
        T value;
        try {
            value = connect.get();
        } catch (LocalFailure e) {
            onPeerFailure.accept("this side failed: " + e.failure().getMessage());
            failed(e.failure());
            return;
        } catch (RuntimeException e) {
            onPeerFailure.accept(String.valueOf(e.getMessage()));
            return;
        }
        deliver(value);
    }

    /** Queues a connected peer for {@link #accept} (waits while the backlog is full; closes it if this queue is closed). */
    void deliver(T value) {
        if (closed) {
            closeQuietly(value);
            return;
        }
        try {
            ready.put(new Result<>(value, null));
            if (closed) {
                drain();
            }
        } catch (InterruptedException e) {
            closeQuietly(value);
        }
    }

    /** Queues this side's failure: the next {@link #accept} throws it. */
    void failed(RuntimeException failure) {
        ready.offer(new Result<>(null, failure));
    }

    /** Logs (WARN) and counts a dropped peer. */
    void dropped(String peer, String reason) {
        dropped.incrementAndGet();
        String line = where + ": dropped the peer " + peer + ": " + reason;
        LOG.warn(line);
        if (onDrop != null) {
            onDrop.accept(line);
        }
    }

    /** Peers dropped so far (each with a log line). */
    int dropped() {
        return dropped.get();
    }

    boolean isClosed() {
        return closed;
    }

    /**
     * The next connected peer, waiting up to {@code timeout}.
     *
     * @param none the message when none came in time ("no peer ... within N ms" follows from it)
     * @throws EndpointException when none came in time, or this side failed to connect a peer
     * @throws IllegalStateException when this queue is closed, also while waiting
     */
    T accept(Duration timeout, String none) {
        if (closed) {
            throw new IllegalStateException(where + " is closed");
        }
        Result<T> r;
        try {
            r = ready.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EndpointException("interrupted while waiting for a connection", e);
        }
        if (r == null) {
            throw new EndpointException(none + " " + where + " within " + timeout.toMillis() + " ms");
        }
        if (r == closedMark) {
            ready.offer(closedMark); // for the other threads waiting
            throw new IllegalStateException(where + " is closed (by another thread, during accept)");
        }
        if (r.failure() != null) {
            throw r.failure();
        }
        return r.value();
    }

    /**
     * Interrupts the peers being connected, waits (up to 5 s) for their threads, closes what nobody accepted, and
     * wakes every thread waiting in {@link #accept} with an exception.
     */
    @Override
    public void close() {
        closed = true;
        workers.shutdownNow();
        try {
            workers.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        drain();
        ready.offer(closedMark);
    }

    private void drain() {
        Result<T> r;
        boolean marked = false;
        while ((r = ready.poll()) != null) {
            if (r == closedMark) {
                marked = true;
            } else if (r.value() != null) {
                closeQuietly(r.value());
            }
        }
        if (marked) {
            ready.offer(closedMark);
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
