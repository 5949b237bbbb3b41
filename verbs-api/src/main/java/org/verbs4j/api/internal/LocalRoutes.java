package org.verbs4j.api.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.channels.DatagramChannel;
import java.util.Collections;

/**
 * Which local interface an address belongs to, and which source address the system's routes pick for a
 * destination: what rdma_cm asks the kernel to find the RDMA device of an id, asked of the JDK instead.
 */
public final class LocalRoutes {
    private LocalRoutes() {
    }

    /**
     * The interface that owns a local address: the loopback interface for all of 127.0.0.0/8 and ::1, else the
     * one the address is assigned to.
     *
     * @param address a local address
     * @return the interface name, or null when no interface has that address (or it is the wildcard)
     */
    public static String interfaceOf(InetAddress address) {
        try {
            if (address.isLoopbackAddress()) {
                for (NetworkInterface ni : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                    if (ni.isLoopback()) {
                        return ni.getName();
                    }
                }
                return null;
            }
            if (address.isAnyLocalAddress()) {
                return null;
            }
            NetworkInterface ni = NetworkInterface.getByInetAddress(address);
            return ni == null ? null : ni.getName();
        } catch (SocketException e) {
            throw new UncheckedIOException("listing the network interfaces", e);
        }
    }

    /**
     * The local address the routing table picks to reach {@code destination} (a connected UDP socket asks the
     * kernel; nothing is sent). A local or loopback destination is its own source, as the kernel routes it.
     *
     * @param destination the peer's address
     * @return the source address
     * @throws UncheckedIOException when there is no route
     */
    public static InetAddress sourceFor(InetAddress destination) {
        if (destination.isLoopbackAddress() || interfaceOf(destination) != null) {
            return destination;
        }
        try (DatagramChannel probe = DatagramChannel.open()) {
            probe.connect(new InetSocketAddress(destination, 9));
            return ((InetSocketAddress) probe.getLocalAddress()).getAddress();
        } catch (IOException e) {
            throw new UncheckedIOException("no route to " + destination.getHostAddress(), e);
        }
    }
}
