package org.verbs4j.api;

/** The link layer of a port ({@code IBV_LINK_LAYER_*}). Unspecified means InfiniBand, as in libibverbs. */
public enum LinkLayer {
    UNSPECIFIED(0, "InfiniBand"),
    INFINIBAND(1, "InfiniBand"),
    ETHERNET(2, "Ethernet"),
    UNKNOWN(-1, "Unknown");

    private static final ValueTable<LinkLayer> BY_VALUE = new ValueTable<>(values(), LinkLayer::value, UNKNOWN);

    private final int value;
    private final String text;

    LinkLayer(int value, String text) {
        this.value = value;
        this.text = text;
    }

    public int value() {
        return value;
    }

    /** The text {@code ibv_devinfo} prints. */
    public String text() {
        return text;
    }

    /** True for InfiniBand (including the unspecified value, which older drivers report for IB). */
    public boolean isInfiniBand() {
        return this == INFINIBAND || this == UNSPECIFIED;
    }

    public static LinkLayer of(int value) {
        return BY_VALUE.of(value);
    }
}
