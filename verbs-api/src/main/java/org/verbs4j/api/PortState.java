package org.verbs4j.api;

/** Logical port state ({@code enum ibv_port_state}). */
public enum PortState {
    NOP(0, "PORT_NOP"),
    DOWN(1, "PORT_DOWN"),
    INIT(2, "PORT_INIT"),
    ARMED(3, "PORT_ARMED"),
    ACTIVE(4, "PORT_ACTIVE"),
    ACTIVE_DEFER(5, "PORT_ACTIVE_DEFER"),
    UNKNOWN(-1, "invalid state");

    private static final ValueTable<PortState> BY_VALUE = new ValueTable<>(values(), PortState::value, UNKNOWN);

    private final int value;
    private final String text;

    PortState(int value, String text) {
        this.value = value;
        this.text = text;
    }

    public int value() {
        return value;
    }

    /** The text of {@code ibv_port_state_str}, as {@code ibv_devinfo} prints it. */
    public String text() {
        return text;
    }

    public static PortState of(int value) {
        return BY_VALUE.of(value);
    }
}
