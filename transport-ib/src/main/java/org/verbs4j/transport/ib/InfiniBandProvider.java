package org.verbs4j.transport.ib;

import java.util.List;
import java.util.Objects;
import org.verbs4j.api.AddressVector;
import org.verbs4j.api.Gid;
import org.verbs4j.api.GidEntry;
import org.verbs4j.api.PortAttributes;
import org.verbs4j.api.QpAttributes;
import org.verbs4j.api.PortState;
import org.verbs4j.api.QpEndpoint;
import org.verbs4j.api.RdmaDevice;
import org.verbs4j.api.TransportType;
import org.verbs4j.api.FabricOptions;
import org.verbs4j.api.spi.AbstractFabricProvider;

/**
 * InfiniBand: ports whose device has transport {@code IB} and whose link layer is InfiniBand.
 *
 * <p>What it decides, and why:
 * <ul>
 * <li><b>Addressing by LID.</b> Inside one subnet the subnet manager (opensm, or the switch's SM) gives every
 * port a LID and programs the switches' forwarding tables with it; packets need no GRH. The address vector
 * carries the peer's LID, service level (options, default 0), {@code src_path_bits} 0 (no LMC paths) and
 * this port's number.</li>
 * <li><b>A GRH only when needed</b>: when the peer's GID has another subnet prefix than ours (it is in
 * another subnet, behind an IB router), or when the options ask for a GID index, as
 * {@code ibv_rc_pingpong -g} does. The GRH then carries the peer's GID, our GID index, hop limit 64 (or
 * the options') and the traffic class (options, default 0).</li>
 * <li><b>Source GID</b>: index 0 of the port (the port GUID under the subnet prefix the SM set, present on
 * every IB port), or the index in the options.</li>
 * <li><b>A port that cannot carry traffic is refused</b> with a message that says what to check: a port that
 * is not {@code PORT_ACTIVE} (no cable, disabled, or no subnet manager), or one without a unicast LID
 * (0 or 65535: the SM has not assigned one). Every later step would fail with far less clear errors
 * (a QP stuck in RTR, retry-exceeded completions).</li>
 * <li><b>P_Key index</b>: {@link #pkeyIndex} from the options, default 0 (the default partition).</li>
 * </ul>
 *
 * <p>Manual connections exchange {@link QpEndpoint}s in {@code ibv_rc_pingpong}'s format. The GID sent is
 * the one passed to {@link #localEndpoint}; {@code ibv_rc_pingpong} run without {@code -g} sends a zero GID
 * and expects one (it turns a non-zero peer GID into a GRH with source GID index 255, which its
 * {@code ibv_modify_qp} then rejects): to talk to it, pass {@code null} as the source GID, or run it with
 * {@code -g 0}.
 *
 * <p>Nothing here has run on InfiniBand hardware: the rules are unit-tested on {@code ibv_devinfo} outputs
 * recorded on real ConnectX-3/5/6/7 HCAs.
 */
public final class InfiniBandProvider extends AbstractFabricProvider {
    /** The name {@link org.verbs4j.api.spi.Fabrics#named} and {@code -Dverbs4j.fabric} take. */
    public static final String NAME = "ib";
    /**
     * GRH hop limit when the options set none. A GRH is only added when the peer is (or may be) behind a
     * router; 1 would let the packet die at the first one. 64 is what rdma_cm and perftest use.
     */
    public static final int DEFAULT_HOP_LIMIT = 64;
    /** The highest unicast LID: 0xc000..0xfffe are multicast LIDs and 0xffff is the permissive LID. */
    public static final int MAX_UNICAST_LID = 0xbfff;

    /** For {@link java.util.ServiceLoader}. */
    public InfiniBandProvider() {
        super(NAME, "InfiniBand");
    }

    /**
     * Transport IB and link layer InfiniBand. RoCE devices report transport IB too, so the link layer is
     * what tells them apart; {@code UNSPECIFIED} is what older drivers report for an IB port, and
     * libibverbs reads it as InfiniBand ({@code ibv_devinfo} prints "InfiniBand" for it).
     */
    @Override
    public boolean serves(RdmaDevice device, PortAttributes port) {
        return device.transportType() == TransportType.IB && port.linkLayer().isInfiniBand();
    }

    /**
     * GID index 0 of the port, or {@code options.gidIndex()}. IB addresses by LID inside a subnet; the GID
     * is still chosen here because the peer needs it to decide whether we are in its subnet, and because a
     * GRH (across subnets, or asked for) carries it.
     *
     * @throws IllegalStateException    when the port cannot carry traffic (see {@link #requireUsable})
     * @throws IllegalArgumentException when the index is not in the port's GID table (the message lists it)
     */
    @Override
    public GidEntry sourceGid(PortAttributes port, List<GidEntry> gidTable, FabricOptions options) {
        FabricOptions o = FabricOptions.orDefaults(options);
        requireUsable(null, port);
        int index = valueOr(o.gidIndex(), 0);
        GidEntry entry = entry(port, gidTable, index);
        if (entry != null) {
            return entry;
        }
        throw new IllegalArgumentException("GID index " + index + " is not in the GID table of port " + port.portNumber()
                + (o.gidIndex() >= 0 ? " (asked for with gidIndex)" : " (every active IB port has a GID 0: was the "
                        + "table read from another port or device?)")
                + "; valid entries: " + describe(entriesOf(port, gidTable))
                + " (see ibv_devinfo -v, or /sys/class/infiniband/<device>/ports/" + port.portNumber() + "/gids/)");
    }

    /**
     * This port's LID, the QP number and first PSN, and the source GID ({@link Gid#ZERO} when
     * {@code sourceGid} is null, which is what {@code ibv_rc_pingpong} without {@code -g} sends).
     */
    @Override
    public QpEndpoint localEndpoint(PortAttributes port, GidEntry sourceGid, int qpn, int psn) {
        requireUsable(null, port);
        return endpoint(port.lid(), qpn, psn, sourceGid == null ? Gid.ZERO : sourceGid.gid());
    }

    /**
     * LID addressing: {@code dlid} = the peer's LID, SL from the options (default 0), {@code src_path_bits} 0,
     * this port. A GRH is added when the peer's GID is in another subnet (its subnet prefix differs from
     * {@code sourceGid}'s) or when {@code options.gidIndex()} is set. A peer GID with a zero interface id
     * means the peer sent none ({@code ibv_rc_pingpong} without {@code -g} sends zeros, and tests the
     * interface id the same way): LID only.
     *
     * <p>Across subnets the {@code dlid} of a real fabric is the LID of the router port in our subnet, which
     * only a path record query (rdma_cm / the SA) knows; like {@code ibv_rc_pingpong}, this uses the peer's.
     */
    @Override
    public AddressVector addressVector(PortAttributes port, GidEntry sourceGid, QpEndpoint remote, FabricOptions options) {
        FabricOptions o = FabricOptions.orDefaults(options);
        Objects.requireNonNull(remote, "remote");
        requireUsable(null, port);
        if (!isUnicastLid(remote.lid())) {
            throw new IllegalArgumentException(String.format("the peer's LID 0x%04x is not a unicast LID (1..0x%04x): "
                    + "on InfiniBand the peer must send its port's LID. A peer that sends LID 0 is a RoCE or iWARP "
                    + "port, or an IB port the subnet manager has not configured yet", remote.lid(), MAX_UNICAST_LID));
        }
        AddressVector av = AddressVector.local(port.portNumber(), remote.lid())
                .serviceLevel(valueOr(o.serviceLevel(), 0)).srcPathBits(0);
        boolean asked = o.gidIndex() >= 0;
        boolean peerSentGid = sentGid(remote);
        boolean otherSubnet = sourceGid != null && peerSentGid
                && remote.gid().subnetPrefix() != sourceGid.gid().subnetPrefix();
        if (!asked && !otherSubnet) {
            return av;
        }
        if (sourceGid == null) {
            throw new IllegalArgumentException("a GRH (gidIndex " + o.gidIndex() + " was asked for) needs the source GID: "
                    + "pass the entry sourceGid() returned");
        }
        if (asked && sourceGid.index() != o.gidIndex()) {
            throw new IllegalArgumentException("options ask for GID index " + o.gidIndex() + " but the source GID passed is "
                    + "index " + sourceGid.index() + ": pass the entry sourceGid() returned for these options");
        }
        if (!peerSentGid) {
            throw new IllegalArgumentException("options ask for a GRH (GID index " + o.gidIndex() + ") but the peer sent "
                    + "no GID (" + remote.gid() + "): the peer must use a GID too (ibv_rc_pingpong -g <index>, or gidIndex on a "
                    + "verbs4j peer)");
        }
        return withGrh(av, remote.gid(), sourceGid.index(), o, DEFAULT_HOP_LIMIT);
    }

    /** RESET → INIT with the P_Key index checked against the port's P_Key table ({@link #pkeyIndex}). */
    @Override
    public QpAttributes initAttributes(PortAttributes port, int accessFlags, FabricOptions options) {
        return super.initAttributes(port, accessFlags, options).pkeyIndex(pkeyIndex(port, options));
    }

    /**
     * The P_Key index for the QP's INIT transition: {@code options.pkeyIndex()}, default 0 (the default
     * partition, 0xffff, on every subnet the SM runs with its default partition file).
     *
     * @param port    the port the QP uses
     * @param options the caller's choices; null for the defaults
     * @return the P_Key index
     * @throws IllegalArgumentException when the index is outside the port's P_Key table
     */
    public int pkeyIndex(PortAttributes port, FabricOptions options) {
        FabricOptions o = FabricOptions.orDefaults(options);
        int index = valueOr(o.pkeyIndex(), 0);
        if (port.pkeyTableLength() > 0 && index >= port.pkeyTableLength()) {
            throw new IllegalArgumentException("P_Key index " + index + " is outside the P_Key table of port "
                    + port.portNumber() + " (" + port.pkeyTableLength() + " entries; list them with queryPkey or "
                    + "/sys/class/infiniband/<device>/ports/" + port.portNumber() + "/pkeys/)");
        }
        return index;
    }

    /**
     * Refuses a port that cannot carry traffic: not {@code PORT_ACTIVE}, or without a unicast LID. The
     * message names {@code device} when given, says the state and physical state, and what to check.
     *
     * @param device the port's device, for the message; may be null
     * @param port   the port's attributes
     * @throws IllegalStateException when the port is not usable
     */
    public void requireUsable(RdmaDevice device, PortAttributes port) {
        String problem = portProblem(device == null ? null : device.name(), port);
        if (problem != null) {
            throw new IllegalStateException(problem);
        }
    }

    /** Why {@code port} cannot carry IB traffic, or {@code null} when it can. */
    static String portProblem(String device, PortAttributes port) {
        String where = "port " + port.portNumber() + (device != null ? " of " + device : "");
        String phys = physStateKnown(port) ? " (phys_state " + port.physStateText() + ")" : "";
        if (port.state() != PortState.ACTIVE) {
            return where + " is " + port.state().text() + phys + ": check the cable / subnet manager" + hint(port)
                    + " (ibstat, ibv_devinfo" + (device != null ? " -d " + device : "") + " -i " + port.portNumber() + ")";
        }
        if (!isUnicastLid(port.lid())) {
            return String.format("%s is PORT_ACTIVE but has LID 0x%04x, not a unicast LID: the subnet manager has not "
                    + "assigned one; check that opensm (or the switch's SM) runs and sees this port (sminfo, ibstat)",
                    where, port.lid());
        }
        return null;
    }

    private static String hint(PortAttributes port) {
        switch (port.physState()) {
            case 2: // POLLING
                return "; POLLING means no link partner: check the cable and the switch port";
            case 3: // DISABLED
                return "; DISABLED means the port is switched off: enable it (ibportstate, the switch, or the "
                        + "adapter's port configuration) and check the cable";
            case 5: // LINK_UP
                return port.state() == PortState.INIT || port.state() == PortState.ARMED
                        ? "; the link is up but no subnet manager has activated the port: run opensm on one node of "
                                + "the subnet (or enable the switch's SM) and check with sminfo"
                        : "";
            default:
                return "";
        }
    }

    /** {@code phys_state} is 1..7 when the driver reported it (short {@code ibv_devinfo} output omits it). */
    private static boolean physStateKnown(PortAttributes port) {
        return port.physState() >= 1 && port.physState() <= 7;
    }

    /** As {@code ibv_rc_pingpong}: a peer sent a GID when its interface id (the low 64 bits) is not zero. */
    static boolean sentGid(QpEndpoint remote) {
        return remote.gid().interfaceId() != 0;
    }

    static boolean isUnicastLid(int lid) {
        return lid >= 1 && lid <= MAX_UNICAST_LID;
    }

    // supportsManualConnection, supportsUnreliableDatagram, readSinkExtraAccess (0: the local NIC writes a
    // read response), activeSideSendsFirst (false: RNR retry covers a receive posted late) and hasRnrRetry:
    // the interface's defaults, which are this fabric's answers.
}
