package org.verbs4j.softiwarp;

import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.verbs4j.api.RdmaDevice;

/**
 * The software iWARP devices of this JVM, each bound to an IP interface, as {@code rdma link add NAME type siw
 * netdev IF} binds a Linux siw device. The {@code softiwarp} backend lists them in {@link org.verbs4j.api.Rdma#devices()}.
 *
 * <p>Three ways to have one:
 * <ul>
 * <li>the loopback device {@value #LOOPBACK_NAME}, on the loopback interface, is there by default
 *     ({@code -D}{@value #LOOPBACK_PROPERTY}{@code =false} leaves it out);</li>
 * <li>the system property {@value #DEVICES_PROPERTY} adds devices at start-up:
 *     {@code -Dverbs4j.softiwarp.devices=jsiw0=eth0,jsiw1=eth1} (NAME=INTERFACE, comma-separated);</li>
 * <li>{@link #addDevice(String, String)} adds one at run time, {@link #removeDevice(String)} removes it.</li>
 * </ul>
 *
 * <pre>{@code
 * RdmaDevice dev = SoftIwarp.addDevice("jsiw0", "eth0");
 * try (DeviceContext ctx = dev.open()) {
 *     System.out.println(ctx.queryGid(1, 0)); // the MAC of eth0, as siw reports it
 * }
 * }</pre>
 */
public final class SoftIwarp {
    /** The name of the default device, on the loopback interface ({@code siw_<netdev>}, as siw names its own). */
    public static final String LOOPBACK_NAME = "jsiw_lo";
    /** System property listing the devices to add at start-up: {@code NAME=INTERFACE[,NAME=INTERFACE...]}. */
    public static final String DEVICES_PROPERTY = "verbs4j.softiwarp.devices";
    /** System property that, set to {@code false}, leaves out the default loopback device. */
    public static final String LOOPBACK_PROPERTY = "verbs4j.softiwarp.loopback";

    private static final Logger LOG = LoggerFactory.getLogger(SoftIwarp.class);
    private static final Map<String, SoftIwarpDevice> DEVICES = new LinkedHashMap<>();
    private static boolean started;

    private SoftIwarp() {
    }

    /** {@return the software devices, in the order they were added} */
    public static synchronized List<RdmaDevice> devices() {
        start();
        return List.copyOf(DEVICES.values());
    }

    /**
     * Adds a software device named {@code name} bound to the IP interface {@code netdev}.
     *
     * @param name the device name, unique among the software devices (e.g. {@code jsiw0})
     * @param netdev the interface name, e.g. {@code eth0} or {@code lo}
     * @return the new device
     * @throws IllegalArgumentException when the name is taken or the interface does not exist
     */
    public static synchronized RdmaDevice addDevice(String name, String netdev) {
        start();
        return add(name, netdev);
    }

    /**
     * Removes the software device named {@code name}; contexts open on it stay usable until closed.
     *
     * @param name the device name
     * @return true when there was such a device
     */
    public static synchronized boolean removeDevice(String name) {
        start();
        return DEVICES.remove(name) != null;
    }

    private static synchronized SoftIwarpDevice add(String name, String netdev) {
        if (name == null || name.isEmpty() || name.length() > 63) {
            throw new IllegalArgumentException("device name '" + name + "': 1 to 63 characters");
        }
        if (DEVICES.containsKey(name)) {
            throw new IllegalArgumentException("a software iWARP device named " + name + " exists already");
        }
        NetworkInterface ni;
        try {
            ni = NetworkInterface.getByName(netdev);
        } catch (SocketException e) {
            throw new IllegalArgumentException("interface " + netdev + ": " + e.getMessage(), e);
        }
        if (ni == null) {
            throw new IllegalArgumentException("no network interface named " + netdev + " (add " + name + "="
                    + netdev + "): interfaces present: " + interfaceNames());
        }
        SoftIwarpDevice d = new SoftIwarpDevice(name, ni);
        DEVICES.put(name, d);
        return d;
    }

    /** Adds the loopback device and the property's devices, once. */
    private static void start() {
        if (started) {
            return;
        }
        started = true;
        if (!"false".equalsIgnoreCase(System.getProperty(LOOPBACK_PROPERTY))) {
            String lo = loopbackInterface();
            if (lo != null) {
                add(LOOPBACK_NAME, lo);
            }
        }
        addAll(System.getProperty(DEVICES_PROPERTY, ""));
    }

    /**
     * Adds the devices of a {@value #DEVICES_PROPERTY} value. An entry that is not NAME=INTERFACE, or names a
     * missing interface or a taken name, is logged and skipped: a wrong property must not hide the other
     * backends' devices from {@link org.verbs4j.api.Rdma#devices()}.
     *
     * @return how many devices were added
     */
    static int addAll(String list) {
        int added = 0;
        for (String entry : list.split(",")) {
            String e = entry.trim();
            if (e.isEmpty()) {
                continue;
            }
            int eq = e.indexOf('=');
            if (eq <= 0 || eq == e.length() - 1) {
                LOG.error("{}: '{}' is not NAME=INTERFACE; no device made of it", DEVICES_PROPERTY, e);
                continue;
            }
            try {
                add(e.substring(0, eq).trim(), e.substring(eq + 1).trim());
                added++;
            } catch (IllegalArgumentException ex) {
                LOG.error("{}: {}", DEVICES_PROPERTY, ex.getMessage());
            }
        }
        return added;
    }

    private static String loopbackInterface() {
        try {
            for (NetworkInterface ni : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (ni.isLoopback()) {
                    return ni.getName();
                }
            }
        } catch (SocketException e) {
            // no interface can be listed: no loopback device
        }
        return null;
    }

    private static List<String> interfaceNames() {
        List<String> names = new ArrayList<>();
        try {
            for (NetworkInterface ni : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                names.add(ni.getName());
            }
        } catch (SocketException e) {
            // the list stays empty
        }
        return names;
    }
}
