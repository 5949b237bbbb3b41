package org.verbs4j.transport.recorded;

import java.util.List;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.RdmaDevice;
import org.verbs4j.api.spi.VerbsBackend;

/**
 * A tiny fake backend (test code): {@link RdmaDevice} needs one. It lists the devices of one recorded
 * file and cannot open them; the recorded port attributes and GID tables are in {@link RecordedPort}.
 * Not registered with ServiceLoader, so {@code Rdma.devices()} never sees it.
 */
public final class RecordedBackend implements VerbsBackend {
    private final String file;
    private volatile List<RdmaDevice> devices = List.of();

    public RecordedBackend(String file) {
        this.file = file;
    }

    void setDevices(List<RdmaDevice> devices) {
        this.devices = List.copyOf(devices);
    }

    @Override
    public String name() {
        return "recorded";
    }

    @Override
    public int priority() {
        return Integer.MIN_VALUE;
    }

    @Override
    public String unavailableReason() {
        return null;
    }

    @Override
    public List<RdmaDevice> devices() {
        return devices;
    }

    @Override
    public DeviceContext open(RdmaDevice device) {
        throw new UnsupportedOperationException(device.name() + " is a device recorded in " + file
                + ": it cannot be opened; its ports and GID tables are in RecordedPort");
    }

    @Override
    public String toString() {
        return "recorded backend (" + file + ")";
    }
}
