package org.verbs4j.transport.roce;

import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import org.verbs4j.api.AddressVector;
import org.verbs4j.api.GidEntry;
import org.verbs4j.api.GidType;
import org.verbs4j.api.LinkLayer;
import org.verbs4j.api.PortAttributes;
import org.verbs4j.api.PortState;
import org.verbs4j.api.QpEndpoint;
import org.verbs4j.api.RdmaDevice;
import org.verbs4j.api.TransportType;
import org.verbs4j.api.FabricOptions;
import org.verbs4j.api.spi.AbstractFabricProvider;

/**
 * RoCE (RDMA over Converged Ethernet): ports whose device has transport {@code IB} and whose link layer is
 * Ethernet (ConnectX in Ethernet mode, Soft-RoCE {@code rxe}, ...).
 *
 * <p>What it decides, and why:
 * <ul>
 * <li><b>Addressing by GID only.</b> Ethernet has no subnet manager and no LIDs (the port reports LID 0):
 * every packet carries a GRH, so the address vector is always global ({@code is_global = 1}) with the peer's
 * GID, our GID index, and {@code dlid} 0. The NIC resolves the peer's MAC address from the GID through
 * the kernel's neighbour table.</li>
 * <li><b>The GID index selects the RoCE version and the IP address.</b> A RoCE port has one GID per IP
 * address of its net device and RoCE version. The default is RoCE v2 (UDP/IP, port 4791: routable) with
 * the IPv4-mapped GID ({@code ::ffff:a.b.c.d}), since IPv4 is what most RoCE fabrics route; then RoCE v2
 * with a global IPv6 address; then RoCE v2 with the link-local address (reaches only the same Ethernet
 * segment). RoCE v1 (raw Ethernet frames, not routable) is used only when asked for with
 * {@code gidType(GidType.ROCE_V1)}. {@code preferIpv4(false)} puts the IPv6 GIDs first.
 * An explicit {@code gidIndex} wins, but must be in the table.</li>
 * <li><b>Hop limit 64</b> (or the options'): RoCE v2 packets are routed across IP subnets and the hop limit
 * becomes the IP TTL; 1, what {@code ibv_rc_pingpong} uses, dies at the first router.</li>
 * <li><b>Traffic class</b> from the options, default 0: it becomes the IP header's DSCP (upper six bits) and
 * ECN (lower two) bits. Lossless RoCE needs the switches' PFC (or ECN/DCQCN congestion control) set up for the
 * priority that DSCP maps to; this provider does not configure the fabric.</li>
 * <li><b>A port that is not {@code PORT_ACTIVE}</b> (Ethernet link down) is refused with a message that says
 * what to check.</li>
 * </ul>
 *
 * <p>Both ends of a RoCE v2 connection must use GIDs of the same IP family: an IPv4-mapped GID cannot
 * reach an IPv6 one, and {@link #addressVector} says so instead of letting the QP fail at RTR.
 */
public final class RoceProvider extends AbstractFabricProvider {
    /** The name {@link org.verbs4j.api.spi.Fabrics#named} and {@code -Dverbs4j.fabric} take. */
    public static final String NAME = "roce";
    /** RoCE v2 routes across IP subnets: the hop limit (IP TTL) must survive routers. */
    public static final int DEFAULT_HOP_LIMIT = 64;

    /** For {@link java.util.ServiceLoader}. */
    public RoceProvider() {
        super(NAME, "RoCE");
    }

    /**
     * Transport IB and link layer Ethernet: a RoCE device reports the InfiniBand transport (it runs the IB
     * transport protocol over Ethernet), so only the link layer separates it from InfiniBand. iWARP
     * devices have Ethernet ports too, but transport iWARP.
     */
    @Override
    public boolean serves(RdmaDevice device, PortAttributes port) {
        return device.transportType() == TransportType.IB && port.linkLayer() == LinkLayer.ETHERNET;
    }

    /**
     * The GID to send from: {@code options.gidIndex()} when set (it must be in the table), else by type and IP
     * family (see the class comment): RoCE v2 IPv4-mapped, RoCE v2 global IPv6, RoCE v2 link-local; RoCE v1
     * only when {@code options.gidType(ROCE_V1)}. Ties go to the lowest index.
     *
     * @throws IllegalStateException    when the port is not active
     * @throws IllegalArgumentException when no entry fits; the message lists the port's entries with types
     */
    @Override
    public GidEntry sourceGid(PortAttributes port, List<GidEntry> gidTable, FabricOptions options) {
        FabricOptions o = FabricOptions.orDefaults(options);
        requireUsable(null, port);
        List<GidEntry> mine = entriesOf(port, gidTable);
        if (o.gidIndex() >= 0) {
            GidEntry entry = entry(port, gidTable, o.gidIndex());
            if (entry != null) {
                return entry;
            }
            throw new IllegalArgumentException("GID index " + o.gidIndex() + " is not in the GID table of port "
                    + port.portNumber() + "; valid entries: " + describe(mine) + seeAlso(port));
        }
        GidType type = o.gidType() != null ? o.gidType() : GidType.ROCE_V2;
        if (type != GidType.ROCE_V2 && type != GidType.ROCE_V1) {
            throw new IllegalArgumentException("a RoCE port's GIDs are RoCE v1 or RoCE v2, not " + type.text()
                    + "; entries of port " + port.portNumber() + ": " + describe(mine));
        }
        boolean preferIpv4 = o.preferIpv4();
        GidEntry best = mine.stream().filter(e -> e.type() == type && !e.gid().isZero())
                .min(Comparator.<GidEntry>comparingInt(e -> rank(e, preferIpv4)).thenComparingInt(GidEntry::index))
                .orElse(null);
        if (best != null) {
            return best;
        }
        StringBuilder msg = new StringBuilder("port " + port.portNumber() + " has no " + type.text() + " GID");
        if (mine.isEmpty()) {
            msg.append(": its GID table is empty. RoCE GIDs come from the IP addresses of the port's net device: "
                    + "bring it up and give it an address (ip link, ip addr; rdma link show names the net device)");
        } else {
            msg.append("; entries: ").append(describe(mine));
            if (type == GidType.ROCE_V2 && mine.stream().anyMatch(e -> e.type() == GidType.ROCE_V1)) {
                msg.append(". RoCE v1 is used only when asked for, with gidType(GidType.ROCE_V1) or gidIndex: it is "
                        + "not routable (both ends in one Ethernet segment) and the peer must use v1 too");
            }
        }
        msg.append(seeAlso(port));
        throw new IllegalArgumentException(msg.toString());
    }

    /**
     * Lower is better. IPv4-mapped first when {@code preferIpv4}; a global IPv6 GID before a link-local one
     * always (a link-local GID reaches only the same Ethernet segment).
     */
    private static int rank(GidEntry e, boolean preferIpv4) {
        if (e.gid().isIpv4Mapped()) {
            return preferIpv4 ? 0 : 2;
        }
        if (!e.gid().isLinkLocal()) {
            return preferIpv4 ? 1 : 0;
        }
        return preferIpv4 ? 2 : 1;
    }

    /**
     * LID 0 (RoCE has no LIDs; {@code ibv_rc_pingpong} on RoCE sends {@code 0000} too), the QP number and
     * PSN, and the source GID, which the peer needs: RoCE addresses by GID only.
     */
    @Override
    public QpEndpoint localEndpoint(PortAttributes port, GidEntry sourceGid, int qpn, int psn) {
        requireUsable(null, port);
        requireSource(sourceGid);
        return endpoint(0, qpn, psn, sourceGid.gid());
    }

    /**
     * Always global: {@code dgid} = the peer's GID, {@code sgid_index} = {@code sourceGid}'s index, hop limit
     * 64 (or the options'), traffic class from the options (default 0), SL from the options (default 0; the
     * NIC maps it to the Ethernet priority), {@code dlid} 0.
     *
     * @throws IllegalArgumentException when the peer sent no GID, or (RoCE v2) its IP family differs from ours
     */
    @Override
    public AddressVector addressVector(PortAttributes port, GidEntry sourceGid, QpEndpoint remote, FabricOptions options) {
        FabricOptions o = FabricOptions.orDefaults(options);
        Objects.requireNonNull(remote, "remote");
        requireUsable(null, port);
        requireSource(sourceGid);
        if (remote.gid().interfaceId() == 0) {
            throw new IllegalArgumentException("the peer sent no GID (" + remote.gid() + "): on RoCE every packet is "
                    + "addressed by GID, so the peer must send one (ibv_rc_pingpong -g <index>, perftest -x <index>)");
        }
        if (sourceGid.type() == GidType.ROCE_V2 && sourceGid.gid().isIpv4Mapped() != remote.gid().isIpv4Mapped()) {
            throw new IllegalArgumentException("IP family mismatch: our GID[" + sourceGid.index() + "] " + sourceGid.gid()
                    + " is " + family(sourceGid) + " but the peer's " + remote.gid() + " is "
                    + (remote.gid().isIpv4Mapped() ? "IPv4" : "IPv6") + ". RoCE v2 packets are UDP/IP, so both ends "
                    + "must use GIDs of one family: choose them alike on both sides (preferIpv4, gidIndex)");
        }
        AddressVector av = AddressVector.local(port.portNumber(), 0).serviceLevel(valueOr(o.serviceLevel(), 0));
        return withGrh(av, remote.gid(), sourceGid.index(), o, DEFAULT_HOP_LIMIT);
    }

    /**
     * Refuses a port that is not {@code PORT_ACTIVE}; the message names {@code device} when given.
     *
     * @param device the port's device, for the message; may be null
     * @param port   the port's attributes
     * @throws IllegalStateException when the port is down
     */
    public void requireUsable(RdmaDevice device, PortAttributes port) {
        if (port.state() != PortState.ACTIVE) {
            int phys = port.physState();
            throw new IllegalStateException("port " + port.portNumber() + (device != null ? " of " + device.name() : "")
                    + " is " + port.state().text() + (phys >= 1 && phys <= 7 ? " (phys_state " + port.physStateText() + ")" : "")
                    + ": the Ethernet link is down; check the cable, the switch port and the port's net device "
                    + "(rdma link show names it; ip link show NETDEV must say UP / LOWER_UP)");
        }
    }

    // supportsManualConnection, supportsUnreliableDatagram, readSinkExtraAccess (0: the local NIC writes a
    // read response), activeSideSendsFirst (false: RNR retry covers a receive posted late) and hasRnrRetry:
    // the interface's defaults, which are this fabric's answers.

    private static void requireSource(GidEntry sourceGid) {
        if (sourceGid == null) {
            throw new IllegalArgumentException("RoCE addresses by GID: pass the entry sourceGid() returned");
        }
    }

    private static String family(GidEntry e) {
        return e.gid().isIpv4Mapped() ? "IPv4" : "IPv6";
    }

    private static String seeAlso(PortAttributes port) {
        return " (ibv_devinfo -v prints the table; types are in /sys/class/infiniband/<device>/ports/"
                + port.portNumber() + "/gid_attrs/types/)";
    }
}
