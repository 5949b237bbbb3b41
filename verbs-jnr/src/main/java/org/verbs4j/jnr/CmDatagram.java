package org.verbs4j.jnr;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.verbs4j.api.Errno;
import org.verbs4j.api.TransportType;
import org.verbs4j.api.cm.CmEvent;
import org.verbs4j.api.cm.CmEventType;
import org.verbs4j.api.cm.CmException;
import org.verbs4j.api.cm.CmRejectedException;
import org.verbs4j.api.cm.ConnectionParameters;
import org.verbs4j.api.cm.PortSpace;
import org.verbs4j.api.cm.UdParameters;
import org.verbs4j.api.internal.RawMemory;

/**
 * The datagram side of a {@link JnrCmId}: what only a {@link PortSpace#UDP} id does (the SIDR connect,
 * multicast joins and leaves, the checks of a SIDR accept), and the refusal of UD on iWARP.
 */
final class CmDatagram {
    private static final AtomicLong NEXT_JOIN = new AtomicLong();

    private final JnrCmId owner;
    private final CmIdState state;
    private final LibRdmacm cm;
    /** One join at a time per id: its MULTICAST_JOIN answers the token it was given. */
    private final Object joinLock = new Object();

    CmDatagram(JnrCmId owner, CmIdState state) {
        this.owner = owner;
        this.state = state;
        this.cm = LibRdmacm.get();
    }

    /** {@code rdma_connect} on a UDP id (a SIDR request) and the peer's {@code param.ud}. */
    UdParameters connect(byte[] privateData, Duration timeout) {
        owner.ensureOpen();
        if (!owner.ud()) {
            throw new IllegalStateException("connectDatagram is for PortSpace.UDP ids; this one is "
                    + state.portSpace + ": use connect(parameters, timeout)");
        }
        byte[] data = privateData == null ? new byte[0] : privateData;
        if (data.length > ConnectionParameters.UD_CONNECT_PRIVATE_DATA_MAX) {
            throw new IllegalArgumentException("rdma_connect on a UDP id (SIDR request) carries at most "
                    + ConnectionParameters.UD_CONNECT_PRIVATE_DATA_MAX + " bytes of private data, not " + data.length);
        }
        refuseOnIwarp("rdma_connect");
        CmEvent e = owner.requestConnection(ConnectionParameters.defaults().withPrivateData(data), timeout);
        if (e.type() == CmEventType.ESTABLISHED && e.ud() != null) {
            return e.ud();
        }
        if (e.type() == CmEventType.UNREACHABLE && e.status() > 0) {
            throw new CmRejectedException("rdma_connect", CmEventType.UNREACHABLE, e.status(), e.privateData(),
                    state.peer + ", SIDR status " + e.status(), CmHints.sidr(e.status()));
        }
        throw owner.eventFailed("rdma_connect", e, state.peer);
    }

    /** {@code rdma_join_multicast} and the group's {@code param.ud}. */
    UdParameters join(InetAddress group, Duration timeout) {
        owner.ensureOpen();
        checkGroup(group, "joinMulticast");
        refuseOnIwarp("rdma_join_multicast");
        synchronized (joinLock) {
            long token = NEXT_JOIN.incrementAndGet();
            state.expectJoin(token);
            long sa = SockAddr.allocate(new InetSocketAddress(group, 0));
            try {
                if (cm.joinMulticast.call(state.id, sa, token) != 0) {
                    int errno = NativeFunction.errno();
                    throw new CmException("rdma_join_multicast", errno, group.getHostAddress(), errno == Errno.EINVAL
                            ? "the id must be bound to a device first: bind(localAddress) or resolveAddress(group)"
                            : CmHints.forErrno("rdma_join_multicast", errno));
                }
            } finally {
                RawMemory.free(sa);
            }
            CmEvent e = state.await(CmIdState.MCAST, timeout, "rdma_join_multicast", "RDMA_CM_EVENT_MULTICAST_JOIN");
            if (e.type() == CmEventType.MULTICAST_JOIN && e.ud() != null) {
                return e.ud();
            }
            throw new CmException("rdma_join_multicast", e.type(), e.status(), group.getHostAddress(),
                    "joining the group failed: check that the device's netdev can send to " + group.getHostAddress()
                            + " (`ip route get " + group.getHostAddress() + "`)");
        }
    }

    /** {@code rdma_leave_multicast}. */
    void leave(InetAddress group) {
        owner.ensureOpen();
        checkGroup(group, "leaveMulticast");
        long sa = SockAddr.allocate(new InetSocketAddress(group, 0));
        try {
            if (cm.leaveMulticast.call(state.id, sa) != 0) {
                int errno = NativeFunction.errno();
                throw new CmException("rdma_leave_multicast", errno, group.getHostAddress(),
                        errno == 99 ? "this id has not joined that group" : CmHints.forErrno("rdma_leave_multicast", errno));
            }
        } finally {
            RawMemory.free(sa);
        }
    }

    /** A SIDR reply carries the id's QP number and Q_Key, and less private data than a TCP accept. */
    void checkAccept(JnrQueuePair qp, ConnectionParameters parameters) {
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

    /**
     * iWARP has no UD and no SIDR: librdmacm lets a UDP id bind and listen on an iWARP device (no request
     * ever comes) and fails rdma_connect with a bare EINVAL. Say so instead. TCP ids, and ids not bound to a
     * device (a wildcard listener), pass.
     */
    void refuseOnIwarp(String verb) {
        if (!owner.ud()) {
            return;
        }
        JnrDeviceContext ctx = owner.deviceContext();
        if (ctx != null && ctx.device().transportType() == TransportType.IWARP) {
            throw new CmException(verb, Errno.EOPNOTSUPP, "PortSpace.UDP on " + ctx.device().name()
                    + (state.peer.isEmpty() ? "" : ", " + state.peer), "iWARP has no unreliable datagrams: rdma_cm's "
                    + "UDP port space (UD queue pairs, SIDR) works on InfiniBand and RoCE only; use PortSpace.TCP (RC) here");
        }
    }

    private void checkGroup(InetAddress group, String what) {
        if (!owner.ud()) {
            throw new IllegalStateException(what + " needs a PortSpace.UDP id; this one is " + state.portSpace);
        }
        if (!group.isMulticastAddress()) {
            throw new IllegalArgumentException(group.getHostAddress() + " is not a multicast address");
        }
    }
}
