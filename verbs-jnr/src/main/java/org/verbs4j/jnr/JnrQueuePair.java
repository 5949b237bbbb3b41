package org.verbs4j.jnr;

import org.verbs4j.api.AddressVector;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.Errno;
import org.verbs4j.api.Gid;
import org.verbs4j.api.Mtu;
import org.verbs4j.api.PostException;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.QpAttrMask;
import org.verbs4j.api.QpAttributes;
import org.verbs4j.api.QpCapabilities;
import org.verbs4j.api.QpInitAttributes;
import org.verbs4j.api.QpState;
import org.verbs4j.api.QpType;
import org.verbs4j.api.QueuePair;
import org.verbs4j.api.ReceiveRequests;
import org.verbs4j.api.SendRequests;
import org.verbs4j.api.SharedReceiveQueue;
import org.verbs4j.api.VerbsException;
import org.verbs4j.api.internal.QueryResults;
import org.verbs4j.api.internal.RawMemory;
import org.verbs4j.api.spi.AbstractResource;

/**
 * {@code struct ibv_qp}. Posting calls the provider's {@code post_send} / {@code post_recv} from the
 * context's ops table through jffi, with a {@code bad_wr} slot allocated once per QP: no allocation, no
 * lock, no JNR struct per call.
 */
final class JnrQueuePair extends AbstractResource implements QueuePair {
    private final JnrProtectionDomain pd;
    private final long qp;
    private final int qpNumber;
    private final QpType type;
    private final JnrCompletionQueue sendCq;
    private final JnrCompletionQueue recvCq;
    private final JnrSharedReceiveQueue srq;
    /** The rdma_cm id this QP was made on (which destroys it), or null. */
    private final JnrCmId cmId;
    private final QpCapabilities capabilities;
    private final NativeCalls.Target postSendFn;
    private final NativeCalls.Target postRecvFn;
    /**
     * Native out-slots for the failing request of a post: {@code struct ibv_send_wr *} at +0 and
     * {@code struct ibv_recv_wr *} at +8, so that a sender and a receiver thread never share one.
     */
    private final long badWr;
    /** The state the last successful modify set: explains a failed post without a query on the hot path. */
    private volatile QpState lastState = QpState.RESET;

    static {
        LibC.currentErrno(); // load libc's functions now, not in a failure path where errno must survive
    }

    private JnrQueuePair(JnrProtectionDomain pd, long qp, QpType type, JnrCompletionQueue sendCq,
            JnrCompletionQueue recvCq, JnrSharedReceiveQueue srq, JnrCmId cmId, QpCapabilities capabilities) {
        super(pd);
        dependOn(sendCq);
        if (recvCq != sendCq) {
            dependOn(recvCq);
        }
        dependOn(srq);
        dependOn(cmId);
        this.cmId = cmId;
        this.pd = pd;
        this.qp = qp;
        this.qpNumber = RawMemory.getInt(qp + Layout.QP_QP_NUM);
        this.type = type;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.srq = srq;
        this.capabilities = capabilities;
        long ops = RawMemory.getAddress(qp + Layout.QP_CONTEXT) + Layout.CONTEXT_OPS;
        this.postSendFn = NativeCalls.target(RawMemory.getAddress(ops + Layout.OPS_POST_SEND));
        this.postRecvFn = NativeCalls.target(RawMemory.getAddress(ops + Layout.OPS_POST_RECV));
        this.badWr = RawMemory.allocate(16);
        describeForLeakReport(pd.jnrContext().device().name() + " " + type + " qp 0x" + Integer.toHexString(qpNumber));
        pd.jnrContext().register(qp, this);
    }

    static JnrQueuePair create(JnrProtectionDomain pd, QpInitAttributes a) {
        JnrCompletionQueue sendCq = cast(a.sendCq(), pd);
        JnrCompletionQueue recvCq = cast(a.recvCq(), pd);
        JnrSharedReceiveQueue srq = null;
        if (a.srq() != null) {
            if (!(a.srq() instanceof JnrSharedReceiveQueue) || a.srq().protectionDomain() != pd) {
                throw new IllegalArgumentException(a.srq() + " is not from " + pd);
            }
            srq = (JnrSharedReceiveQueue) a.srq();
        }
        long attr = RawMemory.allocate(Layout.QP_INIT_ATTR_SIZE);
        try (AbstractResource.Use u = AbstractResource.use(sendCq, recvCq, srq)) {
            writeInitAttr(attr, a, sendCq, recvCq, srq);
            long qp = JnrBackend.lib().createQp.call(pd.address(), attr);
            if (qp == 0) {
                throw createFailure("ibv_create_qp", JnrBackend.lastErrno(), pd, a);
            }
            return new JnrQueuePair(pd, qp, a.type(), sendCq, recvCq, srq, null, readCaps(attr));
        } finally {
            RawMemory.free(attr);
        }
    }

    /**
     * {@code rdma_create_qp}: a QP bound to an rdma_cm id, which the connection manager then moves through
     * its states on connect / accept. {@code pd} must be on the id's device context. The QP depends on the
     * id (which closes it first), and its {@link #close()} goes through {@link JnrCmId#destroyQp}.
     */
    static JnrQueuePair createOnCmId(JnrProtectionDomain pd, QpInitAttributes a, JnrCmId cmId) {
        JnrCompletionQueue sendCq = cast(a.sendCq(), pd);
        JnrCompletionQueue recvCq = cast(a.recvCq(), pd);
        JnrSharedReceiveQueue srq = a.srq() == null ? null : (JnrSharedReceiveQueue) a.srq();
        long attr = RawMemory.allocate(Layout.QP_INIT_ATTR_SIZE);
        try (AbstractResource.Use u = AbstractResource.use(pd, sendCq, recvCq, srq)) {
            writeInitAttr(attr, a, sendCq, recvCq, srq);
            LibRdmacm cm = LibRdmacm.get();
            if (cm.createQp.call(cmId.id, pd.address(), attr) != 0) {
                throw createFailure("rdma_create_qp", NativeFunction.errno(), pd, a);
            }
            long qp = RawMemory.getAddress(cmId.id + RdmacmLayout.ID_QP);
            JnrQueuePair q = new JnrQueuePair(pd, qp, a.type(), sendCq, recvCq, srq, cmId, readCaps(attr));
            q.lastState = QpState.INIT;
            return q;
        } finally {
            RawMemory.free(attr);
        }
    }

    /** For the connection manager: the state it moved the QP to. */
    void noteState(QpState state) {
        lastState = state;
    }

    private static void writeInitAttr(long attr, QpInitAttributes a, JnrCompletionQueue sendCq,
            JnrCompletionQueue recvCq, JnrSharedReceiveQueue srq) {
        RawMemory.putAddress(attr + Layout.QIA_SEND_CQ, sendCq.address());
        RawMemory.putAddress(attr + Layout.QIA_RECV_CQ, recvCq.address());
        RawMemory.putAddress(attr + Layout.QIA_SRQ, srq == null ? 0 : srq.address());
        writeCap(attr + Layout.QIA_CAP, new QpCapabilities(a.maxSendWr(), srq == null ? a.maxRecvWr() : 0,
                a.maxSendSge(), srq == null ? a.maxRecvSge() : 0, a.maxInlineData()));
        RawMemory.putInt(attr + Layout.QIA_QP_TYPE, a.type().value());
        RawMemory.putInt(attr + Layout.QIA_SQ_SIG_ALL, a.signalAll() ? 1 : 0);
    }

    /** ibv_create_qp writes the sizes the device gave back into the init attributes. */
    private static QpCapabilities readCaps(long attr) {
        return readCap(attr + Layout.QIA_CAP);
    }

    /** A {@code struct ibv_qp_cap} (in the init attributes, or in {@code ibv_qp_attr}). */
    private static QpCapabilities readCap(long cap) {
        return new QpCapabilities(RawMemory.getInt(cap + Layout.QC_MAX_SEND_WR),
                RawMemory.getInt(cap + Layout.QC_MAX_RECV_WR), RawMemory.getInt(cap + Layout.QC_MAX_SEND_SGE),
                RawMemory.getInt(cap + Layout.QC_MAX_RECV_SGE), RawMemory.getInt(cap + Layout.QC_MAX_INLINE_DATA));
    }

    private static void writeCap(long cap, QpCapabilities c) {
        RawMemory.putInt(cap + Layout.QC_MAX_SEND_WR, c.maxSendWr());
        RawMemory.putInt(cap + Layout.QC_MAX_RECV_WR, c.maxRecvWr());
        RawMemory.putInt(cap + Layout.QC_MAX_SEND_SGE, c.maxSendSge());
        RawMemory.putInt(cap + Layout.QC_MAX_RECV_SGE, c.maxRecvSge());
        RawMemory.putInt(cap + Layout.QC_MAX_INLINE_DATA, c.maxInlineData());
    }

    private static VerbsException createFailure(String verb, int errno, JnrProtectionDomain pd, QpInitAttributes a) {
        String detail = a.type() + " on " + pd.jnrContext().device().name() + ", max_send_wr " + a.maxSendWr()
                + ", max_recv_wr " + a.maxRecvWr() + ", max_send_sge " + a.maxSendSge() + ", max_recv_sge "
                + a.maxRecvSge() + ", max_inline_data " + a.maxInlineData();
        if (errno == Errno.EOPNOTSUPP || (errno == Errno.EINVAL && a.type() == QpType.UD
                && pd.jnrContext().device().transportType() == org.verbs4j.api.TransportType.IWARP)) {
            return new VerbsException(verb, errno, detail,
                    "This device does not support " + a.type() + " queue pairs (iWARP has RC only)");
        }
        return new VerbsException(verb, errno, detail);
    }

    private static JnrCompletionQueue cast(CompletionQueue cq, JnrProtectionDomain pd) {
        if (!(cq instanceof JnrCompletionQueue) || cq.context() != pd.context()) {
            throw new IllegalArgumentException(cq + " is not from " + pd.context());
        }
        return (JnrCompletionQueue) cq;
    }

    long address() {
        checkOpen();
        return qp;
    }

    @Override
    protected String kind() {
        return "QueuePair";
    }

    @Override
    protected void destroy() {
        int rc = cmId == null ? (int) JnrBackend.lib().destroyQp.call(qp) : cmId.destroyQp(qp);
        if (rc != 0) {
            throw new VerbsException("ibv_destroy_qp", rc, toString());
        }
        pd.jnrContext().unregister(qp);
        RawMemory.free(badWr);
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
        return type;
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
    public void modify(QpAttributes a) {
        enter();
        try {
            long attr = RawMemory.allocate(Layout.QP_ATTR_SIZE);
            try {
                write(attr, a);
                int rc = (int) JnrBackend.lib().modifyQp.call(qp, attr, a.mask());
                if (rc != 0) {
                    String hint = modifyHint(rc, a);
                    String detail = toString() + " " + lastState + " -> " + a;
                    throw hint == null ? new VerbsException("ibv_modify_qp", Math.abs(rc), detail)
                            : new VerbsException("ibv_modify_qp", Math.abs(rc), detail, hint);
                }
                if ((a.mask() & QpAttrMask.STATE) != 0) {
                    lastState = a.state();
                }
            } finally {
                RawMemory.free(attr);
            }
        } finally {
            leave();
        }
    }

    /** A hint for the mistakes users make most, or null for the generic one. */
    private String modifyHint(int rc, QpAttributes a) {
        if (Math.abs(rc) != Errno.EINVAL || (a.mask() & QpAttrMask.STATE) == 0) {
            return null;
        }
        AddressVector av = a.addressVector();
        if (a.state() == QpState.RTR && type != QpType.UD && av != null && !av.isGlobal()) {
            try {
                int port = av.port() == 0 ? 1 : av.port();
                if (pd.jnrContext().queryPort(port).linkLayer() == org.verbs4j.api.LinkLayer.ETHERNET) {
                    return "This is a RoCE port: the address vector needs a GRH. Use AddressVector.global(port, "
                            + "remoteGid, localGidIndex) with a RoCE v2 GID index from queryGidTable()";
                }
            } catch (RuntimeException ignored) {
                // fall through to the generic hint
            }
        }
        if (pd.jnrContext().device().transportType() == org.verbs4j.api.TransportType.IWARP
                && a.state() == QpState.RTS) {
            return "iWARP queue pairs are connected by rdma_cm, which moves them to RTS over its TCP connection; "
                    + "they cannot be moved to RTS by hand";
        }
        return null;
    }

    private static void write(long attr, QpAttributes a) {
        int m = a.mask();
        RawMemory.putInt(attr + Layout.QA_QP_STATE, a.state().value());
        RawMemory.putInt(attr + Layout.QA_CUR_QP_STATE, a.currentState().value());
        RawMemory.putInt(attr + Layout.QA_PATH_MTU, a.pathMtu().value());
        RawMemory.putInt(attr + Layout.QA_QKEY, a.qkey());
        RawMemory.putInt(attr + Layout.QA_RQ_PSN, a.rqPsn());
        RawMemory.putInt(attr + Layout.QA_SQ_PSN, a.sqPsn());
        RawMemory.putInt(attr + Layout.QA_DEST_QP_NUM, a.destQpNum());
        RawMemory.putInt(attr + Layout.QA_QP_ACCESS_FLAGS, a.accessFlags());
        if ((m & QpAttrMask.CAP) != 0 && a.capabilities() != null) {
            writeCap(attr + Layout.QA_CAP, a.capabilities());
        }
        if ((m & QpAttrMask.AV) != 0 && a.addressVector() != null) {
            writeAhAttr(attr + Layout.QA_AH_ATTR, a.addressVector());
        }
        RawMemory.putShort(attr + Layout.QA_PKEY_INDEX, (short) a.pkeyIndex());
        putBytes(attr, QA_BYTES, a.maxRdAtomic(), a.maxDestRdAtomic(), a.minRnrTimer(), a.port(), a.timeout(),
                a.retryCount(), a.rnrRetry());
    }

    /** The one-byte fields of {@code ibv_qp_attr} that {@link #write} sets, in its order. */
    private static final int[] QA_BYTES = {Layout.QA_MAX_RD_ATOMIC, Layout.QA_MAX_DEST_RD_ATOMIC, Layout.QA_MIN_RNR_TIMER,
        Layout.QA_PORT_NUM, Layout.QA_TIMEOUT, Layout.QA_RETRY_CNT, Layout.QA_RNR_RETRY};
    /** The one-byte fields of {@code ibv_ah_attr} that {@link #writeAhAttr} sets, in its order. */
    private static final int[] AA_BYTES = {Layout.AA_SL, Layout.AA_SRC_PATH_BITS, Layout.AA_STATIC_RATE,
        Layout.AA_IS_GLOBAL, Layout.AA_PORT_NUM};
    /** The one-byte fields of {@code ibv_global_route} that {@link #writeAhAttr} sets, in its order. */
    private static final int[] GR_BYTES = {Layout.GR_SGID_INDEX, Layout.GR_HOP_LIMIT, Layout.GR_TRAFFIC_CLASS};

    /** The low byte of each of {@code values} at {@code base} + the offset of the same index. */
    private static void putBytes(long base, int[] offsets, int... values) {
        for (int i = 0; i < offsets.length; i++) {
            RawMemory.putByte(base + offsets[i], (byte) values[i]);
        }
    }

    static void writeAhAttr(long ah, AddressVector av) {
        RawMemory.zero(ah, Layout.AH_ATTR_SIZE);
        if (av.isGlobal()) {
            long grh = ah + Layout.AA_GRH;
            RawMemory.copyFromArray(av.dgid().raw(), 0, Gid.SIZE, grh + Layout.GR_DGID);
            RawMemory.putInt(grh + Layout.GR_FLOW_LABEL, av.flowLabel());
            putBytes(grh, GR_BYTES, av.sgidIndex(), av.hopLimit(), av.trafficClass());
        }
        RawMemory.putShort(ah + Layout.AA_DLID, (short) av.dlid());
        putBytes(ah, AA_BYTES, av.serviceLevel(), av.srcPathBits(), av.staticRate(), av.isGlobal() ? 1 : 0, av.port());
    }

    static AddressVector readAhAttr(long ah) {
        AddressVector av = new AddressVector().port(RawMemory.getUByte(ah + Layout.AA_PORT_NUM))
                .dlid(RawMemory.getUShort(ah + Layout.AA_DLID)).serviceLevel(RawMemory.getUByte(ah + Layout.AA_SL))
                .srcPathBits(RawMemory.getUByte(ah + Layout.AA_SRC_PATH_BITS))
                .staticRate(RawMemory.getUByte(ah + Layout.AA_STATIC_RATE));
        if (RawMemory.getByte(ah + Layout.AA_IS_GLOBAL) != 0) {
            long grh = ah + Layout.AA_GRH;
            byte[] dgid = new byte[Gid.SIZE];
            RawMemory.copyToArray(grh + Layout.GR_DGID, dgid, 0, Gid.SIZE);
            av.grh(Gid.of(dgid), RawMemory.getUByte(grh + Layout.GR_SGID_INDEX))
                    .flowLabel(RawMemory.getInt(grh + Layout.GR_FLOW_LABEL))
                    .hopLimit(RawMemory.getUByte(grh + Layout.GR_HOP_LIMIT))
                    .trafficClass(RawMemory.getUByte(grh + Layout.GR_TRAFFIC_CLASS));
        }
        return av;
    }

    @Override
    public QpAttributes query(int mask) {
        enter();
        try {
            long attr = RawMemory.allocate(Layout.QP_ATTR_SIZE + Layout.QP_INIT_ATTR_SIZE);
            try {
                int rc = (int) JnrBackend.lib().queryQp.call(qp, attr, mask, attr + Layout.QP_ATTR_SIZE);
                if (rc != 0) {
                    throw new VerbsException("ibv_query_qp", rc, toString());
                }
                QpAttributes a = new QpAttributes()
                        .state(QpState.of(RawMemory.getInt(attr + Layout.QA_QP_STATE)))
                        .currentState(QpState.of(RawMemory.getInt(attr + Layout.QA_CUR_QP_STATE)))
                        .qkey(RawMemory.getInt(attr + Layout.QA_QKEY))
                        .rqPsn(RawMemory.getInt(attr + Layout.QA_RQ_PSN))
                        .sqPsn(RawMemory.getInt(attr + Layout.QA_SQ_PSN))
                        .destQpNum(RawMemory.getInt(attr + Layout.QA_DEST_QP_NUM))
                        .accessFlags(RawMemory.getInt(attr + Layout.QA_QP_ACCESS_FLAGS))
                        .capabilities(readCap(attr + Layout.QA_CAP))
                        .addressVector(readAhAttr(attr + Layout.QA_AH_ATTR))
                        .pkeyIndex(RawMemory.getUShort(attr + Layout.QA_PKEY_INDEX))
                        .maxRdAtomic(RawMemory.getUByte(attr + Layout.QA_MAX_RD_ATOMIC))
                        .maxDestRdAtomic(RawMemory.getUByte(attr + Layout.QA_MAX_DEST_RD_ATOMIC))
                        .minRnrTimer(RawMemory.getUByte(attr + Layout.QA_MIN_RNR_TIMER))
                        .port(RawMemory.getUByte(attr + Layout.QA_PORT_NUM))
                        .timeout(RawMemory.getUByte(attr + Layout.QA_TIMEOUT))
                        .retryCount(RawMemory.getUByte(attr + Layout.QA_RETRY_CNT))
                        .rnrRetry(RawMemory.getUByte(attr + Layout.QA_RNR_RETRY));
                QueryResults.sqDraining(a, RawMemory.getByte(attr + Layout.QA_SQ_DRAINING) != 0);
                Mtu mtu = Mtu.of(RawMemory.getInt(attr + Layout.QA_PATH_MTU));
                if (mtu != null) {
                    a.pathMtu(mtu);
                }
                return a.mask(mask);
            } finally {
                RawMemory.free(attr);
            }
        } finally {
            leave();
        }
    }

    /**
     * Checked before the provider sees the chain (a provider may drop what does not fit and return success,
     * as siw does): the chain's length and entries against the QP's capabilities, and the QP's state. Then
     * the QP and the array are entered, so that a close on another thread waits for the call to return.
     */
    @Override
    public void postSend(SendRequests wrs) {
        enter();
        try {
            long list = wrs.enter();
            try {
                wrs.checkFits(capabilities.maxSendWr(), capabilities.maxSendSge(), this);
                QpState s = lastState;
                if (s == QpState.RESET || s == QpState.INIT || s == QpState.RTR) {
                    throw notReady("ibv_post_send", s, wrs.count());
                }
                // cleared first: a provider that fails without setting bad_wr must not leave a stale index
                RawMemory.putAddress(badWr, 0L);
                int rc = NativeCalls.post(postSendFn, qp, list, badWr);
                if (rc != 0) {
                    throw postFailure("ibv_post_send", rc, errnoOf(rc), wrs.indexOf(RawMemory.getAddress(badWr)), wrs.count());
                }
                long bad = RawMemory.getAddress(badWr);
                if (bad != 0) { // libsiw: a full send queue sets bad_wr, then the doorbell's result replaces -ENOMEM
                    throw stoppedAt(wrs.indexOf(bad), wrs.count());
                }
            } finally {
                wrs.leave();
            }
        } finally {
            leave();
        }
    }

    @Override
    public void postReceive(ReceiveRequests wrs) {
        if (srq != null) {
            throw new IllegalStateException(this + " takes its receives from " + srq + ": post them there");
        }
        enter();
        try {
            long list = wrs.enter();
            try {
                wrs.checkFits(capabilities.maxRecvWr(), capabilities.maxRecvSge(), this);
                if (lastState == QpState.RESET) {
                    throw notReady("ibv_post_recv", QpState.RESET, wrs.count());
                }
                long badRecv = badWr + 8;
                RawMemory.putAddress(badRecv, 0L);
                int rc = NativeCalls.post(postRecvFn, qp, list, badRecv);
                if (rc != 0) {
                    throw postFailure("ibv_post_recv", rc, errnoOf(rc), wrs.indexOf(RawMemory.getAddress(badRecv)), wrs.count());
                }
            } finally {
                wrs.leave();
            }
        } finally {
            leave();
        }
    }

    /** A post the provider cut short at {@code index} while it returned success. */
    private PostException stoppedAt(int index, int count) {
        return new PostException("ibv_post_send", Errno.ENOMEM, index, toString() + ": the provider returned success but "
                + "stopped at request " + index + " of " + count + " (set bad_wr): the requests from there on were not "
                + "posted. The send queue was full: poll completions before posting more than the queue has free");
    }

    /** A post the QP's state refuses (every provider should, and siw does not: its requests would be lost). */
    private PostException notReady(String verb, QpState state, int count) {
        return new PostException(verb, Errno.EINVAL, 0, toString() + ", " + count + " chained, state " + state
                + ": a QP must be in " + (verb.equals("ibv_post_send") ? "RTS to send" : "INIT or later to receive")
                + " (connect it first, e.g. with QpConnector or rdma_cm)");
    }

    /**
     * The errno of a failed post. Providers return a positive errno; siw returns -1 (its doorbell write()
     * failed) and leaves the cause in errno, which the fast path did not save: read it at once, before
     * anything else can touch it.
     */
    static int errnoOf(int rc) {
        return rc == -1 ? LibC.currentErrno() : Math.abs(rc);
    }

    private PostException postFailure(String verb, int rc, int errno, int index, int count) {
        String detail = toString() + ", " + count + " chained, state " + lastState
                + (rc == -1 ? ", the provider returned -1 with this errno" : "");
        if (lastState == QpState.RESET || (verb.equals("ibv_post_send") && lastState != QpState.RTS
                && lastState != QpState.SQD)) {
            detail += " (a QP must be in " + (verb.equals("ibv_post_send") ? "RTS to send" : "INIT or later to receive")
                    + ")";
        }
        return new PostException(verb, errno, index, detail);
    }

    @Override
    public String toString() {
        return "QueuePair[" + type + " 0x" + Integer.toHexString(qpNumber) + "]";
    }
}
