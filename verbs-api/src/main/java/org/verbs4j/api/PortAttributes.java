package org.verbs4j.api;

/**
 * The attributes of one port ({@code struct ibv_port_attr}, from {@code ibv_query_port}).
 * MTUs are {@code null} only if a driver reports a value libibverbs does not define.
 *
 * @param lid           {@code lid}: the port's LID (IB only; 0 on RoCE and iWARP)
 * @param activeWidth   {@code active_width}, the encoded value (1=1X, 2=4X, 4=8X, 8=12X, 16=2X)
 * @param activeSpeed   {@code active_speed}, the encoded value (1=SDR 2.5 Gb/s ... 64=HDR 50 Gb/s per lane)
 * @param maxMsgSize    {@code max_msg_sz}, unsigned
 * @param portNumber           the port number queried, from 1 (not a field of the struct)
 * @param state                {@code state}
 * @param maxMtu               {@code max_mtu}
 * @param activeMtu            {@code active_mtu}
 * @param gidTableLength       {@code gid_tbl_len}
 * @param portCapFlags         {@code port_cap_flags}
 * @param badPkeyCounter       {@code bad_pkey_cntr}
 * @param qkeyViolationCounter {@code qkey_viol_cntr}
 * @param pkeyTableLength      {@code pkey_tbl_len}
 * @param smLid                {@code sm_lid}
 * @param lmc                  {@code lmc}
 * @param maxVlNum             {@code max_vl_num}
 * @param smSl                 {@code sm_sl}
 * @param subnetTimeout        {@code subnet_timeout}
 * @param initTypeReply        {@code init_type_reply}
 * @param physState            {@code phys_state}, the encoded value (5 = LinkUp)
 * @param linkLayer            {@code link_layer}
 * @param flags                {@code flags}
 * @param portCapFlags2        {@code port_cap_flags2}
 */
public record PortAttributes(
        int portNumber,
        PortState state,
        Mtu maxMtu,
        Mtu activeMtu,
        int gidTableLength,
        int portCapFlags,
        long maxMsgSize,
        int badPkeyCounter,
        int qkeyViolationCounter,
        int pkeyTableLength,
        int lid,
        int smLid,
        int lmc,
        int maxVlNum,
        int smSl,
        int subnetTimeout,
        int initTypeReply,
        int activeWidth,
        int activeSpeed,
        int physState,
        LinkLayer linkLayer,
        int flags,
        int portCapFlags2) {

    /** {@return true when the port can carry traffic} */
    public boolean isActive() {
        return state == PortState.ACTIVE;
    }

    /**
     * {@return the lane count {@code ibv_devinfo} prints for {@link #activeWidth()} ("4" for 4X), or "invalid width"}
     */
    public String activeWidthText() {
        switch (activeWidth) {
            case 1: return "1";
            case 2: return "4";
            case 4: return "8";
            case 8: return "12";
            case 16: return "2";
            default: return "invalid width";
        }
    }

    /** {@return the per-lane rate {@code ibv_devinfo} prints for {@link #activeSpeed()}, e.g. "25.0 Gbps"} */
    public String activeSpeedText() {
        switch (activeSpeed) {
            case 1: return "2.5 Gbps";
            case 2: return "5.0 Gbps";
            case 4:
            case 8: return "10.0 Gbps";
            case 16: return "14.0 Gbps";
            case 32: return "25.0 Gbps";
            case 64: return "50.0 Gbps";
            case 128: return "100.0 Gbps";
            default: return "invalid speed";
        }
    }

    /** {@return the physical state text {@code ibv_devinfo} prints (IB transport only)} */
    public String physStateText() {
        switch (physState) {
            case 1: return "SLEEP";
            case 2: return "POLLING";
            case 3: return "DISABLED";
            case 4: return "PORT_CONFIGURATION TRAINNING";
            case 5: return "LINK_UP";
            case 6: return "LINK_ERROR_RECOVERY";
            case 7: return "PHY TEST";
            default: return "invalid physical state";
        }
    }
}
