package org.verbs4j.softiwarp;

import static org.verbs4j.api.internal.WrLayout.Wr.NEXT;
import static org.verbs4j.api.internal.WrLayout.Wr.NUM_SGE;
import static org.verbs4j.api.internal.WrLayout.Wr.SGE_ADDR;
import static org.verbs4j.api.internal.WrLayout.Wr.SGE_LENGTH;
import static org.verbs4j.api.internal.WrLayout.Wr.SGE_LKEY;
import static org.verbs4j.api.internal.WrLayout.Wr.SGE_SIZE;
import static org.verbs4j.api.internal.WrLayout.Wr.SG_LIST;
import static org.verbs4j.api.internal.WrLayout.Wr.WR_ID;

import org.verbs4j.api.AsyncEvent;
import org.verbs4j.api.AsyncEventType;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.Errno;
import org.verbs4j.api.PostException;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.QpCapabilities;
import org.verbs4j.api.QpInitAttributes;
import org.verbs4j.api.QpState;
import org.verbs4j.api.QpType;
import org.verbs4j.api.ReceiveRequests;
import org.verbs4j.api.SendFlags;
import org.verbs4j.api.SendRequests;
import org.verbs4j.api.SharedReceiveQueue;
import org.verbs4j.api.VerbsException;
import org.verbs4j.api.WcOpcode;
import org.verbs4j.api.WcStatus;
import org.verbs4j.api.internal.RawMemory;
import org.verbs4j.api.internal.WrLayout.RecvWr;
import org.verbs4j.api.internal.WrLayout.SendWr;
import org.verbs4j.api.spi.AbstractResource;
import org.verbs4j.softiwarp.wire.MpaConnection;

/**
 * An RC queue pair of a software iWARP device: its send and receive {@link WorkQueue}s, the state machine
 * ({@link QpAttributesState}), and the posting checks. A post copies the chain into the queue (the caller may
 * reuse its requests at once), after refusing up front a chain longer than the queue, a request with more SGEs
 * than the QP takes, and a post in a state that takes none; in ERR (and, for sends, SQE) what is posted is
 * flushed to the CQ at once with {@code WR_FLUSH_ERR}, as siw does for a drain. Moving bytes is the
 * {@link QpDataPath}'s job: the connection manager binds an MPA stream with {@link #establish}, and from then on
 * a post transmits what it can at once (never waiting), CQ polls and the context's progress thread receive.
 */
final class SoftQueuePair extends AbstractResource implements org.verbs4j.api.QueuePair {
    /** Where a send slot's own SGEs begin: after the copied {@code ibv_send_wr}. */
    static final int SEND_SGES = SendWr.WR_SIZE;
    /** Where a receive slot's own SGEs begin: after the copied {@code ibv_recv_wr}. */
    static final int RECV_SGES = RecvWr.WR_SIZE;

    private final SoftProtectionDomain pd;
    private final SoftCompletionQueue sendCq;
    private final SoftCompletionQueue recvCq;
    private final SoftSharedReceiveQueue srq;
    private final int qpNumber;
    private final QpCapabilities capabilities;
    private final boolean signalAll;
    private final WorkQueue sq;
    private final WorkQueue rq;
    private final QpAttributesState attributes;
    /** The data path once {@link #establish}ed; it stays, ended, after the connection ends. */
    private volatile QpDataPath dataPath;

    private SoftQueuePair(SoftProtectionDomain pd, QpInitAttributes a, SoftCompletionQueue sendCq,
            SoftCompletionQueue recvCq, SoftSharedReceiveQueue srq, int qpNumber, QpCapabilities caps) {
        super(pd);
        this.srq = srq;
        this.pd = pd;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.qpNumber = qpNumber;
        this.capabilities = caps;
        this.signalAll = a.signalAll();
        this.attributes = new QpAttributesState(this);
        WorkQueue s = null;
        WorkQueue r = null;
        try {
            dependOn(sendCq);
            if (recvCq != sendCq) {
                dependOn(recvCq);
            }
            dependOn(srq);
            s = new WorkQueue(caps.maxSendWr(), SEND_SGES + caps.maxSendSge() * SGE_SIZE + caps.maxInlineData());
            r = new WorkQueue(Math.max(1, caps.maxRecvWr()), RECV_SGES + caps.maxRecvSge() * SGE_SIZE);
        } catch (RuntimeException e) {
            if (s != null) {
                s.free();
            }
            pd.softContext().softDevice().releaseQpNumber();
            abandon();
            throw e;
        }
        this.sq = s;
        this.rq = r;
        describeForLeakReport(pd.softContext().softDevice().name() + " RC qp " + qpNumber);
    }

    static SoftQueuePair create(SoftProtectionDomain pd, QpInitAttributes a) {
        if (a.type() != QpType.RC) {
            // the words of the libibverbs backend's refusal (the same tests read both): type and device, then why
            throw new VerbsException("ibv_create_qp", Errno.EOPNOTSUPP,
                    a.type() + " on " + pd.softContext().softDevice().name() + ": an iWARP device has RC QPs only",
                    "This device does not support " + a.type() + " queue pairs (iWARP has RC only)");
        }
        SoftCompletionQueue sendCq = cast(a.sendCq(), pd);
        SoftCompletionQueue recvCq = cast(a.recvCq(), pd);
        SoftSharedReceiveQueue srq = null;
        if (a.srq() != null) {
            if (!(a.srq() instanceof SoftSharedReceiveQueue) || a.srq().protectionDomain() != pd) {
                throw new IllegalArgumentException(a.srq() + " is not a shared receive queue of " + pd);
            }
            srq = (SoftSharedReceiveQueue) a.srq();
        }
        QpCapabilities caps = new QpCapabilities(
                limit("max_send_wr", a.maxSendWr(), 1, SiwAttributes.MAX_QP_WR),
                srq != null ? 0 : limit("max_recv_wr", a.maxRecvWr(), 1, SiwAttributes.MAX_QP_WR),
                limit("max_send_sge", a.maxSendSge(), 0, SiwAttributes.MAX_SGE),
                limit("max_recv_sge", a.maxRecvSge(), 0, SiwAttributes.MAX_SGE),
                limit("max_inline_data", a.maxInlineData(), 0, SiwAttributes.MAX_INLINE));
        try (AbstractResource.Use u = AbstractResource.use(pd, sendCq, recvCq, srq)) {
            int qpn = pd.softContext().softDevice().allocateQpNumber();
            return new SoftQueuePair(pd, a, sendCq, recvCq, srq, qpn, caps);
        }
    }

    private static int limit(String what, int value, int min, int max) {
        if (value < min || value > max) {
            throw new VerbsException("ibv_create_qp", Errno.EINVAL, what + " " + value + ": the device takes "
                    + min + ".." + max);
        }
        return value;
    }

    private static SoftCompletionQueue cast(CompletionQueue cq, SoftProtectionDomain pd) {
        if (!(cq instanceof SoftCompletionQueue) || cq.context() != pd.context()) {
            throw new IllegalArgumentException(cq + " is not from " + pd.context());
        }
        return (SoftCompletionQueue) cq;
    }

    WorkQueue sendQueue() {
        return sq;
    }

    WorkQueue receiveQueue() {
        return rq;
    }

    SoftDeviceContext softContext() {
        return pd.softContext();
    }

    /** {@return true once connected to a peer that negotiated RFC 7306 (a verbs4j peer), false with Linux siw} */
    @Override
    public boolean supportsImmediateData() {
        QpDataPath path = dataPath;
        return path != null && path.rfc7306();
    }

    @Override
    public void postSend(SendRequests wrs) {
        enter();
        try {
            long list = wrs.enter();
            try {
                wrs.checkFits(capabilities.maxSendWr(), capabilities.maxSendSge(), this);
                QpState s = attributes.state();
                if (s == QpState.RESET || s == QpState.INIT || s == QpState.RTR) {
                    throw new PostException("ibv_post_send", Errno.EINVAL, 0, this + ", state " + s
                            + ": a QP must be in RTS to send (connect it first, e.g. with rdma_cm)");
                }
                int n = wrs.count();
                int bad = -1;
                int badErrno = 0;
                QpDataPath path = dataPath;
                boolean rfc7306 = path != null && path.rfc7306();
                for (int i = 0; i < n && bad < 0; i++) {
                    badErrno = SendChecks.check(list + (long) i * SendWr.WR_SIZE, capabilities, rfc7306);
                    if (badErrno != 0) {
                        bad = i;
                    }
                }
                int good = bad < 0 ? n : bad;
                if (good > 0) {
                    long pos = sq.claim(good);
                    if (pos < 0) {
                        throw full("ibv_post_send", sq, good);
                    }
                    for (int i = 0; i < good; i++) {
                        copySend(list + (long) i * SendWr.WR_SIZE, sq.slot(pos + i));
                        sq.publish(pos + i);
                    }
                    if (s == QpState.ERR || s == QpState.SQE || attributes.state() == QpState.ERR) {
                        flushSend();
                    } else {
                        QpDataPath d = dataPath;
                        if (d != null) {
                            d.progressSend();
                        }
                    }
                }
                if (bad >= 0) {
                    throw new PostException("ibv_post_send", badErrno, bad, this + ": request " + bad + " of "
                            + n + " " + SendChecks.why(list + (long) bad * SendWr.WR_SIZE, capabilities, rfc7306)
                            + (bad > 0 ? "; the " + bad + " before it are posted" : ""));
                }
            } finally {
                wrs.leave();
            }
        } finally {
            leave();
        }
    }

    private void copySend(long wr, long slot) {
        RawMemory.copy(wr, slot, SendWr.WR_SIZE);
        RawMemory.putLong(slot + NEXT, 0L);
        long sges = slot + SEND_SGES;
        RawMemory.putLong(slot + SG_LIST, sges);
        int flags = RawMemory.getInt(wr + SendWr.SEND_FLAGS_OFFSET) | (signalAll ? SendFlags.SIGNALED : 0);
        RawMemory.putInt(slot + SendWr.SEND_FLAGS_OFFSET, flags);
        int numSge = RawMemory.getInt(wr + NUM_SGE);
        long from = RawMemory.getAddress(wr + SG_LIST);
        if ((flags & SendFlags.INLINE) == 0) {
            RawMemory.copy(from, sges, (long) numSge * SGE_SIZE);
            return;
        }
        // inline: the bytes are taken now, so the caller's buffer is free when the post returns
        long data = sges + (long) capabilities.maxSendSge() * SGE_SIZE;
        long at = data;
        for (int j = 0; j < numSge; j++) {
            long sge = from + (long) j * SGE_SIZE;
            int len = RawMemory.getInt(sge + SGE_LENGTH);
            RawMemory.copy(RawMemory.getLong(sge + SGE_ADDR), at, len);
            at += len;
        }
        RawMemory.putLong(sges + SGE_ADDR, data);
        RawMemory.putInt(sges + SGE_LENGTH, (int) (at - data));
        RawMemory.putInt(sges + SGE_LKEY, 0);
        RawMemory.putInt(slot + NUM_SGE, at > data ? 1 : 0);
    }

    @Override
    public void postReceive(ReceiveRequests wrs) {
        enter();
        try {
            long list = wrs.enter();
            try {
                if (srq != null) {
                    // a misuse of the QP, not a failed post: the libibverbs backend's exception, in its words
                    throw new IllegalStateException(this + " takes its receives from " + srq + ": post them there");
                }
                wrs.checkFits(capabilities.maxRecvWr(), capabilities.maxRecvSge(), this);
                QpState s = attributes.state();
                if (s == QpState.RESET) {
                    throw new PostException("ibv_post_recv", Errno.EINVAL, 0, this + ", state RESET"
                            + ": a QP must be in INIT or later to receive");
                }
                if (!rq.offerReceives(list, wrs.count())) {
                    throw full("ibv_post_recv", rq, wrs.count());
                }
                if (s == QpState.ERR || attributes.state() == QpState.ERR) {
                    flushReceive();
                }
            } finally {
                wrs.leave();
            }
        } finally {
            leave();
        }
    }

    private PostException full(String verb, WorkQueue q, int n) {
        return new PostException(verb, Errno.ENOMEM, 0, this + ": " + n + " requests do not fit: " + q.size()
                + " of " + q.depth() + " are outstanding");
    }

    /** Completes every queued send request with {@code WR_FLUSH_ERR} (errors complete signaled or not). */
    void flushSend() {
        while (!sq.tryConsume()) {
            Thread.onSpinWait();
        }
        try {
            QpDataPath d = dataPath;
            if (d != null) {
                d.flushSendSide(); // the Reads at the peer are older than what is still queued
            }
            flushEntries(sq, sendCq, true);
        } finally {
            sq.endConsume();
        }
    }

    /**
     * Completes every queued receive request with {@code WR_FLUSH_ERR}; with an SRQ, whose requests stay there for
     * the other QPs, raises {@code QP_LAST_WQE_REACHED} instead.
     */
    void flushReceive() {
        QpDataPath d = dataPath;
        if (d != null) {
            d.flushReceiveSide();
        }
        if (srq != null) {
            softContext().raise(new AsyncEvent(AsyncEventType.QP_LAST_WQE_REACHED, this, 0));
            return;
        }
        flush(rq, recvCq, false);
    }

    private void flush(WorkQueue q, SoftCompletionQueue cq, boolean send) {
        while (!q.tryConsume()) {
            Thread.onSpinWait();
        }
        try {
            flushEntries(q, cq, send);
        } finally {
            q.endConsume();
        }
    }

    /** Completes the queued requests with WR_FLUSH_ERR; holder of the queue's token. */
    private void flushEntries(WorkQueue q, SoftCompletionQueue cq, boolean send) {
        for (long slot; (slot = q.peek()) != 0; ) {
            int opcode = send ? SendChecks.completionOpcode(RawMemory.getInt(slot + SendWr.OPCODE_OFFSET))
                    : WcOpcode.RECV.value();
            long wrId = RawMemory.getLong(slot + WR_ID);
            q.pop(); // before the completion is visible: its poller may post into the slot at once
            cq.complete(wrId, WcStatus.WR_FLUSH_ERR.value(), opcode, 0, 0, qpNumber, 0, false);
        }
    }

    /**
     * Binds an established MPA stream (after MPA request/reply) to this QP and moves it to RTS; legal from INIT or
     * RTR, else {@link VerbsException} (EINVAL). The QP owns the connection from now on and closes it when the QP
     * goes to ERR or is destroyed. {@code onEnd} runs exactly once, on whichever thread sees the stream end (peer
     * closed TCP, a Terminate sent or received, {@link #disconnect()}, QP destroyed), after the QP moved to ERR and
     * its outstanding work was flushed. That thread may be inside a call on this QP or its CQ (a post, a poll, a
     * modify, a close): {@code onEnd} must not destroy the QP synchronously (hand that to another thread), and
     * should return quickly.
     *
     * @param connection the MPA stream, negotiated (its IRD and ORD bound the RDMA Reads each way)
     * @param onEnd      what the connection manager does when the stream ends; may be null
     */
    void establish(MpaConnection connection, Runnable onEnd) {
        enter();
        try {
            QpDataPath d;
            synchronized (attributes) {
                QpState s = attributes.state();
                if (s != QpState.INIT && s != QpState.RTR) {
                    throw new VerbsException("establish", Errno.EINVAL, this + ", state " + s
                            + ": a connection binds to a QP in INIT or RTR");
                }
                QpDataPath old = dataPath;
                if (old != null && !old.ended()) {
                    throw new VerbsException("establish", Errno.EINVAL, this + " is connected already");
                }
                d = new QpDataPath(this, connection, onEnd, connection.timeoutMillis());
                if (old != null) {
                    old.free();
                }
                dataPath = d;
                attributes.connected(connection.ord(), connection.ird());
            }
            sendCq.attach(d);
            if (recvCq != sendCq) {
                recvCq.attach(d);
            }
            softContext().startProgress().add(d);
        } finally {
            leave();
        }
    }

    /** The local rdma_disconnect: QP to ERR, outstanding work flushed with WR_FLUSH_ERR, connection closed,
     * {@code onEnd} runs. Idempotent, callable from any thread. */
    void disconnect() {
        try {
            enter(); // the flush touches the queues: a destroy must wait for it
        } catch (IllegalStateException closed) {
            return; // destroyed, or being destroyed, which ends the connection itself
        }
        try {
            QpDataPath d = dataPath;
            if (d != null) {
                d.end(null, "disconnected locally");
            } else if (attributes.state() != QpState.RESET) {
                attributes.fail();
            }
        } finally {
            leave();
        }
    }

    /** The data path ended the connection: the QP moves to ERR and its work is flushed. */
    void failFromDataPath() {
        attributes.fail();
    }

    /** Called by the state machine on a move to RESET: the connection, if any, ends without flushing. */
    void resetConnection() {
        QpDataPath d = dataPath;
        if (d != null) {
            d.endForReset();
        }
    }

        /** Called by the state machine after entering ERR (a modify, or the data path): the connection ends. */
    void enteredError() {
        QpDataPath d = dataPath;
        if (d != null) {
            d.end(null, "the QP moved to ERR");
        }
    }

    /** For tests: the data path, or null. */
    QpDataPath dataPath() {
        return dataPath;
    }

    /** {@return the bound MPA stream, or null before {@link #establish}} */
    MpaConnection connection() {
        QpDataPath d = dataPath;
        return d == null ? null : d.connection();
    }

    /** Forgets the queued requests without completions (a move to RESET). */
    void clearQueues() {
        for (WorkQueue q : new WorkQueue[] {sq, rq}) {
            while (!q.tryConsume()) {
                Thread.onSpinWait();
            }
            try {
                q.clear();
            } finally {
                q.endConsume();
            }
        }
    }

    @Override
    public void modify(org.verbs4j.api.QpAttributes a) {
        enter();
        try {
            attributes.modify(a);
        } finally {
            leave();
        }
    }

    @Override
    public org.verbs4j.api.QpAttributes query(int mask) {
        checkOpen();
        return attributes.query(mask);
    }

    @Override
    public QpState state() {
        checkOpen();
        return attributes.state();
    }

    @Override
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    @Override
    public int qpNumber() {
        return qpNumber;
    }

    @Override
    public QpType type() {
        return QpType.RC;
    }

    @Override
    public CompletionQueue sendCq() {
        return sendCq;
    }

    @Override
    public CompletionQueue recvCq() {
        return recvCq;
    }

    @Override
    public SharedReceiveQueue srq() {
        return srq;
    }

    @Override
    public QpCapabilities capabilities() {
        return capabilities;
    }

    @Override
    protected String kind() {
        return "QueuePair";
    }

    @Override
    protected void beforeClose() {
        QpDataPath d = dataPath;
        if (d != null) {
            d.closing = true;
            d.end(null, "the QP is destroyed");
        }
    }

    @Override
    protected void destroy() {
        QpDataPath d = dataPath;
        if (d != null) {
            d.free();
        }
        sq.free();
        rq.free();
        pd.softContext().softDevice().releaseQpNumber();
    }
}
