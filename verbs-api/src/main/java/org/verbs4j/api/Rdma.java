package org.verbs4j.api;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.verbs4j.api.spi.Backends;
import org.verbs4j.api.spi.VerbsBackend;

/**
 * Entry point: the RDMA devices of this machine, through every available backend.
 *
 * <pre>{@code
 * try (DeviceContext ctx = Rdma.open("rxe0")) {
 *     DeviceAttributes dev = ctx.queryDevice();
 *     PortAttributes port = ctx.queryPort(1);
 *     System.out.println(dev.maxQp() + " QPs, port " + port.state() + ", MTU " + port.activeMtu().bytes());
 * }
 * }</pre>
 *
 * <p>Backends are found with {@link java.util.ServiceLoader}. {@link #devices()} lists the devices of every
 * available backend together (libibverbs' devices, then the software ones), each naming its backend
 * ({@link RdmaDevice#backendName()}); the system property {@code verbs4j.backend} restricts them to one backend.
 * What is not per device ({@link #backendName()}) comes from the backend in use: the named one, else the
 * available one with the highest priority. The {@linkplain #connectionManager() connection manager} routes each
 * id to the backend whose device owns its address.
 * On a machine without RDMA, {@link #devices()} is empty and {@link #open(String)} says what is missing.
 */
public final class Rdma {
    /** System property naming the backend to use (e.g. {@code jnr}). */
    public static final String BACKEND_PROPERTY = "verbs4j.backend";


    private Rdma() {
    }

    /** {@return the name of the backend in use (e.g. {@code jnr}), or {@code null} when none is available} */
    public static String backendName() {
        VerbsBackend b = Backends.inUse();
        return b == null ? null : b.name();
    }

    /**
     * {@code null} when a backend is available; otherwise why none is, in words a user can act on (what
     * each backend on the class path is missing, or that none is there).
     *
     * @return null, or why no backend can be used
     */
    public static String unavailableReason() {
        return Backends.inUse() == null ? whyNoBackend() : null;
    }

    /**
     * {@return the RDMA devices of this machine, of every available backend (highest priority first, each in its
     * own order), or of the one {@code verbs4j.backend} names; empty when there are none or no backend can reach
     * them}
     */
    public static List<RdmaDevice> devices() {
        return devices(Backends.available());
    }

    static List<RdmaDevice> devices(List<VerbsBackend> backends) {
        if (backends.size() == 1) {
            return backends.get(0).devices();
        }
        List<RdmaDevice> all = new ArrayList<>();
        for (VerbsBackend b : backends) {
            all.addAll(b.devices());
        }
        return List.copyOf(all);
    }

    /**
     * The device named {@code name}, of the first available backend that has one of that name; the exception
     * lists the devices there are, or why there are none.
     *
     * @param name the device name, e.g. {@code mlx5_0} or {@code rxe0}
     * @return the device
     */
    public static RdmaDevice device(String name) {
        return device(Backends.all(), Backends.available(), name);
    }

    static RdmaDevice device(List<VerbsBackend> backends, String name) {
        return device(backends, backends, name);
    }

    /** {@code found}: every backend found, to say why those not in {@code backends} (the available ones) are not. */
    static RdmaDevice device(List<VerbsBackend> found, List<VerbsBackend> backends, String name) {
        if (backends.isEmpty()) {
            throw new NoSuchDeviceException("RDMA device '" + name + "' not found: " + whyNoBackend());
        }
        List<RdmaDevice> all = devices(backends);
        for (RdmaDevice d : all) {
            if (d.name().equals(name)) {
                return d;
            }
        }
        if (all.isEmpty()) {
            VerbsBackend b = backends.get(0);
            throw new NoSuchDeviceException(b.noDevicesErrno(), "RDMA device '" + name + "' not found; "
                    + noDevices(b));
        }
        // a backend without devices says why (a kernel without RDMA, no device), with its errno: the software
        // device present does not make "mlx5_0 not found" a question of a wrong name
        StringBuilder why = new StringBuilder("RDMA device '" + name + "' not found; devices present: "
                + all.stream().map(RdmaDevice::name).collect(Collectors.joining(", ")));
        int errno = 0;
        for (VerbsBackend b : backends) {
            if (b.devices().isEmpty()) {
                why.append("; ").append(b.name()).append(": ").append(noDevices(b));
                errno = errno != 0 ? errno : b.noDevicesErrno();
            }
        }
        // a backend that could not start (libibverbs not loadable, say) is why its devices are missing: say so
        String wanted = System.getProperty(BACKEND_PROPERTY);
        for (VerbsBackend b : found) {
            String reason = backends.contains(b) || (wanted != null && !wanted.equals(b.name())) ? null
                    : b.unavailableReason();
            if (reason != null) {
                why.append("; ").append(b.name()).append(" is not available: ").append(reason);
            }
        }
        throw new NoSuchDeviceException(errno != 0 ? errno : Errno.ENODEV, why.toString());
    }

    /**
     * {@code null} when this machine has RDMA devices; otherwise why it has none, in words a user can act on:
     * no backend, a kernel without RDMA support, or no device.
     *
     * @return the reason, or {@code null} when there are devices
     */
    public static String noDevicesReason() {
        List<VerbsBackend> backends = Backends.available();
        if (backends.isEmpty()) {
            return whyNoBackend();
        }
        return devices(backends).isEmpty() ? noDevices(backends.get(0)) : null;
    }

    /**
     * The errno of {@link #noDevicesReason()}: {@link Errno#ENOSYS} when the kernel has no RDMA support,
     * {@link Errno#ENODEV} when there is no device or no backend, 0 when there are devices.
     *
     * @return the errno, or 0
     */
    public static int noDevicesErrno() {
        List<VerbsBackend> backends = Backends.available();
        if (backends.isEmpty()) {
            return Errno.ENODEV;
        }
        return devices(backends).isEmpty() ? backends.get(0).noDevicesErrno() : 0;
    }

    private static String noDevices(VerbsBackend b) {
        if (b.noDevicesErrno() == Errno.ENOSYS) {
            return "this machine's kernel has no RDMA support (ibv_get_device_list: ENOSYS, no /sys/class/infiniband): "
                    + "load ib_uverbs and the driver of the device (mlx5_ib, irdma, rdma_rxe, siw, ...)";
        }
        return "this machine has no RDMA device (check `ibv_devices`, the kernel driver, and /dev/infiniband)";
    }

    /**
     * Opens the device named {@code name}.
     *
     * @param name the device name, e.g. {@code mlx5_0} or {@code rxe0}
     * @return the new device context, which the caller closes
     */
    public static DeviceContext open(String name) {
        return device(name).open();
    }

    /**
     * A new rdma_cm {@link org.verbs4j.api.cm.ConnectionManager}; close it when done. With one available backend
     * (or the one {@code verbs4j.backend} names) it is that backend's. With several, each id goes to the backend
     * whose device owns its address: the first {@link org.verbs4j.api.cm.CmId#bind bind} or
     * {@link org.verbs4j.api.cm.CmId#resolveAddress resolveAddress} picks the backend with a device on the
     * interface of the local (or source) address, e.g. the software iWARP device {@code jsiw_lo} for 127.0.0.1 and
     * libibverbs' for the address of an RDMA NIC; the highest-priority backend that has a device takes the wildcard
     * and addresses no device owns (bind a device's address to choose). Each backend's own manager (libibverbs':
     * an event channel and its thread) is made on first use.
     *
     * @return the connection manager
     */
    public static org.verbs4j.api.cm.ConnectionManager connectionManager() {
        return connectionManager(Backends.available());
    }

    static org.verbs4j.api.cm.ConnectionManager connectionManager(List<VerbsBackend> backends) {
        if (backends.isEmpty()) {
            throw new NoSuchDeviceException("rdma_cm is not available: " + whyNoBackend());
        }
        if (backends.size() == 1) {
            return backends.get(0).connectionManager();
        }
        return new RoutedConnectionManager(backends);
    }

    private static String whyNoBackend() {
        List<VerbsBackend> all = Backends.all();
        if (all.isEmpty()) {
            return "no verbs4j backend is on the class or module path (add org.verbs4j:verbs4j)";
        }
        String wanted = System.getProperty(BACKEND_PROPERTY);
        StringBuilder sb = new StringBuilder("no verbs4j backend is available");
        if (wanted != null) {
            sb.append(" (").append(BACKEND_PROPERTY).append('=').append(wanted).append(')');
        }
        for (VerbsBackend b : all) {
            sb.append("; ").append(b.name()).append(": ")
                    .append(b.unavailableReason() == null ? "available" : b.unavailableReason());
        }
        return sb.toString();
    }
}
