package org.verbs4j.jnr;

import java.util.List;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.NodeType;
import org.verbs4j.api.RdmaDevice;
import org.verbs4j.api.TransportType;

/** A device from {@code ibv_get_device_list}: its {@code struct ibv_device *} stays valid while the list is kept. */
final class JnrDevice implements RdmaDevice {
    private final JnrBackend backend;
    private final String name;
    private final long guid;
    private final NodeType nodeType;
    private final TransportType transportType;
    /** The {@code struct ibv_device *}. */
    final long handle;

    JnrDevice(JnrBackend backend, String name, long guid, NodeType nodeType, TransportType transportType, long handle) {
        this.backend = backend;
        this.name = name;
        this.guid = guid;
        this.nodeType = nodeType;
        this.transportType = transportType;
        this.handle = handle;
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
        return nodeType;
    }

    @Override
    public TransportType transportType() {
        return transportType;
    }

    @Override
    public String backendName() {
        return backend.name();
    }

    @Override
    public DeviceContext open() {
        return backend.open(this);
    }

    @Override
    public List<String> netDevices() {
        return SysfsNetDevices.SYSTEM.of(name);
    }

    /** Same device of the same list: name, GUID and native pointer. */
    boolean sameAs(JnrDevice o) {
        return name.equals(o.name) && guid == o.guid && handle == o.handle;
    }

    @Override
    public String toString() {
        return RdmaDevice.describe(this);
    }
}
