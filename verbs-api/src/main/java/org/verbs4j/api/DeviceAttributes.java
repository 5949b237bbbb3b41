package org.verbs4j.api;

/**
 * What a device can do ({@code struct ibv_device_attr}, from {@code ibv_query_device}). Names follow
 * libibverbs' fields in camel case, so {@code ibv_devinfo -v}'s {@code max_qp_wr} is {@link #maxQpWr()}.
 *
 * @param firmwareVersion   {@code fw_ver}
 * @param nodeGuid          {@code node_guid}, as the number {@code ibv_devinfo} prints (host order)
 * @param sysImageGuid      {@code sys_image_guid}, host order
 * @param deviceCapFlags    {@code device_cap_flags}: {@code IBV_DEVICE_*} bits, see {@link DeviceCapability}
 * @param maxMrSize             {@code max_mr_size}
 * @param pageSizeCap           {@code page_size_cap}
 * @param vendorId              {@code vendor_id}
 * @param vendorPartId          {@code vendor_part_id}
 * @param hwVer                 {@code hw_ver}
 * @param maxQp                 {@code max_qp}
 * @param maxQpWr               {@code max_qp_wr}
 * @param maxSge                {@code max_sge}: the most scatter/gather entries per request
 * @param maxSgeRd              {@code max_sge_rd}
 * @param maxCq                 {@code max_cq}
 * @param maxCqe                {@code max_cqe}
 * @param maxMr                 {@code max_mr}
 * @param maxPd                 {@code max_pd}
 * @param maxQpRdAtom           {@code max_qp_rd_atom}
 * @param maxEeRdAtom           {@code max_ee_rd_atom}
 * @param maxResRdAtom          {@code max_res_rd_atom}
 * @param maxQpInitRdAtom       {@code max_qp_init_rd_atom}
 * @param maxEeInitRdAtom       {@code max_ee_init_rd_atom}
 * @param atomicCap             {@code atomic_cap}
 * @param maxEe                 {@code max_ee}
 * @param maxRdd                {@code max_rdd}
 * @param maxMw                 {@code max_mw}
 * @param maxRawIpv6Qp          {@code max_raw_ipv6_qp}
 * @param maxRawEthyQp          {@code max_raw_ethy_qp}
 * @param maxMcastGrp           {@code max_mcast_grp}
 * @param maxMcastQpAttach      {@code max_mcast_qp_attach}
 * @param maxTotalMcastQpAttach {@code max_total_mcast_qp_attach}
 * @param maxAh                 {@code max_ah}
 * @param maxFmr                {@code max_fmr}
 * @param maxMapPerFmr          {@code max_map_per_fmr}
 * @param maxSrq                {@code max_srq}
 * @param maxSrqWr              {@code max_srq_wr}
 * @param maxSrqSge             {@code max_srq_sge}
 * @param maxPkeys              {@code max_pkeys}
 * @param localCaAckDelay       {@code local_ca_ack_delay}
 * @param physPortCnt           {@code phys_port_cnt}
 */
public record DeviceAttributes(
        String firmwareVersion,
        long nodeGuid,
        long sysImageGuid,
        long maxMrSize,
        long pageSizeCap,
        int vendorId,
        int vendorPartId,
        int hwVer,
        int maxQp,
        int maxQpWr,
        int deviceCapFlags,
        int maxSge,
        int maxSgeRd,
        int maxCq,
        int maxCqe,
        int maxMr,
        int maxPd,
        int maxQpRdAtom,
        int maxEeRdAtom,
        int maxResRdAtom,
        int maxQpInitRdAtom,
        int maxEeInitRdAtom,
        AtomicCapability atomicCap,
        int maxEe,
        int maxRdd,
        int maxMw,
        int maxRawIpv6Qp,
        int maxRawEthyQp,
        int maxMcastGrp,
        int maxMcastQpAttach,
        int maxTotalMcastQpAttach,
        int maxAh,
        int maxFmr,
        int maxMapPerFmr,
        int maxSrq,
        int maxSrqWr,
        int maxSrqSge,
        int maxPkeys,
        int localCaAckDelay,
        int physPortCnt) {

    /**
     * True when {@link #deviceCapFlags()} has the capability.
     *
     * @param capability a {@code device_cap_flags} bit
     * @return true when the device has it
     */
    public boolean has(DeviceCapability capability) {
        return (deviceCapFlags & capability.mask()) != 0;
    }

    /** {@return true when the device executes atomic operations (rxe does, siw does not)} */
    public boolean supportsAtomics() {
        return atomicCap.supported();
    }

    /** {@return true when the device supports shared receive queues} */
    public boolean supportsSrq() {
        return maxSrq > 0;
    }
}
