package org.verbs4j.api;

/** The kind of node a device is ({@code enum ibv_node_type}); values are libibverbs' own. */
public enum NodeType {
    UNKNOWN(-1, "unknown"),
    CA(1, "InfiniBand channel adapter"),
    SWITCH(2, "InfiniBand switch"),
    ROUTER(3, "InfiniBand router"),
    RNIC(4, "iWARP NIC"),
    USNIC(5, "usNIC"),
    USNIC_UDP(6, "usNIC UDP"),
    UNSPECIFIED(7, "unspecified");

    private static final ValueTable<NodeType> BY_VALUE = new ValueTable<>(values(), NodeType::value, UNKNOWN);

    private final int value;
    private final String text;

    NodeType(int value, String text) {
        this.value = value;
        this.text = text;
    }

    /** The native value. */
    public int value() {
        return value;
    }

    /** The text of {@code ibv_node_type_str}. */
    public String text() {
        return text;
    }

    public static NodeType of(int value) {
        return BY_VALUE.of(value);
    }
}
