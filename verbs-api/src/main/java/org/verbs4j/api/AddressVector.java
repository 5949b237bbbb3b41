package org.verbs4j.api;

import java.util.Objects;

/**
 * Where a packet goes ({@code struct ibv_ah_attr}): the destination LID and service level for
 * InfiniBand, or the global route (GRH: destination GID, source GID index, hop limit, traffic class)
 * that RoCE always needs. Used by {@link QpAttributes#addressVector} (RC/UC at RTR) and by
 * {@link ProtectionDomain#createAddressHandle} (UD).
 *
 * <pre>{@code
 * AddressVector roce = AddressVector.global(1, remoteGid, localGidIndex);   // RoCE, or IB across subnets
 * AddressVector ib = AddressVector.local(1, remoteLid);                      // IB inside a subnet
 * }</pre>
 */
public final class AddressVector {
    private int port = 1;
    private int dlid;
    private int serviceLevel;
    private int srcPathBits;
    private int staticRate;
    private boolean global;
    private Gid dgid = Gid.ZERO;
    private int flowLabel;
    private int sgidIndex;
    private int hopLimit = 1;
    private int trafficClass;

    /** InfiniBand, same subnet: addressed by LID, no GRH. */
    public static AddressVector local(int port, int dlid) {
        return new AddressVector().port(port).dlid(dlid);
    }

    /** With a GRH: RoCE (always), or InfiniBand across subnets. Hop limit 64. */
    public static AddressVector global(int port, Gid dgid, int sgidIndex) {
        return new AddressVector().port(port).grh(dgid, sgidIndex).hopLimit(64);
    }

    public AddressVector port(int port) {
        this.port = port;
        return this;
    }

    public AddressVector dlid(int dlid) {
        this.dlid = dlid;
        return this;
    }

    public AddressVector serviceLevel(int sl) {
        this.serviceLevel = sl;
        return this;
    }

    public AddressVector srcPathBits(int bits) {
        this.srcPathBits = bits;
        return this;
    }

    public AddressVector staticRate(int rate) {
        this.staticRate = rate;
        return this;
    }

    /** Sets {@code is_global} with the destination GID and the local GID index to send from. */
    public AddressVector grh(Gid dgid, int sgidIndex) {
        this.global = true;
        this.dgid = Objects.requireNonNull(dgid, "dgid");
        this.sgidIndex = sgidIndex;
        return this;
    }

    public AddressVector flowLabel(int flowLabel) {
        this.flowLabel = flowLabel;
        return this;
    }

    public AddressVector hopLimit(int hopLimit) {
        this.hopLimit = hopLimit;
        return this;
    }

    /** GRH traffic class (RoCE: DSCP in the upper six bits, ECN in the lower two). */
    public AddressVector trafficClass(int trafficClass) {
        this.trafficClass = trafficClass;
        return this;
    }

    public int port() {
        return port;
    }

    public int dlid() {
        return dlid;
    }

    public int serviceLevel() {
        return serviceLevel;
    }

    public int srcPathBits() {
        return srcPathBits;
    }

    public int staticRate() {
        return staticRate;
    }

    public boolean isGlobal() {
        return global;
    }

    public Gid dgid() {
        return dgid;
    }

    public int flowLabel() {
        return flowLabel;
    }

    public int sgidIndex() {
        return sgidIndex;
    }

    public int hopLimit() {
        return hopLimit;
    }

    public int trafficClass() {
        return trafficClass;
    }

    @Override
    public String toString() {
        return "AddressVector[port " + port + (global ? ", dgid " + dgid + ", sgid_index " + sgidIndex + ", hop_limit "
                + hopLimit + ", tclass " + trafficClass : "") + ", dlid " + dlid + ", sl " + serviceLevel + "]";
    }
}
