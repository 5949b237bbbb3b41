package org.verbs4j.jnr;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.QpInitAttributes;
import org.verbs4j.api.QpState;
import org.verbs4j.api.QpType;
import org.verbs4j.api.QueuePair;
import org.verbs4j.api.TransportType;
import org.verbs4j.api.cm.CmEvent;
import org.verbs4j.api.cm.CmEventType;
import org.verbs4j.api.cm.CmException;
import org.verbs4j.api.cm.CmId;
import org.verbs4j.api.cm.CmRejectedException;
import org.verbs4j.api.cm.ConnectionParameters;
import org.verbs4j.api.cm.ConnectionRequest;
import org.verbs4j.api.cm.PortSpace;
import org.verbs4j.api.cm.UdParameters;
import org.verbs4j.api.internal.RawMemory;
import org.verbs4j.api.spi.AbstractResource;

/**
 * {@link CmId} over one {@code rdma_cm_id}: the calls, and the connected-mode sequence (resolve, connect,
 * accept, disconnect) over the waits of its {@link CmIdState}. The datagram calls of a
 * {@link PortSpace#UDP} id (SIDR connect, multicast) are {@link CmDatagram}'s.
 *
 * <p>A child of its {@link JnrConnectionManager}; its queue pair depends on it, and {@link #close()}
 * closes that queue pair first. Closing the queue pair directly goes through {@link #destroyQp}, which
 * also clears librdmacm's {@code id->qp}.
 */
final class JnrCmId extends AbstractResource implements CmId {
    private final JnrConnectionManager mgr;
    private final LibRdmacm cm;
    private final CmIdState state;
    /** The native {@code struct rdma_cm_id *}. */
    final long id;
    /** Whether this id came from {@link #awaitRequest} (then it accepts or rejects). */
    private final boolean fromRequest;
    private final CmDatagram datagram;
    private volatile boolean listening;
    private volatile JnrQueuePair qp;

    JnrCmId(JnrConnectionManager mgr, CmIdState state, boolean fromRequest) {
        super(mgr);
        describeForLeakReport("rdma_cm id 0x" + Long.toHexString(state.id)
                + (state.portSpace == PortSpace.UDP ? ", UDP" : ""));
        this.mgr = mgr;
        this.cm = mgr.cm;
        this.state = state;
        this.id = state.id;
        this.fromRequest = fromRequest;
        this.datagram = new CmDatagram(this, state);
    }

    @Override
    public PortSpace portSpace() {
        return state.portSpace;
    }

    boolean ud() {
        return state.portSpace == PortSpace.UDP;
    }

    JnrConnectionManager manager() {
        return mgr;
    }

    /** Throws {@link IllegalStateException} when closed (for {@link CmDatagram}). */
    void ensureOpen() {
        checkOpen();
    }

    // ---- the API ----

    /* route.addr.src_addr and dst_addr: what librdmacm's rdma_get_local_addr and rdma_get_peer_addr read */
    @Override
    public InetSocketAddress localAddress() {
        return address(RdmacmLayout.ID_ROUTE_SRC_ADDR);
    }

    @Override
    public InetSocketAddress peerAddress() {
        return listening ? null : address(RdmacmLayout.ID_ROUTE_DST_ADDR);
    }

    private InetSocketAddress address(int offset) {
        enter();
        try {
            return SockAddr.read(id + offset);
        } finally {
            leave();
        }
    }

    @Override
    public void bind(InetSocketAddress address) {
        enter();
        try {
            long sa = SockAddr.allocate(address);
            try {
                if (cm.bindAddr.call(id, sa) != 0) {
                    throw CmHints.callFailed("rdma_bind_addr", NativeFunction.errno(), SockAddr.text(address));
                }
            } finally {
                RawMemory.free(sa);
            }
        } finally {
            leave();
        }
    }

    @Override
    public void listen(int backlog) {
        enter();
        try {
            datagram.refuseOnIwarp("rdma_listen");
            if (cm.listen.call(id, backlog) != 0) {
                throw CmHints.callFailed("rdma_listen", NativeFunction.errno(), "backlog " + backlog);
            }
            listening = true;
        } finally {
            leave();
        }
    }

    @Override
    public ConnectionRequest awaitRequest(Duration timeout) {
        enter();
        try {
            if (!listening) {
                throw new IllegalStateException("awaitRequest needs listen() first");
            }
            CmIdState.PendingRequest r = state.awaitRequest(timeout);
            return new ConnectionRequest(mgr.adopt(r.state()), r.parameters());
        } finally {
            leave();
        }
    }

    @Override
    public void resolveAddress(InetSocketAddress destination, Duration timeout) {
        enter();
        try {
            state.clear(CmIdState.ADDR);
            state.peer = SockAddr.text(destination);
            long sa = SockAddr.allocate(destination);
            try {
                if (cm.resolveAddr.call(id, 0, sa, CmParams.nativeTimeout(timeout)) != 0) {
                    throw CmHints.callFailed("rdma_resolve_addr", NativeFunction.errno(), state.peer);
                }
            } finally {
                RawMemory.free(sa);
            }
            CmEvent e = state.await(CmIdState.ADDR, timeout, "rdma_resolve_addr", "RDMA_CM_EVENT_ADDR_RESOLVED");
            if (e.type() != CmEventType.ADDR_RESOLVED) {
                throw eventFailed("rdma_resolve_addr", e, state.peer);
            }
        } finally {
            leave();
        }
    }

    @Override
    public void resolveRoute(Duration timeout) {
        enter();
        try {
            state.clear(CmIdState.ROUTE);
            if (cm.resolveRoute.call(id, CmParams.nativeTimeout(timeout)) != 0) {
                throw CmHints.callFailed("rdma_resolve_route", NativeFunction.errno(), state.peer);
            }
            CmEvent e = state.await(CmIdState.ROUTE, timeout, "rdma_resolve_route", "RDMA_CM_EVENT_ROUTE_RESOLVED");
            if (e.type() != CmEventType.ROUTE_RESOLVED) {
                throw eventFailed("rdma_resolve_route", e, state.peer);
            }
        } finally {
            leave();
        }
    }

    @Override
    public DeviceContext context() {
        enter();
        try {
            JnrDeviceContext ctx = deviceContext();
            if (ctx == null) {
                throw new IllegalStateException("this CmId has no device yet: bind it to a device's address, "
                        + "or resolveAddress first");
            }
            return ctx;
        } finally {
            leave();
        }
    }

    /** The context of {@code id->verbs}, or null before the id has a device. */
    JnrDeviceContext deviceContext() {
        long verbs = RawMemory.getAddress(id + RdmacmLayout.ID_VERBS);
        return verbs == 0 ? null : mgr.contextFor(verbs);
    }

    /** Whether this id is on an iWARP device (false when it has none yet, or that cannot be told). */
    boolean onIwarp() {
        try {
            JnrDeviceContext ctx = deviceContext();
            return ctx != null && ctx.device().transportType() == TransportType.IWARP;
        } catch (RuntimeException e) {
            return false;
        }
    }

    @Override
    public QueuePair createQueuePair(ProtectionDomain pd, QpInitAttributes attributes) {
        enter();
        try {
            if (qp != null && !qp.isClosed()) {
                throw new IllegalStateException("this CmId already has a queue pair");
            }
            if (!(pd instanceof JnrProtectionDomain jpd)) {
                throw new IllegalArgumentException(pd + " is not a jnr protection domain");
            }
            if (ud() != (attributes.type() == QpType.UD)) {
                throw new IllegalArgumentException(ud()
                        ? "a PortSpace.UDP id makes UD queue pairs, not " + attributes.type()
                        : "a PortSpace.TCP id makes connected queue pairs, not UD: create the id with "
                                + "connectionManager.createId(PortSpace.UDP)");
            }
            DeviceContext ctx = context();
            if (((JnrDeviceContext) pd.context()).address() != ((JnrDeviceContext) ctx).address()) {
                throw new IllegalArgumentException("the protection domain is on " + pd.context().device().name()
                        + "'s context, not on this CmId's (" + ctx.device().name() + "): allocate it on cmId.context()");
            }
            JnrQueuePair q = JnrQueuePair.createOnCmId(jpd, attributes, this);
            if (ud()) {
                q.noteState(QpState.RTS); // rdma_create_qp moved it through INIT (Q_Key RDMA_UDP_QKEY) and RTR to RTS
            }
            qp = q;
            return q;
        } finally {
            leave();
        }
    }

    /**
     * Destroys this id's queue pair {@code qpAddress} as {@code rdma_destroy_qp} does ({@code ibv_destroy_qp},
     * then {@code id->qp = NULL}, so that no later rdma_cm call touches the freed QP), but keeping the
     * error, and under the lock of the event thread's answer to a DISCONNECTED (rdma_disconnect modifies
     * {@code id->qp}). Returns ibv_destroy_qp's result.
     */
    int destroyQp(long qpAddress) {
        return state.locked(() -> {
            int rc = (int) JnrBackend.lib().destroyQp.call(qpAddress);
            if (rc == 0 && RawMemory.getAddress(id + RdmacmLayout.ID_QP) == qpAddress) {
                RawMemory.putAddress(id + RdmacmLayout.ID_QP, 0L);
            }
            return rc;
        });
    }

    @Override
    public QueuePair queuePair() {
        return qp;
    }

    @Override
    public byte[] connect(ConnectionParameters parameters, Duration timeout) {
        enter();
        try {
            if (ud()) {
                throw new IllegalStateException("a PortSpace.UDP id is connected with connectDatagram(privateData, "
                        + "timeout), which returns the peer's QP number, Q_Key and address");
            }
            if (qp == null || qp.isClosed()) {
                throw new IllegalStateException("connect needs createQueuePair(pd, attributes) on this CmId first");
            }
            byte[] data = parameters.privateData();
            if (data.length > ConnectionParameters.CONNECT_PRIVATE_DATA_MAX) {
                throw new IllegalArgumentException("rdma_connect carries at most "
                        + ConnectionParameters.CONNECT_PRIVATE_DATA_MAX + " bytes of private data (RDMA_PS_TCP), not "
                        + data.length);
            }
            state.clear(CmIdState.DISC);
            CmEvent e = requestConnection(parameters, timeout);
            if (e.type() == CmEventType.ESTABLISHED) {
                established();
                return e.privateData().clone();
            }
            if (e.type() == CmEventType.REJECTED) {
                throw new CmRejectedException("rdma_connect", e.status(), e.privateData(), state.peer,
                        CmHints.reject(e.status(), onIwarp()));
            }
            throw eventFailed("rdma_connect", e, state.peer);
        } finally {
            leave();
        }
    }

    /** {@code rdma_connect} with {@code parameters}, and the event that answers it. */
    CmEvent requestConnection(ConnectionParameters parameters, Duration timeout) {
        state.clear(CmIdState.CONN);
        long param = CmParams.allocate(parameters);
        try {
            if (cm.connect.call(id, param) != 0) {
                throw CmHints.callFailed("rdma_connect", NativeFunction.errno(), state.peer);
            }
        } finally {
            RawMemory.free(param);
        }
        return state.awaitConnection(timeout, "rdma_connect");
    }

    @Override
    public UdParameters connectDatagram(byte[] privateData, Duration timeout) {
        enter();
        try {
            return datagram.connect(privateData, timeout);
        } finally {
            leave();
        }
    }

    @Override
    public UdParameters joinMulticast(InetAddress group, Duration timeout) {
        enter();
        try {
            return datagram.join(group, timeout);
        } finally {
            leave();
        }
    }

    @Override
    public void leaveMulticast(InetAddress group) {
        enter();
        try {
            datagram.leave(group);
        } finally {
            leave();
        }
    }

    @Override
    public void accept(ConnectionParameters parameters) {
        enter();
        try {
            if (!fromRequest) {
                throw new IllegalStateException("accept is for a CmId from awaitRequest");
            }
            if (ud()) {
                datagram.checkAccept(qp, parameters);
            }
            state.clear(CmIdState.CONN);
            long param = CmParams.allocate(parameters);
            try {
                if (cm.accept.call(id, param) != 0) {
                    throw CmHints.callFailed("rdma_accept", NativeFunction.errno(), null);
                }
            } finally {
                RawMemory.free(param);
            }
            if (!ud() && !onIwarp()) {
                established(); // rdma_accept moved the QP through RTR to RTS (iWARP's kernel CM does it later)
            }
        } finally {
            leave();
        }
    }

    @Override
    public void awaitEstablished(Duration timeout) {
        enter();
        try {
            if (ud()) {
                return; // a SIDR exchange ends with the reply rdma_accept sent: nothing comes back
            }
            CmEvent e = state.awaitConnection(timeout, "rdma_accept");
            if (e.type() != CmEventType.ESTABLISHED) {
                throw eventFailed("rdma_accept", e, null);
            }
            established();
        } finally {
            leave();
        }
    }

    @Override
    public void reject(byte[] privateData) {
        enter();
        try {
            byte[] d = privateData == null ? new byte[0] : privateData;
            int max = ud() ? ConnectionParameters.UD_ACCEPT_PRIVATE_DATA_MAX : ConnectionParameters.REJECT_PRIVATE_DATA_MAX;
            if (d.length > max) {
                throw new IllegalArgumentException("rdma_reject carries at most " + max + " bytes of private data"
                        + (ud() ? " on a UDP id (SIDR reply)" : "") + ", not " + d.length);
            }
            long p = d.length == 0 ? 0 : RawMemory.allocate(d.length);
            try {
                if (p != 0) {
                    RawMemory.copyFromArray(d, 0, d.length, p);
                }
                if (cm.reject.call(id, p, d.length) != 0) {
                    throw CmHints.callFailed("rdma_reject", NativeFunction.errno(), null);
                }
            } finally {
                if (p != 0) {
                    RawMemory.free(p);
                }
            }
        } finally {
            leave();
        }
    }

    @Override
    public void disconnect() {
        enter();
        try {
            checkConnected("disconnect");
            state.disconnect();
        } finally {
            leave();
        }
    }

    @Override
    public void awaitDisconnected(Duration timeout) {
        enter();
        try {
            checkConnected("awaitDisconnected");
            state.await(CmIdState.DISC, timeout, "rdma_disconnect", "RDMA_CM_EVENT_DISCONNECTED");
            JnrQueuePair q = qp;
            if (q != null) {
                q.noteState(QpState.ERR);
            }
        } finally {
            leave();
        }
    }

    @Override
    public boolean isDisconnected() {
        return state.disconnected;
    }

    @Override
    public void setTypeOfService(int tos) {
        enter();
        try {
            CmParams.setTypeOfService(cm, id, tos);
        } finally {
            leave();
        }
    }

    // ---- the resource ----

    @Override
    protected String kind() {
        return "CmId";
    }

    /** Its queue pair (a child through {@link JnrQueuePair#createOnCmId}) closes with it. */
    @Override
    protected boolean closesChildren() {
        return true;
    }

    /** Ends every wait on this id before its queue pair closes. */
    @Override
    protected void beforeClose() {
        state.markClosed("the CmId was closed");
    }

    /** Rejects the requests nobody took from this listener, then {@code rdma_destroy_id}. */
    @Override
    protected void destroy() {
        state.markClosed("the CmId was closed");
        RuntimeException first = null;
        for (CmIdState.PendingRequest r : state.drainRequests()) {
            try {
                mgr.events().discard(r.state(), "its listener was closed before it was accepted");
            } catch (RuntimeException e) {
                first = first == null ? e : first;
            }
        }
        mgr.events().destroyId(state);
        if (first != null) {
            throw first;
        }
    }

    @Override
    public String toString() {
        String peer = state.peer;
        return "CmId[0x" + Long.toHexString(id) + (ud() ? ", UDP" : "") + (listening ? ", listening" : "")
                + (peer.isEmpty() ? "" : ", " + peer) + (isClosed() ? ", closed" : "") + "]";
    }

    // ---- helpers ----

    private void established() {
        JnrQueuePair q = qp;
        if (q != null) {
            q.noteState(QpState.RTS);
        }
    }

    private void checkConnected(String what) {
        if (ud()) {
            throw new IllegalStateException(what + ": a PortSpace.UDP id has no connection to end (UD is "
                    + "connectionless); close the id when done");
        }
    }

    CmException eventFailed(String verb, CmEvent e, String detail) {
        return CmHints.eventFailed(verb, e, detail, ud(), e.type() == CmEventType.REJECTED && onIwarp());
    }
}
