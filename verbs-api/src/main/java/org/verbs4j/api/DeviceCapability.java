package org.verbs4j.api;

/** Bits of {@code device_cap_flags} ({@code enum ibv_device_cap_flags}), named as {@code ibv_devinfo -v} prints them. */
public enum DeviceCapability {
    RESIZE_MAX_WR(1),
    BAD_PKEY_CNTR(1 << 1),
    BAD_QKEY_CNTR(1 << 2),
    RAW_MULTI(1 << 3),
    AUTO_PATH_MIG(1 << 4),
    CHANGE_PHY_PORT(1 << 5),
    UD_AV_PORT_ENFORCE(1 << 6),
    CURR_QP_STATE_MOD(1 << 7),
    SHUTDOWN_PORT(1 << 8),
    INIT_TYPE(1 << 9),
    PORT_ACTIVE_EVENT(1 << 10),
    SYS_IMAGE_GUID(1 << 11),
    RC_RNR_NAK_GEN(1 << 12),
    SRQ_RESIZE(1 << 13),
    N_NOTIFY_CQ(1 << 14),
    MEM_WINDOW(1 << 17),
    UD_IP_CSUM(1 << 18),
    XRC(1 << 20),
    MEM_MGT_EXTENSIONS(1 << 21),
    MEM_WINDOW_TYPE_2A(1 << 23),
    MEM_WINDOW_TYPE_2B(1 << 24),
    RC_IP_CSUM(1 << 25),
    RAW_IP_CSUM(1 << 26),
    MANAGED_FLOW_STEERING(1 << 29);

    private final int mask;

    DeviceCapability(int mask) {
        this.mask = mask;
    }

    public int mask() {
        return mask;
    }
}
