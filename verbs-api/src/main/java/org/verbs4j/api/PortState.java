package org.verbs4j.api;

/** Logical port state ({@code enum ibv_port_state}). */
public enum PortState {
    /** {@code IBV_PORT_NOP} (0): PORT_NOP. */
    NOP(0, "PORT_NOP"),
    /** {@code IBV_PORT_DOWN} (1): PORT_DOWN. */
    DOWN(1, "PORT_DOWN"),
    /** {@code IBV_PORT_INIT} (2): PORT_INIT. */
    INIT(2, "PORT_INIT"),
    /** {@code IBV_PORT_ARMED} (3): PORT_ARMED. */
    ARMED(3, "PORT_ARMED"),
    /** {@code IBV_PORT_ACTIVE} (4): PORT_ACTIVE. */
    ACTIVE(4, "PORT_ACTIVE"),
    /** {@code IBV_PORT_ACTIVE_DEFER} (5): PORT_ACTIVE_DEFER. */
    ACTIVE_DEFER(5, "PORT_ACTIVE_DEFER"),
    /** A native value this version does not know (not a libibverbs constant): invalid state. */
    UNKNOWN(-1, "invalid state");

    private static final ValueTable<PortState> BY_VALUE = new ValueTable<>(values(), PortState::value, UNKNOWN);

    private final int value;
    private final String text;

    PortState(int value, String text) {
        this.value = value;
        this.text = text;
    }

    /** {@return the value} */
    public int value() {
        return value;
    }

    /** {@return the text of {@code ibv_port_state_str}, as {@code ibv_devinfo} prints it} */
    public String text() {
        return text;
    }

    /**
     * {@return the constant of native value {@code value}; {@code UNKNOWN} for a value this version does not know}
     * @param value the native value, as libibverbs returns it
     */
    public static PortState of(int value) {
        return BY_VALUE.of(value);
    }
}
