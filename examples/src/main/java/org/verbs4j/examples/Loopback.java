package org.verbs4j.examples;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.verbs4j.api.Access;
import org.verbs4j.api.AddressVector;
import org.verbs4j.api.CompletionChannel;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.DeviceAttributes;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.GidEntry;
import org.verbs4j.api.GidType;
import org.verbs4j.api.LinkLayer;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.Mtu;
import org.verbs4j.api.Opcode;
import org.verbs4j.api.PortAttributes;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.QpAttrMask;
import org.verbs4j.api.QpAttributes;
import org.verbs4j.api.QpCapabilities;
import org.verbs4j.api.QpInitAttributes;
import org.verbs4j.api.QpState;
import org.verbs4j.api.QpType;
import org.verbs4j.api.QueuePair;
import org.verbs4j.api.Rdma;
import org.verbs4j.api.RdmaDevice;
import org.verbs4j.api.ReceiveRequests;
import org.verbs4j.api.SendFlags;
import org.verbs4j.api.SendRequests;
import org.verbs4j.api.TransportType;
import org.verbs4j.api.WaitStrategy;
import org.verbs4j.api.WcOpcode;
import org.verbs4j.api.WcStatus;
import org.verbs4j.api.WorkCompletions;

/**
 * Two RC queue pairs of one device, connected to each other by hand (RESET, INIT, RTR, RTS), exercising
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
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final int IMM = 0x12345678;

    // one buffer per QP, same layout on both sides
    private final long sendOff = 0;
    private final long recvOff;
    private final long rdmaOff;
    private final long atomicOff;

    private final int size;
    private final int iters;
    private int checks;
    private int failures;
    /** What failed in the current step, printed with its line. */
    private final List<String> failed = new ArrayList<>();

    private Loopback(int size, int iters) {
        this.size = size;
        this.iters = iters;
        this.recvOff = size;
        this.rdmaOff = 2L * size;
        this.atomicOff = (3L * size + 7) & ~7L; // atomics need an 8-byte aligned target
    }

    public static void main(String[] args) {
        String deviceName = null;
        int gidIndex = -1;
        int size = 1024;
        int iters = 100;
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "-d": deviceName = args[++i]; break;
                    case "-g": gidIndex = Integer.parseInt(args[++i]); break;
                    case "-s": size = Integer.parseInt(args[++i]); break;
                    case "-n": iters = Integer.parseInt(args[++i]); break;
                    case "-h": usage(0); break;
                    default: usage(2);
                }
            }
        } catch (ArrayIndexOutOfBoundsException | NumberFormatException e) {
            usage(2);
        }
        if (size < 8 || size > (1 << 28) || iters < 1) {
            System.err.println("loopback: -s must be 8..268435456 bytes and -n at least 1");
            System.exit(2);
        }
        RdmaDevice device = pickDevice(deviceName);
        if (device.transportType() == TransportType.IWARP) {
            System.out.println(device.name() + " is an iWARP device. iWARP queue pairs connect only through rdma_cm"
                    + " (the kernel's iWARP connection manager sets them up over a TCP connection); they cannot be"
                    + " moved to RTS by hand as this example does. The rdma_cm connection API is coming in verbs4j;"
                    + " until then run this example on an InfiniBand or RoCE device (-d).");
            System.exit(2);
        }
        if (device.transportType() != TransportType.IB) {
            System.out.println(device.name() + " has transport " + device.transportType().text()
                    + "; this example needs InfiniBand or RoCE (transport IB)");
            System.exit(2);
        }
        Loopback run = new Loopback(size, iters);
        try {
            run.run(device, gidIndex);
        } catch (RuntimeException e) {
            // Failure: the run cannot go on; VerbsException: a verb failed (its message says which and why)
            run.check(false, e instanceof Failure ? e.getMessage() : e.toString());
            run.report("stopped");
        }
        if (run.failures == 0) {
            System.out.println("PASS  all " + run.checks + " checks passed");
        } else {
            System.out.println("FAIL  " + run.failures + " of " + run.checks + " checks failed");
        }
        System.exit(run.failures == 0 ? 0 : 1);
    }

    private static void usage(int status) {
        System.err.println("usage: loopback [-d DEVICE] [-g GID_INDEX] [-s SIZE] [-n ITERS]");
        System.err.println("  -d  device (default: the first InfiniBand or RoCE device)");
        System.err.println("  -g  source GID index on RoCE (default: the IPv4-mapped RoCE v2 GID of port 1)");
        System.err.println("  -s  message size in bytes (default 1024, at least 8)");
        System.err.println("  -n  ping-pong round trips (default 100)");
        System.exit(status);
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
            System.out.println("No RDMA devices found (verbs4j backend: "
                    + (Rdma.backendName() == null ? "none available" : Rdma.backendName()) + ")");
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
            AddressVector own = ownAddress(ctx, port, gidIndex);
            Mtu mtu = port.activeMtu();
            System.out.printf("verbs4j loopback on %s port %d (transport %s, link layer %s), active MTU %d, "
                    + "address %s%n", device.name(), PORT, device.transportType().text(), port.linkLayer().text(),
                    mtu.bytes(), own.isGlobal() ? "GID " + own.dgid() + " (sgid_index " + own.sgidIndex() + ")"
                            : "LID " + own.dlid());
            System.out.println("      both QPs are on this one device and one thread polls them: a loopback, no wire");

            int access = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ
                    | (dev.supportsAtomics() ? Access.REMOTE_ATOMIC : 0);
            // whole pages, so that both regions are page-aligned and the same size
            long bufferLength = (atomicOff + 64 + 4095) & ~4095L;
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

                int psnA = ThreadLocalRandom.current().nextInt(1 << 24);
                int psnB = ThreadLocalRandom.current().nextInt(1 << 24);
                connect(a, b.qpNumber(), psnA, psnB, own, mtu, dev, access);
                connect(b, a.qpNumber(), psnB, psnA, own, mtu, dev, access);
                verifyConnected(a, b, psnA, psnB, mtu);
                verifyConnected(b, a, psnB, psnA, mtu);

                Sides s = new Sides(a, b, ma, mb, cq, wr, rr, wc);
                send(s);
                sendWithImm(s);
                rdmaWrite(s);
                rdmaWriteWithImm(s);
                rdmaRead(s);
                if (dev.supportsAtomics()) {
                    compareAndSwap(s);
                    fetchAndAdd(s);
                } else {
                    System.out.println("skip  atomics: " + device.name() + " has atomic_cap " + dev.atomicCap().text());
                }
                blockingWait(s, channel);
                pingPong(s, device.name());
            }
        }
    }

    private static QpInitAttributes initAttributes(CompletionQueue cq) {
        return new QpInitAttributes(QpType.RC, cq, cq).maxSendWr(16).maxRecvWr(16).maxSendSge(1).maxRecvSge(1);
    }

    /** The port's own address, the destination of both QPs: a GRH with the GID on RoCE, the LID on InfiniBand. */
    private static AddressVector ownAddress(DeviceContext ctx, PortAttributes port, int gidIndex) {
        if (gidIndex >= 0) {
            GidEntry e = ctx.queryGidEntry(PORT, gidIndex);
            return AddressVector.global(PORT, e.gid(), e.index());
        }
        if (port.linkLayer() != LinkLayer.ETHERNET) {
            return AddressVector.local(PORT, port.lid());
        }
        for (GidEntry e : ctx.queryGidTable()) {
            if (e.port() == PORT && e.type() == GidType.ROCE_V2 && e.gid().isIpv4Mapped()) {
                return AddressVector.global(PORT, e.gid(), e.index());
            }
        }
        throw new Failure(ctx.device().name() + " port " + PORT + " has no IPv4-mapped RoCE v2 GID; pick one "
                + "with -g (examples/bin/devices -v lists the GID table)");
    }

    /** RESET -> INIT -> RTR -> RTS towards {@code destQpn}. */
    private static void connect(QueuePair qp, int destQpn, int sqPsn, int rqPsn, AddressVector av, Mtu mtu,
            DeviceAttributes dev, int access) {
        int destRd = Math.max(1, Math.min(4, dev.maxQpRdAtom()));
        int initRd = Math.max(1, Math.min(4, dev.maxQpInitRdAtom()));
        qp.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(PORT)
                .accessFlags(access & ~Access.LOCAL_WRITE));
        qp.modify(new QpAttributes().state(QpState.RTR).pathMtu(mtu).destQpNum(destQpn).rqPsn(rqPsn)
                .maxDestRdAtomic(destRd).minRnrTimer(12).addressVector(av));
        qp.modify(new QpAttributes().state(QpState.RTS).sqPsn(sqPsn).timeout(14).retryCount(7).rnrRetry(7)
                .maxRdAtomic(initRd));
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

    // ------------------------------------------------------------------------------------------ opcodes

    private void send(Sides s) {
        byte[] data = pattern(size, 1);
        s.ma.putBytes(sendOff, data);
        s.mb.fill(recvOff, size, (byte) 0);
        postReceive(s.b, s.rr, 0xB1, s.mb, recvOff, size);
        s.wr.at(0).clear().wrId(0xA1).opcode(Opcode.SEND).flags(SendFlags.SIGNALED)
                .sge(s.ma.address() + sendOff, size, s.ma.lkey());
        s.a.postSend(s.wr);
        List<Completion> got = collect(s, WaitStrategy.busySpin(), 0xA1, 0xB1);
        expect(got.get(0), WcOpcode.SEND, s.a, "SEND send completion");
        Completion r = expect(got.get(1), WcOpcode.RECV, s.b, "SEND receive completion");
        boolean same = Arrays.equals(data, s.mb.getBytes(recvOff, size));
        check(same && r.byteLen == size && !r.hasImm, "SEND: bytes equal " + same + ", receive " + r);
        report(String.format("SEND: %d bytes compared; receive completion RECV, byte_len %d, no imm", size, r.byteLen));
    }

    private void sendWithImm(Sides s) {
        byte[] data = pattern(size, 2);
        s.ma.putBytes(sendOff, data);
        s.mb.fill(recvOff, size, (byte) 0);
        postReceive(s.b, s.rr, 0xB2, s.mb, recvOff, size);
        s.wr.at(0).clear().wrId(0xA2).opcode(Opcode.SEND_WITH_IMM).flags(SendFlags.SIGNALED).immData(IMM)
                .sge(s.ma.address() + sendOff, size, s.ma.lkey());
        s.a.postSend(s.wr);
        List<Completion> got = collect(s, WaitStrategy.busySpin(), 0xA2, 0xB2);
        expect(got.get(0), WcOpcode.SEND, s.a, "SEND_WITH_IMM send completion");
        Completion r = expect(got.get(1), WcOpcode.RECV, s.b, "SEND_WITH_IMM receive completion");
        boolean same = Arrays.equals(data, s.mb.getBytes(recvOff, size));
        check(same && r.byteLen == size && r.hasImm && r.imm == IMM, "SEND_WITH_IMM: bytes equal " + same
                + ", receive " + r + ", expected imm 0x" + Integer.toHexString(IMM));
        report(String.format("SEND_WITH_IMM: %d bytes compared; receive completion RECV, byte_len %d, imm 0x%08x",
                size, r.byteLen, r.imm));
    }

    private void rdmaWrite(Sides s) {
        byte[] data = pattern(size, 3);
        s.ma.putBytes(sendOff, data);
        s.mb.fill(rdmaOff, size, (byte) 0);
        s.wr.at(0).clear().wrId(0xA3).opcode(Opcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                .sge(s.ma.address() + sendOff, size, s.ma.lkey()).rdma(s.mb.address() + rdmaOff, s.mb.rkey());
        s.a.postSend(s.wr);
        expect(collect(s, WaitStrategy.busySpin(), 0xA3).get(0), WcOpcode.RDMA_WRITE, s.a, "RDMA_WRITE completion");
        boolean same = Arrays.equals(data, s.mb.getBytes(rdmaOff, size));
        int extra = s.cq.poll(s.wc);
        check(same && extra == 0, "RDMA_WRITE: bytes equal " + same + ", unexpected completions " + extra);
        report(String.format("RDMA_WRITE: %d bytes compared at B's address 0x%x (rkey 0x%x); no receive consumed",
                size, s.mb.address() + rdmaOff, s.mb.rkey()));
    }

    private void rdmaWriteWithImm(Sides s) {
        byte[] data = pattern(size, 4);
        s.ma.putBytes(sendOff, data);
        s.mb.fill(rdmaOff, size, (byte) 0);
        // the data goes where the write says; the receive only takes the immediate: it needs no buffer
        s.rr.at(0).wrId(0xB4).numSge(0);
        s.b.postReceive(s.rr);
        s.wr.at(0).clear().wrId(0xA4).opcode(Opcode.RDMA_WRITE_WITH_IMM).flags(SendFlags.SIGNALED).immData(IMM + 1)
                .sge(s.ma.address() + sendOff, size, s.ma.lkey()).rdma(s.mb.address() + rdmaOff, s.mb.rkey());
        s.a.postSend(s.wr);
        List<Completion> got = collect(s, WaitStrategy.busySpin(), 0xA4, 0xB4);
        expect(got.get(0), WcOpcode.RDMA_WRITE, s.a, "RDMA_WRITE_WITH_IMM send completion");
        Completion r = expect(got.get(1), WcOpcode.RECV_RDMA_WITH_IMM, s.b, "RDMA_WRITE_WITH_IMM receive completion");
        boolean same = Arrays.equals(data, s.mb.getBytes(rdmaOff, size));
        check(same && r.byteLen == size && r.hasImm && r.imm == IMM + 1, "RDMA_WRITE_WITH_IMM: bytes equal " + same
                + ", receive " + r);
        report(String.format("RDMA_WRITE_WITH_IMM: %d bytes compared; receive completion RECV_RDMA_WITH_IMM, byte_len %d, "
                + "imm 0x%08x", size, r.byteLen, r.imm));
    }

    private void rdmaRead(Sides s) {
        byte[] data = pattern(size, 5);
        s.mb.putBytes(rdmaOff, data);
        s.ma.fill(rdmaOff, size, (byte) 0);
        s.wr.at(0).clear().wrId(0xA5).opcode(Opcode.RDMA_READ).flags(SendFlags.SIGNALED)
                .sge(s.ma.address() + rdmaOff, size, s.ma.lkey()).rdma(s.mb.address() + rdmaOff, s.mb.rkey());
        s.a.postSend(s.wr);
        Completion c = expect(collect(s, WaitStrategy.busySpin(), 0xA5).get(0), WcOpcode.RDMA_READ, s.a,
                "RDMA_READ completion");
        boolean same = Arrays.equals(data, s.ma.getBytes(rdmaOff, size));
        check(same && c.byteLen == size, "RDMA_READ: bytes equal " + same + ", completion " + c);
        report(String.format("RDMA_READ: %d bytes compared; completion RDMA_READ, byte_len %d", size, c.byteLen));
    }

    private void compareAndSwap(Sides s) {
        long target = s.mb.address() + atomicOff;
        long swap = 0x1122334455667788L;
        s.mb.putLong(atomicOff, 42L);
        s.ma.putLong(atomicOff, -1L);
        s.wr.at(0).clear().wrId(0xA6).opcode(Opcode.ATOMIC_CMP_AND_SWP).flags(SendFlags.SIGNALED)
                .sge(s.ma.address() + atomicOff, 8, s.ma.lkey()).atomic(target, s.mb.rkey(), 42L, swap);
        s.a.postSend(s.wr);
        Completion c = expect(collect(s, WaitStrategy.busySpin(), 0xA6).get(0), WcOpcode.COMP_SWAP, s.a,
                "ATOMIC_CMP_AND_SWP completion");
        long old = s.ma.getLong(atomicOff);
        long now = s.mb.getLong(atomicOff);
        check(old == 42L && now == swap && c.byteLen == 8, String.format("ATOMIC_CMP_AND_SWP: returned %d (expected 42),"
                + " remote 0x%x (expected 0x%x), %s", old, now, swap, c));
        report(String.format("ATOMIC_CMP_AND_SWP: compare 42 matched, old value %d returned, remote now 0x%x; byte_len %d",
                old, now, c.byteLen));
    }

    private void fetchAndAdd(Sides s) {
        long target = s.mb.address() + atomicOff + 8;
        s.mb.putLong(atomicOff + 8, 1000L);
        s.ma.putLong(atomicOff + 8, -1L);
        s.wr.at(0).clear().wrId(0xA7).opcode(Opcode.ATOMIC_FETCH_AND_ADD).flags(SendFlags.SIGNALED)
                .sge(s.ma.address() + atomicOff + 8, 8, s.ma.lkey()).atomic(target, s.mb.rkey(), 5L, 0L);
        s.a.postSend(s.wr);
        Completion c = expect(collect(s, WaitStrategy.busySpin(), 0xA7).get(0), WcOpcode.FETCH_ADD, s.a,
                "ATOMIC_FETCH_AND_ADD completion");
        long old = s.ma.getLong(atomicOff + 8);
        long now = s.mb.getLong(atomicOff + 8);
        check(old == 1000L && now == 1005L && c.byteLen == 8, String.format("ATOMIC_FETCH_AND_ADD: returned %d "
                + "(expected 1000), remote %d (expected 1005), %s", old, now, c));
        report(String.format("ATOMIC_FETCH_AND_ADD: add 5 to 1000, old value %d returned, remote now %d; byte_len %d",
                old, now, c.byteLen));
    }

    /** Arm the CQ, post, sleep in ibv_get_cq_event until the channel fires, then collect with blocking(). */
    private void blockingWait(Sides s, CompletionChannel channel) {
        check(s.cq.poll(s.wc) == 0, "CQ not empty before the blocking wait");
        byte[] data = pattern(size, 6);
        s.ma.putBytes(sendOff, data);
        s.mb.fill(recvOff, size, (byte) 0);
        postReceive(s.b, s.rr, 0xB8, s.mb, recvOff, size);
        s.cq.requestNotify(false);
        s.wr.at(0).clear().wrId(0xA8).opcode(Opcode.SEND).flags(SendFlags.SIGNALED)
                .sge(s.ma.address() + sendOff, size, s.ma.lkey());
        s.a.postSend(s.wr);
        long t0 = System.nanoTime();
        CompletionQueue fired = channel.awaitEvent(10, TimeUnit.SECONDS);
        long woke = System.nanoTime() - t0;
        check(fired == s.cq, "completion channel: expected an event for the CQ within 10 s, got " + fired);
        List<Completion> got = collect(s, WaitStrategy.blocking(), 0xA8, 0xB8);
        expect(got.get(0), WcOpcode.SEND, s.a, "blocking SEND completion");
        Completion r = expect(got.get(1), WcOpcode.RECV, s.b, "blocking receive completion");
        boolean same = Arrays.equals(data, s.mb.getBytes(recvOff, size));
        check(same && r.byteLen == size, "blocking wait: bytes equal " + same + ", receive " + r);
        report(String.format("blocking wait: CQ armed, event on channel fd %d after %.0f us, WaitStrategy.blocking() "
                + "collected SEND + RECV; %d bytes compared, byte_len %d", channel.fd(), woke / 1e3, size, r.byteLen));
    }

    /**
     * A sends to B, B answers A, {@code iters} times; one thread busy-polls the shared CQ. Every request is
     * signaled, so each round trip has four completions; the loop allocates nothing. Each side's request and
     * buffers are set up once and posted again every round.
     */
    private void pingPong(Sides s, String deviceName) {
        try (SendRequests sendA = SendRequests.allocate(1, 1); SendRequests sendB = SendRequests.allocate(1, 1);
                ReceiveRequests recvA = ReceiveRequests.allocate(1, 1);
                ReceiveRequests recvB = ReceiveRequests.allocate(1, 1)) {
            sendA.at(0).wrId(PP_SEND_A).opcode(Opcode.SEND).flags(SendFlags.SIGNALED)
                    .sge(s.ma.address() + sendOff, size, s.ma.lkey());
            sendB.at(0).wrId(PP_SEND_B).opcode(Opcode.SEND).flags(SendFlags.SIGNALED)
                    .sge(s.mb.address() + sendOff, size, s.mb.lkey());
            recvA.at(0).wrId(PP_RECV_A).sge(s.ma.address() + recvOff, size, s.ma.lkey());
            recvB.at(0).wrId(PP_RECV_B).sge(s.mb.address() + recvOff, size, s.mb.lkey());
            s.a.postReceive(recvA);
            s.b.postReceive(recvB);
            WaitStrategy spin = WaitStrategy.busySpin();
            PingPongState st = new PingPongState();
            long t0 = System.nanoTime();
            for (int i = 0; i < iters && st.error == null; i++) {
                s.ma.putInt(sendOff, i);
                s.a.postSend(sendA);
                awaitMessage(s, spin, st, PP_RECV_B, i, 2L * i + 1);
                s.b.postReceive(recvB);
                s.mb.putInt(sendOff, ~i);
                s.b.postSend(sendB);
                awaitMessage(s, spin, st, PP_RECV_A, ~i, 2L * i + 2);
                s.a.postReceive(recvA);
            }
            long elapsed = System.nanoTime() - t0;
            while (st.error == null && st.sends < 2L * iters) {
                drainOnce(s, spin, st, -1, 0);
            }
            check(st.error == null && st.received == 2L * iters && st.sends == 2L * iters, "ping-pong: "
                    + (st.error != null ? st.error : st.received + " receives and " + st.sends + " send completions of "
                    + 2L * iters));
            report(String.format("ping-pong: %d round trips of %d bytes (SEND/RECV A->B->A), every byte_len and sequence "
                    + "number checked; average %.1f us per round trip", iters, size, elapsed / 1e3 / iters));
            System.out.printf("      (loopback on one device, %s: both QPs polled by one thread; not a network "
                    + "latency)%n", deviceName);
        }
    }

    private static final long PP_SEND_A = 0x1001;
    private static final long PP_SEND_B = 0x1002;
    private static final long PP_RECV_A = 0x2001;
    private static final long PP_RECV_B = 0x2002;

    private static final class PingPongState {
        long sends;
        long received;
        boolean gotIt;
        String error;
    }

    /**
     * Polls until the receive {@code wrId} completed with the right length and sequence number, and the send
     * that carried it completed too: its buffer is rewritten next, which is allowed only after its completion.
     */
    private void awaitMessage(Sides s, WaitStrategy spin, PingPongState st, long wrId, int seq, long sends) {
        st.gotIt = false;
        while ((!st.gotIt || st.sends < sends) && st.error == null) {
            drainOnce(s, spin, st, wrId, seq);
        }
    }

    private void drainOnce(Sides s, WaitStrategy spin, PingPongState st, long wrId, int seq) {
        WorkCompletions wc = s.wc;
        int n = spin.await(s.cq, wc, WAIT_NANOS);
        if (n == 0) {
            st.error = "no completion within 10 s (" + st.received + " receives so far)";
            return;
        }
        for (int i = 0; i < n; i++) {
            long id = wc.wrId(i);
            if (!wc.ok(i)) {
                st.error = wc.toString(i);
            } else if (id == PP_SEND_A || id == PP_SEND_B) {
                st.sends++;
            } else if (id == wrId) {
                MemoryRegion mr = id == PP_RECV_B ? s.mb : s.ma;
                if (wc.byteLength(i) != size || mr.getInt(recvOff) != seq) {
                    st.error = "receive " + wc.toString(i) + " with sequence " + mr.getInt(recvOff) + ", expected "
                            + seq + " and byte_len " + size;
                }
                st.received++;
                st.gotIt = true;
            } else {
                st.error = "unexpected " + wc.toString(i);
            }
        }
    }

    // ------------------------------------------------------------------------------------------ helpers

    private static final class Sides {
        final QueuePair a;
        final QueuePair b;
        final MemoryRegion ma;
        final MemoryRegion mb;
        final CompletionQueue cq;
        final SendRequests wr;
        final ReceiveRequests rr;
        final WorkCompletions wc;

        Sides(QueuePair a, QueuePair b, MemoryRegion ma, MemoryRegion mb, CompletionQueue cq, SendRequests wr,
                ReceiveRequests rr, WorkCompletions wc) {
            this.a = a;
            this.b = b;
            this.ma = ma;
            this.mb = mb;
            this.cq = cq;
            this.wr = wr;
            this.rr = rr;
            this.wc = wc;
        }
    }

    /** One work completion copied out of the batch. */
    private static final class Completion {
        long wrId;
        WcStatus status;
        WcOpcode opcode;
        int byteLen;
        boolean hasImm;
        int imm;
        int qpNum;
        String text;

        @Override
        public String toString() {
            return text;
        }
    }

    private static void postReceive(QueuePair qp, ReceiveRequests rr, long wrId, MemoryRegion mr, long offset, int len) {
        rr.at(0).wrId(wrId).sge(mr.address() + offset, len, mr.lkey());
        qp.postReceive(rr);
    }

    /**
     * Waits with {@code wait} until a completion arrived for each of {@code wrIds}; returns them in that order.
     * A failed or unexpected completion, or 10 s without one, ends the run.
     */
    private static List<Completion> collect(Sides s, WaitStrategy wait, long... wrIds) {
        Completion[] out = new Completion[wrIds.length];
        int have = 0;
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (have < wrIds.length) {
            int n = wait.await(s.cq, s.wc, Math.max(0, deadline - System.nanoTime()));
            if (n == 0) {
                throw new Failure(have + " of " + wrIds.length + " completions after 10 s");
            }
            for (int i = 0; i < n; i++) {
                Completion c = new Completion();
                c.wrId = s.wc.wrId(i);
                c.status = s.wc.status(i);
                c.opcode = s.wc.ok(i) ? s.wc.opcode(i) : null;
                c.byteLen = s.wc.byteLength(i);
                c.hasImm = s.wc.hasImmData(i);
                c.imm = c.hasImm ? s.wc.immData(i) : 0;
                c.qpNum = s.wc.qpNum(i);
                c.text = s.wc.toString(i);
                if (c.status != WcStatus.SUCCESS) {
                    throw new Failure("completion failed: " + c.text + " (" + (c.status == null ? "?" : c.status.text())
                            + ")");
                }
                int k = indexOf(wrIds, c.wrId);
                if (k < 0 || out[k] != null) {
                    throw new Failure("unexpected completion " + c.text);
                }
                out[k] = c;
                have++;
            }
        }
        return List.of(out);
    }

    private static int indexOf(long[] ids, long id) {
        for (int i = 0; i < ids.length; i++) {
            if (ids[i] == id) {
                return i;
            }
        }
        return -1;
    }

    private Completion expect(Completion c, WcOpcode opcode, QueuePair qp, String what) {
        check(c.opcode == opcode && c.qpNum == qp.qpNumber(), what + ": expected " + opcode + " on QP 0x"
                + Integer.toHexString(qp.qpNumber()) + ", got " + c);
        return c;
    }

    /** Counts a check; a failed one is reported with the step's line and makes the exit status 1. */
    private void check(boolean passed, String what) {
        checks++;
        if (!passed) {
            failures++;
            failed.add(what);
        }
    }

    /** Prints one step: "ok" when all its checks passed, else "FAIL" and what failed. */
    private void report(String step) {
        System.out.println((failed.isEmpty() ? "ok    " : "FAIL  ") + step);
        for (String f : failed) {
            System.out.println("      " + f);
        }
        failed.clear();
    }

    /** A recognisable byte pattern per step. */
    private static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (seed * 31 + i * 7 + (i >>> 8));
        }
        return b;
    }

    /** Ends the run: the QPs cannot go on (a failed completion, a timeout, a missing GID). */
    private static final class Failure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Failure(String message) {
            super(message);
        }
    }
}
