package org.verbs4j.api;

/** Type of an asynchronous event ({@code enum ibv_event_type}); {@link #text()} is {@code ibv_event_type_str}'s. */
public enum AsyncEventType {
    /** {@code IBV_EVENT_CQ_ERR} (0): CQ error. */
    CQ_ERR(0, "CQ error"),
    /** {@code IBV_EVENT_QP_FATAL} (1): local work queue catastrophic error. */
    QP_FATAL(1, "local work queue catastrophic error"),
    /** {@code IBV_EVENT_QP_REQ_ERR} (2): invalid request local work queue error. */
    QP_REQ_ERR(2, "invalid request local work queue error"),
    /** {@code IBV_EVENT_QP_ACCESS_ERR} (3): local access violation work queue error. */
    QP_ACCESS_ERR(3, "local access violation work queue error"),
    /** {@code IBV_EVENT_COMM_EST} (4): communication established. */
    COMM_EST(4, "communication established"),
    /** {@code IBV_EVENT_SQ_DRAINED} (5): send queue drained. */
    SQ_DRAINED(5, "send queue drained"),
    /** {@code IBV_EVENT_PATH_MIG} (6): path migrated. */
    PATH_MIG(6, "path migrated"),
    /** {@code IBV_EVENT_PATH_MIG_ERR} (7): path migration request error. */
    PATH_MIG_ERR(7, "path migration request error"),
    /** {@code IBV_EVENT_DEVICE_FATAL} (8): local catastrophic error. */
    DEVICE_FATAL(8, "local catastrophic error"),
    /** {@code IBV_EVENT_PORT_ACTIVE} (9): port active. */
    PORT_ACTIVE(9, "port active"),
    /** {@code IBV_EVENT_PORT_ERR} (10): port error. */
    PORT_ERR(10, "port error"),
    /** {@code IBV_EVENT_LID_CHANGE} (11): LID change. */
    LID_CHANGE(11, "LID change"),
    /** {@code IBV_EVENT_PKEY_CHANGE} (12): P_Key change. */
    PKEY_CHANGE(12, "P_Key change"),
    /** {@code IBV_EVENT_SM_CHANGE} (13): SM change. */
    SM_CHANGE(13, "SM change"),
    /** {@code IBV_EVENT_SRQ_ERR} (14): SRQ catastrophic error. */
    SRQ_ERR(14, "SRQ catastrophic error"),
    /** {@code IBV_EVENT_SRQ_LIMIT_REACHED} (15): SRQ limit reached. */
    SRQ_LIMIT_REACHED(15, "SRQ limit reached"),
    /** {@code IBV_EVENT_QP_LAST_WQE_REACHED} (16): last WQE reached. */
    QP_LAST_WQE_REACHED(16, "last WQE reached"),
    /** {@code IBV_EVENT_CLIENT_REREGISTER} (17): client reregistration. */
    CLIENT_REREGISTER(17, "client reregistration"),
    /** {@code IBV_EVENT_GID_CHANGE} (18): GID table change. */
    GID_CHANGE(18, "GID table change"),
    /** {@code IBV_EVENT_WQ_FATAL} (19): WQ fatal. */
    WQ_FATAL(19, "WQ fatal");

    private static final ValueTable<AsyncEventType> BY_VALUE = new ValueTable<>(values(), AsyncEventType::value, null);

    private final int value;
    private final String text;

    AsyncEventType(int value, String text) {
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
     * @param value the native {@code event_type}
     * @return the type, or null for a value this version does not know
     */
    public static AsyncEventType of(int value) {
        return BY_VALUE.of(value);
    }
}
