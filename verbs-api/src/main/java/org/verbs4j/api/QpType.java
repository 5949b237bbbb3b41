package org.verbs4j.api;

/** Queue pair transport type ({@code enum ibv_qp_type}). */
public enum QpType {
    /** {@code IBV_QPT_RC} (2): reliable connected. */
    RC(2, "reliable connected"),
    /** {@code IBV_QPT_UC} (3): unreliable connected. */
    UC(3, "unreliable connected"),
    /** {@code IBV_QPT_UD} (4): unreliable datagram. */
    UD(4, "unreliable datagram"),
    /** {@code IBV_QPT_RAW_PACKET} (8): raw packet. */
    RAW_PACKET(8, "raw packet"),
    /** {@code IBV_QPT_XRC_SEND} (9): XRC send. */
    XRC_SEND(9, "XRC send"),
    /** {@code IBV_QPT_XRC_RECV} (10): XRC receive. */
    XRC_RECV(10, "XRC receive");

    private static final ValueTable<QpType> BY_VALUE = new ValueTable<>(values(), QpType::value, null);

    private final int value;
    private final String text;

    QpType(int value, String text) {
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
     * @param value the native {@code enum ibv_qp_type} value
     * @return the type, or null for an unknown value
     */
    public static QpType of(int value) {
        return BY_VALUE.of(value);
    }
}
