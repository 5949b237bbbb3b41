package org.verbs4j.api;

/** The type of a GID table entry ({@code enum ibv_gid_type}). */
public enum GidType {
    /** {@code IBV_GID_TYPE_IB} (0): IB. */
    IB(0, "IB"),
    /** {@code IBV_GID_TYPE_ROCE_V1} (1): RoCE v1. */
    ROCE_V1(1, "RoCE v1"),
    /** {@code IBV_GID_TYPE_ROCE_V2} (2): RoCE v2. */
    ROCE_V2(2, "RoCE v2"),
    /** A native value this version does not know (not a libibverbs constant): unknown. */
    UNKNOWN(-1, "unknown");

    private static final ValueTable<GidType> BY_VALUE = new ValueTable<>(values(), GidType::value, UNKNOWN);

    private final int value;
    private final String text;

    GidType(int value, String text) {
        this.value = value;
        this.text = text;
    }

    /** {@return the value} */
    public int value() {
        return value;
    }

    /** {@return the text sysfs and {@code ibv_devinfo} use ("IB", "RoCE v1", "RoCE v2")} */
    public String text() {
        return text;
    }

    /**
     * {@return the constant of native value {@code value}; {@code UNKNOWN} for a value this version does not know}
     * @param value the native value, as libibverbs returns it
     */
    public static GidType of(int value) {
        return BY_VALUE.of(value);
    }

    /**
     * From the sysfs / ibv_devinfo text; "IB/RoCE v1" (what sysfs says of an IB GID) maps to IB.
     *
     * @param text the text sysfs or {@code ibv_devinfo} prints
     * @return the type
     */
    public static GidType ofText(String text) {
        String t = text.trim();
        if (t.equalsIgnoreCase("RoCE v2")) {
            return ROCE_V2;
        }
        if (t.equalsIgnoreCase("RoCE v1")) {
            return ROCE_V1;
        }
        if (t.equalsIgnoreCase("IB") || t.equalsIgnoreCase("IB/RoCE v1")) {
            return IB;
        }
        return UNKNOWN;
    }
}
