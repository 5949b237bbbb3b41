package org.verbs4j.api;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import org.verbs4j.api.cm.CmId;
import org.verbs4j.api.cm.ConnectionParameters;
import org.verbs4j.api.cm.ConnectionRequest;
import org.verbs4j.api.cm.PortSpace;
import org.verbs4j.api.cm.UdParameters;
import org.verbs4j.api.internal.LocalRoutes;

/**
 * A {@link CmId} of a {@link RoutedConnectionManager}: nothing until its first address, then a backend's id that
 * every call goes to. {@link #bind} routes by the bound address, {@link #resolveAddress} by the source address
 * the system's routes pick for the destination, a {@link #listen} without a bind to the highest-priority backend.
 * A type of service set before that is applied to the backend's id when it is made.
 */
final class RoutedCmId implements CmId {
    private final RoutedConnectionManager mgr;
    private final PortSpace portSpace;
    private volatile CmId delegate;
    private volatile boolean closed;
    private int tos = -1;

    RoutedCmId(RoutedConnectionManager mgr, PortSpace portSpace) {
        this.mgr = mgr;
        this.portSpace = portSpace;
    }

    /** The backend's id, made for {@code address} on first call. */
    private synchronized CmId route(InetAddress address) {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
        if (delegate == null) {
            CmId id = mgr.createIdFor(address, portSpace);
            if (tos >= 0) {
                try {
                    id.setTypeOfService(tos);
                } catch (RuntimeException e) {
                    id.close();
                    throw e;
                }
            }
            delegate = id;
        }
        return delegate;
    }

    /** The backend's id, or {@link IllegalStateException} when there is none yet. */
    private CmId routed(String what) {
        CmId d = delegate;
        if (d == null) {
            if (closed) {
                throw new IllegalStateException(this + " is closed");
            }
            throw new IllegalStateException(what + ": this CmId has no device yet: bind it to a device's address, "
                    + "or resolveAddress first");
        }
        return d;
    }

    @Override
    public void bind(InetSocketAddress address) {
        Objects.requireNonNull(address, "address");
        route(address.getAddress()).bind(address);
    }

    @Override
    public void listen(int backlog) {
        route(null).listen(backlog);
    }

    @Override
    public ConnectionRequest awaitRequest(Duration timeout) {
        return routed("awaitRequest needs listen() first").awaitRequest(timeout);
    }

    @Override
    public void resolveAddress(InetSocketAddress destination, Duration timeout) {
        Objects.requireNonNull(destination, "destination");
        InetAddress source = null;
        if (delegate == null && !destination.isUnresolved()) {
            try {
                source = LocalRoutes.sourceFor(destination.getAddress());
            } catch (RuntimeException e) {
                source = null; // no route: the first backend's rdma_resolve_addr says so
            }
        }
        route(source).resolveAddress(destination, timeout);
    }

    @Override
    public void resolveRoute(Duration timeout) {
        routed("resolveRoute").resolveRoute(timeout);
    }

    @Override
    public DeviceContext context() {
        return routed("context").context();
    }

    @Override
    public QueuePair createQueuePair(ProtectionDomain pd, QpInitAttributes attributes) {
        return routed("createQueuePair").createQueuePair(pd, attributes);
    }

    @Override
    public QueuePair queuePair() {
        CmId d = delegate;
        return d == null ? null : d.queuePair();
    }

    @Override
    public byte[] connect(ConnectionParameters parameters, Duration timeout) {
        return routed("connect").connect(parameters, timeout);
    }

    @Override
    public void accept(ConnectionParameters parameters) {
        routed("accept").accept(parameters);
    }

    @Override
    public void awaitEstablished(Duration timeout) {
        routed("awaitEstablished").awaitEstablished(timeout);
    }

    @Override
    public void reject(byte[] privateData) {
        routed("reject").reject(privateData);
    }

    @Override
    public PortSpace portSpace() {
        return portSpace;
    }

    @Override
    public UdParameters connectDatagram(byte[] privateData, Duration timeout) {
        return routed("connectDatagram").connectDatagram(privateData, timeout);
    }

    @Override
    public UdParameters joinMulticast(InetAddress group, Duration timeout) {
        return routed("joinMulticast").joinMulticast(group, timeout);
    }

    @Override
    public void leaveMulticast(InetAddress group) {
        routed("leaveMulticast").leaveMulticast(group);
    }

    @Override
    public void disconnect() {
        routed("disconnect").disconnect();
    }

    @Override
    public void awaitDisconnected(Duration timeout) {
        routed("awaitDisconnected").awaitDisconnected(timeout);
    }

    @Override
    public boolean isDisconnected() {
        CmId d = delegate;
        return d != null && d.isDisconnected();
    }

    @Override
    public synchronized void setTypeOfService(int typeOfService) {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
        // checked here too: before bind or resolve there is no backend id yet to refuse it
        if (typeOfService < 0 || typeOfService > 255) {
            throw new IllegalArgumentException("type of service " + typeOfService + ": 0..255");
        }
        if (delegate != null) {
            delegate.setTypeOfService(typeOfService);
        } else {
            tos = typeOfService;
        }
    }

    @Override
    public boolean isClosed() {
        CmId d = delegate;
        return d != null ? d.isClosed() : closed;
    }

    @Override
    public void close() {
        CmId d;
        synchronized (this) {
            closed = true;
            d = delegate;
        }
        if (d != null) {
            d.close();
        }
        mgr.forget(this);
    }

    @Override
    public InetSocketAddress localAddress() {
        CmId d = delegate;
        return d != null ? d.localAddress() : null;
    }

    @Override
    public InetSocketAddress peerAddress() {
        CmId d = delegate;
        return d != null ? d.peerAddress() : null;
    }

    @Override
    public String toString() {
        CmId d = delegate;
        return d != null ? d.toString() : "CmId[not bound yet" + (closed ? ", closed" : "") + "]";
    }
}
