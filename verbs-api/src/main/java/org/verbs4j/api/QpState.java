package org.verbs4j.api;

/** Queue pair state ({@code enum ibv_qp_state}). */
public enum QpState {
    RESET(0, "RESET"),
    INIT(1, "INIT"),
    RTR(2, "RTR"),
    RTS(3, "RTS"),
    SQD(4, "SQD"),
    SQE(5, "SQE"),
    ERR(6, "ERR"),
    UNKNOWN(7, "UNKNOWN");

    private static final ValueTable<QpState> BY_VALUE = new ValueTable<>(values(), QpState::value, null);

    private final int value;
    private final String text;

    QpState(int value, String text) {
        this.value = value;
        this.text = text;
    }

    /** The native value. */
    public int value() {
        return value;
    }

    /** A readable name (libibverbs has no text function for this enum in rdma-core 44). */
    public String text() {
        return text;
    }

    /** From the native value; {@code null} for a value this version does not know. Allocation-free. */
    public static QpState of(int value) {
        return BY_VALUE.of(value);
    }
}
