package org.verbs4j.bench.perf;

import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import org.verbs4j.api.Access;
import org.verbs4j.api.CompletionChannel;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.DeviceAttributes;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.Gid;
import org.verbs4j.api.GidEntry;
import org.verbs4j.api.LinkLayer;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.Mtu;
import org.verbs4j.api.PortAttributes;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.QpAttrMask;
import org.verbs4j.api.QpConnector;
import org.verbs4j.api.QpEndpoint;
import org.verbs4j.api.QpInitAttributes;
import org.verbs4j.api.QpType;
import org.verbs4j.api.QueuePair;
import org.verbs4j.api.Rdma;
import org.verbs4j.api.RdmaDevice;
import org.verbs4j.api.TransportType;
import org.verbs4j.api.VerbsException;
import org.verbs4j.api.cm.CmException;
import org.verbs4j.api.cm.CmId;
import org.verbs4j.api.cm.ConnectionManager;
import org.verbs4j.api.cm.ConnectionParameters;
import org.verbs4j.api.cm.ConnectionRequest;
import org.verbs4j.api.FabricOptions;
import org.verbs4j.api.spi.FabricProvider;
import org.verbs4j.api.spi.Fabrics;

/**
 * One verbs4j-perf run's resources and connection, as perftest sets them up: a PD, a send CQ and a receive
 * CQ, one registered buffer and an RC queue pair, connected either by hand over the TCP channel (LID, QPN,
 * PSN and GID exchanged, then INIT/RTR/RTS with {@link QpConnector}: timeout {@code -u}, the fabric's retry
 * counts and RNR timer, which are perftest's) or with rdma_cm ({@code -R}, on port {@code -p}, after the
 * exchange's own rdma_cm connection).
 *
 * <p>The buffer has two halves of {@link #slot} bytes: the first is what this side sends from (or reads
 * into), the second is what it advertises to the peer (the target of the peer's writes and reads, the
 * receive buffer of sends). After them, one 64-byte word holds send_bw's receive credits on fabrics without
 * RNR retry (iWARP): a 32-bit count in native byte order, as perftest's {@code credit_buf}.
 */
final class PerfSession implements AutoCloseable {
    static final Duration CM_TIMEOUT = Duration.ofSeconds(60);
    static final int CREDIT_BYTES = 64;

    final PerfOptions o;
    final PrintStream out;
    final PerfChannel channel;

    ConnectionManager cm;
    CmId id;
    DeviceContext ctx;
    private boolean ownContext;
    ProtectionDomain pd;
    CompletionQueue sendCq;
    CompletionQueue recvCq;
    /** {@code -e}: the queues' completion channels, as perftest's (null without events). */
    CompletionChannel sendChannel;
    CompletionChannel recvChannel;
    MemoryRegion mr;
    QueuePair qp;
    FabricProvider fabric;
    PortAttributes port;
    GidEntry sourceGid;

    long slot;
    int inlineSize;
    int outReads;
    Mtu mtu;
    int psn;
    PerfWire.Keys local;
    PerfWire.Keys remote;

    PerfSession(PerfOptions o, PrintStream out, PerfChannel channel) {
        this.o = o;
        this.out = out;
        this.channel = channel;
        long largest = o.largestSize();
        this.slot = Math.max(4096, (largest + 4095) / 4096 * 4096);
    }

    /** Where this side's source (send / read sink) half starts. */
    long sendAddress() {
        return mr.address();
    }

    /** Where this side's advertised (receive / write target / read source) half starts. */
    long targetAddress() {
        return mr.address() + slot;
    }

    /** The credit word's offset in the buffer (send_bw without RNR retry); the client advertises it. */
    long creditOffset() {
        return 2 * slot;
    }

    /** True when send_bw needs receive credits: the fabric has no RNR retry (iWARP). */
    boolean useCredits() {
        return o.test == PerfTest.SEND_BW && fabric != null && !fabric.hasRnrRetry();
    }

    String deviceName() {
        return ctx.device().name();
    }

    // ---- set-up ----

    /**
     * Creates everything and connects: {@code beforeConnect} runs once the QP exists and before the peer
     * can send (post the receives there), {@code header} prints the header block at perftest's place.
     */
    void connect(Runnable beforeConnect, Runnable header) {
        if (o.rdmaCm) {
            connectWithCm(beforeConnect, header);
        } else {
            connectByHand(beforeConnect, header);
        }
        out.println(PerfFormat.addressLine(true, local.lid(), local.qpn(), local.psn(), o.test, local.outReads(),
                local.rkey(), local.vaddr()));
        if (local.gid() != null) {
            out.println(PerfFormat.gidLine(local.gid()));
        }
        out.println(PerfFormat.addressLine(false, remote.lid(), remote.qpn(), remote.psn(), o.test, remote.outReads(),
                remote.rkey(), remote.vaddr()));
        if (remote.gid() != null) {
            out.println(PerfFormat.gidLine(remote.gid()));
        }
        out.println(PerfFormat.RESULT_LINE);
        out.flush();
    }

    private void connectByHand(Runnable beforeConnect, Runnable header) {
        RdmaDevice device = findDevice(o);
        ctx = device.open();
        ownContext = true;
        port = ctx.queryPort(o.ibPort);
        fabric = Fabrics.forPort(device, port, null);
        if (!fabric.supportsManualConnection()) {
            throw new PerfFailure(device.name() + " is an " + (device.transportType() == TransportType.IWARP ? "iWARP"
                    : fabric.name()) + " device: its queue pairs connect through rdma_cm only, not by a hand exchange of"
                    + " QPN/PSN/GID. Run both sides with -R (rdma_cm; give the client the server's IP address on that device).");
        }
        Mtu ours = o.mtu > 0 ? Mtu.ofBytes(o.mtu) : port.activeMtu() != null ? port.activeMtu() : Mtu.MTU_1024;
        Mtu agreed = Mtu.of(channel.start(ours.value()));
        checkPort();
        sourceGid = chooseGid();
        createResources();
        QpConnector connector = QpConnector.builder(ctx, qp).port(o.ibPort).options(manualOptions())
                .access(o.uc ? Access.REMOTE_WRITE : Access.REMOTE_WRITE | Access.REMOTE_READ)
                .rdAtomic(o.test.verb == PerfTest.Verb.READ ? outReads : 1)
                .prepare();
        psn = connector.psn();
        beforeConnect.run();
        header.run();
        local = keys(port.lid(), qp.qpNumber(), psn, sourceGid == null ? null : sourceGid.gid());
        for (int i = 0; i < o.test.keyHandshakes(); i++) {
            sync("key exchange");
        }
        checkGidCompatibility();
        // -m sets the path MTU; perftest's check_mtu: the smaller of both ends' MTUs
        mtu = connector.connect(new QpEndpoint(remote.lid(), remote.qpn(), remote.psn(),
                remote.gid() == null ? Gid.ZERO : remote.gid()), agreed);
        // perftest's handshakes after ctx_connect: neither side sends before both QPs are in RTS
        sync("connect");
        sync("connect");
    }

    /** perftest's {@code ctx_check_gid_compatibility}: both GIDs IPv4-mapped, or neither. */
    private void checkGidCompatibility() {
        if (local.gid() != null && remote.gid() != null && ipv4Mapped(local.gid()) != ipv4Mapped(remote.gid())) {
            throw new PerfFailure("Found Incompatibility issue with GID types: this side's GID " + local.gid()
                    + " and the peer's " + remote.gid() + " are not both IPv4 (or both IPv6); use a GID index (-x) of"
                    + " the same IP version on both sides");
        }
    }

    static boolean ipv4Mapped(Gid g) {
        byte[] b = g.raw();
        for (int i = 0; i < 10; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return b[10] == (byte) 0xff && b[11] == (byte) 0xff;
    }

    /** perftest's {@code ctx_hand_shake}: our keys for the peer's, at {@code what}. */
    void sync(String what) {
        remote = channel.handshake(local, what);
    }

    /** The fabric options of a manual connection: {@code -x}, {@code -S}, {@code -m} and {@code -u}. */
    private FabricOptions manualOptions() {
        FabricOptions fo = FabricOptions.defaults().serviceLevel(o.sl).timeout(o.qpTimeout);
        if (o.gidIndex >= 0) {
            fo.gidIndex(o.gidIndex);
        }
        if (o.mtu > 0) {
            fo.mtu(Mtu.ofBytes(o.mtu));
        }
        return fo;
    }

    /**
     * {@code -R}, as perftest's {@code create_rdma_cm_connection}: the exchange runs over its own rdma_cm
     * connection ({@link PerfCmLink}, already connected), in perftest's binary format; after a handshake the
     * queue pair connects through rdma_cm on the same port {@code -p}, then another handshake. The server takes
     * the request from the exchange's listener; the client retries a failed connection as {@link CmConnectRetry}
     * says (a C perftest server listens again only after that handshake).
     */
    private void connectWithCm(Runnable beforeConnect, Runnable header) {
        PerfCmLink link = channel.cmLink();
        cm = link.cm();
        PortAttributes commPort = link.context().queryPort(o.ibPort);
        Mtu ours = o.mtu > 0 ? Mtu.ofBytes(o.mtu) : commPort.activeMtu() != null ? commPort.activeMtu() : Mtu.MTU_1024;
        Mtu agreed = Mtu.of(channel.start(ours.value()));
        local = new PerfWire.Keys(0, 0, 0, 0, 0, 0, Gid.ZERO, 0);
        // perftest's sync before the rdma_cm connection: its server listens again only after it
        sync("start of rdma_cm");
        if (!o.isClient()) {
            ConnectionRequest req = link.listener().awaitRequest(CM_TIMEOUT);
            id = req.id();
            ctx = id.context();
            if (o.device != null && !o.device.equals(ctx.device().name())) {
                id.reject(null);
                throw new PerfFailure("the rdma_cm request arrived on " + ctx.device().name() + ", not on -d " + o.device
                        + ": give the client the IP address of " + o.device + "'s netdev");
            }
            setUpCmResources();
            mtu = agreed;
            // perftest prints the header before it waits for the request; verbs4j-perf needs the request's
            // device for it, so the header (with its "Waiting for client rdma_cm QP" lines) comes now
            header.run();
            beforeConnect.run();
            id.accept(cmParameters());
            id.awaitEstablished(CM_TIMEOUT);
        } else {
            InetAddress host;
            try {
                host = InetAddress.getByName(o.serverHost);
            } catch (UnknownHostException e) {
                throw new PerfFailure("unknown host " + o.serverHost);
            }
            CmConnectRetry retry = new CmConnectRetry(PerfChannel.CONNECT_RETRY_MILLIS);
            boolean first = true;
            while (true) {
                id = cm.createId();
                if (o.tos >= 0) {
                    id.setTypeOfService(o.tos);
                }
                id.resolveAddress(new InetSocketAddress(host, o.port), CM_TIMEOUT);
                id.resolveRoute(CM_TIMEOUT);
                ctx = id.context();
                if (o.device != null && !o.device.equals(ctx.device().name())) {
                    throw new PerfFailure(o.serverHost + " is reached through " + ctx.device().name() + ", not through -d "
                            + o.device + ": give the IP address of a netdev of " + o.device);
                }
                setUpCmResources();
                mtu = agreed;
                if (first) {
                    header.run();
                    first = false;
                }
                beforeConnect.run();
                try {
                    id.connect(cmParameters(), CM_TIMEOUT);
                    break;
                } catch (CmException e) {
                    if (!retry.again(e)) {
                        throw new PerfFailure("the test's rdma_cm connection to " + o.serverHost + ":" + o.port
                                + " failed (" + retry.describe() + "; the last: " + e.getMessage() + ")");
                    }
                    // a new id and queue pair for the next try, as perftest's client does
                    releaseCmResources();
                    PerfChannel.sleep(100);
                }
            }
        }
        sync("end of rdma_cm");
        local = keys(0, qp.qpNumber(), queriedPsn(), sourceGid == null ? Gid.ZERO : sourceGid.gid());
        for (int i = 0; i < o.test.keyHandshakes(); i++) {
            sync("key exchange");
        }
        sync("connect");
        sync("connect");
    }

    /** Closes what a refused test connection made (the id with its queue pair, the buffer, CQs and PD). */
    private void releaseCmResources() {
        closeQuietly(id);
        id = null;
        qp = null;
        closeQuietly(mr);
        mr = null;
        closeQuietly(sendCq);
        sendCq = null;
        closeQuietly(recvCq);
        recvCq = null;
        closeQuietly(sendChannel);
        sendChannel = null;
        closeQuietly(recvChannel);
        recvChannel = null;
        closeQuietly(pd);
        pd = null;
    }

    private void setUpCmResources() {
        port = ctx.queryPort(o.ibPort);
        fabric = Fabrics.forPort(ctx.device(), port, null);
        sourceGid = chooseGid();
        createResources();
        psn = 0;
    }

    private ConnectionParameters cmParameters() {
        int rd = o.test.verb == PerfTest.Verb.READ ? Math.min(255, outReads) : 1;
        // retry count 7 as perftest (the library's default is 6: Soft-RoCE retries forever with 7)
        return ConnectionParameters.defaults().withResponderResources(rd).withInitiatorDepth(rd).withRetryCount(7);
    }

    /** The send PSN rdma_cm chose, where the device reports it (siw before Linux 6.3 does not: 0 then). */
    private int queriedPsn() {
        try {
            return qp.query(QpAttrMask.SQ_PSN).sqPsn();
        } catch (RuntimeException e) {
            return 0;
        }
    }

    /**
     * This side's keys. send_bw with receive credits advertises the credit word instead of its buffer, as
     * perftest's {@code ctx_alloc_credit}: the server RDMA-writes its receive count to the client's word.
     */
    private PerfWire.Keys keys(int lid, int qpn, int psnValue, Gid gid) {
        long vaddr = useCredits() ? mr.address() + creditOffset() : targetAddress();
        return new PerfWire.Keys(lid, outReads, qpn, psnValue, mr.rkey(), vaddr, gid, 0);
    }

    /**
     * {@code -e -X}: perftest's check of the completion vector against the device, before anything reaches the peer.
     * With {@code -R} and no {@code -d} the device is known only once connected: {@link #createResources} checks then.
     */
    static void checkVectorEarly(PerfOptions o) {
        if (!o.events || o.eqNum == 0 || o.rdmaCm && o.device == null) {
            return;
        }
        try (DeviceContext c = findDevice(o).open()) {
            checkVector(c, o);
        }
    }

    private static void checkVector(DeviceContext c, PerfOptions o) {
        if (o.eqNum >= c.numCompVectors()) {
            throw new PerfFailure("Completion vector specified is invalid (-X " + o.eqNum + "): " + c.device().name()
                    + " has " + c.numCompVectors() + ", so the largest is " + (c.numCompVectors() - 1));
        }
    }

    private static RdmaDevice findDevice(PerfOptions o) {
        List<RdmaDevice> devices = Rdma.devices();
        if (devices.isEmpty()) {
            throw new PerfFailure("No IB devices found (is an RDMA driver loaded? check ibv_devices)");
        }
        if (o.device == null) {
            return devices.get(0);
        }
        for (RdmaDevice d : devices) {
            if (d.name().equals(o.device)) {
                return d;
            }
        }
        throw new PerfFailure("IB device " + o.device + " not found; there are: "
                + devices.stream().map(RdmaDevice::name).reduce((a, b) -> a + ", " + b).orElse(""));
    }

    private void checkPort() {
        if (!port.isActive()) {
            throw new PerfFailure(ctx.device().name() + " port " + o.ibPort + " is " + port.state().text()
                    + ", not ACTIVE");
        }
    }

    /** {@code -x}, else the fabric's choice (RoCE: the IPv4-mapped RoCE v2 GID), else none (IB inside a subnet). */
    private GidEntry chooseGid() {
        if (o.gidIndex >= 0) {
            return ctx.queryGidEntry(o.ibPort, o.gidIndex);
        }
        try {
            GidEntry g = fabric.sourceGid(port, ctx.queryGidTable(), FabricOptions.defaults());
            if (g == null && ctx.device().transportType() == TransportType.IWARP && port.gidTableLength() > 0) {
                // iWARP addresses by IP; perftest still shows GID 0 (from the netdev's MAC), and so does this
                g = ctx.queryGidEntry(o.ibPort, 0);
            }
            return g;
        } catch (RuntimeException e) {
            if (port.linkLayer() == LinkLayer.ETHERNET) {
                throw e;
            }
            return null;
        }
    }

    private void createResources() {
        DeviceAttributes dev = ctx.queryDevice();
        int maxReads = Math.max(1, Math.min(dev.maxQpRdAtom(), dev.maxQpInitRdAtom() > 0 ? dev.maxQpInitRdAtom()
                : dev.maxQpRdAtom()));
        outReads = o.outReads > 0 ? Math.min(o.outReads, maxReads) : maxReads;
        if (o.outReads > maxReads) {
            out.println(PerfFormat.RESULT_LINE);
            System.err.println(" Number of outstanding reads is above max = " + maxReads);
            System.err.println(" Changing to that max value");
        }
        mtu = port.activeMtu() != null ? port.activeMtu() : Mtu.MTU_1024;
        pd = ctx.allocProtectionDomain();
        int sendDepth = o.txDepth + (o.test == PerfTest.SEND_BW ? PerfOptions.DEF_TX_BW : 0);
        int recvDepth = o.test.verb == PerfTest.Verb.SEND ? o.rxDepth : 1;
        if (o.events) {
            checkVector(ctx, o);
            // perftest's: a channel per queue, both queues armed before the test (each event re-arms its queue)
            sendChannel = ctx.createCompletionChannel();
            recvChannel = ctx.createCompletionChannel();
            sendCq = ctx.createCompletionQueue(sendDepth + 1, sendChannel, o.eqNum);
            recvCq = ctx.createCompletionQueue(recvDepth + 1, recvChannel, o.eqNum);
            sendCq.requestNotify(false);
            recvCq.requestNotify(false);
        } else {
            sendCq = ctx.createCompletionQueue(sendDepth + 1);
            recvCq = ctx.createCompletionQueue(recvDepth + 1);
        }
        // iWARP places an RDMA READ response like a write: the sink needs REMOTE_WRITE (it has it here anyway)
        int access = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ | fabric.readSinkExtraAccess();
        mr = pd.allocateMemory(2 * slot + CREDIT_BYTES, access);
        mr.fill(0, mr.length(), (byte) 0);
        QpInitAttributes attrs = new QpInitAttributes(o.uc ? QpType.UC : QpType.RC, sendCq, recvCq).maxSendWr(sendDepth)
                .maxRecvWr(recvDepth).maxSendSge(1).maxRecvSge(1);
        if (o.inlineSize > 0) {
            attrs.maxInlineData(o.inlineSize);
        }
        try {
            qp = id != null ? id.createQueuePair(pd, attrs) : pd.createQueuePair(attrs);
        } catch (VerbsException e) {
            if (o.inlineSize <= 0) {
                throw e;
            }
            // a device with a smaller inline limit than perftest's default (siw: 104 bytes) refuses the QP;
            // verbs4j cannot read the limit beforehand (ibv_device_attr has none), so it falls back to no inline
            System.err.println("verbs4j-perf: " + ctx.device().name() + " refused max_inline_data " + o.inlineSize
                    + " (" + e.getMessage() + "); running without inline sends");
            attrs.maxInlineData(0);
            qp = id != null ? id.createQueuePair(pd, attrs) : pd.createQueuePair(attrs);
        }
        inlineSize = Math.min(o.inlineSize, qp.capabilities().maxInlineData());
    }

    /** The header block's values. */
    PerfFormat.Header headerValues(String deviceName, TransportType transport, LinkLayer link, int mtuBytes) {
        return new PerfFormat.Header(o.test, deviceName, transport == TransportType.IWARP ? "IW"
                : transport == TransportType.IB ? "IB" : "Unknown", o.isClient(), o.txDepth, o.rxDepth, o.cqMod, mtuBytes,
                link == LinkLayer.ETHERNET ? "Ethernet" : link == LinkLayer.INFINIBAND || link == LinkLayer.UNSPECIFIED ? "IB"
                        : "Unknown", sourceGid == null ? -1 : sourceGid.index(), inlineSize, outReads, o.rdmaCm, o.tos,
                o.events ? o.eqNum : -1, o.duplex, o.uc ? "UC" : "RC", o.postList);
    }

    @Override
    public void close() {
        if (id != null) {
            try {
                id.disconnect();
            } catch (RuntimeException ignored) {
                // the peer may have gone first
            }
        }
        closeQuietly(id);
        if (id == null) {
            closeQuietly(qp);
        }
        closeQuietly(mr);
        closeQuietly(sendCq);
        closeQuietly(recvCq);
        closeQuietly(sendChannel);
        closeQuietly(recvChannel);
        closeQuietly(pd);
        if (ownContext) {
            closeQuietly(ctx);
        }
        // with -R the manager is the exchange's (PerfCmLink), closed with the channel after this
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c != null) {
            try {
                c.close();
            } catch (Exception ignored) {
                // best effort at the end of a run
            }
        }
    }
}
