package org.verbs4j.api;

/** Path MTU ({@code enum ibv_mtu}): the native value is 1 for 256 bytes up to 5 for 4096 bytes. */
public enum Mtu {
    MTU_256(1, 256),
    MTU_512(2, 512),
    MTU_1024(3, 1024),
    MTU_2048(4, 2048),
    MTU_4096(5, 4096);

    private static final ValueTable<Mtu> BY_VALUE = new ValueTable<>(values(), Mtu::value, null);

    private final int value;
    private final int bytes;

    Mtu(int value, int bytes) {
        this.value = value;
        this.bytes = bytes;
    }

    /** The native enum value (1..5). */
    public int value() {
        return value;
    }

    /** The MTU in bytes. */
    public int bytes() {
        return bytes;
    }

    /** From the native value; {@code null} for a value libibverbs does not define. */
    public static Mtu of(int value) {
        return BY_VALUE.of(value);
    }

    /** From a size in bytes (256, 512, 1024, 2048 or 4096), as {@code ibv_rc_pingpong -m} takes it. */
    public static Mtu ofBytes(int bytes) {
        for (Mtu m : values()) {
            if (m.bytes == bytes) {
                return m;
            }
        }
        throw new IllegalArgumentException("not an IB MTU: " + bytes + " (use 256, 512, 1024, 2048 or 4096)");
    }
}
