package org.verbs4j.examples;

import java.nio.ByteBuffer;
import java.util.List;
import org.verbs4j.api.Access;
import org.verbs4j.api.AddressVector;
import org.verbs4j.api.CompletionChannel;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.DeviceAttributes;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.FabricOptions;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.Mtu;
import org.verbs4j.api.PortAttributes;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.QpAttrMask;
import org.verbs4j.api.QpAttributes;
import org.verbs4j.api.QpCapabilities;
import org.verbs4j.api.QpConnector;
import org.verbs4j.api.QpInitAttributes;
import org.verbs4j.api.QpState;
import org.verbs4j.api.QpType;
import org.verbs4j.api.QueuePair;
import org.verbs4j.api.Rdma;
import org.verbs4j.api.RdmaDevice;
import org.verbs4j.api.ReceiveRequests;
import org.verbs4j.api.SendRequests;
import org.verbs4j.api.TransportType;
import org.verbs4j.examples.cli.CommandLine;
import org.verbs4j.examples.cli.Option;
import org.verbs4j.examples.cli.OptionParser;
import org.verbs4j.examples.cli.Values;
import org.verbs4j.api.WorkCompletions;
import org.verbs4j.examples.LoopbackChecks.Failure;

/**
 * Two RC queue pairs of one device, connected to each other by hand with {@link QpConnector} (RESET, INIT, RTR,
 * RTS), exercising
 * every opcode the device supports and checking what arrives, then a timed SEND/RECV ping-pong.
 * Usage: {@code examples/bin/loopback [-d DEVICE] [-g GID_INDEX] [-s SIZE] [-n ITERS]}.
 *
 * <p>Both QPs share one completion queue (with a completion channel) and one thread polls it, so this is a
 * loopback inside one device: nothing crosses a wire. iWARP QPs cannot be connected by hand (only through
 * rdma_cm), so on an iWARP device the example says so and exits with 2.
 *
 * <p>Exit status: 0 when every check passed, 1 when one failed, 2 for usage errors and devices it cannot use.
 */
public final class Loopback {
    private static final int PORT = 1;

    private final int size;
    private final int iters;
    private final LoopbackChecks checks = new LoopbackChecks();

    private Loopback(int size, int iters) {
        this.size = size;
        this.iters = iters;
    }

    static final Option<String> DEVICE = Option.of('d', "ib-dev", "DEVICE", Values.string(), null,
            "use device DEVICE").defaultText("the first InfiniBand or RoCE device");
    static final Option<Integer> GID_INDEX = Option.of('g', "gid-idx", "GID_INDEX", Values.intIn(0, 65535), -1,
            "source GID index on RoCE").defaultText("the IPv4-mapped RoCE v2 GID of port 1");
    static final Option<Integer> SIZE = Option.of('s', "size", "SIZE", Values.intIn(8, 1 << 28), 1024,
            "message size in bytes (at least 8)");
    static final Option<Integer> ITERS = Option.of('n', "iters", "ITERS", Values.intIn(1, Integer.MAX_VALUE), 100,
            "ping-pong round trips");
    static final OptionParser PARSER = new OptionParser("loopback").synopsis("[options]", null)
            .add(DEVICE, GID_INDEX, SIZE, ITERS);

    public static void main(String[] args) {
        System.exit(PARSER.launch(args, System.out, System.err, c -> c, Loopback::run));
    }

    private static int run(CommandLine c) {
        RdmaDevice device = pickDevice(c.get(DEVICE));
        if (device.transportType() == TransportType.IWARP) {
            System.out.println(device.name() + " is an iWARP device. iWARP queue pairs connect only through rdma_cm"
                    + " (the kernel's iWARP connection manager sets them up over a TCP connection); they cannot be"
                    + " moved to RTS by hand as this example does. On iWARP run examples/bin/cm-pingpong or"
                    + " examples/bin/rping, which connect through rdma_cm; or run this example on an InfiniBand"
                    + " or RoCE device (-d).");
            return 2;
        }
        if (device.transportType() != TransportType.IB) {
            System.out.println(device.name() + " has transport " + device.transportType().text()
                    + "; this example needs InfiniBand or RoCE (transport IB)");
            return 2;
        }
        Loopback run = new Loopback(c.get(SIZE), c.get(ITERS));
        LoopbackChecks checks = run.checks;
        try {
            run.run(device, c.get(GID_INDEX));
        } catch (RuntimeException e) {
            // Failure: the run cannot go on; VerbsException: a verb failed (its message says which and why)
            checks.check(false, e instanceof Failure ? e.getMessage() : e.toString());
            checks.report("stopped");
        }
        if (checks.failures() == 0) {
            System.out.println("PASS  all " + checks.checks() + " checks passed");
        } else {
            System.out.println("FAIL  " + checks.failures() + " of " + checks.checks() + " checks failed");
        }
        return checks.failures() == 0 ? 0 : 1;
    }

    /** The named device, or the first one whose transport is IB (InfiniBand or RoCE). */
    private static RdmaDevice pickDevice(String name) {
        if (name != null) {
            return Rdma.device(name);
        }
        List<RdmaDevice> all = Rdma.devices();
        for (RdmaDevice d : all) {
            if (d.transportType() == TransportType.IB) {
                return d;
            }
        }
        if (all.isEmpty()) {
            System.out.println("No RDMA devices found: " + Rdma.noDevicesReason());
            System.exit(2);
        }
        return all.get(0); // only iWARP (or other) devices: main() explains why it cannot run
    }

    private void run(RdmaDevice device, int gidIndex) {
        try (DeviceContext ctx = device.open()) {
            DeviceAttributes dev = ctx.queryDevice();
            PortAttributes port = ctx.queryPort(PORT);
            if (!port.isActive()) {
                throw new Failure("port " + PORT + " of " + device.name() + " is " + port.state().text()
                        + "; it must be PORT_ACTIVE");
            }
            Mtu mtu = port.activeMtu();
            int access = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ
                    | (dev.supportsAtomics() ? Access.REMOTE_ATOMIC : 0);
            long bufferLength = LoopbackPair.bufferLength(size);
            // one CQ for both QPs, sized for the worst case: every send and receive slot of both QPs (2 x (16 + 16))
            // holding a signaled request at once; a CQ that overruns loses completions
            try (ProtectionDomain pd = ctx.allocProtectionDomain();
                    CompletionChannel channel = ctx.createCompletionChannel();
                    CompletionQueue cq = ctx.createCompletionQueue(64, channel, 0);
                    QueuePair a = pd.createQueuePair(initAttributes(cq));
                    QueuePair b = pd.createQueuePair(initAttributes(cq));
                    MemoryRegion ma = pd.allocateMemory(bufferLength, access);
                    MemoryRegion mb = pd.registerMemory(ByteBuffer.allocateDirect((int) bufferLength), access);
                    SendRequests wr = SendRequests.allocate(1, 1);
                    ReceiveRequests rr = ReceiveRequests.allocate(1, 1);
                    WorkCompletions wc = WorkCompletions.allocate(16)) {
                // both QPs to INIT; each one's peer is the other, at this port's own address
                QpConnector ca = connector(ctx, a, dev, access, gidIndex);
                QpConnector cb = connector(ctx, b, dev, access, gidIndex);
                AddressVector own = ca.addressVector(cb.localEndpoint());
                System.out.printf("verbs4j loopback on %s port %d (transport %s, link layer %s), active MTU %d, "
                        + "address %s%n", device.name(), PORT, device.transportType().text(), port.linkLayer().text(),
                        mtu.bytes(), own.isGlobal() ? "GID " + own.dgid() + " (sgid_index " + own.sgidIndex() + ")"
                                : "LID " + own.dlid());
                System.out.println("      both QPs are on this one device and one thread polls them: a loopback, no wire");

                check(cq.capacity() >= 64, "CQ asked for 64 entries, has " + cq.capacity());
                QpCapabilities cap = a.capabilities();
                report(String.format("PD, completion channel fd %d, CQ of %d entries, RC QPs A 0x%x and B 0x%x "
                        + "(max_send_wr %d, max_recv_wr %d, max_send_sge %d, max_recv_sge %d, max_inline_data %d)",
                        channel.fd(), cq.capacity(), a.qpNumber(), b.qpNumber(), cap.maxSendWr(), cap.maxRecvWr(),
                        cap.maxSendSge(), cap.maxRecvSge(), cap.maxInlineData()));
                check(ma.length() == bufferLength && mb.length() == bufferLength && mb.buffer() != null,
                        "region lengths " + ma.length() + " and " + mb.length() + ", expected " + bufferLength);
                report(String.format("registered 2 x %d bytes, access %s: A allocateMemory at 0x%x lkey 0x%x rkey 0x%x, "
                        + "B registerMemory(direct ByteBuffer) at 0x%x lkey 0x%x rkey 0x%x", bufferLength,
                        Access.toString(access), ma.address(), ma.lkey(), ma.rkey(), mb.address(), mb.lkey(), mb.rkey()));

                ca.connect(cb.localEndpoint());
                cb.connect(ca.localEndpoint());
                verifyConnected(a, b, ca.psn(), cb.psn(), ca.pathMtu());
                verifyConnected(b, a, cb.psn(), ca.psn(), cb.pathMtu());

                LoopbackPair s = new LoopbackPair(size, a, b, ma, mb, cq, wr, rr, wc);
                LoopbackOpcodes ops = new LoopbackOpcodes(s, checks);
                ops.send();
                ops.sendWithImm();
                ops.rdmaWrite();
                ops.rdmaWriteWithImm();
                ops.rdmaRead();
                if (dev.supportsAtomics()) {
                    ops.compareAndSwap();
                    ops.fetchAndAdd();
                } else {
                    System.out.println("skip  atomics: " + device.name() + " has atomic_cap " + dev.atomicCap().text());
                }
                ops.blockingWait(channel);
                new LoopbackPingPong(s, checks, iters).run(device.name());
            }
        }
    }

    private static QpInitAttributes initAttributes(CompletionQueue cq) {
        return new QpInitAttributes(QpType.RC, cq, cq).maxSendWr(16).maxRecvWr(16).maxSendSge(1).maxRecvSge(1);
    }

    /**
     * RESET -> INIT of {@code qp} on the port's fabric: the regions' remote access, up to 4 outstanding RDMA
     * READs and atomics (what the device allows), the GID of {@code -g} or the fabric's choice.
     */
    private static QpConnector connector(DeviceContext ctx, QueuePair qp, DeviceAttributes dev, int access,
            int gidIndex) {
        int rd = Math.max(1, Math.min(4, Math.min(dev.maxQpRdAtom(), dev.maxQpInitRdAtom())));
        FabricOptions options = FabricOptions.defaults();
        if (gidIndex >= 0) {
            options.gidIndex(gidIndex);
        }
        return QpConnector.builder(ctx, qp).port(PORT).options(options).access(access).rdAtomic(rd).prepare();
    }

    private void verifyConnected(QueuePair qp, QueuePair peer, int sqPsn, int rqPsn, Mtu mtu) {
        QpAttributes q = qp.query(QpAttrMask.STATE | QpAttrMask.DEST_QPN | QpAttrMask.SQ_PSN | QpAttrMask.RQ_PSN
                | QpAttrMask.PATH_MTU);
        String what = String.format("QP 0x%x: RESET->INIT->RTR->RTS, ibv_query_qp: state %s, dest_qp_num 0x%x, "
                + "sq_psn 0x%06x, rq_psn 0x%06x, path_mtu %d", qp.qpNumber(), q.state().text(), q.destQpNum(),
                q.sqPsn(), q.rqPsn(), q.pathMtu().bytes());
        check(q.state() == QpState.RTS && q.destQpNum() == peer.qpNumber() && q.sqPsn() == sqPsn
                && q.rqPsn() == rqPsn && q.pathMtu() == mtu, String.format("expected RTS, dest_qp_num 0x%x, sq_psn "
                + "0x%06x, rq_psn 0x%06x, path_mtu %d", peer.qpNumber(), sqPsn, rqPsn, mtu.bytes()));
        report(what);
    }

    private void check(boolean passed, String what) {
        checks.check(passed, what);
    }

    private void report(String step) {
        checks.report(step);
    }
}
