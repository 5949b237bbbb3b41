package org.verbs4j.api;

/** Opcode of a send work request ({@code enum ibv_wr_opcode}). */
public enum Opcode {
    /** {@code IBV_WR_RDMA_WRITE} (0): RDMA write. */
    RDMA_WRITE(0, "RDMA write"),
    /** {@code IBV_WR_RDMA_WRITE_WITH_IMM} (1): RDMA write with immediate. */
    RDMA_WRITE_WITH_IMM(1, "RDMA write with immediate"),
    /** {@code IBV_WR_SEND} (2): send. */
    SEND(2, "send"),
    /** {@code IBV_WR_SEND_WITH_IMM} (3): send with immediate. */
    SEND_WITH_IMM(3, "send with immediate"),
    /** {@code IBV_WR_RDMA_READ} (4): RDMA read. */
    RDMA_READ(4, "RDMA read"),
    /** {@code IBV_WR_ATOMIC_CMP_AND_SWP} (5): atomic compare and swap. */
    ATOMIC_CMP_AND_SWP(5, "atomic compare and swap"),
    /** {@code IBV_WR_ATOMIC_FETCH_AND_ADD} (6): atomic fetch and add. */
    ATOMIC_FETCH_AND_ADD(6, "atomic fetch and add"),
    /** {@code IBV_WR_LOCAL_INV} (7): local invalidate. */
    LOCAL_INV(7, "local invalidate"),
    /** {@code IBV_WR_BIND_MW} (8): bind memory window. */
    BIND_MW(8, "bind memory window"),
    /** {@code IBV_WR_SEND_WITH_INV} (9): send with invalidate. */
    SEND_WITH_INV(9, "send with invalidate"),
    /** {@code IBV_WR_TSO} (10): TCP segmentation offload. */
    TSO(10, "TCP segmentation offload"),
    /** {@code IBV_WR_DRIVER1} (11): driver-specific. */
    DRIVER1(11, "driver-specific"),
    /** {@code IBV_WR_ATOMIC_WRITE} (15): atomic write. */
    ATOMIC_WRITE(15, "atomic write");

    private static final ValueTable<Opcode> BY_VALUE = new ValueTable<>(values(), Opcode::value, null);

    private final int value;
    private final String text;

    Opcode(int value, String text) {
        this.value = value;
        this.text = text;
    }

    /** {@return the native value} */
    public int value() {
        return value;
    }

    /** {@return a readable name (libibverbs has no text function for this enum in rdma-core 44)} */
    public String text() {
        return text;
    }

    /**
     * From the native value; {@code null} for a value this version does not know. Allocation-free.
     *
     * @param value the native {@code enum ibv_wr_opcode} value
     * @return the opcode, or null for an unknown value
     */
    public static Opcode of(int value) {
        return BY_VALUE.of(value);
    }
}
