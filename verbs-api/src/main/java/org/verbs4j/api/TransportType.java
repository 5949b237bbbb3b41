package org.verbs4j.api;

/** The transport of a device ({@code enum ibv_transport_type}). RoCE devices report {@link #IB}. */
public enum TransportType {
    UNKNOWN(-1, "invalid transport"),
    IB(0, "InfiniBand"),
    IWARP(1, "iWARP"),
    USNIC(2, "usNIC"),
    USNIC_UDP(3, "usNIC UDP"),
    UNSPECIFIED(4, "invalid transport");

    private static final ValueTable<TransportType> BY_VALUE = new ValueTable<>(values(), TransportType::value, UNKNOWN);

    private final int value;
    private final String text;

    TransportType(int value, String text) {
        this.value = value;
        this.text = text;
    }

    public int value() {
        return value;
    }

    /** The text {@code ibv_devinfo} prints for this transport. */
    public String text() {
        return text;
    }

    public static TransportType of(int value) {
        return BY_VALUE.of(value);
    }
}
