package org.verbs4j.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.verbs4j.api.cm.CmId;
import org.verbs4j.api.cm.ConnectionManager;
import org.verbs4j.api.cm.ConnectionParameters;
import org.verbs4j.api.cm.ConnectionRequest;
import org.verbs4j.api.cm.PortSpace;
import org.verbs4j.api.internal.LocalRoutes;
import org.verbs4j.api.spi.VerbsBackend;

/** {@link Rdma#connectionManager()} with several backends: each id goes to the backend whose device owns its address. */
class RoutedConnectionManagerTest {
    private static final InetAddress LO = InetAddress.getLoopbackAddress();
    private static final String LO_IF = LocalRoutes.interfaceOf(LO);
    private static final Duration T = Duration.ofSeconds(1);

    /** A backend whose devices sit on the given interfaces and whose managers record what their ids were asked. */
    static final class Backend implements VerbsBackend {
        final String name;
        final int priority;
        final List<String> netdevs;
        final List<Manager> made = new ArrayList<>();

        Backend(String name, int priority, String... netdevs) {
            this.name = name;
            this.priority = priority;
            this.netdevs = List.of(netdevs);
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
            return null;
        }

        @Override
        public List<RdmaDevice> devices() {
            List<RdmaDevice> out = new ArrayList<>();
            for (String n : netdevs) {
                out.add(new Device(name + "_" + n, n, name));
            }
            return out;
        }

        @Override
        public ConnectionManager connectionManager() {
            Manager m = new Manager(this);
            made.add(m);
            return m;
        }
    }

    record Device(String name, String netdev, String backendName) implements RdmaDevice {
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
        public DeviceContext open() {
            throw new UnsupportedOperationException();
        }

        @Override
        public List<String> netDevices() {
            return List.of(netdev);
        }
    }

    static final class Manager implements ConnectionManager {
        final Backend backend;
        final List<Id> ids = new ArrayList<>();
        boolean closed;

        Manager(Backend backend) {
            this.backend = backend;
        }

        @Override
        public CmId createId() {
            return createId(PortSpace.TCP);
        }

        @Override
        public CmId createId(PortSpace ps) {
            Id id = new Id(this, ps);
            ids.add(id);
            return id;
        }

        @Override
        public boolean isClosed() {
            return closed;
        }

        @Override
        public void close() {
            closed = true;
            ids.forEach(Id::close);
        }
    }

    static final class Id implements CmId {
        final Manager manager;
        final PortSpace ps;
        final List<String> calls = new ArrayList<>();
        boolean closed;

        Id(Manager manager, PortSpace ps) {
            this.manager = manager;
            this.ps = ps;
        }

        @Override
        public PortSpace portSpace() {
            return ps;
        }

        @Override
        public void bind(InetSocketAddress a) {
            calls.add("bind " + a.getAddress().getHostAddress());
        }

        @Override
        public void listen(int backlog) {
            calls.add("listen " + backlog);
        }

        @Override
        public ConnectionRequest awaitRequest(Duration t) {
            calls.add("awaitRequest");
            return null;
        }

        @Override
        public void resolveAddress(InetSocketAddress d, Duration t) {
            calls.add("resolveAddress " + d.getAddress().getHostAddress());
        }

        @Override
        public void resolveRoute(Duration t) {
            calls.add("resolveRoute");
        }

        @Override
        public DeviceContext context() {
            return null;
        }

        @Override
        public QueuePair createQueuePair(ProtectionDomain pd, QpInitAttributes a) {
            return null;
        }

        @Override
        public QueuePair queuePair() {
            return null;
        }

        @Override
        public byte[] connect(ConnectionParameters p, Duration t) {
            calls.add("connect");
            return new byte[0];
        }

        @Override
        public void accept(ConnectionParameters p) {
            calls.add("accept");
        }

        @Override
        public void awaitEstablished(Duration t) {
            calls.add("awaitEstablished");
        }

        @Override
        public void reject(byte[] d) {
            calls.add("reject");
        }

        @Override
        public void disconnect() {
            calls.add("disconnect");
        }

        @Override
        public void awaitDisconnected(Duration t) {
            calls.add("awaitDisconnected");
        }

        @Override
        public boolean isDisconnected() {
            return false;
        }

        @Override
        public void setTypeOfService(int tos) {
            calls.add("tos " + tos);
        }

        @Override
        public boolean isClosed() {
            return closed;
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    private final Backend jnr = new Backend("jnr", 100, "no-such-if9");
    private final Backend soft = new Backend("softiwarp", 10, LO_IF);

    @Test
    void oneBackendGivesItsOwnManager() {
        ConnectionManager cm = Rdma.connectionManager(List.of(soft));
        assertSame(soft.made.get(0), cm);
    }

    @Test
    void loopbackGoesToTheBackendWithADeviceOnLoAndTheOtherManagerIsNeverMade() {
        ConnectionManager cm = Rdma.connectionManager(List.of(jnr, soft));
        assertInstanceOf(RoutedConnectionManager.class, cm);
        CmId listener = cm.createId();
        assertTrue(soft.made.isEmpty(), "managers are made on first use");
        listener.bind(new InetSocketAddress(LO, 7174));
        listener.listen(8);
        CmId active = cm.createId();
        active.setTypeOfService(32);
        active.resolveAddress(new InetSocketAddress(LO, 7174), T);
        active.resolveRoute(T);
        active.connect(ConnectionParameters.defaults(), T);

        assertEquals(1, soft.made.size(), "one softiwarp manager for both ids");
        assertTrue(jnr.made.isEmpty(), "libibverbs' manager (its event thread) never made");
        List<Id> ids = soft.made.get(0).ids;
        assertEquals(List.of("bind 127.0.0.1", "listen 8"), ids.get(0).calls);
        assertEquals(List.of("tos 32", "resolveAddress 127.0.0.1", "resolveRoute", "connect"), ids.get(1).calls);
        cm.close();
        assertTrue(soft.made.get(0).closed);
        assertTrue(listener.isClosed());
        assertThrows(IllegalStateException.class, cm::createId);
    }

    @Test
    void theWildcardAndUnownedAddressesGoToTheHighestPriorityBackend() {
        ConnectionManager cm = Rdma.connectionManager(List.of(jnr, soft));
        CmId wild = cm.createId();
        wild.bind(new InetSocketAddress(0));
        CmId unbound = cm.createId();
        unbound.listen(4);
        CmId far = cm.createId(PortSpace.UDP);
        far.resolveAddress(new InetSocketAddress("192.0.2.7", 1), T); // TEST-NET-1: no device owns its source
        assertEquals(1, jnr.made.size());
        assertTrue(soft.made.isEmpty());
        assertEquals(3, jnr.made.get(0).ids.size());
        assertEquals(PortSpace.UDP, jnr.made.get(0).ids.get(2).portSpace());
        cm.close();
        assertTrue(jnr.made.get(0).closed);
    }

    @Test
    void theWildcardSkipsABackendWithoutDevices() {
        Backend noDevices = new Backend("jnr", 100);
        ConnectionManager cm = Rdma.connectionManager(List.of(noDevices, soft));
        cm.createId().bind(new InetSocketAddress(7471));
        assertEquals(1, soft.made.size());
        assertTrue(noDevices.made.isEmpty());
        cm.close();
    }

    @Test
    void theFirstBackendInPriorityOrderWinsWhenBothOwnTheInterface() {
        Backend kernelOnLo = new Backend("jnr", 100, LO_IF);
        ConnectionManager cm = Rdma.connectionManager(List.of(kernelOnLo, soft));
        cm.createId().bind(new InetSocketAddress(LO, 1));
        assertEquals(1, kernelOnLo.made.size());
        assertTrue(soft.made.isEmpty());
        cm.close();
    }

    @Test
    void anIdWithoutAnAddressSaysWhatToDoFirst() {
        ConnectionManager cm = Rdma.connectionManager(List.of(jnr, soft));
        CmId id = cm.createId();
        IllegalStateException e = assertThrows(IllegalStateException.class, id::context);
        assertTrue(e.getMessage().contains("bind it to a device's address"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> id.awaitRequest(T));
        // a type of service out of range is refused at once, not when the id is bound (the CM API's limits hold)
        assertThrows(IllegalArgumentException.class, () -> id.setTypeOfService(256));
        assertThrows(IllegalArgumentException.class, () -> id.setTypeOfService(-1));
        id.setTypeOfService(255);
        assertNull(id.queuePair());
        assertFalse(id.isDisconnected());
        id.close();
        assertTrue(id.isClosed());
        assertThrows(IllegalStateException.class, () -> id.bind(new InetSocketAddress(LO, 1)));
        cm.close();
        assertTrue(jnr.made.isEmpty() && soft.made.isEmpty());
    }
}
