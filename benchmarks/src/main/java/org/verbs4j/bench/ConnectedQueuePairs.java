package org.verbs4j.bench;

import static org.verbs4j.bench.LoopbackQueuePair.closeAll;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.verbs4j.api.Access;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.DeviceAttributes;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.Errno;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.PortAttributes;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.QpConnector;
import org.verbs4j.api.QpInitAttributes;
import org.verbs4j.api.QpType;
import org.verbs4j.api.QueuePair;
import org.verbs4j.api.Rdma;
import org.verbs4j.api.TransportType;
import org.verbs4j.api.VerbsException;
import org.verbs4j.api.WorkCompletions;
import org.verbs4j.api.cm.CmId;
import org.verbs4j.api.cm.ConnectionManager;
import org.verbs4j.api.cm.ConnectionParameters;
import org.verbs4j.api.cm.ConnectionRequest;
import org.verbs4j.softiwarp.SoftIwarp;

/**
 * Two RC queue pairs on one device, in this process, connected to each other: {@link #a} and {@link #b},
 * each with its own protection domain, send CQ, receive CQ and registered buffer. One thread can then
 * drive both ends of a ping-pong, the way perftest's latency tests run between two processes.
 *
 * <p>How they are connected ({@code -Dverbs4j.connect}):
 * <ul>
 * <li>{@code manual} (the default for InfiniBand and RoCE): {@code ibv_create_qp} and RESET → INIT → RTR →
 * RTS by hand, each QP's destination the other's QPN at this port's own address (as
 * {@link LoopbackQueuePair}, but two QPs).</li>
 * <li>{@code cm} (the default, and the only way, for iWARP): rdma_cm through the public
 * {@link org.verbs4j.api.cm} API. A listener bound to the device's IP address, an active id that
 * resolves that address and connects; a short-lived thread accepts, during set-up only. {@link #a} is
 * the active side: iWARP wants the active side to send first, and the set-up's first exchange
 * starts at {@link #a}.</li>
 * </ul>
 *
 * <p>The device's IP address (rdma_cm only) is {@code -Dverbs4j.cmAddress}, else the fabric lab's
 * ({@code FABRIC_LAB_SIW_IP} for {@code FABRIC_LAB_SIW_DEV}, {@code FABRIC_LAB_RXE_IP} for
 * {@code FABRIC_LAB_RXE_DEV}), else, for the software device {@code jsiw_lo}, 127.0.0.1.
 */
final class ConnectedQueuePairs implements AutoCloseable {
    static final String CONNECT_PROPERTY = "verbs4j.connect";
    static final String CM_ADDRESS_PROPERTY = "verbs4j.cmAddress";
    static final String CM_PORT_PROPERTY = "verbs4j.cmPort";
    private static final int PORT = LoopbackQueuePair.PORT;
    private static final int PSN_A = 0x1234;
    private static final int PSN_B = 0x5678;
    private static final Duration CM_TIMEOUT = Duration.ofSeconds(30);
    /** First TCP port tried for the rdma_cm listener; the next ones if it is taken. */
    private static final int DEFAULT_CM_PORT = 7780;
    private static final int CM_PORT_ATTEMPTS = 20;
    private static final int WAIT_TIMEOUT_SECONDS = 10;

    /** One end: its own PD, CQs, buffer and QP; {@code id} is set on rdma_cm connections. */
    record Endpoint(String name, ProtectionDomain pd, CompletionQueue sendCq, CompletionQueue recvCq, MemoryRegion mr,
            QueuePair qp, CmId id) {

        /** Closes the QP (through its id on rdma_cm), CQs, buffer and PD, adding failures to {@code into}. */
        void close(Throwable into) {
            closeAll(into, id != null ? id : qp, sendCq, recvCq, mr, pd);
        }

        @Override
        public String toString() {
            return name + " (QP 0x" + Integer.toHexString(qp.qpNumber()) + ")";
        }
    }

    /** What each end gets. */
    record Shape(int cqEntries, int maxSendWr, int maxRecvWr, int maxInlineData, long bufferSize) {
    }

    /** The device both ends are on: opened here (manual) or by rdma_cm. */
    final DeviceContext ctx;
    final DeviceAttributes attributes;
    final Endpoint a;
    final Endpoint b;
    final String description;
    /** Set when this object opened the device (manual); rdma_cm's contexts belong to the manager. */
    private final DeviceContext ownedContext;
    private final ConnectionManager cm;
    private final CmId listener;

    private ConnectedQueuePairs(DeviceContext ctx, DeviceContext ownedContext, ConnectionManager cm, CmId listener,
            Endpoint a, Endpoint b, String how) {
        this.ctx = ctx;
        this.ownedContext = ownedContext;
        this.cm = cm;
        this.listener = listener;
        this.a = a;
        this.b = b;
        this.attributes = ctx.queryDevice();
        this.description = ctx.device().name() + " " + a + " <-> " + b + ", " + how + ", " + a.qp.capabilities();
    }

    /** Whether the device executes atomics (rxe does; siw does not), so the QPs were given REMOTE_ATOMIC. */
    boolean supportsAtomics() {
        return attributes.supportsAtomics();
    }

    /** Opens {@code device} and connects two QPs as the class comment says. */
    static ConnectedQueuePairs open(String device, Shape shape) {
        String how = System.getProperty(CONNECT_PROPERTY, "auto").trim();
        boolean iwarp = Rdma.device(device).transportType() == TransportType.IWARP;
        switch (how) {
            case "auto":
                return iwarp ? viaCm(device, shape) : manual(device, shape);
            case "cm":
                return viaCm(device, shape);
            case "manual":
                if (iwarp) {
                    throw new IllegalArgumentException(device + " is an iWARP device: its QPs connect only through "
                            + "rdma_cm; drop -D" + CONNECT_PROPERTY + "=manual");
                }
                return manual(device, shape);
            default:
                throw new IllegalArgumentException("-D" + CONNECT_PROPERTY + "=" + how + ": expected auto, cm or manual");
        }
    }

    private static int accessFlags(DeviceContext ctx) {
        int access = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ;
        return ctx.queryDevice().supportsAtomics() ? access | Access.REMOTE_ATOMIC : access;
    }

    private static QpInitAttributes qpAttributes(CompletionQueue sendCq, CompletionQueue recvCq, Shape shape) {
        return new QpInitAttributes(QpType.RC, sendCq, recvCq).maxSendWr(shape.maxSendWr).maxRecvWr(shape.maxRecvWr)
                .maxSendSge(1).maxRecvSge(1).maxInlineData(shape.maxInlineData);
    }

    // ---------------------------------------------------------------- manual (InfiniBand, RoCE)

    private static ConnectedQueuePairs manual(String device, Shape shape) {
        DeviceContext c = Rdma.open(device);
        Endpoint a = null;
        Endpoint b = null;
        try {
            PortAttributes port = c.queryPort(PORT);
            if (!port.isActive()) {
                throw new IllegalStateException(device + " port " + PORT + " is " + port.state().text() + ", not ACTIVE");
            }
            int access = accessFlags(c);
            a = endpoint("A", c, shape, access, null);
            b = endpoint("B", c, shape, access, null);
            QpConnector ca = LoopbackQueuePair.prepare(c, a.qp, access, PSN_A);
            QpConnector cb = LoopbackQueuePair.prepare(c, b.qp, access, PSN_B);
            ca.connect(cb.localEndpoint());
            cb.connect(ca.localEndpoint());
            return new ConnectedQueuePairs(c, c, null, null, a, b, "connected by hand (RESET→INIT→RTR→RTS), "
                    + LoopbackQueuePair.describeAddress(ca) + ", path MTU " + ca.pathMtu().bytes());
        } catch (RuntimeException e) {
            closeEndpoints(e, b, a);
            closeAll(e, c);
            throw e;
        }
    }

    /**
     * One end on {@code c}: a PD, two CQs, a buffer and an RC QP; the QP on {@code id} when it is an rdma_cm
     * connection ({@code id} then closes with the end), a plain one when {@code id} is null.
     */
    private static Endpoint endpoint(String name, DeviceContext c, Shape shape, int access, CmId id) {
        ProtectionDomain pd = c.allocProtectionDomain();
        CompletionQueue scq = null;
        CompletionQueue rcq = null;
        MemoryRegion mr = null;
        try {
            scq = c.createCompletionQueue(shape.cqEntries);
            rcq = c.createCompletionQueue(shape.cqEntries);
            mr = pd.allocateMemory(shape.bufferSize, access);
            QpInitAttributes attrs = qpAttributes(scq, rcq, shape);
            QueuePair qp = id == null ? pd.createQueuePair(attrs) : id.createQueuePair(pd, attrs);
            return new Endpoint(name, pd, scq, rcq, mr, qp, id);
        } catch (RuntimeException e) {
            closeAll(e, id, scq, rcq, mr, pd);
            throw e;
        }
    }

    // ---------------------------------------------------------------- rdma_cm (iWARP; RoCE on request)

    private static ConnectedQueuePairs viaCm(String device, Shape shape) {
        InetAddress ip = cmAddress(device);
        ConnectionManager cm = Rdma.connectionManager();
        CmId listener = null;
        CmId active = null;
        Endpoint a = null;
        Endpoint b = null;
        ExecutorService acceptor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "verbs4j-bench-accept");
            t.setDaemon(true);
            return t;
        });
        try {
            listener = cm.createId();
            InetSocketAddress at = bindFreePort(listener, ip);
            listener.listen(1);
            CmId l = listener;
            Future<Endpoint> passive = acceptor.submit(() -> {
                ConnectionRequest req = l.awaitRequest(CM_TIMEOUT);
                Endpoint e = null;
                try {
                    e = endpoint("B", req.id().context(), shape, accessFlags(req.id().context()), req.id());
                    req.id().accept(ConnectionParameters.defaults());
                    req.id().awaitEstablished(CM_TIMEOUT);
                    return e;
                } catch (RuntimeException x) {
                    if (e != null) {
                        e.close(x);
                    } else {
                        closeAll(x, req.id());
                    }
                    throw x;
                }
            });
            active = cm.createId();
            active.resolveAddress(at, CM_TIMEOUT);
            active.resolveRoute(CM_TIMEOUT);
            a = endpoint("A", active.context(), shape, accessFlags(active.context()), active);
            active.connect(ConnectionParameters.defaults(), CM_TIMEOUT);
            b = awaitPassive(passive);
            DeviceContext c = active.context();
            if (!c.device().name().equals(device)) {
                throw new IllegalStateException(at + " belongs to " + c.device().name() + ", not " + device + "; set -D"
                        + CM_ADDRESS_PROPERTY + " to an IP address of " + device);
            }
            return new ConnectedQueuePairs(c, null, cm, listener, a, b, "connected through rdma_cm to " + at);
        } catch (RuntimeException e) {
            if (a != null) {
                a.close(e);
            } else {
                closeAll(e, active);
            }
            closeEndpoints(e, b);
            closeAll(e, listener, cm);
            throw e;
        } finally {
            acceptor.shutdownNow();
        }
    }

    private static Endpoint awaitPassive(Future<Endpoint> passive) {
        try {
            return passive.get(CM_TIMEOUT.toSeconds() * 2, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException("accepting the connection failed: " + cause, cause);
        } catch (TimeoutException e) {
            throw new IllegalStateException("the passive side did not become ESTABLISHED in "
                    + CM_TIMEOUT.toSeconds() * 2 + " s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while accepting", e);
        }
    }

    /** Binds to {@code ip} on the first free port from {@code -Dverbs4j.cmPort} (default 7780) on. */
    private static InetSocketAddress bindFreePort(CmId listener, InetAddress ip) {
        int first = Integer.getInteger(CM_PORT_PROPERTY, DEFAULT_CM_PORT);
        VerbsException last = null;
        for (int port = first; port < first + CM_PORT_ATTEMPTS; port++) {
            InetSocketAddress at = new InetSocketAddress(ip, port);
            try {
                listener.bind(at);
                return at;
            } catch (VerbsException e) {
                if (e.errno() != Errno.EADDRINUSE) { // try the next port; anything else is a real failure
                    throw e;
                }
                last = e;
            }
        }
        throw new IllegalStateException("no free rdma_cm port on " + ip + " in " + first + ".."
                + (first + CM_PORT_ATTEMPTS - 1) + "; set -D" + CM_PORT_PROPERTY, last);
    }

    /** The IP address rdma_cm reaches {@code device} at. */
    static InetAddress cmAddress(String device) {
        String ip = System.getProperty(CM_ADDRESS_PROPERTY);
        if (ip == null || ip.isBlank()) {
            if (device.equals(System.getenv("FABRIC_LAB_SIW_DEV"))) {
                ip = System.getenv("FABRIC_LAB_SIW_IP");
            } else if (device.equals(System.getenv("FABRIC_LAB_RXE_DEV"))) {
                ip = System.getenv("FABRIC_LAB_RXE_IP");
            } else if (device.equals(SoftIwarp.LOOPBACK_NAME)) {
                ip = "127.0.0.1"; // the software device on the loopback interface: its one address
            }
        }
        if (ip == null || ip.isBlank()) {
            throw new IllegalArgumentException("no IP address for " + device + ": rdma_cm connects by address; set -D"
                    + CM_ADDRESS_PROPERTY + "=<an IPv4 address of " + device + "'s netdev> (in the fabric lab "
                    + "FABRIC_LAB_SIW_IP / FABRIC_LAB_RXE_IP are used)");
        }
        try {
            return InetAddress.getByName(ip.trim());
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("-D" + CM_ADDRESS_PROPERTY + "=" + ip + ": not an address", e);
        }
    }

    // ---------------------------------------------------------------- waiting (the measured code calls these)

    /**
     * Spins on {@code cq} until one completion arrives and returns its wr_id. Throws when it failed, when more
     * than one arrived (the callers keep one in flight per CQ), or after {@value #WAIT_TIMEOUT_SECONDS} s: a
     * hung device must not hang JMH. Allocates nothing unless it throws.
     */
    long awaitOne(CompletionQueue cq, WorkCompletions wc, String what) {
        int n;
        long spins = 0;
        long start = 0;
        while ((n = cq.poll(wc)) == 0) {
            if ((++spins & 0xfffff) == 0) {
                start = checkTimeout(start, what, spins);
            }
        }
        if (n != 1 || !wc.ok(0)) {
            throw new IllegalStateException(description + ": " + what + ": expected one successful completion, got "
                    + n + ", first " + wc.toString(0));
        }
        return wc.wrId(0);
    }

    /**
     * Spins with volatile reads on byte {@code offset} of {@code mr} until it holds {@code value}: how perftest's
     * {@code ib_write_lat} sees the peer's RDMA write arrive (the last byte of the message), without a CQ.
     */
    void awaitByte(MemoryRegion mr, long offset, byte value, String what) {
        long spins = 0;
        long start = 0;
        while (mr.getByteVolatile(offset) != value) {
            if ((++spins & 0xfffff) == 0) {
                start = checkTimeout(start, what, spins);
            }
        }
    }

    private long checkTimeout(long start, String what, long spins) {
        long now = System.nanoTime();
        if (start == 0) {
            return now;
        }
        if (now - start > TimeUnit.SECONDS.toNanos(WAIT_TIMEOUT_SECONDS)) {
            throw new IllegalStateException(description + ": " + what + ": nothing after " + spins + " polls in "
                    + WAIT_TIMEOUT_SECONDS + " s");
        }
        return start;
    }

    // ---------------------------------------------------------------- closing

    @Override
    public void close() {
        IllegalStateException failure = new IllegalStateException("closing " + description);
        if (cm != null) {
            try {
                a.id.disconnect();
                b.id.awaitDisconnected(CM_TIMEOUT);
                a.id.awaitDisconnected(CM_TIMEOUT);
            } catch (RuntimeException e) {
                failure.addSuppressed(e);
            }
        }
        closeEndpoints(failure, a, b);
        closeAll(failure, listener, cm, ownedContext);
        if (failure.getSuppressed().length > 0) {
            throw failure;
        }
    }

    private static void closeEndpoints(Throwable into, Endpoint... endpoints) {
        for (Endpoint e : endpoints) {
            if (e != null) {
                e.close(into);
            }
        }
    }

    @Override
    public String toString() {
        return description;
    }
}
