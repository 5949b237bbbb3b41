package org.verbs4j.api;

/** Queue pair transport type ({@code enum ibv_qp_type}). */
public enum QpType {
    RC(2, "reliable connected"),
    UC(3, "unreliable connected"),
    UD(4, "unreliable datagram"),
    RAW_PACKET(8, "raw packet"),
    XRC_SEND(9, "XRC send"),
    XRC_RECV(10, "XRC receive");

    private static final ValueTable<QpType> BY_VALUE = new ValueTable<>(values(), QpType::value, null);

    private final int value;
    private final String text;

    QpType(int value, String text) {
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
    public static QpType of(int value) {
        return BY_VALUE.of(value);
    }
}
