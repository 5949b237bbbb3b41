package org.verbs4j.api;

/**
 * What an application may override in a fabric's defaults: the GID (by index, or by type and IP
 * family), traffic class, service level, P_Key index, path MTU and the transport timers. Unset values
 * (-1 / null) mean "the provider's default".
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

    public static FabricOptions defaults() {
        return new FabricOptions();
    }

    /** {@code options}, or the defaults when it is {@code null}. */
    public static FabricOptions orDefaults(FabricOptions options) {
        return options != null ? options : new FabricOptions();
    }

    /** Use this provider ({@code ib}, {@code roce}, {@code iwarp}) whatever the device reports. */
    public FabricOptions provider(String name) {
        this.provider = name;
        return this;
    }

    /** Source GID index, as {@code -g} / {@code -x} take it. */
    public FabricOptions gidIndex(int index) {
        this.gidIndex = index;
        return this;
    }

    /** RoCE: the GID type to pick (default RoCE v2). */
    public FabricOptions gidType(GidType type) {
        this.gidType = type;
        return this;
    }

    /** RoCE: prefer an IPv4-mapped GID (default true) over an IPv6 one. */
    public FabricOptions preferIpv4(boolean ipv4) {
        this.preferIpv4 = ipv4;
        return this;
    }

    public FabricOptions trafficClass(int tclass) {
        this.trafficClass = tclass;
        return this;
    }

    public FabricOptions serviceLevel(int sl) {
        this.serviceLevel = sl;
        return this;
    }

    public FabricOptions pkeyIndex(int index) {
        this.pkeyIndex = index;
        return this;
    }

    /** Path MTU; default: the port's active MTU (capped by the peer's, when known). */
    public FabricOptions mtu(Mtu mtu) {
        this.mtu = mtu;
        return this;
    }

    public FabricOptions timeout(int t) {
        this.timeout = t;
        return this;
    }

    public FabricOptions retryCount(int n) {
        this.retryCount = n;
        return this;
    }

    public FabricOptions rnrRetry(int n) {
        this.rnrRetry = n;
        return this;
    }

    public FabricOptions minRnrTimer(int t) {
        this.minRnrTimer = t;
        return this;
    }

    public FabricOptions hopLimit(int h) {
        this.hopLimit = h;
        return this;
    }

    public String provider() {
        return provider;
    }

    public int gidIndex() {
        return gidIndex;
    }

    public GidType gidType() {
        return gidType;
    }

    public boolean preferIpv4() {
        return preferIpv4;
    }

    public int trafficClass() {
        return trafficClass;
    }

    public int serviceLevel() {
        return serviceLevel;
    }

    public int pkeyIndex() {
        return pkeyIndex;
    }

    public Mtu mtu() {
        return mtu;
    }

    public int timeout() {
        return timeout;
    }

    public int retryCount() {
        return retryCount;
    }

    public int rnrRetry() {
        return rnrRetry;
    }

    public int minRnrTimer() {
        return minRnrTimer;
    }

    public int hopLimit() {
        return hopLimit;
    }
}
