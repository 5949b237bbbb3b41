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
 * A listening endpoint, from {@link Endpoints#listen}. From the moment it listens the server connects the peers
 * that come, several at once, each on a thread of its own (so that a peer that stalls holds up nobody else), and
 * {@link #accept} returns the next one connected. With rdma_cm the accepted endpoints share this server's
 * connection manager: close them before the server (closing the server first closes their connections too).
 */
public final class EndpointServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EndpointServer.class);

    private final InetSocketAddress address;
    private final EndpointOptions options;
    private final ConnectionManager cm;
    private final CmId listener;
    private final ManualAcceptor<RdmaEndpoint> tcp;
    private final CmAcceptor rdmaCm;
    private final java.util.List<RdmaEndpoint> accepted = new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile boolean closed;
    /** PD, CQs and memory made ahead for the next connection on the listener's device (rdma_cm, bound address). */
    private EndpointResources spare;

    EndpointServer(InetSocketAddress address, EndpointOptions options) {
        this(address, options, null);
    }

    /** {@code onDrop} is also told each dropped peer's log line (tests), or {@code null}. */
    EndpointServer(InetSocketAddress address, EndpointOptions options, java.util.function.Consumer<String> onDrop) {
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
            prepareSpare();
            this.rdmaCm = new CmAcceptor(listener, "endpoint server on " + address, options.backlog(),
                    options.maxPendingHandshakes(), this::completeCm, onDrop);
        } else {
            this.cm = null;
            this.listener = null;
            this.rdmaCm = null;
            this.tcp = new ManualAcceptor<>(address, options.backlog(), new TcpExchange.Limits(Endpoints.HELLO,
                    options.maxPendingHandshakes(), options.handshakeTimeout()), Endpoints::checkHello,
                    this::completeManual, onDrop);
        }
        LOG.debug("endpoint server listening on {} ({})", address, options.mode());
    }

    /** {@return the address listened on} With the manual mode and port 0, it has the port the system chose. */
    public InetSocketAddress address() {
        return tcp != null ? tcp.localAddress() : address;
    }

    /**
     * Waits up to {@code timeout} for the next peer and returns its connected endpoint.
     *
     * <p>The server connects peers itself, several at once, from the moment it listens; a peer that fails is
     * dropped with a log line (SLF4J, WARN) and never reaches this method, which returns the next peer that
     * connected well (at most {@link EndpointOptions#backlog} of them wait, connected, for it). Dropped: with
     * rdma_cm, a peer that is not a verbs4j endpoint or sends a bad handshake (it is rejected, and its
     * {@code CmRejectedException} says why), and one that stalls after its request for longer than
     * {@link EndpointOptions#timeout}; with {@link ConnectionMode#MANUAL}, a peer that floods, sends garbage or
     * stays silent past {@link EndpointOptions#handshakeTimeout}; in both modes a peer beyond
     * {@link EndpointOptions#maxPendingHandshakes} being connected at once.
     *
     * @param timeout the longest wait; not null
     * @return the connected endpoint, which the caller closes
     * @throws EndpointException when no peer came in time, or this side failed to connect one (its device, its
     *                           resources: the failure's own exception)
     * @throws IllegalStateException when the server is closed
     */
    public RdmaEndpoint accept(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (closed) {
            throw new IllegalStateException("endpoint server on " + address + " is closed");
        }
        if (cm == null) {
            return tcp.accept(timeout);
        }
        RdmaEndpoint ep = rdmaCm.accept(timeout);
        accepted.removeIf(RdmaEndpoint::isClosed);
        accepted.add(ep);
        if (closed) { // a close() that came meanwhile did not see it
            ep.close();
            throw new IllegalStateException("endpoint server on " + address + " is closed");
        }
        return ep;
    }

    /** Peers dropped so far, each with a log line. */
    int dropped() {
        return cm != null ? rdmaCm.dropped() : tcp.dropped();
    }

    /**
     * With rdma_cm on a bound address the listener knows its device: make the next endpoint's PD, CQs and memory
     * now, so that a connection request is answered with little more than a QP creation. (On iWARP the peer
     * waits for the MPA reply ~10 s at most; a JVM that is still cold, or a loaded machine, can take that long
     * to create and register everything.) Best effort: on any failure the next accept makes them itself.
     */
    private void prepareSpare() {
        synchronized (this) {
            if (cm == null || closed || spare != null) {
                return;
            }
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
        } catch (RuntimeException e) {
            LOG.debug("endpoint server on {}: no resources made ahead ({})", address, e.toString());
            s.abandon();
            return;
        }
        synchronized (this) {
            if (!closed && spare == null) {
                spare = s;
                return;
            }
        }
        s.abandon(); // another thread made one first, or the server closed meanwhile
    }

    /** The resources made ahead, when they are on {@code context}'s device; {@code null} otherwise. */
    private synchronized EndpointResources takeSpare(Object context) {
        EndpointResources s = spare;
        if (s == null || s.context != context) {
            return null;
        }
        spare = null;
        return s;
    }

    /**
     * Answers one connection request (on its own thread, see {@link CmAcceptor}): this side's failures are thrown
     * as {@link AcceptQueue.LocalFailure}, the peer's as they are, with everything made for it freed.
     */
    private RdmaEndpoint completeCm(ConnectionRequest req) {
        CmId id = req.id();
        String peer = "peer " + id + " of " + address;
        EndpointResources s = takeSpare(id.context());
        boolean ahead = s != null;
        if (!ahead) {
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
            try {
                if (ahead) {
                    Endpoints.createQueuePair(s, (pd, attrs) -> id.createQueuePair(pd, attrs));
                } else {
                    s.context = id.context();
                    var port = Endpoints.prepare(s, "on " + address);
                    Endpoints.createResources(s, port, (pd, attrs) -> id.createQueuePair(pd, attrs));
                }
                ep = new RdmaEndpoint(s);
                ep.postAllReceives();
            } catch (RuntimeException e) {
                throw new AcceptQueue.LocalFailure(e);
            }
            ep.applyPeer(theirs, peer);
            id.accept(Endpoints.connectionParameters(s.fabric, options, ep.localHandshake(0).encode()));
            id.awaitEstablished(options.timeout());
            ep.recordAddresses(id);
            ep.creditHandshake(false);
            prepareSpare();
            return ep;
        } catch (RuntimeException e) {
            Endpoints.freeFailed(ep, s, e instanceof AcceptQueue.LocalFailure l ? l.failure() : e);
            prepareSpare();
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
            throw new AcceptQueue.LocalFailure(e);
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

    /**
     * Stops listening, drops the peers being connected and closes the connected ones nobody accepted; with
     * rdma_cm also closes the connections accepted here that are still open.
     */
    @Override
    public void close() {
        EndpointResources s;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            s = spare;
            spare = null;
        }
        if (s != null) {
            s.abandon();
        }
        if (cm != null) {
            rdmaCm.close();
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
