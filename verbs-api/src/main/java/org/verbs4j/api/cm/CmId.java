package org.verbs4j.api.cm;

import java.net.InetSocketAddress;
import java.time.Duration;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.QpInitAttributes;
import org.verbs4j.api.QueuePair;

/**
 * An {@code rdma_cm_id}: one end of an RC connection, or a listener. Every wait takes a timeout and
 * never hangs: closing this id, its listener or the {@link ConnectionManager}, or a
 * {@link CmEventType#DEVICE_REMOVAL}, ends it with a {@link CmException}.
 *
 * <p>Active side: {@link #resolveAddress} → {@link #resolveRoute} → {@link #createQueuePair} →
 * {@link #connect}. Passive side: {@link #bind} → {@link #listen} → {@link #awaitRequest} → on the
 * request's id {@link #createQueuePair} → {@link #accept} → {@link #awaitEstablished}.
 */
public interface CmId extends AutoCloseable {

    /** {@code rdma_bind_addr}. Port 0 picks one. */
    void bind(InetSocketAddress address);

    /** {@code rdma_listen}. */
    void listen(int backlog);

    /** The next connection request on this listener (a new id, the peer's private data and parameters). */
    ConnectionRequest awaitRequest(Duration timeout);

    /** {@code rdma_resolve_addr} and wait for ADDR_RESOLVED; binds this id to the device that reaches {@code destination}. */
    void resolveAddress(InetSocketAddress destination, Duration timeout);

    /** {@code rdma_resolve_route} and wait for ROUTE_RESOLVED. */
    void resolveRoute(Duration timeout);

    /**
     * The device context librdmacm opened for this id's device (after bind, resolveAddress, or on an
     * id from {@link #awaitRequest}). Owned by the {@link ConnectionManager}: do not close it.
     */
    DeviceContext context();

    /** {@code rdma_create_qp}: an RC queue pair bound to this id; {@code pd} must be on {@link #context()}. */
    QueuePair createQueuePair(ProtectionDomain pd, QpInitAttributes attributes);

    /** The queue pair {@link #createQueuePair} made, or {@code null}. */
    QueuePair queuePair();

    /**
     * {@code rdma_connect} and wait for ESTABLISHED; needs {@link #createQueuePair} first. Returns the
     * private data the peer passed to {@link #accept} (on IB/RoCE padded with zeros to 196 bytes; exact on
     * iWARP). REJECTED throws {@link CmRejectedException} (with the peer's private data); UNREACHABLE,
     * CONNECT_ERROR, a DISCONNECTED or the timeout throw {@link CmException}. At most
     * {@link ConnectionParameters#CONNECT_PRIVATE_DATA_MAX} bytes of private data.
     */
    byte[] connect(ConnectionParameters parameters, Duration timeout);

    /** {@code rdma_accept} on an id from {@link #awaitRequest}; then {@link #awaitEstablished}. */
    void accept(ConnectionParameters parameters);

    /** Waits for ESTABLISHED after {@link #accept}. */
    void awaitEstablished(Duration timeout);

    /** {@code rdma_reject} on an id from {@link #awaitRequest}, with up to 148 bytes of private data (may be null). */
    void reject(byte[] privateData);

    /**
     * {@code rdma_disconnect}; both sides then get DISCONNECTED. An id answers a peer's disconnect by
     * itself (on IB/RoCE that sends the CM DREP the peer waits for), so calling this after the peer
     * disconnected does nothing.
     */
    void disconnect();

    /** Waits until this id got DISCONNECTED (returns at once when it already has). */
    void awaitDisconnected(Duration timeout);

    /** {@code rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, 1)}; call before resolveRoute / listen. */
    void setTypeOfService(int tos);

    /** Whether {@link #close()} was called. */
    boolean isClosed();

    /** Closes the queue pair made by {@link #createQueuePair}, if still open, then {@code rdma_destroy_id}. */
    @Override
    void close();
}
