package org.verbs4j.softiwarp;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import org.verbs4j.api.AtomicCapability;
import org.verbs4j.api.DeviceAttributes;
import org.verbs4j.api.DeviceCapability;
import org.verbs4j.api.LinkLayer;
import org.verbs4j.api.Mtu;
import org.verbs4j.api.PortAttributes;
import org.verbs4j.api.PortState;

/**
 * The attributes a software iWARP device reports, laid out as Linux siw reports its own ({@code siw_query_device},
 * {@code siw_query_port}, compared with {@code ibv_devinfo -v} of the lab's siw0): firmware 0.0.0,
 * memory-management extensions only, one port on Ethernet with one GID and an empty P_Key table, IRD and ORD of 128 per QP (siw's, which a peer's MPA negotiation expects). The limits are those
 * of a sensible software device rather than siw's (which allows 100 000 QPs). Unlike siw (atomic_cap NONE), it
 * reports ATOMIC_HCA: atomics (RFC 7306) run between verbs4j peers that negotiated them, atomic with respect to
 * each other but not to the CPU; a QP connected to Linux siw refuses them at post.
 */
final class SiwAttributes {
    static final int MAX_QP = 1024;
    static final int MAX_QP_WR = 16384;
    static final int MAX_SGE = 6; // SIW_MAX_SGE
    static final int MAX_SGE_RD = 1; // SIW_MAX_SGE_RD
    static final int MAX_CQ = 2048;
    static final int MAX_CQE = 65536;
    static final int MAX_MR = 65536;
    static final int MAX_PD = 1024;
    static final int MAX_IRD = 128; // SIW_MAX_IRD_QP
    static final int MAX_ORD = 128; // SIW_MAX_ORD_QP
    static final int MAX_SRQ = 1024;
    static final int MAX_SRQ_WR = 16384;
    static final int PAGE_SIZE = 4096;
    /** The most bytes a send carries inline (a software device copies them at post time). */
    static final int MAX_INLINE = 256;
    /** {@code IB_PORT_CM_SUP | IB_PORT_DEVICE_MGMT_SUP}, siw's port capabilities. */
    static final int PORT_CAP_FLAGS = (1 << 16) | (1 << 19);
    static final int PHYS_STATE_DISABLED = 3;
    static final int PHYS_STATE_LINK_UP = 5;
    /** {@code IB_WIDTH_1X} and {@code IB_SPEED_SDR}, what siw0 reports on a virtio NIC. */
    static final int ACTIVE_WIDTH = 1;
    static final int ACTIVE_SPEED = 1;

    private SiwAttributes() {
    }

    static DeviceAttributes device(SoftIwarpDevice d) {
        return new DeviceAttributes("0.0.0", d.guid(), d.guid(), -1L, PAGE_SIZE,
                0, 0, 0, MAX_QP, MAX_QP_WR, DeviceCapability.MEM_MGT_EXTENSIONS.mask(), MAX_SGE, MAX_SGE_RD,
                MAX_CQ, MAX_CQE, MAX_MR, MAX_PD, MAX_IRD, 0, MAX_QP * MAX_IRD, MAX_ORD, 0,
                AtomicCapability.HCA, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                MAX_SRQ, MAX_SRQ_WR, MAX_SGE, 0, 0, 1);
    }

    /**
     * The TCP maximum segment size a connection of {@code d} has, as siw's {@code tcp_seglen} takes it from the
     * socket: the MTU of the interface the connection is routed through less the IP and TCP headers and TCP's
     * timestamp option (1448 on Ethernet, 65,484 on {@code lo}); FPDUs are cut to fill it. A peer at an address of
     * this host (its network namespace) is routed through {@code lo}, whatever interface holds the address, so its
     * connection has {@code lo}'s MSS, as siw's socket has. Java cannot read TCP_MAXSEG, so it is worked out from the
     * MTU; 1448 when the interface cannot be read.
     *
     * @param d      the device, bound to its net device
     * @param local  the connection's local address
     * @param remote the peer's address
     * @return the MSS, at most 65,535
     */
    static int sendMss(SoftIwarpDevice d, InetAddress local, InetAddress remote) {
        return sendMss(d.netdev(), local, remote);
    }

    /** {@link #sendMss(SoftIwarpDevice, InetAddress, InetAddress)} for a device on {@code netdev}. */
    static int sendMss(String netdev, InetAddress local, InetAddress remote) {
        int mtu = 1500;
        try {
            NetworkInterface ni = ofThisHost(remote) ? loopbackInterface() : NetworkInterface.getByName(netdev);
            if (ni != null && ni.getMTU() > 0) {
                mtu = ni.getMTU();
            }
        } catch (SocketException e) {
            // the default
        }
        int headers = (local instanceof java.net.Inet6Address ? 40 : 20) + 20 + 12;
        return Math.max(536, Math.min(0xFFFF, mtu - headers));
    }

    /** Whether a connection to {@code remote} stays in this host: a loopback address or one of its interfaces'. */
    private static boolean ofThisHost(InetAddress remote) throws SocketException {
        return remote != null && (remote.isLoopbackAddress() || remote.isAnyLocalAddress()
                || NetworkInterface.getByInetAddress(remote) != null);
    }

    private static NetworkInterface loopbackInterface() throws SocketException {
        NetworkInterface lo = NetworkInterface.getByInetAddress(InetAddress.getLoopbackAddress());
        if (lo != null) {
            return lo;
        }
        java.util.Enumeration<NetworkInterface> all = NetworkInterface.getNetworkInterfaces();
        while (all != null && all.hasMoreElements()) {
            NetworkInterface ni = all.nextElement();
            if (ni.isLoopback()) {
                return ni;
            }
        }
        return null;
    }

    static PortAttributes port(SoftIwarpDevice d) {
        boolean up = false;
        int mtu = 1500;
        try {
            NetworkInterface ni = NetworkInterface.getByName(d.netdev());
            if (ni != null) {
                up = ni.isUp();
                mtu = ni.getMTU();
            }
        } catch (SocketException e) {
            // an interface that cannot be read is down
        }
        Mtu m = ibMtu(mtu);
        return new PortAttributes(1, up ? PortState.ACTIVE : PortState.DOWN, m, m, 1, PORT_CAP_FLAGS, 0xffffffffL,
                0, 0, 0, 0, 0, 0, 0, 0, 0, 0, ACTIVE_WIDTH, ACTIVE_SPEED,
                up ? PHYS_STATE_LINK_UP : PHYS_STATE_DISABLED, LinkLayer.ETHERNET, 0, 0);
    }

    /** {@code ib_mtu_int_to_enum}: the largest IB MTU not above the interface's. */
    static Mtu ibMtu(int mtu) {
        if (mtu >= 4096) {
            return Mtu.MTU_4096;
        }
        if (mtu >= 2048) {
            return Mtu.MTU_2048;
        }
        if (mtu >= 1024) {
            return Mtu.MTU_1024;
        }
        if (mtu >= 512) {
            return Mtu.MTU_512;
        }
        return Mtu.MTU_256;
    }
}
