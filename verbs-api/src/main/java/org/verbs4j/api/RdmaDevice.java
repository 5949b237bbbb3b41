package org.verbs4j.api;

import java.util.Objects;
import org.verbs4j.api.spi.VerbsBackend;

/**
 * An RDMA device as {@code ibv_get_device_list} lists it: name, GUID, node and transport type.
 * Open it to query and use it.
 *
 * <pre>{@code
 * for (RdmaDevice d : Rdma.devices()) {
 *     try (DeviceContext ctx = d.open()) {
 *         System.out.println(d.name() + ": " + ctx.queryPort(1).state());
 *     }
 * }
 * }</pre>
 */
public final class RdmaDevice {
    private final VerbsBackend backend;
    private final String name;
    private final long guid;
    private final NodeType nodeType;
    private final TransportType transportType;
    private final Object handle;

    /** For backends: {@code handle} is the backend's own reference to the device. */
    public RdmaDevice(VerbsBackend backend, String name, long guid, NodeType nodeType, TransportType transportType,
            Object handle) {
        this.backend = Objects.requireNonNull(backend, "backend");
        this.name = Objects.requireNonNull(name, "name");
        this.guid = guid;
        this.nodeType = Objects.requireNonNull(nodeType, "nodeType");
        this.transportType = Objects.requireNonNull(transportType, "transportType");
        this.handle = handle;
    }

    /** The kernel name, e.g. {@code mlx5_0}, {@code rxe0}, {@code siw0}. */
    public String name() {
        return name;
    }

    /** The node GUID in host order, as {@code ibv_devices} prints it. */
    public long guid() {
        return guid;
    }

    public NodeType nodeType() {
        return nodeType;
    }

    /** {@link TransportType#IB} for InfiniBand and RoCE, {@link TransportType#IWARP} for iWARP. */
    public TransportType transportType() {
        return transportType;
    }

    /** The backend that found this device. */
    public VerbsBackend backend() {
        return backend;
    }

    /** For the backend that made this device. */
    public Object handle() {
        return handle;
    }

    /** Opens the device ({@code ibv_open_device}). Close the context when done. */
    public DeviceContext open() {
        return backend.open(this);
    }

    @Override
    public String toString() {
        return name + " (" + transportType.text() + ", " + nodeType.text() + ", GUID " + formatGuid(guid) + ")";
    }

    /** A GUID as {@code ibv_devinfo} prints it: {@code 0002:c903:0042:a6e0}. */
    public static String formatGuid(long guid) {
        return String.format("%04x:%04x:%04x:%04x", (guid >>> 48) & 0xffff, (guid >>> 32) & 0xffff,
                (guid >>> 16) & 0xffff, guid & 0xffff);
    }
}
