package org.verbs4j.it;

import org.verbs4j.lab.QpPair;

import org.verbs4j.lab.Lab;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.Opcode;
import org.verbs4j.api.QueuePair;
import org.verbs4j.api.ReceiveRequests;
import org.verbs4j.api.SendFlags;
import org.verbs4j.api.SendRequests;
import org.verbs4j.api.WcOpcode;
import org.verbs4j.api.WorkCompletions;

/**
 * A long loop per opcode on every lab device: {@value #DEFAULT_OPS} operations (system property
 * {@code verbs4j.it.loopOps}) posted in chains up to the queue depth, every completion checked (status,
 * opcode, wr_id sequence) and every operation's bytes checked (each carries its sequence number; reads and
 * atomics at their completion, receives at theirs, writes at the end behind a read fence). Writes are
 * signaled every 16th. Then: no object left open, no verbs file descriptor left open, and the steady
 * loop allocated (almost) nothing on the Java heap: posting and polling are allocation-free.
 */
@Timeout(value = 1800, unit = TimeUnit.SECONDS)
class CoreVerbsLoopIT {
    static final int DEFAULT_OPS = 50_000;
    static final int OPS = Integer.getInteger("verbs4j.it.loopOps", DEFAULT_OPS);
    static final int DEPTH = 64;
    static final int SLOT = 64;
    static final long READ_MAGIC = 0x5EAD_0000_0000_0000L;

    enum Kind {
        SEND, RDMA_WRITE, RDMA_READ, ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD;

        /** The work request's opcode, of the same name. */
        final Opcode opcode = Opcode.valueOf(name());
        /**
         * The requester's completion. (No switch on an enum here: javac's switch map for this class would
         * initialise while Kind is still being initialised, and read its values as null.)
         */
        final WcOpcode completion = opcode == Opcode.ATOMIC_CMP_AND_SWP ? WcOpcode.COMP_SWAP
                : opcode == Opcode.ATOMIC_FETCH_AND_ADD ? WcOpcode.FETCH_ADD : WcOpcode.valueOf(name());
        /** One request in so many is signaled: RDMA writes go unsignaled in between. */
        final int signalEvery = opcode == Opcode.RDMA_WRITE ? 16 : 1;

        boolean atomic() {
            return this == ATOMIC_CMP_AND_SWP || this == ATOMIC_FETCH_AND_ADD;
        }
    }

    static Stream<Arguments> cases() {
        return Lab.devicesWith((Object[]) Kind.values());
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void everyCompletionOfALongLoopIsChecked(String device, Kind kind) {
        warmUp(device);
        int fdsBefore = verbsFds().size();
        long ops = OPS;
        Result res;
        // writes get a target slot each (checked at the end, see Loop.verifyWrites); the rest reuse DEPTH slots
        long remoteBytes = kind == Kind.RDMA_WRITE ? 4096 + ops * SLOT : 2 * DEPTH * SLOT + 4096;
        try (QpPair p = QpPair.open(device, new QpPair.Options().queues(DEPTH, DEPTH, 2 * DEPTH + 16)
                .buffers(0, (int) remoteBytes))) {
            if (kind.atomic()) {
                assumeTrue(p.attrs.supportsAtomics(), device + " has atomic_cap " + p.attrs.atomicCap().text()
                        + ": no atomic operations");
            }
            try (SendRequests s = SendRequests.allocate(DEPTH, 1); ReceiveRequests r = ReceiveRequests.allocate(DEPTH, 1);
                    WorkCompletions wc = WorkCompletions.allocate(DEPTH)) {
                res = new Loop(p, kind, s, r, wc, ops).run();
            }
            System.out.printf("LOOP %s %-20s %,d ops in %.1f s = %,.0f ops/s (steady part %,.0f ops/s); %,d bytes "
                    + "allocated in %,d steady ops%n", device, kind, ops, res.seconds, ops / res.seconds,
                    res.steadyOps / res.steadySeconds, res.allocated, res.steadyOps);
            if (kind == Kind.ATOMIC_FETCH_AND_ADD) {
                assertEquals(ops, p.b.mr.getLong(0), "the remote counter after " + ops + " fetch-and-adds of 1");
            } else if (kind == Kind.ATOMIC_CMP_AND_SWP) {
                assertEquals(ops, p.b.mr.getLong(0), "the remote value after " + ops + " successful compare-and-swaps");
            }
        }
        List<String> fdsAfter = verbsFds();
        assertTrue(fdsAfter.size() <= fdsBefore, "verbs file descriptors left open after closing everything: "
                + fdsBefore + " before, now " + fdsAfter);
        // posting, polling and the checks allocate nothing; allow a little for the JIT's deoptimisation paths
        assertTrue(res.allocated < Math.max(64 * 1024, res.steadyOps / 4), "the steady loop allocated " + res.allocated
                + " bytes in " + res.steadyOps + " operations: the hot path allocates");
    }

    record Result(double seconds, double steadySeconds, long steadyOps, long allocated) {
    }

    /** The loop; every field is set up front so that the loop itself allocates nothing. */
    static final class Loop {
        final QpPair p;
        final Kind kind;
        final SendRequests s;
        final ReceiveRequests r;
        final WorkCompletions wc;
        final long ops;
        final QueuePair qp;
        final CompletionQueue cqA;
        final CompletionQueue cqB;
        final MemoryRegion a;
        final MemoryRegion b;
        final int len;
        long posted;
        long done;
        long recvPosted;
        long recvDone;

        Loop(QpPair p, Kind kind, SendRequests s, ReceiveRequests r, WorkCompletions wc, long ops) {
            this.p = p;
            this.kind = kind;
            this.s = s;
            this.r = r;
            this.wc = wc;
            this.ops = ops;
            this.qp = p.a.qp;
            this.cqA = p.a.cq;
            this.cqB = p.b.cq;
            this.a = p.a.mr;
            this.b = p.b.mr;
            this.len = kind.atomic() ? 8 : SLOT;
        }

        Result run() {
            for (int i = 0; i < DEPTH; i++) {
                SendRequests.SendRequest w = s.at(i).opcode(kind.opcode);
                if (kind.atomic()) {
                    w.atomic(b.address(), b.rkey(), 1, 0);
                }
                if (kind == Kind.RDMA_READ) {
                    b.putLong(4096 + (long) i * SLOT, READ_MAGIC | i);
                }
            }
            b.putLong(0, 0);
            if (kind == Kind.SEND) {
                postReceives(DEPTH);
            }
            com.sun.management.ThreadMXBean tmx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long warm = Math.min(ops / 5, 20_000);
            long start = System.nanoTime();
            long steadyStart = 0;
            long alloc0 = 0;
            boolean steady = false;
            while (done < ops) {
                if (!steady && done >= warm) {
                    steady = true;
                    steadyStart = System.nanoTime();
                    alloc0 = tmx.getCurrentThreadAllocatedBytes();
                }
                long room = DEPTH - (posted - done);
                if (kind == Kind.SEND) {
                    room = Math.min(room, recvPosted - posted);
                }
                room = Math.min(room, ops - posted);
                if (room > 0) {
                    post((int) room);
                }
                pollRequester();
                if (kind == Kind.SEND) {
                    pollResponder();
                }
            }
            if (kind == Kind.SEND) {
                while (recvDone < ops) {
                    pollResponder();
                }
            }
            long end = System.nanoTime();
            long allocated = tmx.getCurrentThreadAllocatedBytes() - alloc0;
            if (kind == Kind.RDMA_WRITE) {
                verifyWrites();
            }
            return new Result((end - start) / 1e9, (end - steadyStart) / 1e9, ops - warm, allocated);
        }

        /**
         * Every write's target holds its sequence number. Checked only now, behind a read: on iWARP an RDMA write
         * completes at the requester once it is handed to TCP (RFC 5040: local completion says nothing about
         * remote placement; siw really completes before placing), and an RDMA read request is served only
         * after the writes before it on the connection were placed. On InfiniBand/RoCE the write's ACK already
         * meant placement.
         */
        private void verifyWrites() {
            s.at(0).wrId(-1L).opcode(Opcode.RDMA_READ).flags(SendFlags.SIGNALED).sge(a.address() + DEPTH * SLOT, 8, a.lkey())
                    .rdma(b.address(), b.rkey());
            s.count(1);
            qp.postSend(s);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            int n;
            while ((n = cqA.poll(wc, 1)) == 0) {
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError(p.device + ": the fence read did not complete in 30 s");
                }
            }
            if (!wc.ok(0) || wc.wrId(0) != -1L) {
                throw new AssertionError(p.device + ": fence read " + wc.toString(0));
            }
            for (long w = 0; w < ops; w++) {
                long got = b.getLong(4096 + w * SLOT);
                if (got != w) {
                    throw new AssertionError(p.device + " RDMA_WRITE " + w + ": the target holds 0x" + Long.toHexString(got));
                }
            }
        }

        private void post(int k) {
            for (int j = 0; j < k; j++) {
                long w = posted + j;
                int slot = (int) (w % DEPTH);
                boolean signaled = (w + 1) % kind.signalEvery == 0 || w == ops - 1;
                SendRequests.SendRequest x = s.at(j).wrId(w).flags(signaled ? SendFlags.SIGNALED : 0);
                long local = a.address() + (long) slot * SLOT;
                x.sge(local, len, a.lkey());
                switch (kind) {
                    case SEND:
                        a.putLong((long) slot * SLOT, w);
                        break;
                    case RDMA_WRITE:
                        a.putLong((long) slot * SLOT, w);
                        x.rdma(b.address() + 4096 + w * SLOT, b.rkey());
                        break;
                    case RDMA_READ:
                        a.putLong((long) slot * SLOT, -1L);
                        x.rdma(b.address() + 4096 + (long) slot * SLOT, b.rkey());
                        break;
                    case ATOMIC_CMP_AND_SWP:
                        a.putLong((long) slot * SLOT, -1L);
                        x.atomic(b.address(), b.rkey(), w, w + 1);
                        break;
                    default:
                        a.putLong((long) slot * SLOT, -1L);
                        break;
                }
            }
            s.count(k);
            qp.postSend(s);
            posted += k;
        }

        private void pollRequester() {
            int n = cqA.poll(wc);
            for (int i = 0; i < n; i++) {
                long w = wc.wrId(i);
                long expected = nextSignaled(done);
                if (!wc.ok(i) || w != expected || wc.opcodeValue(i) != kind.completion.value()) {
                    throw new AssertionError(p.device + " " + kind + ": completion " + wc.toString(i) + ", expected wr_id "
                            + expected + " after " + done + " of " + ops);
                }
                for (long v = done; v <= w; v++) {
                    check(v);
                }
                done = w + 1;
            }
        }

        /** The wr_id of the first signaled request at or after {@code from}. */
        private long nextSignaled(long from) {
            long e = kind.signalEvery;
            long next = (from / e) * e + e - 1;
            return Math.min(next, ops - 1);
        }

        /** The bytes of operation {@code w}: they carry its sequence number (or its returned old value). */
        private void check(long w) {
            long off = (w % DEPTH) * SLOT;
            long got;
            long want;
            switch (kind) {
                case RDMA_READ:
                    got = a.getLong(off);
                    want = READ_MAGIC | (w % DEPTH);
                    break;
                case ATOMIC_CMP_AND_SWP:
                case ATOMIC_FETCH_AND_ADD:
                    got = a.getLong(off);
                    want = w; // the old value: compare-and-swaps chain w -> w+1, adds count up by 1
                    break;
                default:
                    return;
            }
            if (got != want) {
                throw new AssertionError(p.device + " " + kind + " operation " + w + ": read 0x" + Long.toHexString(got)
                        + ", expected 0x" + Long.toHexString(want));
            }
        }

        private void pollResponder() {
            int n = cqB.poll(wc);
            for (int i = 0; i < n; i++) {
                long w = wc.wrId(i);
                if (!wc.ok(i) || w != recvDone || wc.opcodeValue(i) != WcOpcode.RECV.value() || wc.byteLength(i) != len) {
                    throw new AssertionError(p.device + " receive: " + wc.toString(i) + ", expected wr_id " + recvDone);
                }
                long got = b.getLong((w % DEPTH) * SLOT);
                if (got != w) {
                    throw new AssertionError(p.device + " receive " + w + " holds message " + got);
                }
                recvDone++;
            }
            if (n > 0) {
                postReceives((int) Math.min(n, ops - recvPosted));
            }
        }

        private void postReceives(int k) {
            if (k <= 0) {
                return;
            }
            for (int j = 0; j < k; j++) {
                long w = recvPosted + j;
                r.at(j).wrId(w).sge(b.address() + (w % DEPTH) * SLOT, SLOT, b.lkey());
            }
            r.count(k);
            p.b.qp.postReceive(r);
            recvPosted += k;
        }
    }

    private static final java.util.Set<String> WARM = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * Opens and closes one pair on the device, once per JVM: librdmacm keeps every device it has used open (its
     * own ibv_context: a uverbs fd and an async event fd) until the process exits, so the file descriptor
     * baseline is taken after that.
     */
    static void warmUp(String device) {
        if (WARM.add(device)) {
            QpPair.open(device, new QpPair.Options().queues(4, 4, 0).buffers(0, 4096)).close();
        }
    }

    /** This process' open file descriptors on verbs devices and their event files. */
    static List<String> verbsFds() {
        List<String> out = new ArrayList<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.contains("infiniband") || target.contains("rdma_cm")) {
                        out.add(fd.getFileName() + " -> " + target);
                    }
                } catch (IOException e) {
                    // closed while listing
                }
            }
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        return out;
    }
}
