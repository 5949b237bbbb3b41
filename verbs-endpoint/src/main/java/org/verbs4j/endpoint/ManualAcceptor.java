package org.verbs4j.endpoint;

import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * The listening side of {@link ConnectionMode#MANUAL}: many TCP exchanges at once, none able to hold up another.
 * The event loop collects each peer's first message into a fixed buffer and checks it (a flood, garbage and
 * silence end there, with a log line); a peer whose message passed is connected ({@link Completion}) on a thread
 * of its own ({@link AcceptQueue}: as many as the pending handshakes allowed); the connected results wait, at
 * most {@code backlog} of them, for {@link #accept}.
 *
 * @param <T> what a completed exchange gives ({@link RdmaEndpoint} in the server)
 */
final class ManualAcceptor<T extends AutoCloseable> implements AutoCloseable {
    /** Connects a peer whose first message passed the check, on a thread of its own. */
    interface Completion<T> {
        /**
         * Ends the exchange with {@code peer}. A {@link AcceptQueue.LocalFailure} is this side's fault and reaches
         * {@link #accept}; any other exception is the peer's: it is dropped with a log line.
         */
        T complete(TcpExchange.Peer peer);
    }

    private final TcpExchange tcp;
    private final AcceptQueue<T> queue;

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
        this.queue = new AcceptQueue<>("endpoint server on " + address, backlog, limits.maxPending(), onDrop);
        TcpExchange.Gate gate = new TcpExchange.Gate() {
            @Override
            public void check(byte[] first, String peer) {
                check.accept(first, peer);
            }

            @Override
            public void admit(TcpExchange.Peer peer) {
                boolean taken = queue.submit(() -> {
                    T value = completion.complete(peer);
                    peer.finish();
                    return value;
                }, peer::drop);
                if (!taken) {
                    peer.drop(queue.isClosed() ? "the server is closing" : "too many handshakes in progress");
                }
            }

            @Override
            public void dropped(String peer, String reason) {
                queue.dropped(peer, reason);
            }
        };
        try {
            this.tcp = TcpExchange.listen(address, backlog, limits, gate);
            queue.where("endpoint server on " + tcp.localAddress());
        } catch (RuntimeException e) {
            queue.close();
            throw e;
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
        return queue.dropped();
    }

    /**
     * The next completed exchange, waiting up to {@code timeout}.
     *
     * @throws EndpointException when none completed in time, or this side failed to connect a peer
     */
    T accept(Duration timeout) {
        return queue.accept(timeout, "no peer completed the TCP exchange with");
    }

    /** Stops listening, drops the exchanges in progress and closes the completed ones nobody accepted. */
    @Override
    public void close() {
        tcp.close();
        queue.close();
    }
}
