package org.verbs4j.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.verbs4j.api.Access;
import org.verbs4j.api.AddressVector;
import org.verbs4j.api.CompletionChannel;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.DeviceAttributes;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.FabricOptions;
import org.verbs4j.api.GidEntry;
import org.verbs4j.api.LinkLayer;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.PortAttributes;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.QpConnector;
import org.verbs4j.api.QpInitAttributes;
import org.verbs4j.api.QpState;
import org.verbs4j.api.QpType;
import org.verbs4j.api.QueuePair;
import org.verbs4j.api.Rdma;
import org.verbs4j.api.SharedReceiveQueue;
import org.verbs4j.api.TransportType;
import org.verbs4j.api.WcFlags;
import org.verbs4j.api.WcOpcode;
import org.verbs4j.api.WcStatus;
import org.verbs4j.api.WorkCompletions;
import org.verbs4j.api.spi.AbstractResource;

/**
 * Test fixture: two RC queue pairs of one lab device, connected to each other, each with its own completion
 * queue (sends and receives of that QP), completion channel and registered buffer. Side {@link #a} is the
 * rdma_cm client, {@link #b} the server.
 *
 * <p>How they are connected depends on the device's transport, never on its name: an InfiniBand-transport
 * device (InfiniBand, RoCE: rxe) is wired by hand with {@link QpConnector} (each QP's peer the other, at the
 * port's own address; the fabric provider gives the fabric rules), both QPs in this process' own context; an iWARP device (siw) can only connect through
 * rdma_cm, so the pair comes from {@link CmLoopback} on the device's IP address, with the CQs, channels
 * and SRQ created here on the CM's own context and PD. On iWARP the client (A) must send first.
 *
 * <p>{@link #close()} closes everything in reverse order and fails when any object made from the context
 * is still open (a leak).
 */
public final class QpPair implements AutoCloseable {
    public static final int PORT = 1;
    public static final int PSN_A = 0x1a2b3c;
    public static final int PSN_B = 0x0c0ffe;
    /** How long a test waits for completions. The lab VM is ~25x slower than a host. */
    public static final long WAIT_MILLIS = 30_000;

    /** The lab devices: tests parameterised over this run on every fabric, the RoCE one first. */
    public static List<String> devices() {
        return Lab.devices();
    }

    /** What to create; defaults suit the functional tests. */
    public static final class Options {
        public int sendWr = 64;
        public int recvWr = 64;
        public int sge = 4;
        public int inline = 64;
        public int cqEntries;
        public int bufferSize = 64 * 1024;
        public boolean srq;
        public int srqWr = 64;
        public boolean channels = true;
        /** The transport timers; unset (-1) means the fabric's defaults. */
        public final FabricOptions fabric = FabricOptions.defaults();
        public int rdAtomic = 16;

        /** Send and receive queue depths, and the CQ size (0: both queues' depth + 16). */
        public Options queues(int sendWrs, int recvWrs, int cqSize) {
            sendWr = sendWrs;
            recvWr = recvWrs;
            cqEntries = cqSize;
            return this;
        }

        /** Inline data bytes of each QP and bytes of each registered buffer. */
        public Options buffers(int inlineBytes, int bufferBytes) {
            inline = inlineBytes;
            bufferSize = bufferBytes;
            return this;
        }

        /** Both QPs take their receives from one SRQ of {@code wr} entries. */
        public Options srq(int wr) {
            srq = true;
            srqWr = wr;
            return this;
        }

        /** RNR retry count and minimum RNR NAK timer instead of the fabric's defaults. */
        public Options rnr(int retry, int minTimer) {
            fabric.rnrRetry(retry).minRnrTimer(minTimer);
            return this;
        }

        public int cq() {
            return cqEntries > 0 ? cqEntries : sendWr + recvWr + 16;
        }
    }

    /** One end: its QP, its CQ (send and receive), the CQ's channel, and its buffer. */
    public static final class Side {
        public final String name;
        public QueuePair qp;
        public CompletionQueue cq;
        public CompletionChannel channel;
        public MemoryRegion mr;

        Side(String name) {
            this.name = name;
        }

        @Override
        public String toString() {
            return name + (qp != null ? " qp 0x" + Integer.toHexString(qp.qpNumber()) : "");
        }
    }

    public final String device;
    public final Options options;
    public final DeviceContext ctx;
    public final ProtectionDomain pd;
    public final DeviceAttributes attrs;
    public final TransportType transport;
    public final Side a = new Side("A");
    public final Side b = new Side("B");
    public SharedReceiveQueue srq;
    /** The rdma_cm fixture of an iWARP pair, else null. */
    private final CmLoopback cm;
    /** Access flags of the buffers (and of the QPs, wired by hand): atomics only where the device has them. */
    public final int access;

    private QpPair(String device, Options o, DeviceContext ctx, ProtectionDomain pd, CmLoopback cm) {
        this.device = device;
        this.options = o;
        this.ctx = ctx;
        this.pd = pd;
        this.cm = cm;
        this.attrs = ctx.queryDevice();
        this.transport = ctx.device().transportType();
        this.access = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ
                | (attrs.supportsAtomics() ? Access.REMOTE_ATOMIC : 0);
    }

    public static QpPair open(String device) {
        return open(device, new Options());
    }

    public static QpPair open(String device, Options o) {
        TransportType t = Rdma.device(device).transportType();
        if (t == TransportType.IWARP) {
            return openThroughCm(device, o);
        }
        return openByHand(device, o);
    }

    @Override
    public String toString() {
        return device + " " + a + " <-> " + b + (cm != null ? " (rdma_cm)" : " (wired by hand)");
    }

    // ---------------------------------------------------------------- InfiniBand transport: wired by hand

    private static QpPair openByHand(String device, Options o) {
        DeviceContext ctx = Rdma.open(device);
        QpPair p = null;
        try {
            ProtectionDomain pd = ctx.allocProtectionDomain();
            p = new QpPair(device, o, ctx, pd, null);
            p.createQueues(ctx, pd);
            p.a.qp = pd.createQueuePair(p.initAttributes(p.a));
            p.b.qp = pd.createQueuePair(p.initAttributes(p.b));
            QpConnector ca = p.connector(p.a.qp, PSN_A);
            QpConnector cb = p.connector(p.b.qp, PSN_B);
            ca.connect(cb.localEndpoint());
            cb.connect(ca.localEndpoint());
            p.allocateBuffers();
            return p;
        } catch (RuntimeException | Error e) {
            abandon(p, e, ctx);
            throw e;
        }
    }

    /** RESET -> INIT with the buffers' remote access and the READ/atomic depth the device allows. */
    private QpConnector connector(QueuePair qp, int psn) {
        int rd = Math.max(1, Math.min(options.rdAtomic, Math.min(attrs.maxQpRdAtom(), attrs.maxQpInitRdAtom())));
        return QpConnector.builder(ctx, qp).port(PORT).options(options.fabric).access(access).rdAtomic(rd).psn(psn)
                .prepare();
    }

    /** This port's own address: the IPv4-mapped RoCE v2 GID on Ethernet, the LID on InfiniBand. */
    public static AddressVector ownAddress(DeviceContext ctx) {
        PortAttributes port = ctx.queryPort(PORT);
        assertTrue(port.isActive(), ctx.device().name() + " port " + PORT + " is " + port.state().text());
        if (port.linkLayer() != LinkLayer.ETHERNET) {
            return AddressVector.local(PORT, port.lid());
        }
        GidEntry gid = roceV2Gid(ctx);
        return AddressVector.global(PORT, gid.gid(), gid.index());
    }

    /** The IPv4-mapped RoCE v2 entry of port 1's GID table (index {@code $FABRIC_LAB_RXE_GID_INDEX} in the lab). */
    public static GidEntry roceV2Gid(DeviceContext ctx) {
        for (GidEntry e : ctx.queryGidTable()) {
            if (e.port() == PORT && e.type() == org.verbs4j.api.GidType.ROCE_V2 && e.gid().isIpv4Mapped()) {
                return e;
            }
        }
        throw new AssertionError(ctx.device().name() + " has no IPv4-mapped RoCE v2 GID: " + ctx.queryGidTable());
    }

    // ---------------------------------------------------------------- iWARP: through rdma_cm

    /** The IP address of the lab netdev that carries {@code device} (the lab pairs the variables). */
    public static InetAddress ipOf(String device) {
        String ip = null;
        if (device.equals(System.getenv("FABRIC_LAB_SIW_DEV"))) {
            ip = Lab.env("FABRIC_LAB_SIW_IP");
        } else if (device.equals(System.getenv("FABRIC_LAB_RXE_DEV"))) {
            ip = Lab.env("FABRIC_LAB_RXE_IP");
        }
        if (ip == null) {
            throw new AssertionError("no FABRIC_LAB_*_IP pairs with device " + device);
        }
        try {
            return InetAddress.getByName(ip);
        } catch (UnknownHostException e) {
            throw new AssertionError(ip, e);
        }
    }

    public static int nextCmPort() {
        return TestPorts.next();
    }

    /**
     * Connects through {@link CmLoopback}: it creates the QPs on its rdma_cm ids, in its own device context and
     * PD; the {@link CmLoopback.Setup} callback creates this pair's CQs, channels and SRQ there.
     */
    private static QpPair openThroughCm(String device, Options o) {
        QpPair[] made = new QpPair[1];
        CmLoopback.Setup setup = (ctx, pd, server) -> {
            if (made[0] == null) {
                made[0] = new QpPair(device, o, ctx, pd, null);
            }
            QpPair p = made[0];
            Side s = server ? p.b : p.a;
            if (p.srq == null && o.srq) {
                p.srq = pd.createSharedReceiveQueue(o.srqWr, o.sge, 0);
            }
            p.createQueues(s, ctx);
            return p.initAttributes(s);
        };
        CmLoopback cm;
        try {
            cm = CmLoopback.connect(ipOf(device), nextCmPort(), setup, o.rdAtomic, o.rdAtomic);
        } catch (RuntimeException | Error e) {
            if (made[0] != null) {
                made[0].closeOwnQuietly(e);
                closeAllQuietly(e, made[0].pd, made[0].ctx);
            }
            throw e;
        }
        QpPair p = null;
        try {
            p = new QpPair(device, o, cm.context(), cm.protectionDomain(), cm);
            QpPair setupMade = made[0];
            assertTrue(setupMade != null, "CmLoopback did not call Setup.create");
            assertEquals(device, p.ctx.device().name(), "CmLoopback connected on another device than the one owning "
                    + ipOf(device));
            copySide(setupMade.a, p.a);
            copySide(setupMade.b, p.b);
            p.srq = setupMade.srq;
            p.a.qp = cm.client();
            p.b.qp = cm.server();
            if (p.transport == TransportType.IB) {
                // siw on Linux 6.1 leaves qp_state out of ibv_query_qp (reads RESET): only asserted on IB transport
                assertEquals(QpState.RTS, p.a.qp.state(), "client QP after CmLoopback.connect");
                assertEquals(QpState.RTS, p.b.qp.state(), "server QP after CmLoopback.connect");
            }
            p.allocateBuffers();
            return p;
        } catch (RuntimeException | Error e) {
            abandon(p, e, cm, () -> made[0].closeOwnQuietly(e), cm::closeDomain);
            throw e;
        }
    }

    private static void copySide(Side from, Side to) {
        to.cq = from.cq;
        to.channel = from.channel;
    }

    // ---------------------------------------------------------------- creation

    private void createQueues(DeviceContext c, ProtectionDomain p) {
        if (options.srq) {
            srq = p.createSharedReceiveQueue(options.srqWr, options.sge, 0);
        }
        createQueues(a, c);
        createQueues(b, c);
    }

    private void createQueues(Side s, DeviceContext c) {
        if (options.channels) {
            s.channel = c.createCompletionChannel();
        }
        s.cq = c.createCompletionQueue(options.cq(), s.channel, 0);
    }

    public QpInitAttributes initAttributes(Side s) {
        QpInitAttributes ia = new QpInitAttributes(QpType.RC, s.cq, s.cq).maxSendWr(options.sendWr)
                .maxRecvWr(options.recvWr).maxSendSge(options.sge).maxRecvSge(options.sge)
                .maxInlineData(options.inline);
        if (srq != null) {
            ia.srq(srq);
        }
        return ia;
    }

    private void allocateBuffers() {
        a.mr = pd.allocateMemory(options.bufferSize, access);
        b.mr = pd.allocateMemory(options.bufferSize, access);
    }

    // ---------------------------------------------------------------- closing

    /**
     * Closes everything, children first, and fails when the context still has open children afterwards:
     * every object a test made from {@link #pd} or {@link #ctx} must be closed by the test.
     */
    @Override
    public void close() {
        if (cm == null) {
            close(a.mr, b.mr, a.qp, b.qp, srq, a.cq, b.cq, a.channel, b.channel);
            List<AbstractResource> left = new ArrayList<>(((AbstractResource) ctx).openChildren());
            left.remove(pd);
            left.addAll(((AbstractResource) pd).openChildren());
            if (!left.isEmpty()) {
                fail(this + ": objects still open at the end of the test (a leak): " + left);
            }
            close(pd);
            assertEquals(List.of(), ((AbstractResource) ctx).openChildren(), "context children after close");
            ctx.close();
            assertTrue(ctx.isClosed() && pd.isClosed() && a.qp.isClosed() && b.qp.isClosed() && a.cq.isClosed()
                    && b.cq.isClosed() && a.mr.isClosed() && b.mr.isClosed(), "everything closed");
        } else {
            close(a.mr, b.mr);
            List<AbstractResource> left = new ArrayList<>(((AbstractResource) pd).openChildren());
            left.remove(a.qp);
            left.remove(b.qp);
            left.remove(srq);
            if (!left.isEmpty()) {
                fail(this + ": objects still open in the CM's PD at the end of the test (a leak): " + left);
            }
            // CmLoopback destroys its QPs and ids; what the setup created here is ours to close, then its PD
            cm.close();
            assertTrue(a.qp.isClosed() && b.qp.isClosed(), "CmLoopback.close() closes its QPs");
            close(srq, a.cq, b.cq, a.channel, b.channel);
            List<AbstractResource> ctxLeft = new ArrayList<>(((AbstractResource) ctx).openChildren());
            ctxLeft.remove(pd);
            if (!ctxLeft.isEmpty() || !((AbstractResource) pd).openChildren().isEmpty()) {
                fail(this + ": objects still open in the CM's context at the end of the test (a leak): " + ctxLeft
                        + " " + ((AbstractResource) pd).openChildren());
            }
            cm.closeDomain();
            assertTrue(pd.isClosed() && ctx.isClosed(), "CM's PD and context closed");
        }
    }

    private static void close(AutoCloseable... all) {
        for (AutoCloseable c : all) {
            if (c != null) {
                try {
                    c.close();
                } catch (RuntimeException | Error e) {
                    throw e;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        }
    }

    /** After a failure: closes what it can, keeps the first failure. */
    public void closeQuietly(Throwable first) {
        try {
            if (cm != null) {
                closeAllQuietly(first, a.mr, b.mr, cm, srq, a.cq, b.cq, a.channel, b.channel);
                cm.closeDomain();
            } else {
                closeAllQuietly(first, a.mr, b.mr, a.qp, b.qp, srq, a.cq, b.cq, a.channel, b.channel, pd, ctx);
            }
        } catch (RuntimeException e) {
            first.addSuppressed(e);
        }
    }

    private void closeOwnQuietly(Throwable first) {
        closeAllQuietly(first, a.qp, b.qp, srq, a.cq, b.cq, a.channel, b.channel);
    }

    /** A failed open: closes the pair when it was made, otherwise {@code before} (what was made before it), in order. */
    private static void abandon(QpPair p, Throwable first, AutoCloseable... before) {
        if (p != null) {
            p.closeQuietly(first);
        } else {
            closeAllQuietly(first, before);
        }
    }

    public static void closeAllQuietly(Throwable first, AutoCloseable... all) {
        for (AutoCloseable c : all) {
            if (c != null) {
                try {
                    c.close();
                } catch (Exception e) {
                    if (first != null) {
                        first.addSuppressed(e);
                    }
                }
            }
        }
    }

    // ---------------------------------------------------------------- completions

    /** One work completion, copied out of a {@link WorkCompletions} slot. */
    public record Wc(long wrId, WcStatus status, int statusValue, WcOpcode opcode, int byteLen, int imm, int flags, int qpNum,
            int srcQp, int vendorErr) {
        public static Wc of(WorkCompletions wc, int i) {
            boolean ok = wc.ok(i);
            return new Wc(wc.wrId(i), wc.status(i), wc.statusValue(i), ok ? wc.opcode(i) : null, wc.byteLength(i),
                    wc.hasImmData(i) ? wc.immData(i) : 0, wc.flags(i), wc.qpNum(i), wc.srcQp(i), wc.vendorError(i));
        }

        public boolean ok() {
            return status == WcStatus.SUCCESS;
        }

        public boolean hasImm() {
            return (flags & WcFlags.WITH_IMM) != 0;
        }

        @Override
        public String toString() {
            return "wc[wr_id " + wrId + ", " + (status != null ? status + " (" + status.text() + ")" : "status " + statusValue)
                    + (opcode != null ? ", " + opcode : "") + ", byte_len " + byteLen + ", qp 0x" + Integer.toHexString(qpNum)
                    + (hasImm() ? ", imm 0x" + Integer.toHexString(imm) : "") + ", flags " + flags
                    + (srcQp != 0 ? ", src_qp 0x" + Integer.toHexString(srcQp) : "")
                    + (vendorErr != 0 ? ", vendor_err 0x" + Integer.toHexString(vendorErr) : "") + "]";
        }
    }

    /** Polls {@code cq} until {@code n} completions arrived; fails after {@link #WAIT_MILLIS} with what came. */
    public static List<Wc> take(CompletionQueue cq, int n) {
        return take(cq, n, WAIT_MILLIS);
    }

    public static List<Wc> take(CompletionQueue cq, int n, long millis) {
        List<Wc> got = new ArrayList<>();
        try (WorkCompletions wc = WorkCompletions.allocate(16)) {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
            while (got.size() < n) {
                int k = cq.poll(wc, Math.min(16, n - got.size()));
                for (int i = 0; i < k; i++) {
                    got.add(Wc.of(wc, i));
                }
                if (k == 0) {
                    if (System.nanoTime() - deadline > 0) {
                        fail(cq + ": " + got.size() + " of " + n + " completions after " + millis + " ms: " + got);
                    }
                    Thread.onSpinWait();
                }
            }
        }
        return got;
    }

    /** The single next completion. */
    public static Wc takeOne(CompletionQueue cq) {
        return take(cq, 1).get(0);
    }

    /** Polls for {@code millis} and returns whatever came (maybe nothing). */
    public static List<Wc> drain(CompletionQueue cq, long millis) {
        List<Wc> got = new ArrayList<>();
        try (WorkCompletions wc = WorkCompletions.allocate(16)) {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
            do {
                int k = cq.poll(wc);
                for (int i = 0; i < k; i++) {
                    got.add(Wc.of(wc, i));
                }
                if (k == 0) {
                    sleep(1);
                }
            } while (System.nanoTime() - deadline < 0);
        }
        return got;
    }

    /**
     * On iWARP, waits until the RDMA Writes {@code qp} posted before are placed at the peer: an 8-byte RDMA Read
     * of {@code rkey}'s {@code remoteAddress} into {@code local} at {@code localOffset}, behind them. An iWARP
     * Write completes at the requester once it is handed to TCP (RFC 5040: local completion says nothing about
     * remote placement; siw completes before placing), and a Read Request is served only after the Writes before
     * it on the connection were placed. Does nothing on InfiniBand transports, where the Write's ACK meant placement.
     * Takes the Read's completion from {@code cq}, which must hold no other.
     */
    public static void awaitWritesPlaced(QueuePair qp, CompletionQueue cq, MemoryRegion local, long localOffset,
            long remoteAddress, int rkey) {
        if (qp.protectionDomain().context().device().transportType() != TransportType.IWARP) {
            return;
        }
        try (org.verbs4j.api.SendRequests s = org.verbs4j.api.SendRequests.allocate(1, 1)) {
            s.at(0).wrId(0xFE7CEL).opcode(org.verbs4j.api.Opcode.RDMA_READ).flags(org.verbs4j.api.SendFlags.SIGNALED)
                    .sge(local.address() + localOffset, 8, local.lkey()).rdma(remoteAddress, rkey);
            qp.postSend(s);
            Wc w = take(cq, 1).get(0);
            assertEquals(WcStatus.SUCCESS, w.status(), "the fence read behind the writes: " + w);
            assertEquals(0xFE7CEL, w.wrId(), "the fence read behind the writes: " + w);
        }
    }

    /**
     * The {@code expected.length} bytes of {@code mr} at {@code offset}, once they equal {@code expected} or after
     * {@link #WAIT_MILLIS}: for a target of RDMA Writes on iWARP where no fence read can reach it (see
     * {@link #awaitWritesPlaced}); on InfiniBand transports read at once, the Write's ACK meant placement.
     */
    public static byte[] awaitBytes(MemoryRegion mr, long offset, byte[] expected) {
        boolean iwarp = mr.protectionDomain().context().device().transportType() == TransportType.IWARP;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
        byte[] got = mr.getBytes(offset, expected.length);
        while (iwarp && !java.util.Arrays.equals(expected, got) && System.nanoTime() - deadline < 0) {
            sleep(1);
            got = mr.getBytes(offset, expected.length);
        }
        return got;
    }

    /** Waits until {@code qp} reports {@code state} (some devices move to ERR asynchronously). */
    public static QpState awaitState(QueuePair qp, QpState state, long millis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        QpState s;
        while ((s = qp.state()) != state && System.nanoTime() - deadline < 0) {
            sleep(5);
        }
        return s;
    }

    public static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** A recognisable byte pattern: {@code seed} mixed with the index. */
    public static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (seed * 31 + i * 7 + (i >>> 8));
        }
        return b;
    }
}
