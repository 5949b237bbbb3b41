package org.verbs4j.bench;

import org.verbs4j.api.Access;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.FabricOptions;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.Mtu;
import org.verbs4j.api.PortAttributes;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.QpAttributes;
import org.verbs4j.api.QpConnector;
import org.verbs4j.api.QpEndpoint;
import org.verbs4j.api.QpInitAttributes;
import org.verbs4j.api.QpState;
import org.verbs4j.api.QpType;
import org.verbs4j.api.QueuePair;
import org.verbs4j.api.Rdma;
import org.verbs4j.api.TransportType;

/**
 * An RC queue pair connected to itself: one device, one PD, one CQ (send and receive), one registered
 * buffer. RDMA writes it posts go out through the device's whole transport (requester, wire or
 * loopback, responder, ACK) and land in its own buffer, so one thread can measure a post and its
 * completion without a peer process.
 *
 * <p>RoCE and InfiniBand only: an iWARP QP connects through rdma_cm and cannot be wired to itself.
 */
final class LoopbackQueuePair implements AutoCloseable {
    /** System property naming the device; default {@code $FABRIC_LAB_RXE_DEV}, else {@code rxe0}. */
    static final String DEVICE_PROPERTY = "verbs4j.device";
    /** System property overriding the GID index (RoCE); default: the port's IPv4-mapped RoCE v2 GID. */
    static final String GID_INDEX_PROPERTY = "verbs4j.gidIndex";
    static final int PORT = 1;
    private static final int PSN = 0x1234;

    final DeviceContext ctx;
    final ProtectionDomain pd;
    final CompletionQueue cq;
    final QueuePair qp;
    final MemoryRegion mr;
    final String description;

    // Made once: the reset path between JMH invocations then allocates nothing of its own.
    private final QpAttributes toReset = new QpAttributes().state(QpState.RESET);
    /** The connector's INIT attributes, reused after each RESET. */
    private final QpAttributes toInit;

    /**
     * Opens the device, creates everything and moves the QP to RTS.
     *
     * @param cqEntries  completion queue size (sends and receives share it)
     * @param maxSendWr  send queue depth
     * @param maxRecvWr  receive queue depth
     * @param bufferSize bytes of registered memory (local write, remote write and read)
     */
    LoopbackQueuePair(int cqEntries, int maxSendWr, int maxRecvWr, int bufferSize) {
        String name = deviceName();
        DeviceContext c = Rdma.open(name);
        ProtectionDomain p = null;
        CompletionQueue q = null;
        MemoryRegion m = null;
        QueuePair x = null;
        try {
            if (c.device().transportType() == TransportType.IWARP) {
                throw new IllegalArgumentException(name + " is an iWARP device: its QPs connect through rdma_cm "
                        + "and cannot be looped back to themselves; run with -D" + DEVICE_PROPERTY
                        + "=<a RoCE or IB device>");
            }
            PortAttributes port = c.queryPort(PORT);
            if (!port.isActive()) {
                throw new IllegalStateException(name + " port " + PORT + " is " + port.state().text() + ", not ACTIVE");
            }
            p = c.allocProtectionDomain();
            q = c.createCompletionQueue(cqEntries);
            m = p.allocateMemory(bufferSize, Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ);
            x = p.createQueuePair(new QpInitAttributes(QpType.RC, q, q)
                    .maxSendWr(maxSendWr).maxRecvWr(maxRecvWr).maxSendSge(1).maxRecvSge(1).maxInlineData(64));
            // Loopback: the destination is this QP, at this port's own address.
            QpConnector connector = prepare(c, x, Access.REMOTE_WRITE | Access.REMOTE_READ, PSN);
            connector.connect(connector.localEndpoint());
            this.toInit = connector.initAttributes();
            Mtu mtu = connector.pathMtu();
            String addressing = describeAddress(connector);
            this.description = name + " QP 0x" + Integer.toHexString(x.qpNumber()) + " -> itself, " + addressing
                    + ", path MTU " + mtu.bytes() + ", " + x.capabilities();
        } catch (RuntimeException e) {
            closeAll(e, x, m, q, p, c);
            throw e;
        }
        this.ctx = c;
        this.pd = p;
        this.cq = q;
        this.mr = m;
        this.qp = x;
    }

    /** {@code -Dverbs4j.device}, else {@code $FABRIC_LAB_RXE_DEV}, else {@code rxe0}. */
    static String deviceName() {
        String p = System.getProperty(DEVICE_PROPERTY);
        if (p != null && !p.isBlank()) {
            return p.trim();
        }
        String env = System.getenv("FABRIC_LAB_RXE_DEV");
        return env != null && !env.isBlank() ? env.trim() : "rxe0";
    }

    /**
     * RESET -> INIT of {@code qp} on port 1 with a {@link QpConnector}, the GID the fabric chooses (RoCE: the
     * IPv4-mapped RoCE v2 GID, what perftest's {@code -x} and the lab use) or {@code -Dverbs4j.gidIndex}.
     */
    static QpConnector prepare(DeviceContext c, QueuePair qp, int access, int psn) {
        FabricOptions options = FabricOptions.defaults();
        String forced = System.getProperty(GID_INDEX_PROPERTY);
        if (forced != null && !forced.isBlank()) {
            options.gidIndex(Integer.parseInt(forced.trim()));
        }
        return QpConnector.builder(c, qp).port(PORT).options(options).access(access).psn(psn).prepare();
    }

    /** How the connector's QP is addressed: its GID entry (RoCE), or the port's LID (InfiniBand). */
    static String describeAddress(QpConnector connector) {
        QpEndpoint me = connector.localEndpoint();
        return connector.addressVector(me).isGlobal() ? connector.sourceGid().toString() : "LID " + me.lid();
    }

    /**
     * Empties the QP's queues and leaves it in INIT, where receives may be posted: RESET discards every
     * posted request without a completion (the IB spec's transition to Reset), INIT. Measured on rxe
     * (kernel 6.1): 600 receives posted, RESET, INIT, 600 more accepted, no completion. ERR would empty
     * the queue too, but into the CQ, one flushed completion per receive to poll out again.
     */
    void resetToInit() {
        qp.modify(toReset);
        qp.modify(toInit);
    }

    @Override
    public void close() {
        IllegalStateException failure = new IllegalStateException("closing " + description);
        closeAll(failure, qp, mr, cq, pd, ctx);
        if (failure.getSuppressed().length > 0) {
            throw failure;
        }
    }

    /** Closes each non-null resource in order (children before parents); failures are added to {@code into}. */
    static void closeAll(Throwable into, AutoCloseable... resources) {
        for (AutoCloseable r : resources) {
            if (r == null) {
                continue;
            }
            try {
                r.close();
            } catch (Exception e) {
                into.addSuppressed(e);
            }
        }
    }

    @Override
    public String toString() {
        return description;
    }
}
