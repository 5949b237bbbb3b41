package org.verbs4j.api;

/** Bits of {@code enum ibv_qp_attr_mask}: which fields of a {@link QpAttributes} a modify or query touches. */
public final class QpAttrMask {
    /** {@code IBV_QP_STATE}. */
    public static final int STATE = 1;
    /** {@code IBV_QP_CUR_STATE}. */
    public static final int CUR_STATE = 1 << 1;
    /** {@code IBV_QP_EN_SQD_ASYNC_NOTIFY}. */
    public static final int EN_SQD_ASYNC_NOTIFY = 1 << 2;
    /** {@code IBV_QP_ACCESS_FLAGS}. */
    public static final int ACCESS_FLAGS = 1 << 3;
    /** {@code IBV_QP_PKEY_INDEX}. */
    public static final int PKEY_INDEX = 1 << 4;
    /** {@code IBV_QP_PORT}. */
    public static final int PORT = 1 << 5;
    /** {@code IBV_QP_QKEY}. */
    public static final int QKEY = 1 << 6;
    /** {@code IBV_QP_AV}. */
    public static final int AV = 1 << 7;
    /** {@code IBV_QP_PATH_MTU}. */
    public static final int PATH_MTU = 1 << 8;
    /** {@code IBV_QP_TIMEOUT}. */
    public static final int TIMEOUT = 1 << 9;
    /** {@code IBV_QP_RETRY_CNT}. */
    public static final int RETRY_CNT = 1 << 10;
    /** {@code IBV_QP_RNR_RETRY}. */
    public static final int RNR_RETRY = 1 << 11;
    /** {@code IBV_QP_RQ_PSN}. */
    public static final int RQ_PSN = 1 << 12;
    /** {@code IBV_QP_MAX_QP_RD_ATOMIC}. */
    public static final int MAX_QP_RD_ATOMIC = 1 << 13;
    /** {@code IBV_QP_ALT_PATH}. */
    public static final int ALT_PATH = 1 << 14;
    /** {@code IBV_QP_MIN_RNR_TIMER}. */
    public static final int MIN_RNR_TIMER = 1 << 15;
    /** {@code IBV_QP_SQ_PSN}. */
    public static final int SQ_PSN = 1 << 16;
    /** {@code IBV_QP_MAX_DEST_RD_ATOMIC}. */
    public static final int MAX_DEST_RD_ATOMIC = 1 << 17;
    /** {@code IBV_QP_PATH_MIG_STATE}. */
    public static final int PATH_MIG_STATE = 1 << 18;
    /** {@code IBV_QP_CAP}. */
    public static final int CAP = 1 << 19;
    /** {@code IBV_QP_DEST_QPN}. */
    public static final int DEST_QPN = 1 << 20;
    /** {@code IBV_QP_RATE_LIMIT}. */
    public static final int RATE_LIMIT = 1 << 25;
    /** Everything {@code ibv_query_qp} can report. */
    public static final int ALL = STATE | CUR_STATE | EN_SQD_ASYNC_NOTIFY | ACCESS_FLAGS | PKEY_INDEX | PORT | QKEY | AV
            | PATH_MTU | TIMEOUT | RETRY_CNT | RNR_RETRY | RQ_PSN | MAX_QP_RD_ATOMIC | ALT_PATH | MIN_RNR_TIMER | SQ_PSN
            | MAX_DEST_RD_ATOMIC | PATH_MIG_STATE | CAP | DEST_QPN;

    private QpAttrMask() {
    }
}
