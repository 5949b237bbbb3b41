package org.verbs4j.api;

/** Opcode of a work completion ({@code enum ibv_wc_opcode}); receive opcodes have bit 7 set. */
public enum WcOpcode {
    SEND(0, "send"),
    RDMA_WRITE(1, "RDMA write"),
    RDMA_READ(2, "RDMA read"),
    COMP_SWAP(3, "atomic compare and swap"),
    FETCH_ADD(4, "atomic fetch and add"),
    BIND_MW(5, "bind memory window"),
    LOCAL_INV(6, "local invalidate"),
    TSO(7, "TCP segmentation offload"),
    ATOMIC_WRITE(9, "atomic write"),
    RECV(128, "receive"),
    RECV_RDMA_WITH_IMM(129, "receive RDMA write with immediate"),
    TM_ADD(130, "tag matching add"),
    TM_DEL(131, "tag matching delete"),
    TM_SYNC(132, "tag matching sync"),
    TM_RECV(133, "tag matching receive"),
    TM_NO_TAG(134, "tag matching no tag"),
    DRIVER1(135, "driver-specific 1"),
    DRIVER2(136, "driver-specific 2"),
    DRIVER3(137, "driver-specific 3");

    private static final ValueTable<WcOpcode> BY_VALUE = new ValueTable<>(values(), WcOpcode::value, null);

    private final int value;
    private final String text;

    WcOpcode(int value, String text) {
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
    public static WcOpcode of(int value) {
        return BY_VALUE.of(value);
    }
}
