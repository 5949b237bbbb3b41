package org.verbs4j.api;

/**
 * What a device can do ({@code struct ibv_device_attr}, from {@code ibv_query_device}). Names follow
 * libibverbs' fields in camel case, so {@code ibv_devinfo -v}'s {@code max_qp_wr} is {@link #maxQpWr()}.
 *
 * @param firmwareVersion   {@code fw_ver}
 * @param nodeGuid          {@code node_guid}, as the number {@code ibv_devinfo} prints (host order)
 * @param sysImageGuid      {@code sys_image_guid}, host order
 * @param deviceCapFlags    {@code device_cap_flags}: {@code IBV_DEVICE_*} bits, see {@link DeviceCapability}
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
