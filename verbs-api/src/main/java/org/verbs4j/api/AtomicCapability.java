package org.verbs4j.api;

/** Atomic operation support of a device ({@code enum ibv_atomic_cap}). */
public enum AtomicCapability {
    /** {@code IBV_ATOMIC_NONE} (0): ATOMIC_NONE. */
    NONE(0, "ATOMIC_NONE"),
    /** {@code IBV_ATOMIC_HCA} (1): ATOMIC_HCA. */
    HCA(1, "ATOMIC_HCA"),
    /** {@code IBV_ATOMIC_GLOB} (2): ATOMIC_GLOB. */
    GLOB(2, "ATOMIC_GLOB"),
    /** A native value this version does not know (not a libibverbs constant): invalid atomic capability. */
    UNKNOWN(-1, "invalid atomic capability");

    private static final ValueTable<AtomicCapability> BY_VALUE =
            new ValueTable<>(values(), AtomicCapability::value, UNKNOWN);

    private final int value;
    private final String text;

    AtomicCapability(int value, String text) {
        this.value = value;
        this.text = text;
    }

    /** {@return the value} */
    public int value() {
        return value;
    }

    /** {@return the text} */
    public String text() {
        return text;
    }

    /** {@return true when the device executes atomic operations at all} */
    public boolean supported() {
        return this == HCA || this == GLOB;
    }

    /**
     * {@return the constant of native value {@code value}; {@code UNKNOWN} for a value this version does not know}
     * @param value the native value, as libibverbs returns it
     */
    public static AtomicCapability of(int value) {
        return BY_VALUE.of(value);
    }
}
