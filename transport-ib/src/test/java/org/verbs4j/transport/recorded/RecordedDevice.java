package org.verbs4j.transport.recorded;

import java.util.List;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.NodeType;
import org.verbs4j.api.RdmaDevice;
import org.verbs4j.api.TransportType;

/**
 * A device read from a recorded {@code ibv_devinfo} file (test code): what a provider decides on. It cannot be
 * opened; the recorded port attributes and GID tables are in {@link RecordedPort}.
 */
public record RecordedDevice(String file, String name, long guid, NodeType nodeType, TransportType transportType)
        implements RdmaDevice {

    @Override
    public String backendName() {
        return "recorded";
    }

    @Override
    public DeviceContext open() {
        throw new UnsupportedOperationException(name + " is a device recorded in " + file
                + ": it cannot be opened; its ports and GID tables are in RecordedPort");
    }

    @Override
    public List<String> netDevices() {
        return List.of();
    }

    @Override
    public String toString() {
        return RdmaDevice.describe(this);
    }
}
