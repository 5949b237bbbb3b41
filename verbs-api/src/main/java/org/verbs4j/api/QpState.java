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

    private static final QpState[] BY_VALUE = new QpState[256];

    static {
        for (QpState e : values()) {
            if (e.value >= 0 && e.value < BY_VALUE.length) {
                BY_VALUE[e.value] = e;
            }
        }
    }

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
        return value >= 0 && value < BY_VALUE.length ? BY_VALUE[value] : null;
    }
}
