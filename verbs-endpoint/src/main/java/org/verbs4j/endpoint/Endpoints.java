package org.verbs4j.endpoint;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.verbs4j.api.Access;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.Mtu;
import org.verbs4j.api.PortAttributes;
import org.verbs4j.api.QpConnector;
import org.verbs4j.api.QpEndpoint;
import org.verbs4j.api.QpInitAttributes;
import org.verbs4j.api.QpType;
import org.verbs4j.api.QueuePair;
import org.verbs4j.api.Rdma;
import org.verbs4j.api.RdmaDevice;
import org.verbs4j.api.VerbsException;
import org.verbs4j.api.cm.CmId;
import org.verbs4j.api.cm.ConnectionManager;
import org.verbs4j.api.cm.ConnectionParameters;
import org.verbs4j.api.FabricOptions;
import org.verbs4j.api.spi.FabricProvider;
import org.verbs4j.api.spi.Fabrics;

/**
 * Connects and listens: the one place application code meets the fabric's connection rules.
 *
 * <pre>{@code
 * // server
 * try (EndpointServer server = Endpoints.listen(new InetSocketAddress("10.0.0.1", 7471), options);
 *      RdmaEndpoint ep = server.accept(Duration.ofMinutes(1))) { ... }
 * // client
 * try (RdmaEndpoint ep = Endpoints.connect(new InetSocketAddress("10.0.0.1", 7471), options)) { ... }
 * }</pre>
 *
 * <p>With {@link ConnectionMode#RDMA_CM} (the default) the address is an IP address of an RDMA device's net
 * device (a RoCE or iWARP NIC's Ethernet interface, or IPoIB on InfiniBand), and rdma_cm picks the device. With
 * {@link ConnectionMode#MANUAL} it is the TCP address of the out-of-band exchange.
 */
public final class Endpoints {
    /** Length of the QP address text ({@link QpEndpoint#toWire()} and its NUL) in the manual exchange. */
    static final int QP_WIRE = 52;
    static final int HELLO = QP_WIRE + Handshake.SIZE;
    static final byte READY = 'R';

    private Endpoints() {
    }

    /**
     * Connects to an endpoint listening at {@code address} (see {@link #listen}): with rdma_cm, resolves the
     * address and route, creates the queue pair and connects ({@code rdma_connect}); with
     * {@link ConnectionMode#MANUAL}, exchanges the QP addresses over TCP and moves the QP to RTS itself. Blocks
     * up to {@link EndpointOptions#timeout} for each step.
     *
     * @param address the listener's IP address and port
     * @param options what the endpoint is made of; copied, so later changes do not reach it
     * @return the connected endpoint, which the caller closes
     * @throws IllegalArgumentException when the options do not fit together (slot bytes beyond
     *                                  {@link EndpointOptions#MAX_REGION_SIZE})
     * @throws EndpointException        when connecting fails or times out, naming the peer and what to check
     * @throws org.verbs4j.api.VerbsException when a verb fails while making the endpoint's resources
     */
    public static RdmaEndpoint connect(InetSocketAddress address, EndpointOptions options) {
        return connect(address, null, options);
    }

    /**
     * {@link #connect(InetSocketAddress, EndpointOptions)} from a given local address: with rdma_cm the id is bound
     * to it first ({@code rdma_bind_addr}), so the connection leaves from that address (and port, unless 0), and
     * the device that owns the address carries it; with {@link ConnectionMode#MANUAL} the TCP exchange's socket is
     * bound to it (the device is still {@link EndpointOptions#device(String)}).
     *
     * @param address      the listener's IP address and port
     * @param localAddress this side's IP address and port (port 0: one the system chooses); null: as
     *                     {@link #connect(InetSocketAddress, EndpointOptions)}, the route's source address
     * @param options      what the endpoint is made of; copied, so later changes do not reach it
     * @return the connected endpoint, which the caller closes
     * @throws IllegalArgumentException when the options do not fit together
     * @throws EndpointException        when connecting fails or times out, naming the peer and what to check
     * @throws org.verbs4j.api.cm.CmException with rdma_cm, when {@code rdma_bind_addr} fails (EADDRINUSE,
     *                                  EADDRNOTAVAIL: no RDMA device has that address)
     * @throws org.verbs4j.api.VerbsException when a verb fails while making the endpoint's resources
     */
    public static RdmaEndpoint connect(InetSocketAddress address, InetSocketAddress localAddress,
            EndpointOptions options) {
        Objects.requireNonNull(address, "address");
        EndpointOptions o = Objects.requireNonNull(options, "options").copy();
        o.validate();
        return o.mode() == ConnectionMode.RDMA_CM ? connectCm(address, localAddress, o)
                : connectManual(address, localAddress, o);
    }

    /**
     * Listens at {@code address}; {@link EndpointServer#accept} gives the connected endpoints.
     *
     * @param address the local IP address and port to listen on (port 0 with {@link ConnectionMode#MANUAL}: one
     *                the system chooses, see {@link EndpointServer#address})
     * @param options what each accepted endpoint is made of; copied
     * @return the listening server, which the caller closes
     * @throws IllegalArgumentException when the options do not fit together
     * @throws EndpointException        with {@link ConnectionMode#MANUAL}, when the TCP port cannot be listened on
     * @throws org.verbs4j.api.cm.CmException with rdma_cm, when {@code rdma_bind_addr} or {@code rdma_listen}
     *                                  fails (EADDRINUSE, EADDRNOTAVAIL: no RDMA device has that address)
     */
    public static EndpointServer listen(InetSocketAddress address, EndpointOptions options) {
        Objects.requireNonNull(address, "address");
        EndpointOptions o = Objects.requireNonNull(options, "options").copy();
        o.validate();
        return new EndpointServer(address, o);
    }

    // ---- rdma_cm ----

    private static RdmaEndpoint connectCm(InetSocketAddress address, InetSocketAddress local, EndpointOptions o) {
        EndpointResources s = new EndpointResources();
        s.mode = ConnectionMode.RDMA_CM;
        s.options = o;
        RdmaEndpoint ep = null;
        try {
            s.ownedCm = Rdma.connectionManager();
            CmId id = s.ownedCm.createId();
            s.cmId = id;
            if (local != null) {
                id.bind(local); // resolveAddress then keeps it as the source
            }
            id.resolveAddress(address, o.timeout());
            if (o.fabric().trafficClass() >= 0) {
                id.setTypeOfService(o.fabric().trafficClass()); // RoCE: the IP TOS (DSCP + ECN) of the connection
            }
            id.resolveRoute(o.timeout());
            s.context = id.context();
            PortAttributes port = prepare(s, "to " + address);
            createResources(s, port, (pd, attrs) -> id.createQueuePair(pd, attrs));
            ep = new RdmaEndpoint(s);
            ep.postAllReceives();
            byte[] reply = id.connect(connectionParameters(s.fabric, o, ep.localHandshake(0).encode()), o.timeout());
            ep.applyPeer(Handshake.decode(reply, address.toString()), address.toString());
            ep.recordAddresses(id);
            ep.creditHandshake(true);
            return ep;
        } catch (RuntimeException e) {
            freeFailed(ep, s, e);
            throw e;
        }
    }

    static ConnectionParameters connectionParameters(FabricProvider fabric, EndpointOptions o, byte[] privateData) {
        FabricOptions f = o.fabric();
        return ConnectionParameters.defaults().withPrivateData(privateData)
                .withResponderResources(o.rdAtomic()).withInitiatorDepth(o.rdAtomic())
                .withRetryCount(f.retryCount() >= 0 ? f.retryCount() : FabricProvider.DEFAULT_RETRY)
                .withRnrRetryCount(f.rnrRetry() >= 0 ? f.rnrRetry() : FabricProvider.DEFAULT_RNR_RETRY);
    }

    /**
     * Checks the device and port, picks the fabric provider, and checks the options against the fabric's
     * rules. Returns the port's attributes.
     */
    static PortAttributes prepare(EndpointResources s, String where) {
        EndpointOptions o = s.options;
        DeviceContext ctx = s.context;
        RdmaDevice dev = ctx.device();
        if (o.device() != null && !o.device().equals(dev.name())) {
            throw new EndpointException("the address " + where.replaceFirst("^(to|on) ", "") + " belongs to device "
                    + dev.name() + ", not to " + o.device() + " as the options ask (with rdma_cm the address chooses "
                    + "the device; leave EndpointOptions.device unset or use an address of " + o.device() + ")");
        }
        PortAttributes port = ctx.queryPort(o.port());
        s.fabric = Fabrics.forPort(dev, port, o.fabric());
        if (!o.credits() && !s.fabric.hasRnrRetry()) {
            throw new EndpointException(dev.name() + " is on " + s.fabric.name() + ", which has no receiver-not-ready "
                    + "retry: a send that meets no posted receive breaks the connection, so endpoints there need "
                    + "send credits (EndpointOptions.credits(true))");
        }
        s.description = "endpoint " + (s.mode == ConnectionMode.RDMA_CM ? "(rdma_cm) " : "(manual) ") + where + " on "
                + dev.name() + " port " + o.port() + " (" + s.fabric.name() + ")";
        return port;
    }

    interface QpFactory {
        QueuePair create(org.verbs4j.api.ProtectionDomain pd, QpInitAttributes attributes);
    }

    /** PD, CQs, QP and memory, recorded in {@code s} as they are made. */
    static void createResources(EndpointResources s, PortAttributes port, QpFactory qps) {
        createMemory(s);
        createQueuePair(s, qps);
    }

    /**
     * PD, CQs and registered memory: everything but the QP. A listener makes these ahead of the next connection
     * request, so that it answers the request quickly (iWARP peers give up when the MPA reply takes ~10 s).
     */
    static void createMemory(EndpointResources s) {
        EndpointOptions o = s.options;
        DeviceContext ctx = s.context;
        s.creditSlots = o.credits() ? o.receiveDepth() + 1 : 0;
        s.pd = ctx.allocProtectionDomain();
        if (o.completionChannel()) {
            s.channel = ctx.createCompletionChannel();
        }
        s.sendCq = ctx.createCompletionQueue(o.sendDepth() + s.creditSlots, s.channel, 0);
        s.recvCq = ctx.createCompletionQueue(o.receiveDepth(), s.channel, 0);
        s.sendSlots = MessageSlots.register(s.pd, "send slot", o.sendDepth(), o.messageSize(), Access.LOCAL_WRITE);
        s.recvSlots = MessageSlots.register(s.pd, "receive slot", o.receiveDepth(), o.messageSize(),
                Access.LOCAL_WRITE);
        s.controlMr = s.pd.allocateMemory(Credits.CONTROL_SIZE, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        s.controlMr.fill(0, Credits.CONTROL_SIZE, (byte) 0);
        if (o.rdmaRegionSize() > 0) {
            s.rdmaBuffer = MessageSlots.allocate(o.rdmaRegionSize(), "the RDMA region");
            s.rdmaMr = s.pd.registerMemory(s.rdmaBuffer, remoteAccess(s));
        }
    }

    /**
     * What the peer may do to this side's RDMA region (and, in manual mode, what the QP accepts): write, read,
     * what the fabric needs for a read sink, and atomics where the device executes them.
     */
    static int remoteAccess(EndpointResources s) {
        return Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ | s.fabric.readSinkExtraAccess()
                | (s.context.queryDevice().supportsAtomics() ? Access.REMOTE_ATOMIC : 0);
    }

    /** The RC queue pair on the PD and CQs of {@link #createMemory}. */
    static void createQueuePair(EndpointResources s, QpFactory qps) {
        EndpointOptions o = s.options;
        int maxSendWr = o.sendDepth() + s.creditSlots;
        int inline = Math.max(o.maxInlineData(), o.credits() ? 8 : 0);
        QpInitAttributes attrs = new QpInitAttributes(QpType.RC, s.sendCq, s.recvCq).maxSendWr(maxSendWr)
                .maxRecvWr(o.receiveDepth()).maxSendSge(1).maxRecvSge(1).maxInlineData(inline);
        try {
            s.qp = qps.create(s.pd, attrs);
        } catch (VerbsException e) {
            if (inline <= o.maxInlineData()) {
                throw e;
            }
            // the device takes no inline data: credit writes then go from registered memory
            s.qp = qps.create(s.pd, attrs.maxInlineData(o.maxInlineData()));
        }
    }

    // ---- manual (TCP exchange over Netty) ----

    /** What a manual endpoint keeps between creating its QP and connecting it. */
    static final class Manual {
        PortAttributes port;
        /** Brings the QP from RESET to RTS: INIT in {@link #manualEndpoint}, RTR and RTS in {@link #connectManual}. */
        QpConnector connector;
        Mtu mtu;
        byte[] hello;
    }

    /** Opens the device and makes the endpoint up to a QP in INIT with its receives posted. */
    static RdmaEndpoint manualEndpoint(EndpointResources s, Manual m, String where) {
        EndpointOptions o = s.options;
        s.mode = ConnectionMode.MANUAL;
        s.context = openDevice(o);
        s.ownsContext = true;
        m.port = prepare(s, where);
        if (!s.fabric.supportsManualConnection()) {
            throw new EndpointException(s.context.device().name() + " is an " + s.fabric.name() + " device: its queue "
                    + "pairs connect through rdma_cm only (ConnectionMode.RDMA_CM), not with a TCP exchange of QP "
                    + "numbers");
        }
        if (!m.port.isActive()) {
            throw new EndpointException(s.context.device().name() + " port " + o.port() + " is " + m.port.state()
                    + ", not ACTIVE: check the link (ibstat, rdma link show) and, on InfiniBand, the subnet manager");
        }
        FabricOptions f = o.fabric();
        s.fabric.sourceGid(m.port, s.context.queryGidTable(), f); // a GID the options ask for and the port lacks: before any resource
        createResources(s, m.port, (pd, attrs) -> pd.createQueuePair(attrs));
        RdmaEndpoint ep = new RdmaEndpoint(s);
        try {
            m.connector = QpConnector.builder(s.context, s.qp).port(o.port()).options(f).access(remoteAccess(s))
                    .rdAtomic(o.rdAtomic()).prepare();
            ep.postAllReceives();
            m.mtu = m.connector.pathMtu();
            QpEndpoint me = m.connector.localEndpoint();
            byte[] text = me.toWire().getBytes(StandardCharsets.US_ASCII);
            m.hello = new byte[HELLO];
            System.arraycopy(text, 0, m.hello, 0, Math.min(text.length, QP_WIRE - 1));
            System.arraycopy(ep.localHandshake(m.mtu == null ? 0 : m.mtu.value()).encode(), 0, m.hello, QP_WIRE,
                    Handshake.SIZE);
            return ep;
        } catch (RuntimeException e) {
            closeQuietly(ep, e);
            throw e;
        }
    }

    /**
     * Checks a peer's {@link #HELLO} bytes (its QP address text and handshake) without touching a device.
     *
     * @throws EndpointException naming the peer and what is wrong
     */
    static void checkHello(byte[] hello, String peer) {
        helloAddress(hello, peer);
        helloHandshake(hello, peer);
    }

    private static QpEndpoint helloAddress(byte[] hello, String peer) {
        try {
            return QpEndpoint.parseWire(new String(hello, 0, QP_WIRE, StandardCharsets.US_ASCII));
        } catch (IllegalArgumentException e) {
            throw new EndpointException("the peer " + peer + " did not send a QP address (" + e.getMessage()
                    + "): is it a verbs4j endpoint in manual mode?", e);
        }
    }

    private static Handshake helloHandshake(byte[] hello, String peer) {
        return Handshake.decode(java.util.Arrays.copyOfRange(hello, QP_WIRE, QP_WIRE + Handshake.SIZE), peer);
    }

    /** Moves the QP to RTR and RTS towards the peer of {@code hello}; returns the peer's handshake. */
    static Handshake connectManual(EndpointResources s, Manual m, byte[] hello, String peer) {
        QpEndpoint remote = helloAddress(hello, peer);
        Handshake h = helloHandshake(hello, peer);
        m.connector.connect(remote, h.mtu() != 0 ? Mtu.of(h.mtu()) : null); // the smaller of both ends' MTUs
        return h;
    }

    private static RdmaEndpoint connectManual(InetSocketAddress address, InetSocketAddress local, EndpointOptions o) {
        EndpointResources s = new EndpointResources();
        s.options = o;
        Manual m = new Manual();
        RdmaEndpoint ep = null;
        try {
            ep = manualEndpoint(s, m, "to " + address);
            try (TcpExchange.Peer peer = TcpExchange.connect(address, local, o.timeout(), HELLO)) {
                peer.write(m.hello);
                byte[] reply = peer.read(HELLO, o.timeout(), "the server's QP address and handshake");
                Handshake h = connectManual(s, m, reply, peer.remote());
                peer.write(new byte[] {READY});
                ep.applyPeer(h, peer.remote());
            }
            ep.creditHandshake(true);
            return ep;
        } catch (RuntimeException e) {
            freeFailed(ep, s, e);
            throw e;
        }
    }

    /** {@code options.device()}, or the first device that has the options' port active. */
    static DeviceContext openDevice(EndpointOptions o) {
        if (o.device() != null) {
            return Rdma.open(o.device());
        }
        StringBuilder seen = new StringBuilder();
        for (RdmaDevice d : Rdma.devices()) {
            DeviceContext ctx = d.open();
            try {
                if (o.port() <= ctx.queryDevice().physPortCnt() && ctx.queryPort(o.port()).isActive()) {
                    return ctx;
                }
                seen.append(seen.length() == 0 ? "" : ", ").append(d.name()).append(" (port ").append(o.port())
                        .append(' ').append(ctx.queryPort(o.port()).state()).append(')');
            } catch (RuntimeException e) {
                seen.append(seen.length() == 0 ? "" : ", ").append(d.name()).append(" (").append(e.getMessage())
                        .append(')');
            }
            ctx.close();
        }
        throw new EndpointException("no RDMA device has port " + o.port() + " active"
                + (seen.length() == 0 ? " (no RDMA device at all: check ibv_devices)" : ": " + seen));
    }

    /** After a failed set-up: closes the endpoint when it was made, else frees what the set-up made so far. */
    static void freeFailed(RdmaEndpoint ep, EndpointResources s, RuntimeException primary) {
        if (ep != null) {
            closeQuietly(ep, primary);
        } else {
            s.abandon();
        }
    }

    static void closeQuietly(RdmaEndpoint ep, RuntimeException primary) {
        try {
            ep.close();
        } catch (RuntimeException e) {
            primary.addSuppressed(e);
        }
    }
}
