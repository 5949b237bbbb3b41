package org.verbs4j.api;

import java.util.List;
import java.util.Objects;
import org.verbs4j.api.spi.FabricProvider;
import org.verbs4j.api.spi.Fabrics;

/**
 * The fabric of a port, InfiniBand, RoCE or iWARP, and the rules portable code asks about instead of testing
 * which one it is. The fabric provider is chosen as {@link QpConnector} and the endpoints choose it:
 * {@link FabricOptions#provider} or {@code -Dverbs4j.fabric=ib|roce|iwarp} when set, otherwise the provider
 * that serves the port's transport and link layer.
 *
 * <pre>{@code
 * Fabric f = Fabric.of(ctx, 1, FabricOptions.defaults());
 * int sinkAccess = Access.LOCAL_WRITE | f.readSinkExtraAccess();   // REMOTE_WRITE on iWARP
 * if (!f.supportsManualConnection()) {
 *     // rdma_cm or the endpoint API: iWARP queue pairs cannot be connected by hand
 * }
 * }</pre>
 */
public final class Fabric {
    private final FabricProvider provider;
    private final PortAttributes port;
    private final FabricOptions options;

    private Fabric(FabricProvider provider, PortAttributes port, FabricOptions options) {
        this.provider = provider;
        this.port = port;
        this.options = options;
    }

    /**
     * The fabric of {@code port} of {@code device}, as {@code port}'s attributes describe it.
     *
     * @param device the device the port belongs to
     * @param port   the attributes of the port used
     * @param options the fabric options; null for the defaults
     * @return the port's fabric
     * @throws IllegalStateException    when no fabric provider on the class or module path serves the port
     * @throws IllegalArgumentException when {@code options} or {@code -Dverbs4j.fabric} name a provider that is
     *                                  not there
     */
    public static Fabric of(RdmaDevice device, PortAttributes port, FabricOptions options) {
        Objects.requireNonNull(device, "device");
        Objects.requireNonNull(port, "port");
        FabricOptions o = FabricOptions.orDefaults(options);
        return new Fabric(Fabrics.forPort(device, port, o), port, o);
    }

    /**
     * The fabric of port {@code port} of an open device ({@code ibv_query_port}, then {@link #of(RdmaDevice,
     * PortAttributes, FabricOptions)}).
     *
     * @param ctx an open device context
     * @param port the port number, from 1
     * @param options the fabric options; null for the defaults
     * @return the port's fabric
     */
    public static Fabric of(DeviceContext ctx, int port, FabricOptions options) {
        return of(ctx.device(), ctx.queryPort(port), options);
    }

    /**
     * {@return {@code ib}, {@code roce} or {@code iwarp}: the name {@code -Dverbs4j.fabric} and {@link
     * FabricOptions#provider} take}
     */
    public String name() {
        return provider.name();
    }

    /**
     * The GID entry this port sends from under the options: on RoCE the one of the asked type and IP family
     * (default the IPv4-mapped RoCE v2 GID) or index; GID 0 on InfiniBand and iWARP.
     *
     * @return the entry to send from, or null when the fabric does not address by GID
     * @param gidTable the device's GID table ({@link DeviceContext#queryGidTable()})
     * @throws IllegalArgumentException when the options ask for a GID the table does not have (the message
     *                                  lists the valid entries)
     */
    public GidEntry sourceGid(List<GidEntry> gidTable) {
        return provider.sourceGid(port, gidTable, options);
    }

    /** {@return false on iWARP: its queue pairs connect through rdma_cm only ({@link QpConnector} refuses them)} */
    public boolean supportsManualConnection() {
        return provider.supportsManualConnection();
    }

    /** {@return false on iWARP: it has no unreliable datagram queue pairs} */
    public boolean supportsUnreliableDatagram() {
        return provider.supportsUnreliableDatagram();
    }

    /** {@return false on iWARP: RDMAP has no immediate data, so SEND and RDMA WRITE with immediate are refused} */
    public boolean supportsImmediateData() {
        return provider.supportsImmediateData();
    }

    /**
     * Access flags an RDMA READ sink buffer needs besides {@link Access#LOCAL_WRITE}: {@link Access#REMOTE_WRITE}
     * on iWARP (the read response is placed like a write), none elsewhere.
     *
     * @return {@link Access} flags to add, 0 for none
     */
    public int readSinkExtraAccess() {
        return provider.readSinkExtraAccess();
    }

    /** {@return true on iWARP: the side that connected must send first (MPA)} */
    public boolean activeSideSendsFirst() {
        return provider.activeSideSendsFirst();
    }

    /**
     * False on iWARP: there is no receiver-not-ready retry, so a send that finds no posted receive breaks the
     * connection; senders need a credit for every receive the peer has posted.
     *
     * @return true when the fabric has RNR retry
     */
    public boolean hasRnrRetry() {
        return provider.hasRnrRetry();
    }

    @Override
    public String toString() {
        return provider.toString();
    }
}
