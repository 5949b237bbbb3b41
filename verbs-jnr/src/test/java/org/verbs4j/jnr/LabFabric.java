package org.verbs4j.jnr;

import java.util.List;
import org.verbs4j.api.AddressVector;
import org.verbs4j.api.FabricOptions;
import org.verbs4j.api.Gid;
import org.verbs4j.api.GidEntry;
import org.verbs4j.api.GidType;
import org.verbs4j.api.LinkLayer;
import org.verbs4j.api.PortAttributes;
import org.verbs4j.api.QpEndpoint;
import org.verbs4j.api.RdmaDevice;
import org.verbs4j.api.TransportType;
import org.verbs4j.api.spi.FabricProvider;

/**
 * Test fixture: the fabric rules verbs-jnr's tests need to connect queue pairs with
 * {@link org.verbs4j.api.QpConnector}. The real providers (transport-*) depend on verbs-jnr, so they cannot be
 * on its test class path; this one serves InfiniBand-transport ports only: RoCE (rxe0 in the lab) addressed by
 * the port's IPv4-mapped RoCE v2 GID, InfiniBand by LID. The transitions are the interface's defaults, as in
 * every provider. Found by {@link java.util.ServiceLoader} through {@code src/test/resources/META-INF/services}.
 */
public final class LabFabric implements FabricProvider {

    /** For {@link java.util.ServiceLoader}. */
    public LabFabric() {
    }

    @Override
    public String name() {
        return "lab";
    }

    @Override
    public boolean serves(RdmaDevice device, PortAttributes port) {
        return device.transportType() == TransportType.IB;
    }

    /** {@code options.gidIndex()}, else the IPv4-mapped RoCE v2 GID on Ethernet, GID 0 on InfiniBand. */
    @Override
    public GidEntry sourceGid(PortAttributes port, List<GidEntry> gidTable, FabricOptions options) {
        int index = options != null ? options.gidIndex() : -1;
        for (GidEntry e : gidTable) {
            if (e.port() == port.portNumber() && (index >= 0 ? e.index() == index
                    : port.linkLayer() == LinkLayer.ETHERNET ? isRoceV2Ipv4(e) : e.index() == 0)) {
                return e;
            }
        }
        throw new AssertionError("port " + port.portNumber() + " has no " + (index >= 0 ? "GID index " + index
                : "IPv4-mapped RoCE v2 GID") + ": " + gidTable);
    }

    static boolean isRoceV2Ipv4(GidEntry e) {
        return e.type() == GidType.ROCE_V2 && e.gid().isIpv4Mapped();
    }

    @Override
    public QpEndpoint localEndpoint(PortAttributes port, GidEntry sourceGid, int qpn, int psn) {
        return new QpEndpoint(port.lid(), qpn, psn, sourceGid == null ? Gid.ZERO : sourceGid.gid());
    }

    /** RoCE: a GRH to the peer's GID from ours; InfiniBand: the peer's LID. */
    @Override
    public AddressVector addressVector(PortAttributes port, GidEntry sourceGid, QpEndpoint remote,
            FabricOptions options) {
        if (port.linkLayer() == LinkLayer.ETHERNET) {
            return AddressVector.global(port.portNumber(), remote.gid(), sourceGid.index());
        }
        return AddressVector.local(port.portNumber(), remote.lid());
    }
}
