package org.verbs4j.softiwarp;

import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.Gid;
import org.verbs4j.api.NodeType;
import org.verbs4j.api.RdmaDevice;
import org.verbs4j.api.TransportType;

/**
 * A software iWARP device bound to one IP interface. Its GID and node GUID come from the interface's MAC as
 * siw makes them: the GID is the MAC in its first six bytes, the GUID the MAC's EUI-64. An interface without a
 * MAC (loopback) lends the first six bytes of the device name instead, as siw does. The STag space belongs
 * to the device, shared by every context opened on it, as a NIC's is.
 */
final class SoftIwarpDevice implements RdmaDevice {
    private final String name;
    private final String netdev;
    private final int ifindex;
    private final byte[] mac;
    private final long guid;
    private final StagTable stags = new StagTable(SiwAttributes.MAX_MR);
    private final java.util.concurrent.atomic.AtomicInteger nextQpNumber = new java.util.concurrent.atomic.AtomicInteger(1);
    private final java.util.concurrent.atomic.AtomicInteger liveQps = new java.util.concurrent.atomic.AtomicInteger();

    SoftIwarpDevice(String name, NetworkInterface ni) {
        this.name = name;
        this.netdev = ni.getName();
        this.ifindex = ni.getIndex();
        this.mac = macOrName(ni, name);
        this.guid = eui64(mac);
    }

    private static byte[] macOrName(NetworkInterface ni, String name) {
        byte[] hw = null;
        try {
            hw = ni.getHardwareAddress();
        } catch (SocketException e) {
            // no MAC readable: treated as an interface without one
        }
        if (hw != null && hw.length == 6 && !allZero(hw)) {
            return hw;
        }
        // siw: "this device does not have a HW address, but connection management lib expects gid != 0"
        byte[] addr = new byte[6];
        byte[] n = name.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(n, 0, addr, 0, Math.min(6, n.length));
        return addr;
    }

    private static boolean allZero(byte[] b) {
        for (byte x : b) {
            if (x != 0) {
                return false;
            }
        }
        return true;
    }

    /** The modified EUI-64 of a MAC ({@code addrconf_addr_eui48}): the U/L bit flipped, ff:fe in the middle. */
    static long eui64(byte[] mac) {
        byte[] e = {(byte) (mac[0] ^ 0x02), mac[1], mac[2], (byte) 0xff, (byte) 0xfe, mac[3], mac[4], mac[5]};
        long v = 0;
        for (byte b : e) {
            v = (v << 8) | (b & 0xff);
        }
        return v;
    }

    /** {@return the port's one GID: the MAC (or the name's bytes) in bytes 0..5, zeros after} */
    Gid gid() {
        byte[] raw = new byte[Gid.SIZE];
        System.arraycopy(mac, 0, raw, 0, 6);
        return Gid.of(raw);
    }

    int ifindex() {
        return ifindex;
    }

    String netdev() {
        return netdev;
    }

    /** {@return a new QP number (never 0 or reused while the device lives)}; ENOMEM beyond {@code max_qp} QPs. */
    int allocateQpNumber() {
        if (liveQps.incrementAndGet() > SiwAttributes.MAX_QP) {
            liveQps.decrementAndGet();
            throw new org.verbs4j.api.VerbsException("ibv_create_qp", org.verbs4j.api.Errno.ENOMEM, name
                    + " has " + SiwAttributes.MAX_QP + " QPs already (max_qp)");
        }
        return nextQpNumber.getAndIncrement() & 0xffffff;
    }

    void releaseQpNumber() {
        liveQps.decrementAndGet();
    }

    StagTable stags() {
        return stags;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public long guid() {
        return guid;
    }

    @Override
    public NodeType nodeType() {
        return NodeType.RNIC;
    }

    @Override
    public TransportType transportType() {
        return TransportType.IWARP;
    }

    @Override
    public String backendName() {
        return SoftIwarpBackend.NAME;
    }

    /** {@return true: a poll of a CQ reads the sockets of its queue pairs (docs/softiwarp.md, how it makes progress)} */
    @Override
    public boolean progressesByPolling() {
        return true;
    }

    @Override
    public DeviceContext open() {
        return new SoftDeviceContext(this);
    }

    @Override
    public List<String> netDevices() {
        return List.of(netdev);
    }

    @Override
    public String toString() {
        return RdmaDevice.describe(this);
    }
}
