package org.verbs4j.api;

import org.verbs4j.api.internal.QueryResults;

/**
 * Attributes of a queue pair ({@code struct ibv_qp_attr}) for {@link QueuePair#modify} and from
 * {@link QueuePair#query}. Each setter also sets its bit in {@link #mask()}, so a modify sends exactly
 * the attributes that were set.
 *
 * <p>To connect a queue pair by hand from RESET to RTS, use {@link QpConnector}: it builds these attributes
 * with the port's fabric rules. Modify directly for what it does not do:
 *
 * <pre>{@code
 * qp.modify(new QpAttributes().state(QpState.ERR));                        // flush every outstanding request
 * qp.modify(new QpAttributes().state(QpState.RESET));                      // back to RESET, to connect again
 * qp.modify(new QpAttributes().state(QpState.SQD));                        // drain the send queue
 * QpAttributes now = qp.query(QpAttrMask.STATE | QpAttrMask.CAP);          // ibv_query_qp
 * }</pre>
 */
public final class QpAttributes {
    static {
        QueryResults.register((a, draining) -> a.sqDraining = draining);
    }

    private int mask;
    private QpState state = QpState.RESET;
    private QpState currentState = QpState.RESET;
    private Mtu pathMtu = Mtu.MTU_1024;
    private int qkey;
    private int rqPsn;
    private int sqPsn;
    private int destQpNum;
    private int accessFlags;
    private QpCapabilities capabilities;
    private AddressVector addressVector;
    private int pkeyIndex;
    private int maxRdAtomic;
    private int maxDestRdAtomic;
    private int minRnrTimer;
    private int port;
    private int timeout;
    private int retryCount;
    private int rnrRetry;
    private boolean sqDraining;

    /** Attributes with nothing set and an empty mask; each setter sets its value and its mask bit. */
    public QpAttributes() {
    }

    /** {@return the attributes that are set, as {@link QpAttrMask} bits} */
    public int mask() {
        return mask;
    }

    /**
     * Replaces the mask, e.g. to send fewer attributes than were set.
     *
     * @param mask the attribute mask, {@link QpAttrMask} bits
     * @return this object
     */
    public QpAttributes mask(int mask) {
        this.mask = mask;
        return this;
    }

    /**
     * Sets the state ({@code qp_state} of {@code struct ibv_qp_attr}).
     *
     * @param state the state to move to ({@code qp_state})
     * @return this object
     */
    public QpAttributes state(QpState state) {
        this.state = state;
        mask |= QpAttrMask.STATE;
        return this;
    }

    /**
     * Sets the current state ({@code cur_qp_state} of {@code struct ibv_qp_attr}).
     *
     * @param state the current state
     * @return this object
     */
    public QpAttributes currentState(QpState state) {
        this.currentState = state;
        mask |= QpAttrMask.CUR_STATE;
        return this;
    }

    /**
     * Sets the path MTU ({@code path_mtu} of {@code struct ibv_qp_attr}).
     *
     * @param mtu the path MTU
     * @return this object
     */
    public QpAttributes pathMtu(Mtu mtu) {
        this.pathMtu = mtu;
        mask |= QpAttrMask.PATH_MTU;
        return this;
    }

    /**
     * Sets the Q_Key ({@code qkey} of {@code struct ibv_qp_attr}).
     *
     * @param qkey the Q_Key
     * @return this object
     */
    public QpAttributes qkey(int qkey) {
        this.qkey = qkey;
        mask |= QpAttrMask.QKEY;
        return this;
    }

    /**
     * The PSN the receive side expects first (24 bits).
     *
     * @param psn the packet sequence number (24 bits)
     * @return this object
     */
    public QpAttributes rqPsn(int psn) {
        this.rqPsn = psn & 0xffffff;
        mask |= QpAttrMask.RQ_PSN;
        return this;
    }

    /**
     * The PSN the send side starts with (24 bits).
     *
     * @param psn the packet sequence number (24 bits)
     * @return this object
     */
    public QpAttributes sqPsn(int psn) {
        this.sqPsn = psn & 0xffffff;
        mask |= QpAttrMask.SQ_PSN;
        return this;
    }

    /**
     * Sets the destination QP number ({@code dest_qp_num} of {@code struct ibv_qp_attr}).
     *
     * @param qpn the dest QP num
     * @return this object
     */
    public QpAttributes destQpNum(int qpn) {
        this.destQpNum = qpn;
        mask |= QpAttrMask.DEST_QPN;
        return this;
    }

    /**
     * What the remote side may do to this QP's memory: {@link Access} REMOTE_* bits.
     *
     * @param flags {@link Access} flags for remote peers ({@code qp_access_flags})
     * @return this object
     */
    public QpAttributes accessFlags(int flags) {
        this.accessFlags = flags;
        mask |= QpAttrMask.ACCESS_FLAGS;
        return this;
    }

    /**
     * Sets the capabilities ({@code cap} of {@code struct ibv_qp_attr}).
     *
     * @param cap the capabilities
     * @return this object
     */
    public QpAttributes capabilities(QpCapabilities cap) {
        this.capabilities = cap;
        mask |= QpAttrMask.CAP;
        return this;
    }

    /**
     * The primary path: the peer's address (RC and UC, at RTR).
     *
     * @param av the address vector
     * @return this object
     */
    public QpAttributes addressVector(AddressVector av) {
        this.addressVector = av;
        mask |= QpAttrMask.AV;
        return this;
    }

    /**
     * Sets the P_Key index ({@code pkey_index} of {@code struct ibv_qp_attr}).
     *
     * @param index the P_Key index
     * @return this object
     */
    public QpAttributes pkeyIndex(int index) {
        this.pkeyIndex = index;
        mask |= QpAttrMask.PKEY_INDEX;
        return this;
    }

    /**
     * RDMA reads and atomics this QP may have outstanding as initiator ({@code max_rd_atomic}).
     *
     * @param n outgoing RDMA READs / atomics in flight ({@code max_rd_atomic})
     * @return this object
     */
    public QpAttributes maxRdAtomic(int n) {
        this.maxRdAtomic = n;
        mask |= QpAttrMask.MAX_QP_RD_ATOMIC;
        return this;
    }

    /**
     * RDMA reads and atomics this QP serves at once as responder ({@code max_dest_rd_atomic}).
     *
     * @param n incoming RDMA READs / atomics accepted ({@code max_dest_rd_atomic})
     * @return this object
     */
    public QpAttributes maxDestRdAtomic(int n) {
        this.maxDestRdAtomic = n;
        mask |= QpAttrMask.MAX_DEST_RD_ATOMIC;
        return this;
    }

    /**
     * How long a sender waits after an RNR NAK from this QP (encoded, 12 = 0.64 ms).
     *
     * @param t the minimum RNR NAK timer code, 0..31 ({@code min_rnr_timer})
     * @return this object
     */
    public QpAttributes minRnrTimer(int t) {
        this.minRnrTimer = t;
        mask |= QpAttrMask.MIN_RNR_TIMER;
        return this;
    }

    /**
     * Sets the port ({@code port_num} of {@code struct ibv_qp_attr}).
     *
     * @param port the port number, from 1 ({@code port_num})
     * @return this object
     */
    public QpAttributes port(int port) {
        this.port = port;
        mask |= QpAttrMask.PORT;
        return this;
    }

    /**
     * Local ACK timeout: 4.096 us * 2^timeout (14 is about 67 ms); 0 waits forever.
     *
     * @param t the local ACK timeout exponent, 0..31 ({@code timeout})
     * @return this object
     */
    public QpAttributes timeout(int t) {
        this.timeout = t;
        mask |= QpAttrMask.TIMEOUT;
        return this;
    }

    /**
     * Transport retries before a {@link WcStatus#RETRY_EXC_ERR} completion (0..7).
     *
     * @param n transport retries, 0..7 ({@code retry_cnt})
     * @return this object
     */
    public QpAttributes retryCount(int n) {
        this.retryCount = n;
        mask |= QpAttrMask.RETRY_CNT;
        return this;
    }

    /**
     * RNR retries before a {@link WcStatus#RNR_RETRY_EXC_ERR} completion (0..6; 7 = forever).
     *
     * @param n RNR retries, 0..7, 7 = forever ({@code rnr_retry})
     * @return this object
     */
    public QpAttributes rnrRetry(int n) {
        this.rnrRetry = n;
        mask |= QpAttrMask.RNR_RETRY;
        return this;
    }


    /** {@return the state ({@code qp_state} of {@code struct ibv_qp_attr})} */
    public QpState state() {
        return state;
    }

    /** {@return the current state ({@code cur_qp_state} of {@code struct ibv_qp_attr})} */
    public QpState currentState() {
        return currentState;
    }

    /** {@return the path MTU ({@code path_mtu} of {@code struct ibv_qp_attr})} */
    public Mtu pathMtu() {
        return pathMtu;
    }

    /** {@return the Q_Key ({@code qkey} of {@code struct ibv_qp_attr})} */
    public int qkey() {
        return qkey;
    }

    /** {@return the rq PSN ({@code rq_psn} of {@code struct ibv_qp_attr})} */
    public int rqPsn() {
        return rqPsn;
    }

    /** {@return the sq PSN ({@code sq_psn} of {@code struct ibv_qp_attr})} */
    public int sqPsn() {
        return sqPsn;
    }

    /** {@return the destination QP number ({@code dest_qp_num} of {@code struct ibv_qp_attr})} */
    public int destQpNum() {
        return destQpNum;
    }

    /** {@return the access flags ({@code qp_access_flags} of {@code struct ibv_qp_attr})} */
    public int accessFlags() {
        return accessFlags;
    }

    /** {@return the capabilities ({@code cap} of {@code struct ibv_qp_attr})} */
    public QpCapabilities capabilities() {
        return capabilities;
    }

    /** {@return the address vector ({@code ah_attr} of {@code struct ibv_qp_attr})} */
    public AddressVector addressVector() {
        return addressVector;
    }

    /** {@return the P_Key index ({@code pkey_index} of {@code struct ibv_qp_attr})} */
    public int pkeyIndex() {
        return pkeyIndex;
    }

    /** {@return the max rd atomic ({@code max_rd_atomic} of {@code struct ibv_qp_attr})} */
    public int maxRdAtomic() {
        return maxRdAtomic;
    }

    /** {@return the max dest rd atomic ({@code max_dest_rd_atomic} of {@code struct ibv_qp_attr})} */
    public int maxDestRdAtomic() {
        return maxDestRdAtomic;
    }

    /** {@return the min RNR timer ({@code min_rnr_timer} of {@code struct ibv_qp_attr})} */
    public int minRnrTimer() {
        return minRnrTimer;
    }

    /** {@return the port ({@code port_num} of {@code struct ibv_qp_attr})} */
    public int port() {
        return port;
    }

    /** {@return the timeout ({@code timeout} of {@code struct ibv_qp_attr})} */
    public int timeout() {
        return timeout;
    }

    /** {@return the retry count ({@code retry_cnt} of {@code struct ibv_qp_attr})} */
    public int retryCount() {
        return retryCount;
    }

    /** {@return the RNR retry ({@code rnr_retry} of {@code struct ibv_qp_attr})} */
    public int rnrRetry() {
        return rnrRetry;
    }

    /**
     * {@return whether the send queue is draining (state SQD, drain not finished), from a query} Never set by a user.
     */
    public boolean sqDraining() {
        return sqDraining;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("QpAttributes[");
        field(sb, QpAttrMask.STATE, "state ", state);
        field(sb, QpAttrMask.CUR_STATE, "cur_state ", currentState);
        field(sb, QpAttrMask.PORT, "port ", port);
        field(sb, QpAttrMask.CAP, "cap ", capabilities);
        field(sb, QpAttrMask.PKEY_INDEX, "pkey_index ", pkeyIndex);
        field(sb, QpAttrMask.ACCESS_FLAGS, "access ", Access.toString(accessFlags));
        field(sb, QpAttrMask.QKEY, "qkey 0x", Integer.toHexString(qkey));
        field(sb, QpAttrMask.PATH_MTU, "path_mtu ", pathMtu != null ? pathMtu.bytes() : null);
        field(sb, QpAttrMask.DEST_QPN, "dest_qp_num 0x", Integer.toHexString(destQpNum));
        field(sb, QpAttrMask.RQ_PSN, "rq_psn 0x", Integer.toHexString(rqPsn));
        field(sb, QpAttrMask.SQ_PSN, "sq_psn 0x", Integer.toHexString(sqPsn));
        field(sb, QpAttrMask.AV, "", addressVector);
        field(sb, QpAttrMask.TIMEOUT, "timeout ", timeout);
        field(sb, QpAttrMask.RETRY_CNT, "retry_cnt ", retryCount);
        field(sb, QpAttrMask.RNR_RETRY, "rnr_retry ", rnrRetry);
        field(sb, QpAttrMask.MAX_QP_RD_ATOMIC, "max_rd_atomic ", maxRdAtomic);
        field(sb, QpAttrMask.MAX_DEST_RD_ATOMIC, "max_dest_rd_atomic ", maxDestRdAtomic);
        field(sb, QpAttrMask.MIN_RNR_TIMER, "min_rnr_timer ", minRnrTimer);
        return sb.toString().trim() + "]";
    }

    /** Appends {@code label value} when {@code bit} is in the mask: the fields a modify or query sets. */
    private void field(StringBuilder sb, int bit, String label, Object value) {
        if ((mask & bit) != 0) {
            sb.append(label).append(value).append(' ');
        }
    }
}
