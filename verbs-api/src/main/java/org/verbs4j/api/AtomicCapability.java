package org.verbs4j.api;

/** Atomic operation support of a device ({@code enum ibv_atomic_cap}). */
public enum AtomicCapability {
    NONE(0, "ATOMIC_NONE"),
    HCA(1, "ATOMIC_HCA"),
    GLOB(2, "ATOMIC_GLOB"),
    UNKNOWN(-1, "invalid atomic capability");

    private static final ValueTable<AtomicCapability> BY_VALUE =
            new ValueTable<>(values(), AtomicCapability::value, UNKNOWN);

    private final int value;
    private final String text;

    AtomicCapability(int value, String text) {
        this.value = value;
        this.text = text;
    }

    public int value() {
        return value;
    }

    public String text() {
        return text;
    }

    /** True when the device executes atomic operations at all. */
    public boolean supported() {
        return this == HCA || this == GLOB;
    }

    public static AtomicCapability of(int value) {
        return BY_VALUE.of(value);
    }
}
