package org.verbs4j.api;

/** Status of a work completion ({@code enum ibv_wc_status}); {@link #text()} is {@code ibv_wc_status_str}'s text. */
public enum WcStatus {
    SUCCESS(0, "success"),
    LOC_LEN_ERR(1, "local length error"),
    LOC_QP_OP_ERR(2, "local QP operation error"),
    LOC_EEC_OP_ERR(3, "local EE context operation error"),
    LOC_PROT_ERR(4, "local protection error"),
    WR_FLUSH_ERR(5, "Work Request Flushed Error"),
    MW_BIND_ERR(6, "memory management operation error"),
    BAD_RESP_ERR(7, "bad response error"),
    LOC_ACCESS_ERR(8, "local access error"),
    REM_INV_REQ_ERR(9, "remote invalid request error"),
    REM_ACCESS_ERR(10, "remote access error"),
    REM_OP_ERR(11, "remote operation error"),
    RETRY_EXC_ERR(12, "transport retry counter exceeded"),
    RNR_RETRY_EXC_ERR(13, "RNR retry counter exceeded"),
    LOC_RDD_VIOL_ERR(14, "local RDD violation error"),
    REM_INV_RD_REQ_ERR(15, "remote invalid RD request"),
    REM_ABORT_ERR(16, "aborted error"),
    INV_EECN_ERR(17, "invalid EE context number"),
    INV_EEC_STATE_ERR(18, "invalid EE context state"),
    FATAL_ERR(19, "fatal error"),
    RESP_TIMEOUT_ERR(20, "response timeout error"),
    GENERAL_ERR(21, "general error"),
    TM_ERR(22, "TM error"),
    TM_RNDV_INCOMPLETE(23, "TM software rendezvous");

    private static final ValueTable<WcStatus> BY_VALUE = new ValueTable<>(values(), WcStatus::value, null);

    private final int value;
    private final String text;

    WcStatus(int value, String text) {
        this.value = value;
        this.text = text;
    }

    /** The native value. */
    public int value() {
        return value;
    }

    /** libibverbs' text for it. */
    public String text() {
        return text;
    }

    /** From the native value; {@code null} for a value this version does not know. Allocation-free. */
    public static WcStatus of(int value) {
        return BY_VALUE.of(value);
    }
}
