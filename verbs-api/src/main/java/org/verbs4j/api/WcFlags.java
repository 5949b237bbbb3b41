package org.verbs4j.api;

/** Flags of a work completion ({@code enum ibv_wc_flags}). */
public final class WcFlags {
    /** A 40-byte GRH is in the first bytes of the receive buffer (UD). */
    public static final int GRH = 1;
    /** {@code imm_data} is valid. */
    public static final int WITH_IMM = 1 << 1;
    /** {@code IBV_WC_IP_CSUM_OK}: the device checked the packet's IP checksum and found it good. */
    public static final int IP_CSUM_OK = 1 << 2;
    /** {@code IBV_WC_WITH_INV}: the completion is of a SEND with invalidate; {@code invalidated_rkey} is valid. */
    public static final int WITH_INV = 1 << 3;

    private WcFlags() {
    }
}
