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

    /** An address vector with every field at its default (port 1, no GRH, hop limit 1); set what differs. */
    public AddressVector() {
    }

    /**
     * InfiniBand, same subnet: addressed by LID, no GRH.
     *
     * @param port the port number, from 1
     * @param dlid the destination LID
     * @return a new address vector without a GRH
     */
    public static AddressVector local(int port, int dlid) {
        return new AddressVector().port(port).dlid(dlid);
    }

    /**
     * With a GRH: RoCE (always), or InfiniBand across subnets. Hop limit 64.
     *
     * @param port the port number, from 1
     * @param dgid the destination GID
     * @param sgidIndex the index of the local GID in the port's table
     * @return a new address vector with a GRH
     */
    public static AddressVector global(int port, Gid dgid, int sgidIndex) {
        return new AddressVector().port(port).grh(dgid, sgidIndex).hopLimit(64);
    }

    /**
     * Sets the port ({@code port_num} of {@code struct ibv_ah_attr}).
     *
     * @param port the local port number, from 1 ({@code port_num})
     * @return this object
     */
    public AddressVector port(int port) {
        this.port = port;
        return this;
    }

    /**
     * Sets the destination LID ({@code dlid} of {@code struct ibv_ah_attr}).
     *
     * @param dlid the destination LID (16 bits)
     * @return this object
     */
    public AddressVector dlid(int dlid) {
        this.dlid = dlid;
        return this;
    }

    /**
     * Sets the service level ({@code sl} of {@code struct ibv_ah_attr}).
     *
     * @param sl the service level
     * @return this object
     */
    public AddressVector serviceLevel(int sl) {
        this.serviceLevel = sl;
        return this;
    }

    /**
     * Sets the source path bits ({@code src_path_bits} of {@code struct ibv_ah_attr}).
     *
     * @param bits the source path bits
     * @return this object
     */
    public AddressVector srcPathBits(int bits) {
        this.srcPathBits = bits;
        return this;
    }

    /**
     * Sets the static rate ({@code static_rate} of {@code struct ibv_ah_attr}).
     *
     * @param rate the static rate
     * @return this object
     */
    public AddressVector staticRate(int rate) {
        this.staticRate = rate;
        return this;
    }

    /**
     * Sets {@code is_global} with the destination GID and the local GID index to send from.
     *
     * @param dgid the destination GID
     * @param sgidIndex the index of the local GID in the port's table
     * @return this object
     */
    public AddressVector grh(Gid dgid, int sgidIndex) {
        this.global = true;
        this.dgid = Objects.requireNonNull(dgid, "dgid");
        this.sgidIndex = sgidIndex;
        return this;
    }

    /**
     * Sets the flow label ({@code grh.flow_label} of {@code struct ibv_ah_attr}).
     *
     * @param flowLabel the GRH flow label (20 bits)
     * @return this object
     */
    public AddressVector flowLabel(int flowLabel) {
        this.flowLabel = flowLabel;
        return this;
    }

    /**
     * Sets the hop limit ({@code grh.hop_limit} of {@code struct ibv_ah_attr}).
     *
     * @param hopLimit the GRH hop limit, 0..255
     * @return this object
     */
    public AddressVector hopLimit(int hopLimit) {
        this.hopLimit = hopLimit;
        return this;
    }

    /**
     * GRH traffic class (RoCE: DSCP in the upper six bits, ECN in the lower two).
     *
     * @param trafficClass the traffic class, 0..255
     * @return this object
     */
    public AddressVector trafficClass(int trafficClass) {
        this.trafficClass = trafficClass;
        return this;
    }

    /** {@return the port ({@code port_num} of {@code struct ibv_ah_attr})} */
    public int port() {
        return port;
    }

    /** {@return the destination LID ({@code dlid} of {@code struct ibv_ah_attr})} */
    public int dlid() {
        return dlid;
    }

    /** {@return the service level ({@code sl} of {@code struct ibv_ah_attr})} */
    public int serviceLevel() {
        return serviceLevel;
    }

    /** {@return the source path bits ({@code src_path_bits} of {@code struct ibv_ah_attr})} */
    public int srcPathBits() {
        return srcPathBits;
    }

    /** {@return the static rate ({@code static_rate} of {@code struct ibv_ah_attr})} */
    public int staticRate() {
        return staticRate;
    }

    /** {@return whether global} */
    public boolean isGlobal() {
        return global;
    }

    /** {@return the DGID ({@code grh.dgid} of {@code struct ibv_ah_attr})} */
    public Gid dgid() {
        return dgid;
    }

    /** {@return the flow label ({@code grh.flow_label} of {@code struct ibv_ah_attr})} */
    public int flowLabel() {
        return flowLabel;
    }

    /** {@return the SGID index ({@code grh.sgid_index} of {@code struct ibv_ah_attr})} */
    public int sgidIndex() {
        return sgidIndex;
    }

    /** {@return the hop limit ({@code grh.hop_limit} of {@code struct ibv_ah_attr})} */
    public int hopLimit() {
        return hopLimit;
    }

    /** {@return the traffic class ({@code grh.traffic_class} of {@code struct ibv_ah_attr})} */
    public int trafficClass() {
        return trafficClass;
    }

    @Override
    public String toString() {
        return "AddressVector[port " + port + (global ? ", dgid " + dgid + ", sgid_index " + sgidIndex + ", hop_limit "
                + hopLimit + ", tclass " + trafficClass : "") + ", dlid " + dlid + ", sl " + serviceLevel + "]";
    }
}
