package org.verbs4j.api;

/** Flags of a send work request ({@code enum ibv_send_flags}), combined with {@code |}. */
public final class SendFlags {
    /** Wait for earlier RDMA reads and atomics to complete before this request starts. */
    public static final int FENCE = 1;
    /** Generate a completion for this request (needed unless the QP signals all). */
    public static final int SIGNALED = 1 << 1;
    /** Wake a receiver that asked for solicited-only notification. */
    public static final int SOLICITED = 1 << 2;
    /** Copy the payload into the work request: the buffer is reusable at once, no lkey needed. */
    public static final int INLINE = 1 << 3;
    /** {@code IBV_SEND_IP_CSUM}: the device computes the IP and TCP/UDP checksums (where the device offers it). */
    public static final int IP_CSUM = 1 << 4;

    private SendFlags() {
    }
}
