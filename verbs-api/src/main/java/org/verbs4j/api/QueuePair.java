package org.verbs4j.api;

/**
 * A queue pair ({@code struct ibv_qp}): RC, UC or UD. Created in RESET; {@link QpConnector} moves it through
 * INIT, RTR and RTS towards a peer (or rdma_cm does, for a QP made by a connection id), then post work
 * requests. {@link #modify} is the single transition underneath. Posting allocates nothing and takes no lock; one thread
 * at a time may post to each queue.
 *
 * <p>Contract for every post: the memory the requests point at must stay registered and unchanged
 * (sends) or untouched by Java (receives, read targets) until its completion arrives.
 */
public interface QueuePair extends AutoCloseable {

    /** {@return the protection domain} */
    ProtectionDomain protectionDomain();

    /** {@return the QP number} */
    int qpNumber();

    /** {@return the type} */
    QpType type();

    /** {@return the send CQ} */
    CompletionQueue sendCq();

    /** {@return the recv CQ} */
    CompletionQueue recvCq();

    /** {@return the shared receive queue, or {@code null}} */
    SharedReceiveQueue srq();

    /** {@return what the device gave at creation (it may round requested sizes up)} */
    QpCapabilities capabilities();

    /**
     * {@code ibv_modify_qp} with the attributes set in {@code attributes} (its mask).
     *
     * @param attributes the attributes to change; their mask says which
     */
    void modify(QpAttributes attributes);

    /**
     * {@code ibv_query_qp} for the attributes in {@code mask} ({@link QpAttrMask}).
     *
     * @param mask the attribute mask, {@link QpAttrMask} bits
     * @return the attributes read
     */
    QpAttributes query(int mask);

    /** {@return the current state, from {@code ibv_query_qp}} */
    default QpState state() {
        return query(QpAttrMask.STATE).state();
    }

    /**
     * {@return whether this queue pair can post {@link Opcode#SEND_WITH_IMM} and {@link Opcode#RDMA_WRITE_WITH_IMM}
     * to its peer} True on InfiniBand and RoCE. False on iWARP, whose RDMAP (RFC 5040) carries no immediate data,
     * with one exception: a connected queue pair of the software iWARP device whose peer negotiated the RFC 7306
     * extensions in the MPA exchange (both peers verbs4j). Before that device's queue pair is connected, false.
     */
    default boolean supportsImmediateData() {
        return protectionDomain().context().device().transportType() != TransportType.IWARP;
    }

    /**
     * {@code ibv_post_send} of {@code wrs.count()} chained requests. On failure throws {@link PostException},
     * which says which request failed; the ones before it were posted.
     *
     * @param wrs the work requests
     */
    void postSend(SendRequests wrs);

    /**
     * {@code ibv_post_recv} of {@code wrs.count()} chained requests; fails like {@link #postSend}.
     *
     * @param wrs the work requests
     */
    void postReceive(ReceiveRequests wrs);

    /** {@return whether closed} */
    boolean isClosed();

    /** {@code ibv_destroy_qp}. */
    @Override
    void close();
}
