package org.verbs4j.api;

import java.util.Objects;

/**
 * What {@link ProtectionDomain#createQueuePair} needs ({@code struct ibv_qp_init_attr}).
 *
 * <pre>{@code
 * QueuePair qp = pd.createQueuePair(new QpInitAttributes(QpType.RC, cq, cq)
 *         .maxSendWr(128).maxRecvWr(128).maxSendSge(2).maxRecvSge(2).maxInlineData(64));
 * }</pre>
 */
public final class QpInitAttributes {
    private final QpType type;
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    private SharedReceiveQueue srq;
    private int maxSendWr = 64;
    private int maxRecvWr = 64;
    private int maxSendSge = 1;
    private int maxRecvSge = 1;
    private int maxInlineData;
    private boolean signalAll;

    /**
     * The attributes of a new queue pair ({@code struct ibv_qp_init_attr}), with one SGE per request and no inline data
     * until set.
     *
     * @param type   the transport type; not null
     * @param sendCq the completion queue of the send queue; not null
     * @param recvCq the completion queue of the receive queue; not null (may be {@code sendCq})
     */
    public QpInitAttributes(QpType type, CompletionQueue sendCq, CompletionQueue recvCq) {
        this.type = Objects.requireNonNull(type, "type");
        this.sendCq = Objects.requireNonNull(sendCq, "sendCq");
        this.recvCq = Objects.requireNonNull(recvCq, "recvCq");
    }

    /**
     * Receives come from this shared receive queue; the QP gets no receive queue of its own.
     *
     * @param srq the shared receive queue
     * @return this object
     */
    public QpInitAttributes srq(SharedReceiveQueue srq) {
        this.srq = srq;
        return this;
    }

    /**
     * Sets the most outstanding send requests ({@code cap.max_send_wr} of {@code struct ibv_qp_init_attr}).
     *
     * @param n the max send WR
     * @return this object
     */
    public QpInitAttributes maxSendWr(int n) {
        this.maxSendWr = n;
        return this;
    }

    /**
     * Sets the most outstanding receive requests ({@code cap.max_recv_wr} of {@code struct ibv_qp_init_attr}).
     *
     * @param n the max recv WR
     * @return this object
     */
    public QpInitAttributes maxRecvWr(int n) {
        this.maxRecvWr = n;
        return this;
    }

    /**
     * Sets the most SGEs per send request ({@code cap.max_send_sge} of {@code struct ibv_qp_init_attr}).
     *
     * @param n the max send SGE
     * @return this object
     */
    public QpInitAttributes maxSendSge(int n) {
        this.maxSendSge = n;
        return this;
    }

    /**
     * Sets the most SGEs per receive request ({@code cap.max_recv_sge} of {@code struct ibv_qp_init_attr}).
     *
     * @param n the max recv SGE
     * @return this object
     */
    public QpInitAttributes maxRecvSge(int n) {
        this.maxRecvSge = n;
        return this;
    }

    /**
     * Sets the inline data size, in bytes ({@code cap.max_inline_data} of {@code struct ibv_qp_init_attr}).
     *
     * @param bytes the max inline data
     * @return this object
     */
    public QpInitAttributes maxInlineData(int bytes) {
        this.maxInlineData = bytes;
        return this;
    }

    /**
     * {@code sq_sig_all}: every send request generates a completion, whatever its flags.
     *
     * @param all true: every send request completes signaled ({@code sq_sig_all})
     * @return this object
     */
    public QpInitAttributes signalAll(boolean all) {
        this.signalAll = all;
        return this;
    }

    /** {@return the type ({@code qp_type} of {@code struct ibv_qp_init_attr})} */
    public QpType type() {
        return type;
    }

    /** {@return the send CQ ({@code send_cq} of {@code struct ibv_qp_init_attr})} */
    public CompletionQueue sendCq() {
        return sendCq;
    }

    /** {@return the recv CQ ({@code recv_cq} of {@code struct ibv_qp_init_attr})} */
    public CompletionQueue recvCq() {
        return recvCq;
    }

    /** {@return the SRQ ({@code srq} of {@code struct ibv_qp_init_attr})} */
    public SharedReceiveQueue srq() {
        return srq;
    }

    /** {@return the most outstanding send requests ({@code cap.max_send_wr} of {@code struct ibv_qp_init_attr})} */
    public int maxSendWr() {
        return maxSendWr;
    }

    /** {@return the most outstanding receive requests ({@code cap.max_recv_wr} of {@code struct ibv_qp_init_attr})} */
    public int maxRecvWr() {
        return maxRecvWr;
    }

    /** {@return the most SGEs per send request ({@code cap.max_send_sge} of {@code struct ibv_qp_init_attr})} */
    public int maxSendSge() {
        return maxSendSge;
    }

    /** {@return the most SGEs per receive request ({@code cap.max_recv_sge} of {@code struct ibv_qp_init_attr})} */
    public int maxRecvSge() {
        return maxRecvSge;
    }

    /** {@return the inline data size, in bytes ({@code cap.max_inline_data} of {@code struct ibv_qp_init_attr})} */
    public int maxInlineData() {
        return maxInlineData;
    }

    /** {@return whether signal all} */
    public boolean signalAll() {
        return signalAll;
    }
}
