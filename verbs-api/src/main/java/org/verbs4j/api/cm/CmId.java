package org.verbs4j.api.cm;

import java.net.InetSocketAddress;
import java.time.Duration;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.QpInitAttributes;
import org.verbs4j.api.QueuePair;

/**
 * An {@code rdma_cm_id}: one end of an RC connection or of a UD association, or a listener. Every wait takes a timeout and
 * never hangs: closing this id, its listener or the {@link ConnectionManager}, or a
 * {@link CmEventType#DEVICE_REMOVAL}, ends it with a {@link CmException}.
 *
 * <p>Active side: {@link #resolveAddress} → {@link #resolveRoute} → {@link #createQueuePair} →
 * {@link #connect}. Passive side: {@link #bind} → {@link #listen} → {@link #awaitRequest} → on the
 * request's id {@link #createQueuePair} → {@link #accept} → {@link #awaitEstablished}.
 *
 * <p>A {@link PortSpace#UDP} id (from {@link ConnectionManager#createId(PortSpace)}) makes a UD queue pair,
 * which {@code rdma_create_qp} moves to RTS at once with the Q_Key {@link PortSpace#UDP_QKEY}. The active
 * side calls {@link #connectDatagram} instead of {@link #connect} and gets the peer's QP number, Q_Key and
 * address ({@link UdParameters}); the passive side accepts or rejects as with TCP, and there is no
 * ESTABLISHED and no disconnect on its side. Ids from {@link #awaitRequest} have their listener's port space.
 *
 * <p><b>Ownership</b> (the model of every verbs object, {@link org.verbs4j.api.spi.AbstractResource}): an id
 * belongs to the {@link ConnectionManager} that made it (a request's id too, once {@link #awaitRequest}
 * returned it), which closes it with itself. {@link #close()} closes this id's queue pair first (it
 * cascades); closing that queue pair directly is fine as well: it is destroyed as {@code rdma_destroy_qp}
 * does, so librdmacm keeps no pointer to it, and {@link #createQueuePair} may make another. A listener's
 * close rejects the requests nobody took. {@link #close()} twice is harmless; any other call after it
 * throws {@link IllegalStateException}; a wait in progress ends with a {@link CmException}. An id that
 * becomes unreachable without being closed is reported as a leak (SLF4J logger {@code org.verbs4j.leak}).
 */
public interface CmId extends AutoCloseable {

    /**
     * {@code rdma_bind_addr}. Port 0 picks one.
     *
     * @param address the local IP address and port (port 0: one the system chooses)
     */
    void bind(InetSocketAddress address);

    /**
     * {@code rdma_listen}.
     *
     * @param backlog the most pending connection requests
     */
    void listen(int backlog);

    /**
     * The next connection request on this listener (a new id, the peer's private data and parameters).
     *
     * @param timeout the longest wait; not null
     * @return the request; accept or reject it
     */
    ConnectionRequest awaitRequest(Duration timeout);

    /**
     * {@code rdma_resolve_addr} and wait for ADDR_RESOLVED; binds this id to the device that reaches {@code
     * destination}.
     *
     * @param destination the peer's IP address and port
     * @param timeout the longest wait; not null
     */
    void resolveAddress(InetSocketAddress destination, Duration timeout);

    /**
     * {@code rdma_resolve_route} and wait for ROUTE_RESOLVED.
     *
     * @param timeout the longest wait; not null
     */
    void resolveRoute(Duration timeout);

    /**
     * The device context librdmacm opened for this id's device (after bind, resolveAddress, or on an
     * id from {@link #awaitRequest}). Owned by the {@link ConnectionManager}: do not close it.
     *
     * @return the device context the id is bound to
     */
    DeviceContext context();

    /**
     * {@code rdma_create_qp}: a queue pair bound to this id, RC for a {@link PortSpace#TCP} id, UD for a
     * {@link PortSpace#UDP} id (other types are refused); {@code pd} must be on {@link #context()}.
     *
     * @param pd the protection domain
     * @param attributes the type, CQs and capabilities (the id is the QP's rdma_cm id)
     * @return the new queue pair, which the caller closes
     */
    QueuePair createQueuePair(ProtectionDomain pd, QpInitAttributes attributes);

    /** {@return the queue pair {@link #createQueuePair} made, or {@code null}} */
    QueuePair queuePair();

    /**
     * {@code rdma_connect} and wait for ESTABLISHED; needs {@link #createQueuePair} first. Returns the
     * private data the peer passed to {@link #accept} (on IB/RoCE padded with zeros to 196 bytes; exact on
     * iWARP). REJECTED throws {@link CmRejectedException} (with the peer's private data); UNREACHABLE,
     * CONNECT_ERROR, a DISCONNECTED or the timeout throw {@link CmException}. At most
     * {@link ConnectionParameters#CONNECT_PRIVATE_DATA_MAX} bytes of private data. {@link PortSpace#TCP} ids
     * only: a {@link PortSpace#UDP} id throws {@link IllegalStateException} (use {@link #connectDatagram}).
     *
     * @param parameters private data, RDMA READ depths and retry counts
     * @param timeout the longest wait; not null
     * @return the byte[]
     */
    byte[] connect(ConnectionParameters parameters, Duration timeout);

    /**
     * {@code rdma_accept} on an id from {@link #awaitRequest}; then {@link #awaitEstablished}. On a
     * {@link PortSpace#UDP} id this sends the SIDR reply with this id's QP number and Q_Key (so
     * {@link #createQueuePair} must come first) and up to {@link ConnectionParameters#UD_ACCEPT_PRIVATE_DATA_MAX}
     * bytes of private data.
     *
     * @param parameters private data, RDMA READ depths and retry counts
     */
    void accept(ConnectionParameters parameters);

    /**
     * Waits for ESTABLISHED after {@link #accept}; on a {@link PortSpace#UDP} id returns at once (SIDR has no third
     * message).
     *
     * @param timeout the longest wait; not null
     */
    void awaitEstablished(Duration timeout);

    /**
     * {@code rdma_reject} on an id from {@link #awaitRequest}, with up to 148 bytes of private data (may be
     * null); on a {@link PortSpace#UDP} id up to {@link ConnectionParameters#UD_ACCEPT_PRIVATE_DATA_MAX}.
     *
     * @param privateData the private data bytes; null or empty for none
     */
    void reject(byte[] privateData);

    /**
     * {@return this id's port space ({@link PortSpace#TCP} unless created with {@link
     * ConnectionManager#createId(PortSpace)})}
     */
    default PortSpace portSpace() {
        return PortSpace.TCP;
    }

    /**
     * {@link PortSpace#UDP} ids: {@code rdma_connect} (an IB CM SIDR request carrying up to
     * {@link ConnectionParameters#UD_CONNECT_PRIVATE_DATA_MAX} bytes of private data, may be null) and wait for
     * ESTABLISHED, whose {@code param.ud} this returns: the peer's QP number, Q_Key, address and accept
     * private data. Needs {@link #resolveRoute} first; the queue pair may be made before or after. A reject
     * (the peer's, or nobody listening on that port) throws {@link CmRejectedException} with event
     * UNREACHABLE and the SIDR status; no answer at all, or the timeout, throws {@link CmException}.
     *
     * @param privateData the private data bytes; null or empty for none
     * @param timeout the longest wait; not null
     * @return where to send datagrams to the peer
     */
    default UdParameters connectDatagram(byte[] privateData, Duration timeout) {
        throw new UnsupportedOperationException(getClass().getName() + " offers only PortSpace.TCP");
    }

    /**
     * {@link PortSpace#UDP} ids: {@code rdma_join_multicast} and wait for MULTICAST_JOIN, whose
     * {@code param.ud} this returns: the group's address (an address handle made from it sends to the group),
     * its Q_Key and remote QP number {@code 0xFFFFFF}. The id must be bound to a device first
     * ({@link #bind} to a local address, or {@link #resolveAddress} to the group). When the id already has its
     * queue pair, librdmacm attaches it to the group ({@code ibv_attach_mcast}), so it receives the group's
     * datagrams: create the queue pair before joining. One join at a time per id; MULTICAST_ERROR or the
     * timeout throw {@link CmException}.
     *
     * @param group the multicast IP address
     * @param timeout the longest wait; not null
     * @return the new ud parameters, which the caller closes
     */
    default UdParameters joinMulticast(java.net.InetAddress group, Duration timeout) {
        throw new UnsupportedOperationException(getClass().getName() + " offers no multicast");
    }

    /**
     * {@code rdma_leave_multicast}: detaches the queue pair from the group and leaves it.
     *
     * @param group the multicast IP address
     */
    default void leaveMulticast(java.net.InetAddress group) {
        throw new UnsupportedOperationException(getClass().getName() + " offers no multicast");
    }

    /**
     * {@code rdma_disconnect}; both sides then get DISCONNECTED. An id answers a peer's disconnect by
     * itself (on IB/RoCE that sends the CM DREP the peer waits for), so calling this after the peer
     * disconnected does nothing.
     */
    void disconnect();

    /**
     * Waits until this id got DISCONNECTED (returns at once when it already has).
     *
     * @param timeout the longest wait; not null
     */
    void awaitDisconnected(Duration timeout);

    /**
     * Whether this id got DISCONNECTED: the peer disconnected, its process or host died, or the connection
     * broke. Never blocks: a loop that waits for something from the peer can check it on every turn.
     *
     * @return true once DISCONNECTED arrived
     */
    boolean isDisconnected();

    /**
     * {@code rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, 1)}; call before resolveRoute / listen.
     *
     * @param tos the IP type of service byte
     */
    void setTypeOfService(int tos);

    /**
     * {@return this id's local IP address and port: the bound address (a listener's), the source address of a
     * resolved or connected id (with the connection's port once connected), or the address a connection request
     * came in on; {@code null} before the id has one, or when the backend does not report it}
     */
    default InetSocketAddress localAddress() {
        return null;
    }

    /**
     * {@return the peer's IP address and port: the destination of {@link #resolveAddress}, or where a connection
     * request (an id from {@link #awaitRequest}) came from; {@code null} on a listener, before
     * {@link #resolveAddress}, or when the backend does not report it}
     */
    default InetSocketAddress peerAddress() {
        return null;
    }

    /** {@return whether {@link #close()} was called} */
    boolean isClosed();

    /**
     * Ends every wait on this id, closes the queue pair made by {@link #createQueuePair} if still open, rejects
     * the connection requests nobody took (a listener), then {@code rdma_destroy_id}. Harmless when closed.
     */
    @Override
    void close();
}
