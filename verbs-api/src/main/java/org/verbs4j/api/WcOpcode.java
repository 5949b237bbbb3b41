package org.verbs4j.api;

/** Opcode of a work completion ({@code enum ibv_wc_opcode}); receive opcodes have bit 7 set. */
public enum WcOpcode {
    /** {@code IBV_WC_SEND} (0): send. */
    SEND(0, "send"),
    /** {@code IBV_WC_RDMA_WRITE} (1): RDMA write. */
    RDMA_WRITE(1, "RDMA write"),
    /** {@code IBV_WC_RDMA_READ} (2): RDMA read. */
    RDMA_READ(2, "RDMA read"),
    /** {@code IBV_WC_COMP_SWAP} (3): atomic compare and swap. */
    COMP_SWAP(3, "atomic compare and swap"),
    /** {@code IBV_WC_FETCH_ADD} (4): atomic fetch and add. */
    FETCH_ADD(4, "atomic fetch and add"),
    /** {@code IBV_WC_BIND_MW} (5): bind memory window. */
    BIND_MW(5, "bind memory window"),
    /** {@code IBV_WC_LOCAL_INV} (6): local invalidate. */
    LOCAL_INV(6, "local invalidate"),
    /** {@code IBV_WC_TSO} (7): TCP segmentation offload. */
    TSO(7, "TCP segmentation offload"),
    /** {@code IBV_WC_ATOMIC_WRITE} (9): atomic write. */
    ATOMIC_WRITE(9, "atomic write"),
    /** {@code IBV_WC_RECV} (128): receive. */
    RECV(128, "receive"),
    /** {@code IBV_WC_RECV_RDMA_WITH_IMM} (129): receive RDMA write with immediate. */
    RECV_RDMA_WITH_IMM(129, "receive RDMA write with immediate"),
    /** {@code IBV_WC_TM_ADD} (130): tag matching add. */
    TM_ADD(130, "tag matching add"),
    /** {@code IBV_WC_TM_DEL} (131): tag matching delete. */
    TM_DEL(131, "tag matching delete"),
    /** {@code IBV_WC_TM_SYNC} (132): tag matching sync. */
    TM_SYNC(132, "tag matching sync"),
    /** {@code IBV_WC_TM_RECV} (133): tag matching receive. */
    TM_RECV(133, "tag matching receive"),
    /** {@code IBV_WC_TM_NO_TAG} (134): tag matching no tag. */
    TM_NO_TAG(134, "tag matching no tag"),
    /** {@code IBV_WC_DRIVER1} (135): driver-specific 1. */
    DRIVER1(135, "driver-specific 1"),
    /** {@code IBV_WC_DRIVER2} (136): driver-specific 2. */
    DRIVER2(136, "driver-specific 2"),
    /** {@code IBV_WC_DRIVER3} (137): driver-specific 3. */
    DRIVER3(137, "driver-specific 3");

    private static final ValueTable<WcOpcode> BY_VALUE = new ValueTable<>(values(), WcOpcode::value, null);

    private final int value;
    private final String text;

    WcOpcode(int value, String text) {
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
     * @param value the native {@code enum ibv_wc_opcode} value
     * @return the opcode, or null for an unknown value
     */
    public static WcOpcode of(int value) {
        return BY_VALUE.of(value);
    }
}
