package org.verbs4j.api;

/** Path MTU ({@code enum ibv_mtu}): the native value is 1 for 256 bytes up to 5 for 4096 bytes. */
public enum Mtu {
    /** {@code IBV_MTU_256} (1). */
    MTU_256(1, 256),
    /** {@code IBV_MTU_512} (2). */
    MTU_512(2, 512),
    /** {@code IBV_MTU_1024} (3). */
    MTU_1024(3, 1024),
    /** {@code IBV_MTU_2048} (4). */
    MTU_2048(4, 2048),
    /** {@code IBV_MTU_4096} (5). */
    MTU_4096(5, 4096);

    private static final ValueTable<Mtu> BY_VALUE = new ValueTable<>(values(), Mtu::value, null);

    private final int value;
    private final int bytes;

    Mtu(int value, int bytes) {
        this.value = value;
        this.bytes = bytes;
    }

    /** {@return the native enum value (1..5)} */
    public int value() {
        return value;
    }

    /** {@return the MTU in bytes} */
    public int bytes() {
        return bytes;
    }

    /**
     * From the native value; {@code null} for a value libibverbs does not define.
     *
     * @param value the native {@code enum ibv_mtu} value, 1..5
     * @return the MTU, or null for an unknown value
     */
    public static Mtu of(int value) {
        return BY_VALUE.of(value);
    }

    /**
     * From a size in bytes (256, 512, 1024, 2048 or 4096), as {@code ibv_rc_pingpong -m} takes it.
     *
     * @param bytes the MTU in bytes: 256, 512, 1024, 2048 or 4096
     * @return the MTU
     */
    public static Mtu ofBytes(int bytes) {
        for (Mtu m : values()) {
            if (m.bytes == bytes) {
                return m;
            }
        }
        throw new IllegalArgumentException("not an IB MTU: " + bytes + " (use 256, 512, 1024, 2048 or 4096)");
    }
}
