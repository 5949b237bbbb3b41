package org.verbs4j.jnr;

import java.util.List;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.NodeType;
import org.verbs4j.api.RdmaDevice;
import org.verbs4j.api.TransportType;

/**
 * A device from {@code ibv_get_device_list}; {@code handle} is its {@code struct ibv_device *}, valid while
 * the backend keeps the list. Equal when it is the same device of the same list.
 */
record JnrDevice(JnrBackend backend, String name, long guid, NodeType nodeType, TransportType transportType,
        long handle) implements RdmaDevice {

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
        List<String> named = SysfsNetDevices.SYSTEM.of(name);
        // siw names its net device nowhere in sysfs; its node GUID is made from the device's MAC
        return named.isEmpty() ? GuidNetDevices.of(guid) : named;
    }

    @Override
    public boolean hasNetDevice(String netDevice) {
        Boolean own = SysfsNetDevices.SYSTEM.has(name, netDevice);
        return own != null ? own : netDevices().contains(netDevice);
    }

    @Override
    public String toString() {
        return RdmaDevice.describe(this);
    }
}
