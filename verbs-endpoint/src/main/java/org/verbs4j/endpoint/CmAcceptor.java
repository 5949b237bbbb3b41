package org.verbs4j.endpoint;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Consumer;
import java.util.function.Function;
import org.verbs4j.api.cm.CmId;
import org.verbs4j.api.cm.ConnectionRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listening side over rdma_cm: one thread takes the listener's connection requests as they come, and each
 * request is answered on a thread of its own ({@link AcceptQueue}), so that a peer that stalls after its request
 * (no RTU, no MPA reply, no credit message) holds up nobody else until the endpoint's time-out drops it. At most
 * {@code maxPending} requests are answered at once; one beyond that is rejected with a log line.
 */
final class CmAcceptor implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CmAcceptor.class);
    /** How long one wait for a request lasts before the taker looks at {@link #closed} again. */
    private static final Duration TAKE = Duration.ofSeconds(5);

    private final CmId listener;
    private final AcceptQueue<RdmaEndpoint> queue;
    private final Function<ConnectionRequest, RdmaEndpoint> connect;
    private final Thread taker;
    private volatile boolean closed;

    /**
     * Starts taking requests on {@code listener} (bound and listening).
     *
     * @param connect answers one request and returns the connected endpoint; throws
     *                {@link AcceptQueue.LocalFailure} for this side's failures, any other exception for the peer's
     *                (having freed what it made)
     */
    CmAcceptor(CmId listener, String where, int backlog, int maxPending,
            Function<ConnectionRequest, RdmaEndpoint> connect, Consumer<String> onDrop) {
        this.listener = listener;
        this.connect = connect;
        this.queue = new AcceptQueue<>(where, backlog, maxPending, onDrop);
        this.taker = new Thread(this::take, "verbs4j-endpoint-cm-accept");
        taker.setDaemon(true);
        taker.start();
    }

    private void take() {
        while (!closed) {
            ConnectionRequest req;
            long t0 = System.nanoTime();
            try {
                req = listener.awaitRequest(TAKE);
            } catch (RuntimeException e) {
                if (closed) {
                    return;
                }
                if (System.nanoTime() - t0 >= TAKE.toNanos()) {
                    continue; // no request in this round
                }
                // the listener itself failed (its device was removed, ...): accept() says so from now on
                LOG.warn("{}: the rdma_cm listener failed, no more connections: {}", queue.where(), e.toString());
                queue.failed(e);
                return;
            }
            String peer = req.id().toString();
            boolean taken = queue.submit(() -> connect.apply(req), reason -> queue.dropped(peer, reason));
            if (!taken) {
                refuse(req, closed ? "the server is closing" : "too many connection requests in progress");
            }
        }
    }

    private void refuse(ConnectionRequest req, String reason) {
        try {
            req.id().reject(("busy: " + reason).getBytes(StandardCharsets.US_ASCII));
        } catch (RuntimeException e) {
            reason += " (and the reject failed: " + e.getMessage() + ")";
        }
        queue.dropped(req.id().toString(), reason);
    }

    /** Peers dropped so far (each with a log line). */
    int dropped() {
        return queue.dropped();
    }

    /**
     * The next connected endpoint, waiting up to {@code timeout}.
     *
     * @throws EndpointException when none came in time, or this side failed to connect a peer
     */
    RdmaEndpoint accept(Duration timeout) {
        return queue.accept(timeout, "no peer connected to");
    }

    /**
     * Stops taking requests, interrupts the ones being answered and closes the endpoints nobody accepted. The
     * listener itself stays open: its owner closes it (that also wakes the taker at once).
     */
    @Override
    public void close() {
        closed = true;
        taker.interrupt();
        queue.close();
    }
}
