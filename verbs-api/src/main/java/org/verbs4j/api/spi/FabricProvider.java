package org.verbs4j.api.spi;

import java.util.List;
import org.verbs4j.api.AddressVector;
import org.verbs4j.api.GidEntry;
import org.verbs4j.api.PortAttributes;
import org.verbs4j.api.QpEndpoint;
import org.verbs4j.api.RdmaDevice;

/**
 * One fabric's rules: InfiniBand, RoCE or iWARP. Application code never branches on the fabric; it asks
 * {@link Fabrics#forPort} for the provider of the port it uses and lets it choose addresses and
 * connection attributes. Providers are found with {@link java.util.ServiceLoader}: list the
 * implementation in {@code META-INF/services/org.verbs4j.api.spi.FabricProvider}.
 *
 * <p>The decisions take plain values (device, port attributes, GID table), so each provider's logic is
 * testable on attributes recorded on real hardware.
 */
public interface FabricProvider {

    /** {@code ib}, {@code roce} or {@code iwarp}; selectable with {@link FabricOptions#provider}. */
    String name();

    /** True when this provider's fabric is the one of this port (from transport type and link layer). */
    boolean serves(RdmaDevice device, PortAttributes port);

    /**
     * The local GID entry to address from, or {@code null} when the fabric does not address by GID
     * (InfiniBand inside a subnet still returns GID 0, for a GRH when one is needed).
     *
     * @throws IllegalArgumentException when the options ask for a GID the table does not have, with the
     *                                  table's valid entries in the message
     */
    GidEntry sourceGid(PortAttributes port, List<GidEntry> gidTable, FabricOptions options);

    /** What this side sends to the peer for a manual connection. */
    QpEndpoint localEndpoint(PortAttributes port, GidEntry sourceGid, int qpn, int psn);

    /** The address vector that reaches {@code remote} from this port (RTR of RC/UC, or a UD address handle). */
    AddressVector addressVector(PortAttributes port, GidEntry sourceGid, QpEndpoint remote, FabricOptions options);

    /** False for iWARP: its queue pairs connect through rdma_cm only. */
    boolean supportsManualConnection();

    /** False for iWARP: no unreliable datagram queue pairs. */
    boolean supportsUnreliableDatagram();

    /**
     * Access flags an RDMA READ sink buffer needs besides local write: {@code REMOTE_WRITE} on iWARP
     * (the read response is placed like a write), none elsewhere.
     */
    int readSinkExtraAccess();

    /** True for iWARP: the side that connected sends first (MPA). */
    boolean activeSideSendsFirst();

    /** False for iWARP: no receiver-not-ready retry, so senders need credits for every receive. */
    boolean hasRnrRetry();
}
