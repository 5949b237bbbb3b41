package org.verbs4j.jnr;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
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

/**
 * {@link CmId} over one {@code rdma_cm_id}. The event thread of its {@link JnrConnectionManager}
 * fills one result slot per kind of wait (address, route, connection, disconnect) and signals; each
 * waiting call checks its slot, the failure (close, DEVICE_REMOVAL) and its deadline.
 */
final class JnrCmId implements CmId {
    private static final int ADDR = 0;
    private static final int ROUTE = 1;
    private static final int CONN = 2;
    private static final int DISC = 3;
    private static final int MCAST = 4;
    private static final java.util.concurrent.atomic.AtomicLong NEXT_JOIN = new java.util.concurrent.atomic.AtomicLong();
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(JnrCmId.class);

    private final JnrConnectionManager mgr;
    private final LibRdmacm cm;
    final long id;
    private final JnrCmId listener;
    private final PortSpace portSpace;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final CmEvent[] slots = new CmEvent[5];
    private final Object joinLock = new Object();
    private long pendingJoin;
    private final ArrayDeque<ConnectionRequest> requests = new ArrayDeque<>();
    private boolean closed;
    private String failure;
    private CmEventType failureEvent;
    private int failureStatus;
    private boolean listening;
    private String peer = "";
    private volatile JnrQueuePair qp;
    private volatile boolean disconnectCalled;

    JnrCmId(JnrConnectionManager mgr, long id, JnrCmId listener, PortSpace portSpace) {
        this.mgr = mgr;
        this.cm = mgr.cm;
        this.id = id;
        this.listener = listener;
        this.portSpace = portSpace;
    }

    @Override
    public PortSpace portSpace() {
        return portSpace;
    }

    private boolean ud() {
        return portSpace == PortSpace.UDP;
    }

    // ---- called by the event thread ----

    void onEvent(CmEvent e) {
        if (e.type() == null) {
            return;
        }
        lock.lock();
        try {
            if (e.type() == CmEventType.DISCONNECTED && !disconnectCalled && !closed) {
                // answer the peer's disconnect at once: on IB/RoCE this sends the CM DREP, without which the
                // peer gets its DISCONNECTED only when its DREQ times out (harmless on iWARP). Done before the
                // event is visible and under the lock close() takes: once awaitDisconnected returns, the
                // application may close the id and its QP, and rdma_disconnect (which modifies id->qp) must
                // not run after that (it did, and crashed in libibverbs: RpingIT on siw0)
                disconnectCalled = true;
                cm.disconnect.call(id);
            }
            switch (e.type()) {
                case ADDR_RESOLVED, ADDR_ERROR -> slots[ADDR] = e;
                case ROUTE_RESOLVED, ROUTE_ERROR -> slots[ROUTE] = e;
                case ESTABLISHED, REJECTED, UNREACHABLE, CONNECT_ERROR, CONNECT_RESPONSE -> slots[CONN] = e;
                case DISCONNECTED -> slots[DISC] = e;
                case DEVICE_REMOVAL -> failLocked(CmEventType.DEVICE_REMOVAL, e.status(),
                        "the RDMA device was removed (RDMA_CM_EVENT_DEVICE_REMOVAL): close this id");
                default -> {
                    return;
                }
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        if (e.type() == CmEventType.DEVICE_REMOVAL) {
            for (ConnectionRequest r : drainRequests()) {
                ((JnrCmId) r.id()).fail(CmEventType.DEVICE_REMOVAL, e.status(), "the RDMA device was removed");
            }
        }
    }

    /** MULTICAST_JOIN / MULTICAST_ERROR for the join whose context was {@code token}. */
    void onMulticastEvent(CmEvent e, long token) {
        lock.lock();
        try {
            if (token == pendingJoin) {
                slots[MCAST] = e;
                changed.signalAll();
                return;
            }
        } finally {
            lock.unlock();
        }
        if (e.type() == CmEventType.MULTICAST_ERROR) {
            LOG.warn("{}: RDMA_CM_EVENT_MULTICAST_ERROR (status {}) on a multicast group joined earlier: the group "
                    + "is gone; leave it and join again", this, e.status());
        }
    }

    boolean offerRequest(JnrCmId child, ConnectionParameters params) {
        lock.lock();
        try {
            if (closed || failure != null) {
                return false;
            }
            requests.add(new ConnectionRequest(child, params));
            changed.signalAll();
            return true;
        } finally {
            lock.unlock();
        }
    }

    void fail(CmEventType event, int status, String why) {
        lock.lock();
        try {
            failLocked(event, status, why);
        } finally {
            lock.unlock();
        }
    }

    private void failLocked(CmEventType event, int status, String why) {
        if (failure == null) {
            failure = why;
            failureEvent = event;
            failureStatus = status;
        }
        changed.signalAll();
    }

    private List<ConnectionRequest> drainRequests() {
        lock.lock();
        try {
            List<ConnectionRequest> l = new ArrayList<>(requests);
            requests.clear();
            return l;
        } finally {
            lock.unlock();
        }
    }

    // ---- the API ----

    @Override
    public void bind(InetSocketAddress address) {
        checkOpen();
        long sa = sockaddr(address);
        try {
            if (cm.bindAddr.call(id, sa) != 0) {
                throw callFailed("rdma_bind_addr", NativeFunction.errno(), str(address));
            }
        } finally {
            RawMemory.free(sa);
        }
    }

    @Override
    public void listen(int backlog) {
        checkOpen();
        refuseUdOnIwarp("rdma_listen");
        if (cm.listen.call(id, backlog) != 0) {
            throw callFailed("rdma_listen", NativeFunction.errno(), "backlog " + backlog);
        }
        listening = true;
    }

    @Override
    public ConnectionRequest awaitRequest(Duration timeout) {
        if (!listening) {
            throw new IllegalStateException("awaitRequest needs listen() first");
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        lock.lock();
        try {
            while (true) {
                ConnectionRequest r = requests.poll();
                if (r != null) {
                    return r;
                }
                checkFailure("rdma_get_cm_event", "a CONNECT_REQUEST");
                waitUntil(deadline, "rdma_get_cm_event", "a CONNECT_REQUEST", timeout,
                        "no client connected: check the client's destination address and port");
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void resolveAddress(InetSocketAddress destination, Duration timeout) {
        checkOpen();
        clear(ADDR);
        peer = str(destination);
        long sa = sockaddr(destination);
        try {
            if (cm.resolveAddr.call(id, 0, sa, nativeTimeout(timeout)) != 0) {
                throw callFailed("rdma_resolve_addr", NativeFunction.errno(), peer);
            }
        } finally {
            RawMemory.free(sa);
        }
        CmEvent e = await(ADDR, timeout, "rdma_resolve_addr", "RDMA_CM_EVENT_ADDR_RESOLVED");
        if (e.type() != CmEventType.ADDR_RESOLVED) {
            throw eventFailed("rdma_resolve_addr", e, peer);
        }
    }

    @Override
    public void resolveRoute(Duration timeout) {
        checkOpen();
        clear(ROUTE);
        if (cm.resolveRoute.call(id, nativeTimeout(timeout)) != 0) {
            throw callFailed("rdma_resolve_route", NativeFunction.errno(), peer);
        }
        CmEvent e = await(ROUTE, timeout, "rdma_resolve_route", "RDMA_CM_EVENT_ROUTE_RESOLVED");
        if (e.type() != CmEventType.ROUTE_RESOLVED) {
            throw eventFailed("rdma_resolve_route", e, peer);
        }
    }

    @Override
    public DeviceContext context() {
        checkOpen();
        long verbs = RawMemory.getAddress(id + LibRdmacm.ID_VERBS);
        if (verbs == 0) {
            throw new IllegalStateException("this CmId has no device yet: bind it to a device's address, "
                    + "or resolveAddress first");
        }
        return mgr.contextFor(verbs);
    }

    @Override
    public QueuePair createQueuePair(ProtectionDomain pd, QpInitAttributes attributes) {
        checkOpen();
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
        JnrQueuePair q = JnrQueuePair.createOnCmId(jpd, attributes, id);
        if (ud()) {
            q.noteState(QpState.RTS); // rdma_create_qp moved it through INIT (Q_Key RDMA_UDP_QKEY) and RTR to RTS
        }
        qp = q;
        return q;
    }

    @Override
    public QueuePair queuePair() {
        return qp;
    }

    @Override
    public byte[] connect(ConnectionParameters parameters, Duration timeout) {
        checkOpen();
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
        clear(CONN);
        clear(DISC);
        long param = connParam(parameters);
        try {
            if (cm.connect.call(id, param) != 0) {
                throw callFailed("rdma_connect", NativeFunction.errno(), peer);
            }
        } finally {
            RawMemory.free(param);
        }
        CmEvent e = awaitConnection(timeout, "rdma_connect");
        if (e.type() == CmEventType.ESTABLISHED) {
            established();
            return e.privateData().clone();
        }
        if (e.type() == CmEventType.REJECTED) {
            throw new CmRejectedException("rdma_connect", e.status(), e.privateData(), peer, rejectHint(e.status()));
        }
        throw eventFailed("rdma_connect", e, peer);
    }

    @Override
    public UdParameters connectDatagram(byte[] privateData, Duration timeout) {
        checkOpen();
        if (!ud()) {
            throw new IllegalStateException("connectDatagram is for PortSpace.UDP ids; this one is "
                    + portSpace + ": use connect(parameters, timeout)");
        }
        byte[] data = privateData == null ? new byte[0] : privateData;
        if (data.length > ConnectionParameters.UD_CONNECT_PRIVATE_DATA_MAX) {
            throw new IllegalArgumentException("rdma_connect on a UDP id (SIDR request) carries at most "
                    + ConnectionParameters.UD_CONNECT_PRIVATE_DATA_MAX + " bytes of private data, not " + data.length);
        }
        refuseUdOnIwarp("rdma_connect");
        clear(CONN);
        long param = connParam(ConnectionParameters.defaults().withPrivateData(data));
        try {
            if (cm.connect.call(id, param) != 0) {
                throw callFailed("rdma_connect", NativeFunction.errno(), peer);
            }
        } finally {
            RawMemory.free(param);
        }
        CmEvent e = awaitConnection(timeout, "rdma_connect");
        if (e.type() == CmEventType.ESTABLISHED && e.ud() != null) {
            return e.ud();
        }
        if (e.type() == CmEventType.UNREACHABLE && e.status() > 0) {
            throw new CmRejectedException("rdma_connect", CmEventType.UNREACHABLE, e.status(), e.privateData(),
                    peer + ", SIDR status " + e.status(), sidrHint(e.status()));
        }
        throw eventFailed("rdma_connect", e, peer);
    }

    @Override
    public UdParameters joinMulticast(InetAddress group, Duration timeout) {
        checkOpen();
        checkGroup(group, "joinMulticast");
        refuseUdOnIwarp("rdma_join_multicast");
        synchronized (joinLock) {
            long token = NEXT_JOIN.incrementAndGet();
            lock.lock();
            try {
                slots[MCAST] = null;
                pendingJoin = token;
            } finally {
                lock.unlock();
            }
            long sa = sockaddr(new InetSocketAddress(group, 0));
            try {
                if (cm.joinMulticast.call(id, sa, token) != 0) {
                    int errno = NativeFunction.errno();
                    throw new CmException("rdma_join_multicast", errno, group.getHostAddress(), errno == 22
                            ? "the id must be bound to a device first: bind(localAddress) or resolveAddress(group)"
                            : hint("rdma_join_multicast", errno));
                }
            } finally {
                RawMemory.free(sa);
            }
            CmEvent e = await(MCAST, timeout, "rdma_join_multicast", "RDMA_CM_EVENT_MULTICAST_JOIN");
            if (e.type() == CmEventType.MULTICAST_JOIN && e.ud() != null) {
                return e.ud();
            }
            throw new CmException("rdma_join_multicast", e.type(), e.status(), group.getHostAddress(),
                    "joining the group failed: check that the device's netdev can send to " + group.getHostAddress()
                            + " (`ip route get " + group.getHostAddress() + "`)");
        }
    }

    @Override
    public void leaveMulticast(InetAddress group) {
        checkOpen();
        checkGroup(group, "leaveMulticast");
        long sa = sockaddr(new InetSocketAddress(group, 0));
        try {
            if (cm.leaveMulticast.call(id, sa) != 0) {
                int errno = NativeFunction.errno();
                throw new CmException("rdma_leave_multicast", errno, group.getHostAddress(),
                        errno == 99 ? "this id has not joined that group" : hint("rdma_leave_multicast", errno));
            }
        } finally {
            RawMemory.free(sa);
        }
    }

    private void checkGroup(InetAddress group, String what) {
        if (!ud()) {
            throw new IllegalStateException(what + " needs a PortSpace.UDP id; this one is " + portSpace);
        }
        if (!group.isMulticastAddress()) {
            throw new IllegalArgumentException(group.getHostAddress() + " is not a multicast address");
        }
    }

    @Override
    public void accept(ConnectionParameters parameters) {
        checkOpen();
        if (listener == null) {
            throw new IllegalStateException("accept is for a CmId from awaitRequest");
        }
        if (ud()) {
            if (qp == null || qp.isClosed()) {
                throw new IllegalStateException("accept on a PortSpace.UDP id sends this id's QP number: "
                        + "createQueuePair(pd, UD attributes) first");
            }
            if (parameters.privateData().length > ConnectionParameters.UD_ACCEPT_PRIVATE_DATA_MAX) {
                throw new IllegalArgumentException("rdma_accept on a UDP id (SIDR reply) carries at most "
                        + ConnectionParameters.UD_ACCEPT_PRIVATE_DATA_MAX + " bytes of private data, not "
                        + parameters.privateData().length);
            }
        }
        clear(CONN);
        long param = connParam(parameters);
        try {
            if (cm.accept.call(id, param) != 0) {
                throw callFailed("rdma_accept", NativeFunction.errno(), null);
            }
        } finally {
            RawMemory.free(param);
        }
    }

    @Override
    public void awaitEstablished(Duration timeout) {
        if (ud()) {
            checkOpen(); // a SIDR exchange ends with the reply rdma_accept sent: nothing comes back
            return;
        }
        CmEvent e = awaitConnection(timeout, "rdma_accept");
        if (e.type() != CmEventType.ESTABLISHED) {
            throw eventFailed("rdma_accept", e, null);
        }
        established();
    }

    @Override
    public void reject(byte[] privateData) {
        checkOpen();
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
                throw callFailed("rdma_reject", NativeFunction.errno(), null);
            }
        } finally {
            if (p != 0) {
                RawMemory.free(p);
            }
        }
    }

    @Override
    public void disconnect() {
        checkOpen();
        checkConnected("disconnect");
        lock.lock();
        try {
            if (slots[DISC] != null) {
                return; // the peer disconnected and this id already answered
            }
            // under the lock, as the event thread's answer to a DISCONNECTED: never both at once
            disconnectCalled = true;
            if (cm.disconnect.call(id) != 0) {
                throw callFailed("rdma_disconnect", NativeFunction.errno(), peer);
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void awaitDisconnected(Duration timeout) {
        checkConnected("awaitDisconnected");
        await(DISC, timeout, "rdma_disconnect", "RDMA_CM_EVENT_DISCONNECTED");
        JnrQueuePair q = qp;
        if (q != null) {
            q.noteState(QpState.ERR);
        }
    }

    @Override
    public void setTypeOfService(int tos) {
        checkOpen();
        if (tos < 0 || tos > 255) {
            throw new IllegalArgumentException("type of service is one byte, not " + tos);
        }
        long p = RawMemory.allocate(1);
        try {
            RawMemory.putByte(p, (byte) tos);
            if (cm.setOption.call(id, LibRdmacm.RDMA_OPTION_ID, LibRdmacm.RDMA_OPTION_ID_TOS, p, 1) != 0) {
                throw callFailed("rdma_set_option", NativeFunction.errno(), "RDMA_OPTION_ID_TOS " + tos);
            }
        } finally {
            RawMemory.free(p);
        }
    }

    @Override
    public boolean isClosed() {
        lock.lock();
        try {
            return closed;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        closeBy("the CmId was closed");
    }

    void closeBy(String why) {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            failLocked(null, 0, why);
        } finally {
            lock.unlock();
        }
        RuntimeException first = null;
        for (ConnectionRequest r : drainRequests()) {
            try {
                cm.reject.call(((JnrCmId) r.id()).id, 0, 0);
                ((JnrCmId) r.id()).closeBy("its listener was closed before it was accepted");
            } catch (RuntimeException e) {
                first = first == null ? e : first;
            }
        }
        JnrQueuePair q = qp;
        if (q != null && !q.isClosed()) {
            try {
                q.close();
            } catch (RuntimeException e) {
                first = first == null ? e : first;
            }
        }
        mgr.unregister(this);
        if (cm.destroyId.call(id) != 0) {
            int errno = NativeFunction.errno();
            first = first == null ? new CmException("rdma_destroy_id", errno, null, "") : first;
        }
        if (first != null) {
            throw first;
        }
    }

    @Override
    public String toString() {
        return "CmId[0x" + Long.toHexString(id) + (ud() ? ", UDP" : "") + (listening ? ", listening" : "") + (peer.isEmpty() ? "" : ", " + peer)
                + (isClosed() ? ", closed" : "") + "]";
    }

    // ---- helpers ----

    private void established() {
        JnrQueuePair q = qp;
        if (q != null) {
            q.noteState(QpState.RTS);
        }
    }

    /**
     * iWARP has no UD and no SIDR: librdmacm lets a UDP id bind and listen on an iWARP device (no request
     * ever comes) and fails rdma_connect with a bare EINVAL. Say so instead.
     */
    private void refuseUdOnIwarp(String verb) {
        if (!ud()) {
            return;
        }
        long verbs = RawMemory.getAddress(id + LibRdmacm.ID_VERBS);
        if (verbs == 0) {
            return; // not bound to a device (a wildcard listener): fine
        }
        JnrDeviceContext ctx = mgr.contextFor(verbs);
        if (ctx.device().transportType() == TransportType.IWARP) {
            throw new CmException(verb, org.verbs4j.api.Errno.EOPNOTSUPP, "PortSpace.UDP on " + ctx.device().name()
                    + (peer.isEmpty() ? "" : ", " + peer), "iWARP has no unreliable datagrams: rdma_cm's UDP port "
                    + "space (UD queue pairs, SIDR) works on InfiniBand and RoCE only; use PortSpace.TCP (RC) here");
        }
    }

    private void checkConnected(String what) {
        if (ud()) {
            throw new IllegalStateException(what + ": a PortSpace.UDP id has no connection to end (UD is "
                    + "connectionless); close the id when done");
        }
    }

    private void checkOpen() {
        if (isClosed()) {
            throw new IllegalStateException(this + " is closed");
        }
    }

    private void clear(int slot) {
        lock.lock();
        try {
            slots[slot] = null;
        } finally {
            lock.unlock();
        }
    }

    private CmEvent await(int slot, Duration timeout, String verb, String what) {
        long deadline = System.nanoTime() + timeout.toNanos() + TimeUnit.SECONDS.toNanos(1);
        lock.lock();
        try {
            while (true) {
                if (slots[slot] != null) {
                    return slots[slot];
                }
                checkFailure(verb, what);
                waitUntil(deadline, verb, what, timeout, timeoutHint(slot));
            }
        } finally {
            lock.unlock();
        }
    }

    /** ESTABLISHED / REJECTED / UNREACHABLE / CONNECT_ERROR, or a DISCONNECTED that came first. */
    private CmEvent awaitConnection(Duration timeout, String verb) {
        long deadline = System.nanoTime() + timeout.toNanos();
        lock.lock();
        try {
            while (true) {
                if (slots[CONN] != null && slots[CONN].type() != CmEventType.CONNECT_RESPONSE) {
                    return slots[CONN];
                }
                if (slots[DISC] != null) {
                    return slots[DISC];
                }
                checkFailure(verb, "RDMA_CM_EVENT_ESTABLISHED");
                waitUntil(deadline, verb, "RDMA_CM_EVENT_ESTABLISHED", timeout, timeoutHint(CONN));
            }
        } finally {
            lock.unlock();
        }
    }

    private void checkFailure(String verb, String what) {
        if (failure != null) {
            throw new CmException(verb, failureEvent, failureStatus, "while waiting for " + what + ": " + failure,
                    failureEvent == CmEventType.DEVICE_REMOVAL ? "close the CmId, its QP and PD, and open the device again"
                            : "");
        }
    }

    private void waitUntil(long deadline, String verb, String what, Duration timeout, String hint) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            throw new CmException(verb, null, 0, "no " + what + " within " + timeout.toMillis() + " ms"
                    + (peer.isEmpty() ? "" : " (" + peer + ")"), hint);
        }
        try {
            changed.awaitNanos(left);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CmException(verb, null, 0, "interrupted while waiting for " + what, "");
        }
    }

    private static String timeoutHint(int slot) {
        return switch (slot) {
            case ADDR -> "address resolution did not finish: check the route (`ip route get ADDR`) and that its "
                    + "netdev has an RDMA device (`rdma link`)";
            case ROUTE -> "route resolution did not finish: check the path to the peer";
            case CONN -> "the peer did not answer: check that it listens and accepts, and that the network "
                    + "between the two RDMA devices works";
            case MCAST -> "the join was not answered: check the device's port state (`rdma link`)";
            default -> "the peer did not disconnect: call disconnect() on this side to end the connection";
        };
    }

    private CmException callFailed(String verb, int errno, String detail) {
        return new CmException(verb, errno, detail, hint(verb, Math.abs(errno)));
    }

    private CmException eventFailed(String verb, CmEvent e, String detail) {
        String hint;
        int s = Math.abs(e.status());
        if (e.type() == CmEventType.ADDR_ERROR || e.type() == CmEventType.ROUTE_ERROR) {
            hint = s == 110 ? "resolution timed out: check that the peer is up and reachable through an RDMA netdev"
                    : hint(verb, s);
        } else if (e.type() == CmEventType.UNREACHABLE && ud()) {
            hint = "the peer did not answer the SIDR request: check that a server listens on that address and "
                    + "port with a PortSpace.UDP id, and that the path between the devices works";
        } else if (e.type() == CmEventType.UNREACHABLE) {
            hint = "the peer did not answer the CM request: check that a server listens on that address and "
                    + "port and that the path between the devices works";
        } else if (e.type() == CmEventType.DISCONNECTED) {
            hint = "the peer disconnected before the connection was established";
        } else if (e.type() == CmEventType.REJECTED) {
            hint = rejectHint(e.status());
        } else {
            hint = "the connection could not be set up: check the QP attributes and both devices' state (`rdma link`)";
        }
        return new CmException(verb, e.type(), e.status(), detail, hint);
    }

    /** The IB CM SIDR REP status of a failed UD connect (ib_cm_sidr_status). */
    private static String sidrHint(int status) {
        return switch (status) {
            case 1 -> "nobody listens on that port with a PortSpace.UDP id (SIDR status 1, service ID not supported): "
                    + "check the server's address, port and port space";
            case 2 -> "the peer's application rejected the request (SIDR status 2); its private data is attached";
            case 3 -> "the peer has no queue pair for this service (SIDR status 3)";
            case 5 -> "the peer does not support this SIDR version (status 5)";
            default -> "the peer's CM refused the SIDR request (status " + status + ")";
        };
    }

    private String rejectHint(int status) {
        boolean iwarp = false;
        try {
            long verbs = RawMemory.getAddress(id + LibRdmacm.ID_VERBS);
            iwarp = verbs != 0 && mgr.contextFor(verbs).device().transportType() == TransportType.IWARP;
        } catch (RuntimeException ignored) {
            // no device: decide by the status alone
        }
        if (iwarp || status < 0) {
            if (status == -104) {
                return "the peer's application rejected the request (iWARP MPA reject, reported as ECONNRESET); "
                        + "its private data is attached";
            }
            if (status == -111) {
                return "the connection was refused (ECONNREFUSED): nobody listens on that port";
            }
            return "the peer refused the connection (status " + status + ")";
        }
        return switch (status) {
            case 8 -> "nobody listens on that port (IB CM reject reason 8, invalid service ID): check the "
                    + "server's address and port";
            case 28 -> "the peer's application rejected the request (IB CM reject reason 28, consumer defined); "
                    + "its private data is attached";
            default -> "the peer's CM rejected the request (IB CM reject reason " + status + ")";
        };
    }

    static String hint(String verb, int errno) {
        return switch (errno) {
            case 19, 99 -> "no RDMA device has this address: check `rdma link`/`ibv_devinfo` and the IP on the netdev";
            case 111 -> "rdma_connect".equals(verb)
                    ? "nobody listens on that port (the iWARP TCP connection was refused): check the server's address and port"
                    : "connection refused";
            case 101, 113 -> "no route to this address from an RDMA netdev: check `ip route get ADDR` and that the "
                    + "route's netdev has an RDMA device (`rdma link`)";
            case 98 -> "another rdma_cm id is bound to this port: pick another port or close the other listener";
            case 110 -> "timed out: check that the peer is up and reachable";
            case 22 -> "the id is not in the state " + verb + " needs (e.g. connect before resolveRoute, accept "
                    + "on a listener, disconnect on an unconnected id)";
            case 13, 1 -> "check the permissions of /dev/infiniband/rdma_cm";
            case 12 -> "out of memory: check the locked-memory limit (ulimit -l)";
            default -> "";
        };
    }

    private static String str(InetSocketAddress a) {
        return (a.getAddress() == null ? a.getHostString() : a.getAddress().getHostAddress()) + ":" + a.getPort();
    }

    private static int nativeTimeout(Duration d) {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, d.toMillis()));
    }

    private static long connParam(ConnectionParameters p) {
        byte[] d = p.privateData();
        long param = RawMemory.allocate(LibRdmacm.CONN_PARAM_SIZE + d.length);
        for (int i = 0; i < LibRdmacm.CONN_PARAM_SIZE; i++) {
            RawMemory.putByte(param + i, (byte) 0);
        }
        if (d.length > 0) {
            long data = param + LibRdmacm.CONN_PARAM_SIZE;
            RawMemory.copyFromArray(d, 0, d.length, data);
            RawMemory.putAddress(param + LibRdmacm.CP_PRIVATE_DATA, data);
        }
        RawMemory.putByte(param + LibRdmacm.CP_PRIVATE_DATA_LEN, (byte) d.length);
        RawMemory.putByte(param + LibRdmacm.CP_RESPONDER_RESOURCES, (byte) p.responderResources());
        RawMemory.putByte(param + LibRdmacm.CP_INITIATOR_DEPTH, (byte) p.initiatorDepth());
        RawMemory.putByte(param + LibRdmacm.CP_FLOW_CONTROL, (byte) (p.flowControl() ? 1 : 0));
        RawMemory.putByte(param + LibRdmacm.CP_RETRY_COUNT, (byte) p.retryCount());
        RawMemory.putByte(param + LibRdmacm.CP_RNR_RETRY_COUNT, (byte) p.rnrRetryCount());
        return param;
    }

    /** struct sockaddr_in (16 bytes) or sockaddr_in6 (28 bytes); the caller frees it. */
    private static long sockaddr(InetSocketAddress a) {
        InetAddress ip = a.getAddress();
        if (ip == null) {
            throw new IllegalArgumentException("unresolved address: " + a);
        }
        byte[] b = ip.getAddress();
        if (ip instanceof Inet4Address) {
            long s = RawMemory.allocate(16);
            for (int i = 0; i < 16; i++) {
                RawMemory.putByte(s + i, (byte) 0);
            }
            RawMemory.putShort(s, (short) 2); // AF_INET
            RawMemory.putShort(s + 2, Short.reverseBytes((short) a.getPort()));
            RawMemory.copyFromArray(b, 0, 4, s + 4);
            return s;
        }
        long s = RawMemory.allocate(28);
        for (int i = 0; i < 28; i++) {
            RawMemory.putByte(s + i, (byte) 0);
        }
        RawMemory.putShort(s, (short) 10); // AF_INET6
        RawMemory.putShort(s + 2, Short.reverseBytes((short) a.getPort()));
        RawMemory.copyFromArray(b, 0, 16, s + 8);
        if (ip instanceof Inet6Address v6) {
            RawMemory.putInt(s + 24, v6.getScopeId());
        }
        return s;
    }
}
