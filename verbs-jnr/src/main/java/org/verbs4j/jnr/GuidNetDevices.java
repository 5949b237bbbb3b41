package org.verbs4j.jnr;

import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The net devices of an RDMA device that sysfs does not name (soft-iWARP: siw keeps its net device to itself),
 * found from the node GUID the driver derived from the interface's MAC address: siw (and qedr) make it the
 * modified EUI-64 of the MAC ({@code addrconf_addr_eui48}: {@code ba:39:14:ac:11:20} becomes
 * {@code b839:14ff:feac:1120}); irdma and cxgb4 copy the MAC into its first six bytes.
 */
final class GuidNetDevices {
    private GuidNetDevices() {
    }

    /** The interfaces (up or down) whose MAC address the node GUID {@code guid} (host order) was made from. */
    static List<String> of(long guid) {
        List<String> out = new ArrayList<>();
        if (guid == 0) {
            return out;
        }
        try {
            for (NetworkInterface ni : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                byte[] mac = ni.getHardwareAddress();
                if (mac != null && derivedFrom(guid, mac)) {
                    out.add(ni.getName());
                }
            }
        } catch (SocketException e) {
            return out;
        }
        return out;
    }

    /** True when {@code guid} is the modified EUI-64 of {@code mac}, or {@code mac} followed by two zero bytes. */
    static boolean derivedFrom(long guid, byte[] mac) {
        if (mac.length != 6) {
            return false;
        }
        long m = 0;
        for (byte b : mac) {
            m = (m << 8) | (b & 0xff);
        }
        long eui64 = ((m >>> 24) << 40 | 0xfffeL << 24 | (m & 0xffffff)) ^ (0x02L << 56);
        return guid == eui64 || guid == m << 16;
    }
}
