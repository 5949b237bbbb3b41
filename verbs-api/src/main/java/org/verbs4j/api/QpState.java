package org.verbs4j.api;

/** Queue pair state ({@code enum ibv_qp_state}). */
public enum QpState {
    /** {@code IBV_QPS_RESET} (0): RESET. */
    RESET(0, "RESET"),
    /** {@code IBV_QPS_INIT} (1): INIT. */
    INIT(1, "INIT"),
    /** {@code IBV_QPS_RTR} (2): RTR. */
    RTR(2, "RTR"),
    /** {@code IBV_QPS_RTS} (3): RTS. */
    RTS(3, "RTS"),
    /** {@code IBV_QPS_SQD} (4): SQD. */
    SQD(4, "SQD"),
    /** {@code IBV_QPS_SQE} (5): SQE. */
    SQE(5, "SQE"),
    /** {@code IBV_QPS_ERR} (6): ERR. */
    ERR(6, "ERR"),
    /** A native value this version does not know (not a libibverbs constant): UNKNOWN. */
    UNKNOWN(7, "UNKNOWN");

    private static final ValueTable<QpState> BY_VALUE = new ValueTable<>(values(), QpState::value, null);

    private final int value;
    private final String text;

    QpState(int value, String text) {
        this.value = value;
        this.text = text;
    }

    /** {@return the native value} */
    public int value() {
        return value;
    }

    /** {@return a readable name (libibverbs has no text function for this enum in rdma-core 44)} */
    public String text() {
        return text;
    }

    /**
     * From the native value; {@code null} for a value this version does not know. Allocation-free.
     *
     * @param value the native {@code enum ibv_qp_state} value
     * @return the state, or null for an unknown value
     */
    public static QpState of(int value) {
        return BY_VALUE.of(value);
    }
}
