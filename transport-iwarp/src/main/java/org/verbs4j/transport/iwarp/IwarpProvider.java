package org.verbs4j.transport.iwarp;

import java.util.List;
import org.verbs4j.api.Access;
import org.verbs4j.api.AddressVector;
import org.verbs4j.api.GidEntry;
import org.verbs4j.api.PortAttributes;
import org.verbs4j.api.QpEndpoint;
import org.verbs4j.api.RdmaDevice;
import org.verbs4j.api.TransportType;
import org.verbs4j.api.FabricOptions;
import org.verbs4j.api.spi.AbstractFabricProvider;

/**
 * iWARP: devices with transport {@code IWARP} (Chelsio cxgb4, Intel i40iw / irdma in iWARP mode, Marvell
 * qedr in iWARP mode, soft-iWARP {@code siw}).
 *
 * <p>What it decides, and why:
 * <ul>
 * <li><b>rdma_cm only.</b> An iWARP queue pair runs over a TCP connection (MPA framing, DDP, RDMAP). The
 * TCP connection and the MPA handshake are made by the kernel's iw_cm when rdma_cm connects; there is no
 * LID / QPN / PSN / GID exchange that could move a QP to RTR by hand. {@link #localEndpoint} and
 * {@link #addressVector} therefore throw, and {@link #supportsManualConnection()} is false.</li>
 * <li><b>The active side sends first</b>: MPA lets the side that connected (the rdma_cm client) send the
 * first message; the passive side must wait for it.</li>
 * <li><b>RDMA READ sinks need {@code REMOTE_WRITE}</b>: iWARP's RDMAP places a read response in the
 * requester's buffer like a tagged write, so the sink's memory region needs remote write access.</li>
 * <li><b>No receiver-not-ready retry</b>: a send that finds no posted receive breaks the connection, so
 * senders need credits for every receive the peer has posted.</li>
 * <li><b>No unreliable datagram</b> QPs (iWARP is connection-oriented; no UD, no multicast).</li>
 * <li>GIDs do not address anything on iWARP: {@link #sourceGid} returns the port's GID 0 (derived from the
 * MAC address) for display, or null.</li>
 * </ul>
 */
public final class IwarpProvider extends AbstractFabricProvider {
    /** The name {@link org.verbs4j.api.spi.Fabrics#named} and {@code -Dverbs4j.fabric} take. */
    public static final String NAME = "iwarp";

    static final String USE_RDMA_CM = "iWARP queue pairs connect through rdma_cm only (the kernel's iw_cm sets up the "
            + "TCP connection and the MPA handshake); there is no manual LID/QPN/PSN/GID exchange on iWARP: "
            + "use rdma_cm (the connection API) with the peer's IP address";

    /** For {@link java.util.ServiceLoader}. */
    public IwarpProvider() {
        super(NAME, "iWARP");
    }

    /**
     * Transport iWARP, whatever the link layer (iWARP ports report Ethernet, like RoCE ports: only the
     * device's transport type tells them apart).
     */
    @Override
    public boolean serves(RdmaDevice device, PortAttributes port) {
        return device.transportType() == TransportType.IWARP;
    }

    /** The port's GID 0 entry, or null when there is none; {@code options} play no part (no GID addressing). */
    @Override
    public GidEntry sourceGid(PortAttributes port, List<GidEntry> gidTable, FabricOptions options) {
        return entry(port, gidTable, 0);
    }

    /** @throws UnsupportedOperationException always: iWARP connects through rdma_cm */
    @Override
    public QpEndpoint localEndpoint(PortAttributes port, GidEntry sourceGid, int qpn, int psn) {
        throw new UnsupportedOperationException(USE_RDMA_CM);
    }

    /** @throws UnsupportedOperationException always: iWARP connects through rdma_cm */
    @Override
    public AddressVector addressVector(PortAttributes port, GidEntry sourceGid, QpEndpoint remote, FabricOptions options) {
        throw new UnsupportedOperationException(USE_RDMA_CM);
    }

    @Override
    public boolean supportsManualConnection() {
        return false;
    }

    @Override
    public boolean supportsUnreliableDatagram() {
        return false;
    }

    /** The read response is placed like a tagged write into the sink buffer. */
    @Override
    public int readSinkExtraAccess() {
        return Access.REMOTE_WRITE;
    }

    /** MPA: the side that connected sends first. */
    @Override
    public boolean activeSideSendsFirst() {
        return true;
    }

    /** No RNR NAK / retry: a send without a posted receive is a fatal error for the connection. */
    @Override
    public boolean hasRnrRetry() {
        return false;
    }

    /** RDMAP (RFC 5040) has no immediate data: siw and iWARP RNICs refuse SEND and RDMA WRITE with immediate. */
    @Override
    public boolean supportsImmediateData() {
        return false;
    }
}
