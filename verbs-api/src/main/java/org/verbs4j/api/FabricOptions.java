package org.verbs4j.api;

/**
 * What an application may override in a fabric's defaults: the GID (by index, or by type and IP
 * family), traffic class, service level, P_Key index, path MTU and the transport timers. Unset values
 * (-1 / null) mean "the provider's default"; every setter takes -1 to go back to it, and refuses a value
 * outside the field's range in {@code struct ibv_qp_attr} / {@code struct ibv_ah_attr} with a message
 * naming the field, so a wrong value fails where it is set, not at a QP transition.
 *
 * <pre>{@code
 * FabricOptions o = FabricOptions.defaults().gidIndex(3).trafficClass(106).timeout(18);
 * }</pre>
 */
public final class FabricOptions {
    private String provider;
    private int gidIndex = -1;
    private GidType gidType;
    private boolean preferIpv4 = true;
    private int trafficClass = -1;
    private int serviceLevel = -1;
    private int pkeyIndex = -1;
    private Mtu mtu;
    private int timeout = -1;
    private int retryCount = -1;
    private int rnrRetry = -1;
    private int minRnrTimer = -1;
    private int hopLimit = -1;

    /** Options with nothing chosen: the fabric provider decides each one (as {@link #defaults()}). */
    public FabricOptions() {
    }

    /** {@return the defaults} */
    public static FabricOptions defaults() {
        return new FabricOptions();
    }

    /**
     * {@code options}, or the defaults when it is {@code null}.
     *
     * @param options the fabric options; null for the defaults
     * @return {@code options}, or the defaults when it is null
     */
    public static FabricOptions orDefaults(FabricOptions options) {
        return options != null ? options : new FabricOptions();
    }

    /**
     * Use this provider ({@code ib}, {@code roce}, {@code iwarp}) whatever the device reports.
     *
     * @param name {@code ib}, {@code roce} or {@code iwarp}; null to decide from the port
     * @return this object
     */
    public FabricOptions provider(String name) {
        this.provider = name;
        return this;
    }

    /**
     * Source GID index, as {@code -g} / {@code -x} take it.
     *
     * @param index the GID index; -1 to let the provider choose
     * @return this object
     */
    public FabricOptions gidIndex(int index) {
        this.gidIndex = checked("gidIndex", index, Integer.MAX_VALUE);
        return this;
    }

    /**
     * RoCE: the GID type to pick (default RoCE v2).
     *
     * @param type the GID type to pick (RoCE v1 or v2)
     * @return this object
     */
    public FabricOptions gidType(GidType type) {
        this.gidType = type;
        return this;
    }

    /**
     * RoCE: prefer an IPv4-mapped GID (default true) over an IPv6 one.
     *
     * @param ipv4 true to prefer an IPv4-mapped GID, false for IPv6
     * @return this object
     */
    public FabricOptions preferIpv4(boolean ipv4) {
        this.preferIpv4 = ipv4;
        return this;
    }

    /**
     * GRH traffic class, 0..255 (RoCE v2: the IP header's DSCP and ECN bits); default 0.
     *
     * @param tclass the traffic class, 0..255; -1 for the default
     * @return this object
     */
    public FabricOptions trafficClass(int tclass) {
        this.trafficClass = checked("trafficClass", tclass, 255);
        return this;
    }

    /**
     * Service level, 0..15 (RoCE: mapped to the Ethernet priority); default 0.
     *
     * @param sl the service level, 0..15
     * @return this object
     */
    public FabricOptions serviceLevel(int sl) {
        this.serviceLevel = checked("serviceLevel", sl, 15);
        return this;
    }

    /**
     * Index into the port's P_Key table, 0..65535; default 0.
     *
     * @param index the P_Key index; -1 for 0
     * @return this object
     */
    public FabricOptions pkeyIndex(int index) {
        this.pkeyIndex = checked("pkeyIndex", index, 0xffff);
        return this;
    }

    /**
     * Path MTU; default: the port's active MTU (capped by the peer's, when known).
     *
     * @param mtu the largest path MTU to use; null for the port's active MTU
     * @return this object
     */
    public FabricOptions mtu(Mtu mtu) {
        this.mtu = mtu;
        return this;
    }

    /**
     * Local ACK timeout exponent, 0..31 (4.096 µs × 2^timeout; 0 waits forever).
     *
     * @param t the local ACK timeout exponent, 0..31 (4.096 µs × 2^t); -1 for the default
     * @return this object
     */
    public FabricOptions timeout(int t) {
        this.timeout = checked("timeout", t, 31);
        return this;
    }

    /**
     * Transport retries, 0..7.
     *
     * @param n transport retries, 0..7; -1 for the default
     * @return this object
     */
    public FabricOptions retryCount(int n) {
        this.retryCount = checked("retryCount", n, 7);
        return this;
    }

    /**
     * Receiver-not-ready retries, 0..7 (7 = retry forever).
     *
     * @param n RNR retries, 0..7 (7 = forever); -1 for the default
     * @return this object
     */
    public FabricOptions rnrRetry(int n) {
        this.rnrRetry = checked("rnrRetry", n, 7);
        return this;
    }

    /**
     * Minimum RNR NAK timer code, 0..31.
     *
     * @param t the minimum RNR NAK timer code, 0..31; -1 for the default
     * @return this object
     */
    public FabricOptions minRnrTimer(int t) {
        this.minRnrTimer = checked("minRnrTimer", t, 31);
        return this;
    }

    /**
     * GRH hop limit, 0..255 (RoCE v2: the IP TTL).
     *
     * @param h the GRH hop limit, 0..255; -1 for the provider's default
     * @return this object
     */
    public FabricOptions hopLimit(int h) {
        this.hopLimit = checked("hopLimit", h, 255);
        return this;
    }

    /** {@code value} when it is -1 (unset) or in 0..max; else a message naming the option and its range. */
    private static int checked(String option, int value, int max) {
        if (value < -1 || value > max) {
            throw new IllegalArgumentException(option + " " + value + " is out of range: "
                    + (max == Integer.MAX_VALUE ? "0 or more" : "0.." + max) + ", or -1 for the provider's default");
        }
        return value;
    }

    /** {@return the provider} */
    public String provider() {
        return provider;
    }

    /** {@return the GID index} */
    public int gidIndex() {
        return gidIndex;
    }

    /** {@return the GID type} */
    public GidType gidType() {
        return gidType;
    }

    /** {@return whether prefer ipv4} */
    public boolean preferIpv4() {
        return preferIpv4;
    }

    /** {@return the traffic class} */
    public int trafficClass() {
        return trafficClass;
    }

    /** {@return the service level} */
    public int serviceLevel() {
        return serviceLevel;
    }

    /** {@return the P_Key index} */
    public int pkeyIndex() {
        return pkeyIndex;
    }

    /** {@return the MTU} */
    public Mtu mtu() {
        return mtu;
    }

    /** {@return the timeout} */
    public int timeout() {
        return timeout;
    }

    /** {@return the retry count} */
    public int retryCount() {
        return retryCount;
    }

    /** {@return the RNR retry} */
    public int rnrRetry() {
        return rnrRetry;
    }

    /** {@return the min RNR timer} */
    public int minRnrTimer() {
        return minRnrTimer;
    }

    /** {@return the hop limit} */
    public int hopLimit() {
        return hopLimit;
    }
}
