package org.verbs4j.api;

/** The link layer of a port ({@code IBV_LINK_LAYER_*}). Unspecified means InfiniBand, as in libibverbs. */
public enum LinkLayer {
    /** {@code IBV_LINK_LAYER_UNSPECIFIED} (0): InfiniBand. */
    UNSPECIFIED(0, "InfiniBand"),
    /** {@code IBV_LINK_LAYER_INFINIBAND} (1): InfiniBand. */
    INFINIBAND(1, "InfiniBand"),
    /** {@code IBV_LINK_LAYER_ETHERNET} (2): Ethernet. */
    ETHERNET(2, "Ethernet"),
    /** A native value this version does not know (not a libibverbs constant): Unknown. */
    UNKNOWN(-1, "Unknown");

    private static final ValueTable<LinkLayer> BY_VALUE = new ValueTable<>(values(), LinkLayer::value, UNKNOWN);

    private final int value;
    private final String text;

    LinkLayer(int value, String text) {
        this.value = value;
        this.text = text;
    }

    /** {@return the value} */
    public int value() {
        return value;
    }

    /** {@return the text {@code ibv_devinfo} prints} */
    public String text() {
        return text;
    }

    /** {@return true for InfiniBand (including the unspecified value, which older drivers report for IB)} */
    public boolean isInfiniBand() {
        return this == INFINIBAND || this == UNSPECIFIED;
    }

    /**
     * {@return the constant of native value {@code value}; {@code UNKNOWN} for a value this version does not know}
     * @param value the native value, as libibverbs returns it
     */
    public static LinkLayer of(int value) {
        return BY_VALUE.of(value);
    }
}
