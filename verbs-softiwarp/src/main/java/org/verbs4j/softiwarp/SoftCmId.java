package org.verbs4j.softiwarp;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.verbs4j.api.Access;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.Errno;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.QpAttributes;
import org.verbs4j.api.QpInitAttributes;
import org.verbs4j.api.QpState;
import org.verbs4j.api.QueuePair;
import org.verbs4j.api.VerbsException;
import org.verbs4j.api.cm.CmEventType;
import org.verbs4j.api.cm.CmException;
import org.verbs4j.api.cm.CmId;
import org.verbs4j.api.cm.CmRejectedException;
import org.verbs4j.api.cm.ConnectionParameters;
import org.verbs4j.api.cm.ConnectionRequest;
import org.verbs4j.api.internal.LocalRoutes;
import org.verbs4j.api.spi.AbstractResource;
import org.verbs4j.softiwarp.wire.MpaConnection;
import org.verbs4j.softiwarp.wire.MpaSettings;
import org.verbs4j.softiwarp.wire.WireError;
import org.verbs4j.softiwarp.wire.WireException;

/**
 * An rdma_cm id of the software iWARP devices ({@link SoftConnectionManager}): a listener ({@link SoftListener}),
 * an active id (TCP connect, MPA Request, Reply) or a request's id (MPA Reply or reject). Once the handshake is done the stream
 * belongs to the queue pair ({@link SoftQueuePair#establish}), which says when it ends.
 *
 * <p>Every wait is on one monitor, bounded by its time-out; {@link #close()} ends it: a waiting
 * {@link #awaitRequest}, {@link #awaitDisconnected} wakes, a {@link #connect} in its TCP connect or MPA
 * handshake has its socket closed and its thread woken. All throw {@link CmException}.
 */
final class SoftCmId extends AbstractResource implements CmId {
    private static final Logger LOG = LoggerFactory.getLogger(SoftCmId.class);
    /** RDMA_CM_EVENT_REJECTED's status for a refused TCP connect: the socket's -ECONNREFUSED, as siw passes it on. */
    static final int REJECT_STATUS = -Errno.ECONNREFUSED;
    /** RDMA_CM_EVENT_REJECTED's status for an MPA Reply with R: siw_proc_mpareply reports -ECONNRESET. */
    static final int MPA_REJECT_STATUS = -Errno.ECONNRESET;
    /** The most ULP private data siw carries in an MPA v2 frame (256 less the 4 IRD/ORD bytes). */
    static final int MPA_PRIVATE_DATA_MAX = 252;

    private final SoftConnectionManager mgr;
    private final Object lock = new Object();
    /** For an id from {@link #awaitRequest}: the request to accept or reject; null once decided. */
    private MpaConnection.Incoming incoming;
    private final boolean fromRequest;
    private final int requestIrd;
    private final int requestOrd;

    private volatile SoftDeviceContext context;
    private volatile InetSocketAddress local;
    private volatile InetSocketAddress peer;
    private volatile boolean routeResolved;
    private volatile SoftQueuePair qp;
    private volatile int tos = -1;
    private volatile int negotiatedIrd = -1;
    private volatile int negotiatedOrd = -1;

    // listener (under lock)
    private SoftListener listener;
    private final ArrayDeque<SoftListener.Request> requests = new ArrayDeque<>();

    // connection (under lock)
    private SocketChannel connecting;
    private Thread waiter;
    private boolean interrupted;
    private boolean connected;
    private volatile boolean disconnected;
    private String closing;

    SoftCmId(SoftConnectionManager mgr, SoftListener.Request request) {
        super(mgr);
        this.mgr = mgr;
        this.fromRequest = request != null;
        if (request != null) {
            this.incoming = request.incoming();
            this.requestIrd = Math.min(request.incoming().ird(), SiwAttributes.MAX_IRD);
            this.requestOrd = Math.min(request.incoming().ord(), SiwAttributes.MAX_ORD);
            this.local = request.local();
            this.peer = request.remote();
            this.routeResolved = true;
        } else {
            this.requestIrd = 0;
            this.requestOrd = 0;
        }
        describeForLeakReport("software iWARP rdma_cm id" + (request != null ? " from " + request.remote() : ""));
        if (request != null) {
            try {
                this.context = mgr.contextFor(request.device());
            } catch (RuntimeException e) {
                abandon();
                throw e;
            }
        }
    }

    // ---- addresses ----

    @Override
    public void bind(InetSocketAddress address) {
        Objects.requireNonNull(address, "address");
        enter();
        try {
            if (address.isUnresolved()) {
                throw new CmException("rdma_bind_addr", Errno.EINVAL, address + " is not resolved", null);
            }
            synchronized (lock) {
                if (local != null) {
                    throw new CmException("rdma_bind_addr", Errno.EINVAL, "this id is bound to " + local + " already",
                            null);
                }
                if (!address.getAddress().isAnyLocalAddress()) {
                    context = mgr.contextFor(SoftConnectionManager.requireDevice("rdma_bind_addr", address.getAddress()));
                }
                local = address;
            }
        } finally {
            leave();
        }
    }

    @Override
    public void listen(int backlog) {
        enter();
        try {
            synchronized (lock) {
                if (listener != null) {
                    throw new CmException("rdma_listen", Errno.EINVAL, "listening already on " + local, null);
                }
                if (fromRequest || connected || connecting != null) {
                    throw new CmException("rdma_listen", Errno.EINVAL, "a connected id cannot listen", null);
                }
                // the listener's threads hold this id weakly, so that an id dropped unclosed is reported as a leak
                java.lang.ref.WeakReference<SoftCmId> self = new java.lang.ref.WeakReference<>(this);
                // rdma_listen on an unbound id: the wildcard, a free port
                listener = SoftListener.open(local == null ? new InetSocketAddress(0) : local, backlog, mgr.settings(),
                        tos, r -> {
                            SoftCmId id = self.get();
                            return id != null && id.offer(r);
                        });
                local = listener.local();
            }
        } finally {
            leave();
        }
    }

    /** The listener's handshake thread has a Request: queue it for {@link #awaitRequest}, unless closing. */
    private boolean offer(SoftListener.Request r) {
        synchronized (lock) {
            if (closing != null) {
                return false;
            }
            requests.add(r);
            lock.notifyAll();
            return true;
        }
    }

    @Override
    public ConnectionRequest awaitRequest(Duration timeout) {
        long deadline = deadline(timeout);
        enter();
        try {
            SoftListener.Request p;
            synchronized (lock) {
                if (listener == null) {
                    throw new IllegalStateException("awaitRequest needs listen() first");
                }
                while ((p = requests.poll()) == null) {
                    waitUntil(deadline, timeout, "rdma_get_cm_event", "RDMA_CM_EVENT_CONNECT_REQUEST");
                }
            }
            SoftCmId id;
            try {
                id = new SoftCmId(mgr, p);
            } catch (RuntimeException e) {
                SoftListener.reject(p.incoming());
                throw e;
            }
            return new ConnectionRequest(id, new ConnectionParameters(p.incoming().privateData(), id.requestIrd,
                    id.requestOrd, 0, 0, false));
        } finally {
            leave();
        }
    }

    @Override
    public void resolveAddress(InetSocketAddress destination, Duration timeout) {
        Objects.requireNonNull(destination, "destination");
        deadline(timeout);
        enter();
        try {
            if (destination.isUnresolved()) {
                throw new CmException("rdma_resolve_addr", CmEventType.ADDR_ERROR, -Errno.EINVAL,
                        destination + " is not resolved", "give an IP address");
            }
            synchronized (lock) {
                InetAddress source;
                if (local != null && !local.getAddress().isAnyLocalAddress()) {
                    source = local.getAddress();
                } else {
                    try {
                        source = LocalRoutes.sourceFor(destination.getAddress());
                    } catch (RuntimeException e) {
                        throw new CmException("rdma_resolve_addr", CmEventType.ADDR_ERROR, -Errno.ENETUNREACH,
                                destination + ": " + e.getMessage(), "check the routes to it");
                    }
                }
                SoftIwarpDevice d = SoftConnectionManager.deviceFor(source);
                if (d == null) {
                    CmException why = SoftConnectionManager.noDevice("rdma_resolve_addr", source);
                    // the hint says how to add the device that is missing
                    throw new CmException("rdma_resolve_addr", CmEventType.ADDR_ERROR, -why.errno(),
                            destination + " is reached from " + source.getHostAddress() + ", an address of no software "
                                    + "iWARP device (" + Errno.name(why.errno()) + ")", why.hint());
                }
                context = mgr.contextFor(d);
                if (local == null || local.getAddress().isAnyLocalAddress()) {
                    local = new InetSocketAddress(source, local == null ? 0 : local.getPort());
                }
                peer = destination;
            }
        } finally {
            leave();
        }
    }

    @Override
    public void resolveRoute(Duration timeout) {
        deadline(timeout);
        enter();
        try {
            if (peer == null || fromRequest) {
                throw new CmException("rdma_resolve_route", Errno.EINVAL, "resolveAddress first", null);
            }
            routeResolved = true; // TCP finds the route itself when it connects
        } finally {
            leave();
        }
    }

    @Override
    public DeviceContext context() {
        enter();
        try {
            DeviceContext c = context;
            if (c == null) {
                throw new IllegalStateException("this CmId has no device yet: bind it to a device's address, "
                        + "or resolveAddress first");
            }
            return c;
        } finally {
            leave();
        }
    }

    // ---- queue pair ----

    @Override
    public QueuePair createQueuePair(ProtectionDomain pd, QpInitAttributes attributes) {
        Objects.requireNonNull(pd, "pd");
        Objects.requireNonNull(attributes, "attributes");
        enter();
        try {
            synchronized (lock) {
                if (qp != null && !qp.isClosed()) {
                    throw new IllegalStateException("this CmId already has a queue pair");
                }
                if (!(pd instanceof SoftProtectionDomain spd)) {
                    throw new IllegalArgumentException(pd + " is not a software iWARP protection domain");
                }
                DeviceContext ctx = context();
                if (pd.context() != ctx) {
                    throw new IllegalArgumentException("the protection domain is on " + pd.context().device().name()
                            + "'s context, not on this CmId's (" + ctx.device().name()
                            + "): allocate it on cmId.context()");
                }
                SoftQueuePair q = (SoftQueuePair) spd.createQueuePair(attributes);
                try {
                    // rdma_create_qp on iWARP: iw_cm_init_qp_attr moves it to INIT with remote read and write
                    q.modify(new QpAttributes().state(QpState.INIT).port(1)
                            .accessFlags(Access.REMOTE_WRITE | Access.REMOTE_READ));
                } catch (RuntimeException e) {
                    q.close();
                    throw e;
                }
                qp = q;
                return q;
            }
        } finally {
            leave();
        }
    }

    @Override
    public QueuePair queuePair() {
        return qp;
    }

    // ---- connecting ----

    @Override
    public byte[] connect(ConnectionParameters parameters, Duration timeout) {
        Objects.requireNonNull(parameters, "parameters");
        long deadline = deadline(timeout);
        enter();
        try {
            SoftQueuePair q = qp;
            if (q == null || q.isClosed()) {
                throw new IllegalStateException("connect needs createQueuePair(pd, attributes) on this CmId first");
            }
            byte[] data = parameters.privateData();
            if (data.length > MPA_PRIVATE_DATA_MAX) {
                throw new VerbsException("rdma_connect", Errno.EINVAL, "an MPA v2 request carries at most "
                        + MPA_PRIVATE_DATA_MAX + " bytes of private data, not " + data.length);
            }
            SocketChannel ch;
            synchronized (lock) {
                if (fromRequest || listener != null || peer == null) {
                    throw new IllegalStateException(fromRequest || listener != null
                            ? "connect is for an active id, not a listener or a request's id"
                            : "connect needs resolveAddress and resolveRoute first");
                }
                if (!routeResolved) {
                    throw new IllegalStateException("connect needs resolveRoute first");
                }
                if (connected || connecting != null) {
                    throw new CmException("rdma_connect", Errno.EISCONN, "this id is connected or connecting already",
                            null);
                }
                try {
                    ch = SocketChannel.open();
                } catch (IOException e) {
                    throw new CmException("rdma_connect", Errno.ENOBUFS, "no socket: " + e, null);
                }
                connecting = ch;
                waiter = Thread.currentThread();
            }
            MpaConnection c = null;
            try {
                tcpConnect(ch, deadline, timeout);
                long left = Math.max(1, Math.min(SoftConnectionManager.INITIATOR_MPA_TIMEOUT_MS, (deadline - System.nanoTime()) / 1_000_000));
                MpaSettings s = mgr.settings().withTimeoutMillis(left)
                        .withSendMss(SiwAttributes.sendMss(context.softDevice(),
                                ((InetSocketAddress) ch.getLocalAddress()).getAddress(),
                                ((InetSocketAddress) ch.getRemoteAddress()).getAddress()))
                        .withIrdOrd(
                        Math.min(parameters.responderResources(), SiwAttributes.MAX_IRD),
                        Math.min(parameters.initiatorDepth(), SiwAttributes.MAX_ORD));
                c = MpaConnection.connect(ch, s, data);
                synchronized (lock) {
                    checkClosing("rdma_connect");
                    local = (InetSocketAddress) ch.getLocalAddress(); // with the port the connect took
                    connecting = null;
                    connected = true;
                    disconnected = false;
                }
                establish(q, c);
                LOG.debug("connected {} -> {} (IRD {}, ORD {}, CRC {})", local, peer, c.ird(), c.ord(), c.crcEnabled());
                return c.peerPrivateData();
            } catch (IOException e) {
                SoftListener.closeQuietly(ch);
                throw connectFailed(e, timeout, deadline - System.nanoTime() > 1_000_000);
            } catch (RuntimeException e) {
                SoftListener.closeQuietly(ch);
                if (c != null) {
                    c.close();
                }
                synchronized (lock) {
                    connected = false;
                }
                throw e;
            } finally {
                synchronized (lock) {
                    connecting = null;
                    waiter = null;
                    if (interrupted) {
                        interrupted = false;
                        Thread.interrupted(); // clear what close() set to wake this thread
                    }
                }
            }
        } finally {
            leave();
        }
    }

    /** A non-blocking TCP connect (NODELAY, the id's local address and TOS), bounded by the deadline. */
    private void tcpConnect(SocketChannel ch, long deadline, Duration timeout) throws IOException {
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        if (tos >= 0) {
            ch.setOption(StandardSocketOptions.IP_TOS, tos);
        }
        ch.bind(local);
        ch.configureBlocking(false);
        if (ch.connect(peer)) {
            return;
        }
        try (Selector sel = Selector.open()) {
            ch.register(sel, SelectionKey.OP_CONNECT);
            while (true) {
                synchronized (lock) {
                    checkClosing("rdma_connect");
                }
                long left = (deadline - System.nanoTime()) / 1_000_000;
                if (left <= 0) {
                    throw new CmException("rdma_connect", null, 0, "no RDMA_CM_EVENT_ESTABLISHED within "
                            + millis(timeout) + " ms (" + peer + ": no TCP connection)", "is the peer's host up?");
                }
                sel.select(Math.min(left, 100));
                sel.selectedKeys().clear();
                if (ch.finishConnect()) {
                    return;
                }
            }
        }
    }

    /** The exception for a failed connect; {@code timeLeft}: the call's time-out has not expired. */
    private CmException connectFailed(IOException e, Duration timeout, boolean timeLeft) {
        synchronized (lock) {
            if (closing != null) {
                return closedException("rdma_connect");
            }
        }
        if (e instanceof ConnectException) {
            return new CmRejectedException("rdma_connect", REJECT_STATUS, null, peer + ": " + e.getMessage(),
                    "the connection was refused (ECONNREFUSED): nobody listens on that port");
        }
        if (e instanceof WireException w) {
            if (w.error() == WireError.MPA_REJECTED) {
                return new CmRejectedException("rdma_connect", MPA_REJECT_STATUS, w.privateData(), peer.toString(),
                        "the peer's application rejected the request (iWARP MPA reject, reported as ECONNRESET); "
                                + "its private data says why");
            }
            if (w.error() == WireError.MPA_TIMEOUT && timeLeft) {
                return new CmException("rdma_connect", CmEventType.UNREACHABLE, -Errno.ETIMEDOUT, peer
                        + ": no MPA Reply within " + SoftConnectionManager.INITIATOR_MPA_TIMEOUT_MS
                        + " ms (siw's MPAREQ time-out)", "is the peer an iWARP listener that accepts?");
            }
            if (w.error() == WireError.MPA_TIMEOUT) {
                return new CmException("rdma_connect", null, 0, "no RDMA_CM_EVENT_ESTABLISHED within "
                        + millis(timeout) + " ms (" + peer + ": no MPA Reply)", "is the peer an iWARP listener?");
            }
            if (w.error() == WireError.CONNECTION_CLOSED) {
                return new CmRejectedException("rdma_connect", -Errno.ECONNRESET, null, peer
                        + ": the peer closed the TCP connection during the MPA handshake",
                        "is the peer an iWARP listener, and did it accept within its time-out?");
            }
            return new CmException("rdma_connect", CmEventType.CONNECT_ERROR, -Errno.EPROTO, peer + ": " + w.getMessage(),
                    "is the peer an iWARP (MPA v2) listener?");
        }
        return new CmException("rdma_connect", CmEventType.CONNECT_ERROR, -Errno.ECONNRESET, peer + ": " + e, null);
    }

    @Override
    public void accept(ConnectionParameters parameters) {
        Objects.requireNonNull(parameters, "parameters");
        enter();
        try {
            MpaConnection.Incoming in = decide("accept");
            SoftQueuePair q = qp;
            if (q == null || q.isClosed()) {
                synchronized (lock) {
                    incoming = in; // still undecided: close() rejects it
                }
                throw new IllegalStateException("accept needs createQueuePair(pd, attributes) on this CmId first "
                        + "(an iWARP accept hands the connection to the queue pair)");
            }
            // siw_accept with relaxed IRD negotiation: ORD at most the initiator's IRD, IRD at least its ORD
            int ord = Math.min(parameters.initiatorDepth(), SiwAttributes.MAX_ORD);
            int ird = Math.min(Math.max(parameters.responderResources(), requestOrd), SiwAttributes.MAX_IRD);
            MpaConnection c;
            try {
                c = in.accept(parameters.privateData(), ird, ord);
            } catch (IOException e) {
                throw new CmException("rdma_accept", CmEventType.CONNECT_ERROR, -Errno.ECONNRESET, peer + ": " + e,
                        "did the initiator give up (its MPA time-out)?");
            }
            synchronized (lock) {
                connected = true;
            }
            try {
                establish(q, c);
            } catch (RuntimeException e) {
                c.close();
                throw e;
            }
            LOG.debug("accepted {} <- {} (IRD {}, ORD {}, CRC {})", local, peer, c.ird(), c.ord(), c.crcEnabled());
        } finally {
            leave();
        }
    }

    /**
     * Hands the stream to the queue pair: to RTR with the negotiated IRD (what the peer may read from us at
     * once, the QP's {@code max_dest_rd_atomic}), then {@link SoftQueuePair#establish}, which moves it to RTS.
     */
    private void establish(SoftQueuePair q, MpaConnection c) {
        negotiatedIrd = c.ird();
        negotiatedOrd = c.ord();
        if (q.state() == QpState.INIT) {
            q.modify(new QpAttributes().state(QpState.RTR).maxDestRdAtomic(Math.min(c.ird(), SiwAttributes.MAX_IRD)));
        }
        q.establish(c, this::ended);
    }

    @Override
    public void awaitEstablished(Duration timeout) {
        deadline(timeout);
        enter();
        try {
            synchronized (lock) {
                if (!fromRequest) {
                    throw new IllegalStateException("awaitEstablished is for a CmId from awaitRequest, after accept");
                }
                if (!connected) {
                    throw new CmException("rdma_accept", null, 0, "no RDMA_CM_EVENT_ESTABLISHED: accept was not "
                            + "called, or failed", null);
                }
            }
        } finally {
            leave();
        }
    }

    @Override
    public void reject(byte[] privateData) {
        byte[] d = privateData == null ? new byte[0] : privateData.clone();
        if (d.length > ConnectionParameters.REJECT_PRIVATE_DATA_MAX) {
            throw new IllegalArgumentException("rdma_reject carries at most "
                    + ConnectionParameters.REJECT_PRIVATE_DATA_MAX + " bytes of private data, not " + d.length);
        }
        enter();
        try {
            MpaConnection.Incoming in = decide("reject");
            try {
                in.reject(d);
            } catch (IOException e) {
                LOG.debug("reject to {} not delivered: {}", peer, e.toString());
            }
        } finally {
            leave();
        }
    }

    /** Takes the undecided request of a request's id. */
    private MpaConnection.Incoming decide(String verb) {
        synchronized (lock) {
            if (!fromRequest) {
                throw new IllegalStateException(verb + " is for a CmId from awaitRequest");
            }
            MpaConnection.Incoming in = incoming;
            if (in == null) {
                throw new CmException("rdma_" + verb, Errno.EINVAL, "the request was accepted or rejected already",
                        null);
            }
            incoming = null;
            return in;
        }
    }

    // ---- disconnecting ----

    /** The queue pair's end of the stream (peer closed, Terminate, disconnect, QP destroyed). */
    private void ended() {
        synchronized (lock) {
            disconnected = true;
            lock.notifyAll();
        }
        LOG.debug("disconnected {} - {}", local, peer);
    }

    @Override
    public void disconnect() {
        enter();
        try {
            SoftQueuePair q;
            synchronized (lock) {
                if (!connected) {
                    throw new CmException("rdma_disconnect", Errno.EINVAL, "this id is not connected", null);
                }
                if (disconnected) {
                    return;
                }
                q = qp;
            }
            if (q != null) {
                q.disconnect();
            }
        } finally {
            leave();
        }
    }

    @Override
    public void awaitDisconnected(Duration timeout) {
        long deadline = deadline(timeout);
        enter();
        try {
            synchronized (lock) {
                while (!disconnected) {
                    waitUntil(deadline, timeout, "rdma_disconnect", "RDMA_CM_EVENT_DISCONNECTED");
                }
            }
        } finally {
            leave();
        }
    }

    @Override
    public boolean isDisconnected() {
        return disconnected;
    }

    @Override
    public void setTypeOfService(int typeOfService) {
        if (typeOfService < 0 || typeOfService > 255) {
            throw new IllegalArgumentException("type of service " + typeOfService + ": 0..255");
        }
        checkOpen();
        tos = typeOfService;
    }

    @Override
    public InetSocketAddress localAddress() {
        return local;
    }

    @Override
    public InetSocketAddress peerAddress() {
        return peer;
    }

    /** {@return the connection's IRD as negotiated by MPA (RDMA READs the peer may have outstanding here); -1 before} */
    int negotiatedIrd() {
        return negotiatedIrd;
    }

    /** {@return the connection's ORD as negotiated by MPA (RDMA READs this side may have outstanding); -1 before} */
    int negotiatedOrd() {
        return negotiatedOrd;
    }

    // ---- waits ----

    private static long deadline(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        long now = System.nanoTime();
        long nanos;
        try {
            nanos = timeout.toNanos();
        } catch (ArithmeticException e) {
            nanos = Long.MAX_VALUE / 4;
        }
        return now + Math.min(Math.max(nanos, 0), Long.MAX_VALUE / 4);
    }

    private static long millis(Duration d) {
        try {
            return d.toMillis();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    /** One wait on the monitor (held): throws when closed or past the deadline. */
    private void waitUntil(long deadline, Duration timeout, String verb, String what) {
        checkClosing(verb);
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            throw new CmException(verb, null, 0, "no " + what + " within " + millis(timeout) + " ms"
                    + (peer == null ? "" : " (" + peer + ")"), null);
        }
        try {
            TimeUnit.NANOSECONDS.timedWait(lock, left);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CmException(verb, null, 0, "interrupted while waiting for " + what, null);
        }
        checkClosing(verb);
    }

    /** Why the waits end when the id is closed by another than the application: its connection manager's close. */
    private volatile String closedBy;

    /** Its connection manager is closing it: the waits it ends say so (as the libibverbs backend's). */
    void closingWith(String why) {
        closedBy = why;
    }

    private void checkClosing(String verb) {
        if (closing != null) {
            throw closedException(verb);
        }
    }

    private CmException closedException(String verb) {
        return new CmException(verb, null, 0, closing == null ? "the CmId was closed" : closing,
                "close ends every wait on the id");
    }

    // ---- the resource ----

    @Override
    protected String kind() {
        return "CmId";
    }

    /** Ends every wait: wakes the monitor's waiters, closes a socket being connected and wakes its thread. */
    @Override
    protected void interruptWaits() {
        synchronized (lock) {
            closing = closedBy != null ? closedBy : "the CmId was closed";
            lock.notifyAll();
            SoftListener.closeQuietly(connecting);
            if (waiter != null && !interrupted) {
                interrupted = true;
                waiter.interrupt(); // a Selector.select in the MPA handshake wakes only this way
            }
        }
    }

    @Override
    protected void resumeWaits() {
        synchronized (lock) {
            closing = null;
        }
    }

    /**
     * Closes the queue pair (which ends the stream), stops the listener and rejects the requests nobody took, and
     * rejects this request id's request when it was neither accepted nor rejected.
     */
    @Override
    protected void destroy() {
        SoftListener l;
        List<SoftListener.Request> untaken;
        MpaConnection.Incoming undecided;
        synchronized (lock) {
            closing = closedBy != null ? closedBy : "the CmId was closed";
            l = listener;
            untaken = new ArrayList<>(requests);
            requests.clear();
            undecided = incoming;
            incoming = null;
        }
        SoftQueuePair q = qp;
        if (q != null && !q.isClosed()) {
            q.close();
        }
        if (l != null) {
            l.close();
            for (SoftListener.Request r : untaken) {
                SoftListener.reject(r.incoming());
            }
        }
        if (undecided != null) {
            SoftListener.reject(undecided);
        }
    }

    @Override
    public String toString() {
        return "CmId[softiwarp" + (listener != null ? ", listening on " + local : "")
                + (peer != null ? ", " + local + " - " + peer : "") + (isClosed() ? ", closed" : "") + "]";
    }
}
