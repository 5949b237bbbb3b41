package org.verbs4j.api;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * An RDMA device as {@code ibv_get_device_list} lists it: name, GUID, node and transport type, and the
 * IP interfaces it sends through. Open it to query and use it. Devices come from {@link Rdma#devices()};
 * a backend implements this interface for the devices it reaches.
 *
 * <pre>{@code
 * for (RdmaDevice d : Rdma.devices()) {
 *     try (DeviceContext ctx = d.open()) {
 *         System.out.println(d.name() + ": " + ctx.queryPort(1).state() + ", listen on " + d.addresses());
 *     }
 * }
 * }</pre>
 */
public interface RdmaDevice {

    /** {@return the kernel name, e.g. {@code mlx5_0}, {@code rxe0}, {@code siw0}} */
    String name();

    /** {@return the node GUID in host order, as {@code ibv_devices} prints it ({@link #formatGuid})} */
    long guid();

    /**
     * {@return what kind of node the device is: {@link NodeType#CA} for InfiniBand and RoCE, {@link NodeType#RNIC} for
     * iWARP}
     */
    NodeType nodeType();

    /** {@return {@link TransportType#IB} for InfiniBand and RoCE, {@link TransportType#IWARP} for iWARP} */
    TransportType transportType();

    /**
     * {@return the name of the backend that reaches this device, e.g. {@code jnr} (the value of {@code
     * -Dverbs4j.backend})}
     */
    String backendName();

    /**
     * Whether this device's data moves in the threads that poll its completion queues. True for verbs4j's software
     * iWARP device, where a poll of a CQ reads the sockets of its queue pairs (without polls, the device's progress
     * thread does it after a wake-up); false for a kernel or hardware device, whose data moves without the
     * application. A loop that waits for a peer's RDMA WRITE by watching memory, as {@code ib_write_lat} does, polls a
     * CQ of the queue pair in that loop when this is true, so that the Write lands on the waiting thread at once.
     *
     * @return true when polling moves the data; false by default
     */
    default boolean progressesByPolling() {
        return false;
    }

    /** {@return the device, opened ({@code ibv_open_device}): a new context, which the caller closes} */
    DeviceContext open();

    /**
     * The names of the network interfaces this device's ports send through, e.g. {@code [eth2]} for a
     * RoCE NIC, {@code [ib0]} for an InfiniBand HCA with IPoIB, {@code [fab0]} for {@code rdma link add
     * rxe0 type rxe netdev fab0}. Empty when the device has none the system reports. Read afresh on each call.
     *
     * @return the interface names, in port order; empty when there are none
     */
    List<String> netDevices();

    /**
     * Whether {@code netDevice} is one of {@link #netDevices()}. A backend may answer without building the list: the
     * libibverbs one asks sysfs whether the interface is the device's own or stacked on it (a VLAN, a bond), instead
     * of reading the device's whole GID table (1024 entries on Soft-RoCE).
     *
     * @param netDevice an interface name, e.g. {@code eth2}
     * @return whether this device's ports send through it
     */
    default boolean hasNetDevice(String netDevice) {
        return netDevices().contains(netDevice);
    }

    /**
     * The IP addresses of {@link #netDevices()}: the addresses an rdma_cm server or an endpoint on this
     * device listens on and a client connects to. IPv4 first, then IPv6; empty when the interfaces have none.
     *
     * @return the addresses, IPv4 first
     */
    default List<InetAddress> addresses() {
        List<InetAddress> v4 = new ArrayList<>();
        List<InetAddress> v6 = new ArrayList<>();
        for (String name : netDevices()) {
            try {
                NetworkInterface ni = NetworkInterface.getByName(name);
                if (ni == null) {
                    continue;
                }
                for (InetAddress a : Collections.list(ni.getInetAddresses())) {
                    (a instanceof java.net.Inet4Address ? v4 : v6).add(a);
                }
            } catch (SocketException e) {
                // an interface that vanished between the two reads has no address
            }
        }
        v4.addAll(v6);
        return List.copyOf(v4);
    }

    /**
     * A GUID as {@code ibv_devinfo} prints it: {@code 0002:c903:0042:a6e0}.
     *
     * @param guid the GUID, host order
     * @return four groups of four hex digits
     */
    static String formatGuid(long guid) {
        return String.format("%04x:%04x:%04x:%04x", (guid >>> 48) & 0xffff, (guid >>> 32) & 0xffff,
                (guid >>> 16) & 0xffff, guid & 0xffff);
    }

    /**
     * The text every implementation's {@code toString()} returns: {@code rxe0 (InfiniBand, CA, GUID ...)}.
     *
     * @param d the device
     * @return the text
     */
    static String describe(RdmaDevice d) {
        return d.name() + " (" + d.transportType().text() + ", " + d.nodeType().text() + ", GUID "
                + formatGuid(d.guid()) + ")";
    }
}
