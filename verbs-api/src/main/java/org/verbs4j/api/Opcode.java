package org.verbs4j.api;

/** Opcode of a send work request ({@code enum ibv_wr_opcode}). */
public enum Opcode {
    RDMA_WRITE(0, "RDMA write"),
    RDMA_WRITE_WITH_IMM(1, "RDMA write with immediate"),
    SEND(2, "send"),
    SEND_WITH_IMM(3, "send with immediate"),
    RDMA_READ(4, "RDMA read"),
    ATOMIC_CMP_AND_SWP(5, "atomic compare and swap"),
    ATOMIC_FETCH_AND_ADD(6, "atomic fetch and add"),
    LOCAL_INV(7, "local invalidate"),
    BIND_MW(8, "bind memory window"),
    SEND_WITH_INV(9, "send with invalidate"),
    TSO(10, "TCP segmentation offload"),
    DRIVER1(11, "driver-specific"),
    ATOMIC_WRITE(15, "atomic write");

    private static final ValueTable<Opcode> BY_VALUE = new ValueTable<>(values(), Opcode::value, null);

    private final int value;
    private final String text;

    Opcode(int value, String text) {
        this.value = value;
        this.text = text;
    }

    /** The native value. */
    public int value() {
        return value;
    }

    /** A readable name (libibverbs has no text function for this enum in rdma-core 44). */
    public String text() {
        return text;
    }

    /** From the native value; {@code null} for a value this version does not know. Allocation-free. */
    public static Opcode of(int value) {
        return BY_VALUE.of(value);
    }
}
