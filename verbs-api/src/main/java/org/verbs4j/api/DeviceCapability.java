package org.verbs4j.api;

/** Bits of {@code device_cap_flags} ({@code enum ibv_device_cap_flags}), named as {@code ibv_devinfo -v} prints them. */
public enum DeviceCapability {
    /** {@code IBV_DEVICE_RESIZE_MAX_WR} ({@code 1}). */
    RESIZE_MAX_WR(1),
    /** {@code IBV_DEVICE_BAD_PKEY_CNTR} ({@code 1 << 1}). */
    BAD_PKEY_CNTR(1 << 1),
    /** {@code IBV_DEVICE_BAD_QKEY_CNTR} ({@code 1 << 2}). */
    BAD_QKEY_CNTR(1 << 2),
    /** {@code IBV_DEVICE_RAW_MULTI} ({@code 1 << 3}). */
    RAW_MULTI(1 << 3),
    /** {@code IBV_DEVICE_AUTO_PATH_MIG} ({@code 1 << 4}). */
    AUTO_PATH_MIG(1 << 4),
    /** {@code IBV_DEVICE_CHANGE_PHY_PORT} ({@code 1 << 5}). */
    CHANGE_PHY_PORT(1 << 5),
    /** {@code IBV_DEVICE_UD_AV_PORT_ENFORCE} ({@code 1 << 6}). */
    UD_AV_PORT_ENFORCE(1 << 6),
    /** {@code IBV_DEVICE_CURR_QP_STATE_MOD} ({@code 1 << 7}). */
    CURR_QP_STATE_MOD(1 << 7),
    /** {@code IBV_DEVICE_SHUTDOWN_PORT} ({@code 1 << 8}). */
    SHUTDOWN_PORT(1 << 8),
    /** {@code IBV_DEVICE_INIT_TYPE} ({@code 1 << 9}). */
    INIT_TYPE(1 << 9),
    /** {@code IBV_DEVICE_PORT_ACTIVE_EVENT} ({@code 1 << 10}). */
    PORT_ACTIVE_EVENT(1 << 10),
    /** {@code IBV_DEVICE_SYS_IMAGE_GUID} ({@code 1 << 11}). */
    SYS_IMAGE_GUID(1 << 11),
    /** {@code IBV_DEVICE_RC_RNR_NAK_GEN} ({@code 1 << 12}). */
    RC_RNR_NAK_GEN(1 << 12),
    /** {@code IBV_DEVICE_SRQ_RESIZE} ({@code 1 << 13}). */
    SRQ_RESIZE(1 << 13),
    /** {@code IBV_DEVICE_N_NOTIFY_CQ} ({@code 1 << 14}). */
    N_NOTIFY_CQ(1 << 14),
    /** {@code IBV_DEVICE_MEM_WINDOW} ({@code 1 << 17}). */
    MEM_WINDOW(1 << 17),
    /** {@code IBV_DEVICE_UD_IP_CSUM} ({@code 1 << 18}). */
    UD_IP_CSUM(1 << 18),
    /** {@code IBV_DEVICE_XRC} ({@code 1 << 20}). */
    XRC(1 << 20),
    /** {@code IBV_DEVICE_MEM_MGT_EXTENSIONS} ({@code 1 << 21}). */
    MEM_MGT_EXTENSIONS(1 << 21),
    /** {@code IBV_DEVICE_MEM_WINDOW_TYPE_2A} ({@code 1 << 23}). */
    MEM_WINDOW_TYPE_2A(1 << 23),
    /** {@code IBV_DEVICE_MEM_WINDOW_TYPE_2B} ({@code 1 << 24}). */
    MEM_WINDOW_TYPE_2B(1 << 24),
    /** {@code IBV_DEVICE_RC_IP_CSUM} ({@code 1 << 25}). */
    RC_IP_CSUM(1 << 25),
    /** {@code IBV_DEVICE_RAW_IP_CSUM} ({@code 1 << 26}). */
    RAW_IP_CSUM(1 << 26),
    /** {@code IBV_DEVICE_MANAGED_FLOW_STEERING} ({@code 1 << 29}). */
    MANAGED_FLOW_STEERING(1 << 29);

    private final int mask;

    DeviceCapability(int mask) {
        this.mask = mask;
    }

    /** {@return the mask} */
    public int mask() {
        return mask;
    }
}
