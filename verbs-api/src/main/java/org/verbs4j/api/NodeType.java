package org.verbs4j.api;

/** The kind of node a device is ({@code enum ibv_node_type}); values are libibverbs' own. */
public enum NodeType {
    /** A native value this version does not know (not a libibverbs constant): unknown. */
    UNKNOWN(-1, "unknown"),
    /** {@code IBV_NODE_CA} (1): InfiniBand channel adapter. */
    CA(1, "InfiniBand channel adapter"),
    /** {@code IBV_NODE_SWITCH} (2): InfiniBand switch. */
    SWITCH(2, "InfiniBand switch"),
    /** {@code IBV_NODE_ROUTER} (3): InfiniBand router. */
    ROUTER(3, "InfiniBand router"),
    /** {@code IBV_NODE_RNIC} (4): iWARP NIC. */
    RNIC(4, "iWARP NIC"),
    /** {@code IBV_NODE_USNIC} (5): usNIC. */
    USNIC(5, "usNIC"),
    /** {@code IBV_NODE_USNIC_UDP} (6): usNIC UDP. */
    USNIC_UDP(6, "usNIC UDP"),
    /** {@code IBV_NODE_UNSPECIFIED} (7): unspecified. */
    UNSPECIFIED(7, "unspecified");

    private static final ValueTable<NodeType> BY_VALUE = new ValueTable<>(values(), NodeType::value, UNKNOWN);

    private final int value;
    private final String text;

    NodeType(int value, String text) {
        this.value = value;
        this.text = text;
    }

    /** {@return the native value} */
    public int value() {
        return value;
    }

    /** {@return the text of {@code ibv_node_type_str}} */
    public String text() {
        return text;
    }

    /**
     * {@return the constant of native value {@code value}; {@code UNKNOWN} for a value this version does not know}
     * @param value the native value, as libibverbs returns it
     */
    public static NodeType of(int value) {
        return BY_VALUE.of(value);
    }
}
