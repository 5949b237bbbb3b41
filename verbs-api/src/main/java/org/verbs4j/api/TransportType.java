package org.verbs4j.api;

/** The transport of a device ({@code enum ibv_transport_type}). RoCE devices report {@link #IB}. */
public enum TransportType {
    /** A native value this version does not know (not a libibverbs constant): invalid transport. */
    UNKNOWN(-1, "invalid transport"),
    /** {@code IBV_TRANSPORT_IB} (0): InfiniBand. */
    IB(0, "InfiniBand"),
    /** {@code IBV_TRANSPORT_IWARP} (1): iWARP. */
    IWARP(1, "iWARP"),
    /** {@code IBV_TRANSPORT_USNIC} (2): usNIC. */
    USNIC(2, "usNIC"),
    /** {@code IBV_TRANSPORT_USNIC_UDP} (3): usNIC UDP. */
    USNIC_UDP(3, "usNIC UDP"),
    /** {@code IBV_TRANSPORT_UNSPECIFIED} (4): invalid transport. */
    UNSPECIFIED(4, "invalid transport");

    private static final ValueTable<TransportType> BY_VALUE = new ValueTable<>(values(), TransportType::value, UNKNOWN);

    private final int value;
    private final String text;

    TransportType(int value, String text) {
        this.value = value;
        this.text = text;
    }

    /** {@return the value} */
    public int value() {
        return value;
    }

    /** {@return the text {@code ibv_devinfo} prints for this transport} */
    public String text() {
        return text;
    }

    /**
     * {@return the constant of native value {@code value}; {@code UNKNOWN} for a value this version does not know}
     * @param value the native value, as libibverbs returns it
     */
    public static TransportType of(int value) {
        return BY_VALUE.of(value);
    }
}
