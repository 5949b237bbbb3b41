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

    public QpInitAttributes(QpType type, CompletionQueue sendCq, CompletionQueue recvCq) {
        this.type = Objects.requireNonNull(type, "type");
        this.sendCq = Objects.requireNonNull(sendCq, "sendCq");
        this.recvCq = Objects.requireNonNull(recvCq, "recvCq");
    }

    /** Receives come from this shared receive queue; the QP gets no receive queue of its own. */
    public QpInitAttributes srq(SharedReceiveQueue srq) {
        this.srq = srq;
        return this;
    }

    public QpInitAttributes maxSendWr(int n) {
        this.maxSendWr = n;
        return this;
    }

    public QpInitAttributes maxRecvWr(int n) {
        this.maxRecvWr = n;
        return this;
    }

    public QpInitAttributes maxSendSge(int n) {
        this.maxSendSge = n;
        return this;
    }

    public QpInitAttributes maxRecvSge(int n) {
        this.maxRecvSge = n;
        return this;
    }

    public QpInitAttributes maxInlineData(int bytes) {
        this.maxInlineData = bytes;
        return this;
    }

    /** {@code sq_sig_all}: every send request generates a completion, whatever its flags. */
    public QpInitAttributes signalAll(boolean all) {
        this.signalAll = all;
        return this;
    }

    public QpType type() {
        return type;
    }

    public CompletionQueue sendCq() {
        return sendCq;
    }

    public CompletionQueue recvCq() {
        return recvCq;
    }

    public SharedReceiveQueue srq() {
        return srq;
    }

    public int maxSendWr() {
        return maxSendWr;
    }

    public int maxRecvWr() {
        return maxRecvWr;
    }

    public int maxSendSge() {
        return maxSendSge;
    }

    public int maxRecvSge() {
        return maxRecvSge;
    }

    public int maxInlineData() {
        return maxInlineData;
    }

    public boolean signalAll() {
        return signalAll;
    }
}
