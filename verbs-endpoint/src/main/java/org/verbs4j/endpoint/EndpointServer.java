package org.verbs4j.endpoint;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import org.verbs4j.api.Rdma;
import org.verbs4j.api.cm.CmId;
import org.verbs4j.api.cm.ConnectionManager;
import org.verbs4j.api.cm.ConnectionRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A listening endpoint, from {@link Endpoints#listen}. {@link #accept} waits for the next peer and returns it
 * connected. With rdma_cm the accepted endpoints share this server's connection manager: close them before
 * the server (closing the server first closes their connections too).
 */
public final class EndpointServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EndpointServer.class);

    private final InetSocketAddress address;
    private final EndpointOptions options;
    private final ConnectionManager cm;
    private final CmId listener;
    private final ManualAcceptor<RdmaEndpoint> tcp;
    private final java.util.List<RdmaEndpoint> accepted = new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile boolean closed;
    /** PD, CQs and memory made ahead for the next connection on the listener's device (rdma_cm, bound address). */
    private EndpointResources spare;

    EndpointServer(InetSocketAddress address, EndpointOptions options) {
        this.address = address;
        this.options = options;
        if (options.mode() == ConnectionMode.RDMA_CM) {
            ConnectionManager c = Rdma.connectionManager();
            try {
                CmId l = c.createId();
                l.bind(address);
                if (options.fabric().trafficClass() >= 0) {
                    l.setTypeOfService(options.fabric().trafficClass()); // inherited by the accepted ids
                }
                l.listen(options.backlog());
                this.cm = c;
                this.listener = l;
            } catch (RuntimeException e) {
                c.close();
                throw e;
            }
            this.tcp = null;
        } else {
            this.cm = null;
            this.listener = null;
            this.tcp = new ManualAcceptor<>(address, options.backlog(), new TcpExchange.Limits(Endpoints.HELLO,
                    options.maxPendingHandshakes(), options.handshakeTimeout()), Endpoints::checkHello,
                    this::completeManual, null);
        }
        prepareSpare();
        LOG.debug("endpoint server listening on {} ({})", address, options.mode());
    }

    /** {@return the address listened on} With the manual mode and port 0, it has the port the system chose. */
    public InetSocketAddress address() {
        return tcp != null ? tcp.localAddress() : address;
    }

    /**
     * Waits up to {@code timeout} for the next peer and returns its connected endpoint. With rdma_cm a peer that
     * is not a verbs4j endpoint is rejected and the exception says so; the server keeps listening.
     *
     * <p>With {@link ConnectionMode#MANUAL} the server serves the TCP exchanges itself, several at once, from the
     * moment it listens: a peer that floods, sends garbage, stays silent past
     * {@link EndpointOptions#handshakeTimeout} or comes beyond {@link EndpointOptions#maxPendingHandshakes} is
     * dropped with a log line (SLF4J, WARN) and never reaches this method, which returns the next peer that
     * connected well (at most {@link EndpointOptions#backlog} of them wait, connected, for it).
     *
     * @param timeout the longest wait; not null
     * @return the connected endpoint, which the caller closes
     * @throws EndpointException when no peer came in time, or this side failed to connect one
     * @throws IllegalStateException when the server is closed
     */
    public RdmaEndpoint accept(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (closed) {
            throw new IllegalStateException("endpoint server on " + address + " is closed");
        }
        return cm != null ? acceptCm(timeout) : tcp.accept(timeout);
    }

    /**
     * With rdma_cm on a bound address the listener knows its device: make the next endpoint's PD, CQs and memory
     * now, so that a connection request is answered with little more than a QP creation. (On iWARP the peer
     * waits for the MPA reply ~10 s at most; a JVM that is still cold, or a loaded machine, can take that long
     * to create and register everything.) Best effort: on any failure the next accept makes them itself.
     */
    private void prepareSpare() {
        if (cm == null || closed) {
            return;
        }
        EndpointResources s = new EndpointResources();
        s.mode = ConnectionMode.RDMA_CM;
        s.options = options;
        try {
            s.context = listener.context();
            if (s.context == null) {
                return;
            }
            Endpoints.prepare(s, "on " + address);
            Endpoints.createMemory(s);
            spare = s;
        } catch (RuntimeException e) {
            LOG.debug("endpoint server on {}: no resources made ahead ({})", address, e.toString());
            s.abandon();
        }
    }

    private RdmaEndpoint acceptCm(Duration timeout) {
        ConnectionRequest req = listener.awaitRequest(timeout);
        CmId id = req.id();
        String peer = "peer of " + address;
        EndpointResources s;
        boolean ahead = spare != null && spare.context == id.context();
        if (ahead) {
            s = spare;
            spare = null;
        } else {
            s = new EndpointResources();
            s.mode = ConnectionMode.RDMA_CM;
            s.options = options;
        }
        s.cmId = id;
        RdmaEndpoint ep = null;
        try {
            Handshake theirs;
            try {
                theirs = Handshake.decode(req.privateData(), peer);
            } catch (EndpointException e) {
                id.reject("not a verbs4j endpoint".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                throw e;
            }
            if (ahead) {
                Endpoints.createQueuePair(s, (pd, attrs) -> id.createQueuePair(pd, attrs));
            } else {
                s.context = id.context();
                var port = Endpoints.prepare(s, "on " + address);
                Endpoints.createResources(s, port, (pd, attrs) -> id.createQueuePair(pd, attrs));
            }
            ep = new RdmaEndpoint(s);
            ep.postAllReceives();
            ep.applyPeer(theirs, peer);
            id.accept(Endpoints.connectionParameters(s.fabric, options, ep.localHandshake(0).encode()));
            id.awaitEstablished(options.timeout());
            ep.creditHandshake(false);
            accepted.removeIf(RdmaEndpoint::isClosed);
            accepted.add(ep);
            prepareSpare();
            return ep;
        } catch (RuntimeException e) {
            Endpoints.freeFailed(ep, s, e);
            if (spare == null) {
                prepareSpare();
            }
            throw e;
        }
    }

    /**
     * The rest of a manual exchange whose first message passed {@link Endpoints#checkHello} (on a handshake
     * worker): the endpoint, the QP towards the client's, this side's message, the client's ready byte.
     */
    private RdmaEndpoint completeManual(TcpExchange.Peer peer) {
        EndpointResources s = new EndpointResources();
        s.options = options;
        Endpoints.Manual m = new Endpoints.Manual();
        RdmaEndpoint ep;
        try {
            ep = Endpoints.manualEndpoint(s, m, "on " + address() + " from " + peer.remote());
        } catch (RuntimeException e) {
            Endpoints.freeFailed(null, s, e);
            throw new ManualAcceptor.LocalFailure(e);
        }
        try {
            Handshake h = Endpoints.connectManual(s, m, peer.first(), peer.remote());
            ep.applyPeer(h, peer.remote());
            peer.write(m.hello);
            byte[] ready = peer.read(1, shorter(options.timeout(), options.handshakeTimeout()),
                    "the client's ready byte");
            if (ready[0] != Endpoints.READY) {
                throw new EndpointException("the peer " + peer.remote() + " sent " + ready[0] + " instead of the ready byte");
            }
            ep.creditHandshake(false);
            return ep;
        } catch (RuntimeException e) {
            Endpoints.closeQuietly(ep, e);
            throw e;
        }
    }

    /** {@return true once {@link #close} ran} */
    public boolean isClosed() {
        return closed;
    }

    /** Stops listening; with rdma_cm also closes the connections accepted here that are still open. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (spare != null) {
            spare.abandon();
            spare = null;
        }
        if (cm != null) {
            // the accepted endpoints' ids, QPs and device contexts belong to this connection manager
            for (RdmaEndpoint ep : accepted) {
                try {
                    ep.close();
                } catch (RuntimeException e) {
                    LOG.warn("closing {} with its server: {}", ep, e.toString());
                }
            }
            cm.close();
        } else {
            tcp.close();
        }
    }

    /** The shorter of two time-outs: a peer that stalls after its first message is bounded by the handshake's. */
    private static java.time.Duration shorter(java.time.Duration a, java.time.Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
