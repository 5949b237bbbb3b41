package org.verbs4j.api;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.verbs4j.api.cm.CmId;
import org.verbs4j.api.cm.ConnectionManager;
import org.verbs4j.api.cm.PortSpace;
import org.verbs4j.api.internal.LocalRoutes;
import org.verbs4j.api.spi.VerbsBackend;

/**
 * The connection manager {@link Rdma#connectionManager()} returns when several backends are available: its ids
 * ({@link RoutedCmId}) take their backend from their first address, as rdma_cm takes an id's device from it. A
 * {@link CmId#bind} or {@link CmId#resolveAddress} goes to the backend that has a device on the interface owning
 * the local (or the source) address, the first such backend in priority order; an address no device owns, and the
 * wildcard, go to the highest-priority backend that has a device. Each backend's own connection manager is made on first use (so a
 * program that uses only software devices never starts libibverbs' rdma_cm event thread) and closed with this one.
 */
final class RoutedConnectionManager implements ConnectionManager {
    private final List<VerbsBackend> backends;
    private final Map<VerbsBackend, ConnectionManager> managers = new LinkedHashMap<>();
    private final List<RoutedCmId> ids = new ArrayList<>();
    private boolean closed;

    /**
     * A manager over the available backends.
     *
     * @param backends the available backends, highest priority first (at least one)
     */
    RoutedConnectionManager(List<VerbsBackend> backends) {
        if (backends.isEmpty()) {
            throw new IllegalArgumentException("no backend");
        }
        this.backends = List.copyOf(backends);
    }

    @Override
    public CmId createId() {
        return createId(PortSpace.TCP);
    }

    @Override
    public synchronized CmId createId(PortSpace portSpace) {
        Objects.requireNonNull(portSpace, "portSpace");
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
        RoutedCmId id = new RoutedCmId(this, portSpace);
        ids.add(id);
        return id;
    }

    /**
     * The backend whose device owns the local address {@code address}; for the wildcard (null) and an address no
     * device owns, the first backend that has a device at all (libibverbs without RDMA devices takes no ids), else
     * the first.
     *
     * @param address a local address, or null for the wildcard
     * @return the backend
     */
    VerbsBackend backendFor(InetAddress address) {
        String netdev = address == null ? null : LocalRoutes.interfaceOf(address);
        if (netdev != null) {
            for (VerbsBackend b : backends) {
                for (RdmaDevice d : b.devices()) {
                    if (d.hasNetDevice(netdev)) {
                        return b;
                    }
                }
            }
        }
        for (VerbsBackend b : backends) {
            if (!b.devices().isEmpty()) {
                return b;
            }
        }
        return backends.get(0);
    }

    /** A new id of the backend that owns {@code address} (see the class comment), its manager made on first use. */
    CmId createIdFor(InetAddress address, PortSpace portSpace) {
        VerbsBackend b = backendFor(address);
        ConnectionManager cm;
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException(this + " is closed");
            }
            cm = managers.get(b);
            if (cm == null) {
                cm = b.connectionManager();
                managers.put(b, cm);
            }
        }
        return cm.createId(portSpace);
    }

    synchronized void forget(RoutedCmId id) {
        ids.remove(id);
    }

    @Override
    public synchronized boolean isClosed() {
        return closed;
    }

    /**
     * Closes the backends' connection managers (each closes its ids; each refuses while a device context it
     * opened is in use, and then this one stays open), then the ids that never got a backend.
     */
    @Override
    public void close() {
        List<ConnectionManager> cms;
        synchronized (this) {
            if (closed) {
                return;
            }
            cms = new ArrayList<>(managers.values());
        }
        for (ConnectionManager cm : cms) {
            cm.close();
        }
        List<RoutedCmId> rest;
        synchronized (this) {
            closed = true;
            rest = new ArrayList<>(ids);
            ids.clear();
        }
        for (RoutedCmId id : rest) {
            id.close();
        }
    }

    @Override
    public synchronized String toString() {
        List<String> names = new ArrayList<>();
        for (VerbsBackend b : backends) {
            names.add(b.name() + (managers.containsKey(b) ? "*" : ""));
        }
        return "ConnectionManager[routed over " + names + (closed ? ", closed" : "") + "]";
    }
}
