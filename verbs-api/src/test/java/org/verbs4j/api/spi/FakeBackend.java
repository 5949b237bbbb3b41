package org.verbs4j.api.spi;

import java.util.ArrayList;
import java.util.List;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.NodeType;
import org.verbs4j.api.RdmaDevice;
import org.verbs4j.api.TransportType;

/** A backend for the selection tests: a name, a priority, availability and device names, nothing to open. */
public final class FakeBackend implements VerbsBackend {
    private final String name;
    private final int priority;
    private final String unavailable;
    private final List<RdmaDevice> devices = new ArrayList<>();

    public FakeBackend(String name, int priority, String unavailable, String... deviceNames) {
        this.name = name;
        this.priority = priority;
        this.unavailable = unavailable;
        for (String d : deviceNames) {
            devices.add(new Device(d));
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int priority() {
        return priority;
    }

    @Override
    public String unavailableReason() {
        return unavailable;
    }

    @Override
    public List<RdmaDevice> devices() {
        return List.copyOf(devices);
    }

    private final class Device implements RdmaDevice {
        private final String deviceName;

        Device(String deviceName) {
            this.deviceName = deviceName;
        }

        @Override
        public String name() {
            return deviceName;
        }

        @Override
        public long guid() {
            return 0;
        }

        @Override
        public NodeType nodeType() {
            return NodeType.RNIC;
        }

        @Override
        public TransportType transportType() {
            return TransportType.IWARP;
        }

        @Override
        public String backendName() {
            return name;
        }

        @Override
        public DeviceContext open() {
            throw new UnsupportedOperationException();
        }

        @Override
        public List<String> netDevices() {
            return List.of();
        }
    }
}
