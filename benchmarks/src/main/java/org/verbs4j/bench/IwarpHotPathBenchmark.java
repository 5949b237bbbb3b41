package org.verbs4j.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import org.verbs4j.api.Access;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.Opcode;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.QpAttributes;
import org.verbs4j.api.QpInitAttributes;
import org.verbs4j.api.QpState;
import org.verbs4j.api.QpType;
import org.verbs4j.api.QueuePair;
import org.verbs4j.api.Rdma;
import org.verbs4j.api.ReceiveRequests;
import org.verbs4j.api.SendFlags;
import org.verbs4j.api.SendRequests;
import org.verbs4j.api.WcOpcode;
import org.verbs4j.api.WorkCompletions;
import org.verbs4j.softiwarp.SoftIwarp;

/**
 * {@link HotPathBenchmark}'s data path (post send and poll, post receive, poll an empty CQ) on an iWARP device,
 * whose queue pairs cannot be looped back to themselves: between two RC queue pairs connected through rdma_cm
 * ({@link ConnectedQueuePairs}). The default device is the pure-Java software device {@value SoftIwarp#LOOPBACK_NAME}
 * (127.0.0.1), which every JVM with verbs4j has, so the allocation proof runs on any host, no lab:
 * {@code WHERE=host benchmarks/bin/jmh-gc-check}. On that device the transport itself runs in this JVM, in the
 * poller's thread (a poll drives the receive side of its QPs) and in the device's progress thread (its selector);
 * JMH's {@code gc.alloc.rate.norm} counts every thread, so 0 B/op there means the whole device, not only the
 * binding, allocates nothing per operation.
 *
 * <p>{@code device} is a JMH parameter ({@code -p device=siw0} runs the same on a kernel device through
 * libibverbs and rdma_cm). Every request is filled once in the set-up; the measured methods only post and poll.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
public class IwarpHotPathBenchmark {
    /** Receives per {@link #postRecv} invocation; the receive queue is emptied between invocations. */
    static final int RECV_BATCH = 512;
    static final int SEND_BYTES = 64;
    static final int WRITE_BYTES = 8;
    /** Receives kept posted at B for {@link #sendPoll}. */
    static final int RECV_DEPTH = 4;

    /** The connected pair A, B and the requests: one per benchmark thread. */
    @State(Scope.Thread)
    public static class Pair extends CountingState {
        /** The iWARP device; default the software device on the loopback interface. */
        @Param({SoftIwarp.LOOPBACK_NAME})
        public String device;

        private static final long SEND_WR_ID = 1;
        private static final long WRITE_WR_ID = 2;
        private static final long RECV_WR_ID = 3;
        /** Buffer layout: the source at 0, the target (receives, writes) at DST_OFFSET. */
        private static final int DST_OFFSET = 1024;

        ConnectedQueuePairs pair;
        ConnectedQueuePairs.Endpoint a;
        ConnectedQueuePairs.Endpoint b;
        SendRequests send;
        SendRequests write;
        ReceiveRequests recv;
        WorkCompletions wc;

        @Setup(Level.Trial)
        public void open() {
            pair = ConnectedQueuePairs.open(device, new ConnectedQueuePairs.Shape(64, 16, RECV_DEPTH, 64, 4096));
            a = pair.a;
            b = pair.b;
            wc = WorkCompletions.allocate(16);
            MemoryRegion ma = a.mr();
            MemoryRegion mb = b.mr();
            ma.putLong(0, 0x0123456789abcdefL);
            send = SendRequests.allocate(1, 1);
            send.at(0).wrId(SEND_WR_ID).opcode(Opcode.SEND).flags(SendFlags.SIGNALED)
                    .sge(ma.address(), SEND_BYTES, ma.lkey());
            write = SendRequests.allocate(1, 1);
            write.at(0).wrId(WRITE_WR_ID).opcode(Opcode.RDMA_WRITE).flags(SendFlags.SIGNALED | SendFlags.INLINE)
                    .sge(ma.address(), WRITE_BYTES, ma.lkey()).rdma(mb.address() + DST_OFFSET + 512, mb.rkey());
            recv = ReceiveRequests.allocate(1, 1);
            recv.at(0).wrId(RECV_WR_ID).sge(mb.address() + DST_OFFSET, SEND_BYTES, mb.lkey());
            for (int i = 0; i < RECV_DEPTH; i++) {
                b.qp().postReceive(recv);
            }
            // one of each before measuring, bytes checked: a broken connection fails here, clearly
            sendPoll();
            writePoll();
            // an iWARP write completes when its bytes are in TCP's hands, maybe before B placed them: wait for them
            pair.awaitByte(mb, DST_OFFSET + 512 + WRITE_BYTES - 1, ma.getByteVolatile(WRITE_BYTES - 1),
                    "A's RDMA write arriving in B's memory");
            if (mb.getLong(DST_OFFSET) != ma.getLong(0) || mb.getLong(DST_OFFSET + 512) != ma.getLong(0)) {
                throw new IllegalStateException(pair + ": the SEND and RDMA WRITE completed but their bytes did not arrive");
            }
            System.out.println("# verbs4j: " + pair);
        }

        /** A SENDs to B; B's receive is polled and reposted, then A's send completion polled. */
        long sendPoll() {
            a.qp().postSend(send);
            pair.awaitOne(b.recvCq(), wc, "B's receive");
            if (wc.opcodeValue(0) != WcOpcode.RECV.value() || wc.byteLength(0) != SEND_BYTES) {
                throw new IllegalStateException(pair + ": B's receive: " + wc.toString(0));
            }
            b.qp().postReceive(recv);
            return pair.awaitOne(a.sendCq(), wc, "A's send");
        }

        /** A writes into B's memory; A's completion polled. */
        long writePoll() {
            a.qp().postSend(write);
            return pair.awaitOne(a.sendCq(), wc, "A's RDMA write");
        }

        @TearDown(Level.Trial)
        public void close() {
            try {
                pair.close();
            } finally {
                send.close();
                write.close();
                recv.close();
                wc.close();
            }
        }
    }

    /**
     * The receive side of {@link #postRecv}: a QP of its own on the device, never connected, in INIT (where
     * receives may be posted), emptied before each invocation by RESET and INIT again, as in
     * {@link HotPathBenchmark.ReceiveQueue}.
     */
    @State(Scope.Thread)
    public static class ReceiveQueue extends CountingState {
        /** Same parameter as {@link Pair#device}: JMH gives both the same value. */
        @Param({SoftIwarp.LOOPBACK_NAME})
        public String device;

        private static final long RECV_WR_ID = 4;

        DeviceContext ctx;
        ProtectionDomain pd;
        CompletionQueue cq;
        MemoryRegion mr;
        QueuePair qp;
        ReceiveRequests receive;
        int posted;
        // made once: the reset between invocations allocates nothing of its own
        private final QpAttributes toReset = new QpAttributes().state(QpState.RESET);
        private final QpAttributes toInit = new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1)
                .accessFlags(Access.LOCAL_WRITE);

        @Setup(Level.Trial)
        public void open() {
            ctx = Rdma.open(device);
            pd = ctx.allocProtectionDomain();
            cq = ctx.createCompletionQueue(16);
            mr = pd.allocateMemory(4096, Access.LOCAL_WRITE);
            qp = pd.createQueuePair(new QpInitAttributes(QpType.RC, cq, cq).maxSendWr(16).maxRecvWr(RECV_BATCH)
                    .maxSendSge(1).maxRecvSge(1));
            receive = ReceiveRequests.allocate(1, 1);
            receive.at(0).wrId(RECV_WR_ID).sge(mr.address(), 64, mr.lkey());
            qp.modify(toInit);
            System.out.println("# verbs4j: " + device + " QP 0x" + Integer.toHexString(qp.qpNumber())
                    + ", receives in INIT");
        }

        @Setup(Level.Invocation)
        public void empty() {
            if (posted != 0) {
                qp.modify(toReset);
                qp.modify(toInit);
                posted = 0;
            }
        }

        @TearDown(Level.Trial)
        public void close() {
            IllegalStateException failure = new IllegalStateException("closing the receive QP of " + device);
            LoopbackQueuePair.closeAll(failure, qp, mr, cq, pd, ctx, receive);
            if (failure.getSuppressed().length > 0) {
                throw failure;
            }
        }
    }

    /**
     * A signaled 64-byte SEND from A to B: B's receive polled and reposted, A's send completion polled. On the
     * software device: the post writes the message into A's socket, B's poll reads it, A's poll takes the
     * completion (an iWARP send completes when its bytes are handed to TCP).
     */
    @Benchmark
    public void sendPoll(Pair p, Blackhole bh) {
        bh.consume(p.sendPoll());
    }

    /** A signaled 8-byte inline RDMA WRITE from A to B, A's completion polled. */
    @Benchmark
    public void writePoll(Pair p, Blackhole bh) {
        bh.consume(p.writePoll());
    }

    /**
     * A poll of A's send CQ, which is empty. On the software device a poll also drives the receive side of the QPs
     * completing there (one non-blocking read of A's socket, which has nothing).
     */
    @Benchmark
    public void pollEmpty(Pair p, Blackhole bh) {
        bh.consume(p.a.sendCq().poll(p.wc));
    }

    /** {@code ibv_post_recv} of one receive request, {@value #RECV_BATCH} times per invocation (as HotPathBenchmark's). */
    @Benchmark
    @OperationsPerInvocation(RECV_BATCH)
    public void postRecv(ReceiveQueue rq, Blackhole bh) {
        QueuePair qp = rq.qp;
        ReceiveRequests receive = rq.receive;
        for (int i = 0; i < RECV_BATCH; i++) {
            qp.postReceive(receive);
        }
        rq.posted = RECV_BATCH;
        bh.consume(rq.posted);
    }
}
