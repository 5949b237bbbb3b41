package org.verbs4j.api;

/** Status of a work completion ({@code enum ibv_wc_status}); {@link #text()} is {@code ibv_wc_status_str}'s text. */
public enum WcStatus {
    /** {@code IBV_WC_SUCCESS} (0): success. */
    SUCCESS(0, "success"),
    /** {@code IBV_WC_LOC_LEN_ERR} (1): local length error. */
    LOC_LEN_ERR(1, "local length error"),
    /** {@code IBV_WC_LOC_QP_OP_ERR} (2): local QP operation error. */
    LOC_QP_OP_ERR(2, "local QP operation error"),
    /** {@code IBV_WC_LOC_EEC_OP_ERR} (3): local EE context operation error. */
    LOC_EEC_OP_ERR(3, "local EE context operation error"),
    /** {@code IBV_WC_LOC_PROT_ERR} (4): local protection error. */
    LOC_PROT_ERR(4, "local protection error"),
    /** {@code IBV_WC_WR_FLUSH_ERR} (5): Work Request Flushed Error. */
    WR_FLUSH_ERR(5, "Work Request Flushed Error"),
    /** {@code IBV_WC_MW_BIND_ERR} (6): memory management operation error. */
    MW_BIND_ERR(6, "memory management operation error"),
    /** {@code IBV_WC_BAD_RESP_ERR} (7): bad response error. */
    BAD_RESP_ERR(7, "bad response error"),
    /** {@code IBV_WC_LOC_ACCESS_ERR} (8): local access error. */
    LOC_ACCESS_ERR(8, "local access error"),
    /** {@code IBV_WC_REM_INV_REQ_ERR} (9): remote invalid request error. */
    REM_INV_REQ_ERR(9, "remote invalid request error"),
    /** {@code IBV_WC_REM_ACCESS_ERR} (10): remote access error. */
    REM_ACCESS_ERR(10, "remote access error"),
    /** {@code IBV_WC_REM_OP_ERR} (11): remote operation error. */
    REM_OP_ERR(11, "remote operation error"),
    /** {@code IBV_WC_RETRY_EXC_ERR} (12): transport retry counter exceeded. */
    RETRY_EXC_ERR(12, "transport retry counter exceeded"),
    /** {@code IBV_WC_RNR_RETRY_EXC_ERR} (13): RNR retry counter exceeded. */
    RNR_RETRY_EXC_ERR(13, "RNR retry counter exceeded"),
    /** {@code IBV_WC_LOC_RDD_VIOL_ERR} (14): local RDD violation error. */
    LOC_RDD_VIOL_ERR(14, "local RDD violation error"),
    /** {@code IBV_WC_REM_INV_RD_REQ_ERR} (15): remote invalid RD request. */
    REM_INV_RD_REQ_ERR(15, "remote invalid RD request"),
    /** {@code IBV_WC_REM_ABORT_ERR} (16): aborted error. */
    REM_ABORT_ERR(16, "aborted error"),
    /** {@code IBV_WC_INV_EECN_ERR} (17): invalid EE context number. */
    INV_EECN_ERR(17, "invalid EE context number"),
    /** {@code IBV_WC_INV_EEC_STATE_ERR} (18): invalid EE context state. */
    INV_EEC_STATE_ERR(18, "invalid EE context state"),
    /** {@code IBV_WC_FATAL_ERR} (19): fatal error. */
    FATAL_ERR(19, "fatal error"),
    /** {@code IBV_WC_RESP_TIMEOUT_ERR} (20): response timeout error. */
    RESP_TIMEOUT_ERR(20, "response timeout error"),
    /** {@code IBV_WC_GENERAL_ERR} (21): general error. */
    GENERAL_ERR(21, "general error"),
    /** {@code IBV_WC_TM_ERR} (22): TM error. */
    TM_ERR(22, "TM error"),
    /** {@code IBV_WC_TM_RNDV_INCOMPLETE} (23): TM software rendezvous. */
    TM_RNDV_INCOMPLETE(23, "TM software rendezvous");

    private static final ValueTable<WcStatus> BY_VALUE = new ValueTable<>(values(), WcStatus::value, null);

    private final int value;
    private final String text;

    WcStatus(int value, String text) {
        this.value = value;
        this.text = text;
    }

    /** {@return the native value} */
    public int value() {
        return value;
    }

    /** {@return libibverbs' text for it} */
    public String text() {
        return text;
    }

    /**
     * From the native value; {@code null} for a value this version does not know. Allocation-free.
     *
     * @param value the native {@code enum ibv_wc_status} value
     * @return the status, or null for an unknown value
     */
    public static WcStatus of(int value) {
        return BY_VALUE.of(value);
    }
}
