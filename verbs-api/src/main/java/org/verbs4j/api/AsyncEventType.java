package org.verbs4j.api;

/** Type of an asynchronous event ({@code enum ibv_event_type}); {@link #text()} is {@code ibv_event_type_str}'s. */
public enum AsyncEventType {
    CQ_ERR(0, "CQ error"),
    QP_FATAL(1, "local work queue catastrophic error"),
    QP_REQ_ERR(2, "invalid request local work queue error"),
    QP_ACCESS_ERR(3, "local access violation work queue error"),
    COMM_EST(4, "communication established"),
    SQ_DRAINED(5, "send queue drained"),
    PATH_MIG(6, "path migrated"),
    PATH_MIG_ERR(7, "path migration request error"),
    DEVICE_FATAL(8, "local catastrophic error"),
    PORT_ACTIVE(9, "port active"),
    PORT_ERR(10, "port error"),
    LID_CHANGE(11, "LID change"),
    PKEY_CHANGE(12, "P_Key change"),
    SM_CHANGE(13, "SM change"),
    SRQ_ERR(14, "SRQ catastrophic error"),
    SRQ_LIMIT_REACHED(15, "SRQ limit reached"),
    QP_LAST_WQE_REACHED(16, "last WQE reached"),
    CLIENT_REREGISTER(17, "client reregistration"),
    GID_CHANGE(18, "GID table change"),
    WQ_FATAL(19, "WQ fatal");

    private static final ValueTable<AsyncEventType> BY_VALUE = new ValueTable<>(values(), AsyncEventType::value, null);

    private final int value;
    private final String text;

    AsyncEventType(int value, String text) {
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
    public static AsyncEventType of(int value) {
        return BY_VALUE.of(value);
    }
}
