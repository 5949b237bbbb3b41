package org.verbs4j.api;

/** The link layer of a port ({@code IBV_LINK_LAYER_*}). Unspecified means InfiniBand, as in libibverbs. */
public enum LinkLayer {
    UNSPECIFIED(0, "InfiniBand"),
    INFINIBAND(1, "InfiniBand"),
    ETHERNET(2, "Ethernet"),
    UNKNOWN(-1, "Unknown");

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
        for (LinkLayer l : values()) {
            if (l.value == value) {
                return l;
            }
        }
        return UNKNOWN;
    }
}
