package org.verbs4j.jnr;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.nio.file.Files;
import java.nio.file.Path;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.Errno;
import org.verbs4j.api.NodeType;
import org.verbs4j.api.RdmaDevice;
import org.verbs4j.api.TransportType;
import org.verbs4j.api.VerbsException;
import org.verbs4j.api.internal.RawMemory;
import org.verbs4j.api.spi.VerbsBackend;

/** libibverbs through JNR-FFI (jffi on the hot path). Registered with {@link java.util.ServiceLoader}. */
public final class JnrBackend implements VerbsBackend {
    /**
     * Device lists stay allocated while a device listed in them may still be opened; a new list that
     * shows the same devices is freed at once and the cached devices are returned.
     */
    private final List<Long> deviceLists = Collections.synchronizedList(new ArrayList<>());
    private volatile List<RdmaDevice> cached = List.of();
    /** The errno of the last failed {@code ibv_get_device_list}, 0 after one that succeeded. */
    private volatile int listErrno;

    /** The backend, as {@link java.util.ServiceLoader} makes it; it loads libibverbs on first use. */
    public JnrBackend() {
    }

    @Override
    public String name() {
        return "jnr";
    }

    @Override
    public int priority() {
        return 100;
    }

    @Override
    public String unavailableReason() {
        return NativeLibraries.ibverbs().failure();
    }

    static LibIbverbs lib() {
        NativeLibraries.Loaded l = NativeLibraries.ibverbs();
        if (l.ibverbs() == null) {
            throw new VerbsException("dlopen(libibverbs.so.1)", 0, null, l.failure());
        }
        return l.ibverbs();
    }

    static int lastErrno() {
        return NativeFunction.errno();
    }

    @Override
    public List<RdmaDevice> devices() {
        LibIbverbs lib = lib();
        long num = RawMemory.allocate(4);
        try {
            long list = lib.ibv_get_device_list(num);
            if (list == 0) {
                int errno = lastErrno();
                // ENOSYS: no kernel support (no ib_uverbs); that is "no devices" (noDevicesErrno says why), not an error
                if (errno == Errno.ENOSYS || errno == Errno.ENOENT) {
                    listErrno = errno;
                    return List.of();
                }
                throw new VerbsException("ibv_get_device_list", errno, null);
            }
            listErrno = 0;
            int n = RawMemory.getInt(num);
            List<RdmaDevice> out = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                long dev = RawMemory.getAddress(list + (long) i * RawMemory.ADDRESS_SIZE);
                String name = RawMemory.getString(dev + Layout.DEVICE_NAME, Layout.DEVICE_NAME_MAX);
                long guid = Long.reverseBytes(lib.ibv_get_device_guid(dev));
                out.add(new JnrDevice(this, name, guid, NodeType.of(RawMemory.getInt(dev + Layout.DEVICE_NODE_TYPE)),
                        TransportType.of(RawMemory.getInt(dev + Layout.DEVICE_TRANSPORT_TYPE)), dev));
            }
            synchronized (this) {
                if (sameDevices(cached, out)) {
                    lib.ibv_free_device_list(list);
                    return cached;
                }
                deviceLists.add(list);
                cached = List.copyOf(out);
                return cached;
            }
        } finally {
            RawMemory.free(num);
        }
    }

    @Override
    public int noDevicesErrno() {
        if (listErrno == Errno.ENOSYS || !Files.isDirectory(Path.of("/sys/class/infiniband"))) {
            return Errno.ENOSYS;
        }
        return Errno.ENODEV;
    }

    /**
     * A context someone else opened (librdmacm opens one per device and binds its ids to it), as a
     * {@link DeviceContext} that does not close the native context.
     */
    JnrDeviceContext adoptContext(long ctx) {
        long dev = RawMemory.getAddress(ctx + Layout.CONTEXT_DEVICE);
        String name = RawMemory.getString(dev + Layout.DEVICE_NAME, Layout.DEVICE_NAME_MAX);
        for (RdmaDevice d : devices()) {
            if (d.name().equals(name)) {
                return new JnrDeviceContext(d, ctx, false);
            }
        }
        throw new IllegalStateException("context 0x" + Long.toHexString(ctx) + " is on device " + name
                + ", which ibv_get_device_list does not list");
    }

    private static boolean sameDevices(List<RdmaDevice> a, List<RdmaDevice> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (!a.get(i).equals(b.get(i))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public org.verbs4j.api.cm.ConnectionManager connectionManager() {
        return new JnrConnectionManager(this);
    }

    /** {@code ibv_open_device} of a device this backend listed. */
    DeviceContext open(JnrDevice device) {
        long ctx = lib().ibv_open_device(device.handle());
        if (ctx == 0) {
            throw new VerbsException("ibv_open_device", lastErrno(), device.name(),
                    "Check that /dev/infiniband/uverbs* exists and is readable and writable by this user");
        }
        return new JnrDeviceContext(device, ctx);
    }
}
