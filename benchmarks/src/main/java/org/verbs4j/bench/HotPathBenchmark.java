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
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.Opcode;
import org.verbs4j.api.QueuePair;
import org.verbs4j.api.ReceiveRequests;
import org.verbs4j.api.SendFlags;
import org.verbs4j.api.SendRequests;
import org.verbs4j.api.WorkCompletions;

/**
 * The data path on a real device: {@code ibv_post_send}, {@code ibv_post_recv} and {@code ibv_poll_cq}
 * through verbs4j, one thread, on an RC queue pair connected to itself ({@link LoopbackQueuePair}).
 * Every work request is filled once in {@link Connection#open()}; the measured methods only post and
 * poll, so they show what the binding adds to the provider's own cost, and they must allocate nothing
 * ({@code -prof gc}; {@link LoopAllocationProfiler} for the measured loop alone).
 *
 * <p>The device is {@code -Dverbs4j.device} (for the forked JVM: {@code -jvmArgsAppend
 * -Dverbs4j.device=mlx5_0}), else {@code $FABRIC_LAB_RXE_DEV}, else {@code rxe0}; RoCE or InfiniBand.
 *
 * <p>The benchmarks take their state as parameters ({@link Connection}, {@link ReceiveQueue}); the class
 * itself holds none.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
// Ten warm-up seconds: on an emulated device an operation can take 100 us, and the JIT needs ~10^4 of them.
@Warmup(iterations = 10, time = 1)
@Measurement(iterations = 10, time = 1)
public class HotPathBenchmark {
    /** One signaled write per this many in {@link #postSendUnsignaled}; also the send queue's high-water mark. */
    static final int SIGNAL_EVERY = 64;
    /** Receives per {@link #postRecv} invocation; the receive queue is emptied between invocations. */
    static final int RECV_BATCH = 512;
    static final int WRITE_BYTES = 8;

    /** The loopback QP, its requests and completions: one per benchmark thread. */
    @State(Scope.Thread)
    public static class Connection extends CountingState {
        /** Buffer layout: 8 source bytes, then the write target. */
        private static final int SRC_OFFSET = 0;
        private static final int DST_OFFSET = 64;
        private static final long SIGNALED_WR_ID = 1;
        private static final long UNSIGNALED_WR_ID = 2;
        /** Give up waiting for a completion after this long: a hung device must not hang JMH. */
        private static final long COMPLETION_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);

        LoopbackQueuePair loopback;
        QueuePair qp;
        CompletionQueue cq;
        SendRequests signaledWrite;
        SendRequests unsignaledWrite;
        /** 16 slots, as a real poller would use; an empty poll ignores the count. */
        WorkCompletions wc;
        int sinceSignaled;
        private long completions;

        @Setup(Level.Trial)
        public void open() {
            loopback = new LoopbackQueuePair(1024, 2 * SIGNAL_EVERY, 16, 4096);
            qp = loopback.qp;
            cq = loopback.cq;
            MemoryRegion mr = loopback.mr;
            mr.putLong(SRC_OFFSET, 0x0123456789abcdefL);

            signaledWrite = SendRequests.allocate(1, 1);
            signaledWrite.at(0).wrId(SIGNALED_WR_ID).opcode(Opcode.RDMA_WRITE)
                    .flags(SendFlags.SIGNALED | SendFlags.INLINE)
                    .sge(mr.address() + SRC_OFFSET, WRITE_BYTES, mr.lkey())
                    .rdma(mr.address() + DST_OFFSET, mr.rkey());
            unsignaledWrite = SendRequests.allocate(1, 1);
            unsignaledWrite.at(0).wrId(UNSIGNALED_WR_ID).opcode(Opcode.RDMA_WRITE)
                    .flags(SendFlags.INLINE)
                    .sge(mr.address() + SRC_OFFSET, WRITE_BYTES, mr.lkey())
                    .rdma(mr.address() + DST_OFFSET, mr.rkey());
            wc = WorkCompletions.allocate(16);

            // One round trip before measuring: proves the loopback connection works, with a clear message if not.
            qp.postSend(signaledWrite);
            awaitCompletion();
            if (mr.getLong(DST_OFFSET) != mr.getLong(SRC_OFFSET)) {
                throw new IllegalStateException(loopback + ": the RDMA write completed but its bytes did not arrive");
            }
            System.out.println("# verbs4j: " + loopback);
        }

        @TearDown(Level.Trial)
        public void close() {
            // A postSendUnsignaled trial can end with up to SIGNAL_EVERY-1 unsignaled writes in flight;
            // destroying the QP discards them.
            try {
                loopback.close();
            } finally {
                signaledWrite.close();
                unsignaledWrite.close();
                wc.close();
            }
        }

        /** Spins on the CQ for the one outstanding signaled completion and returns its wr_id. */
        long awaitCompletion() {
            int n;
            long spins = 0;
            long start = 0;
            while ((n = cq.poll(wc)) == 0) {
                if ((++spins & 0xfffff) == 0) {
                    long now = System.nanoTime();
                    if (start == 0) {
                        start = now;
                    } else if (now - start > COMPLETION_TIMEOUT_NANOS) {
                        throw new IllegalStateException(loopback + ": no completion after " + spins + " polls, "
                                + completions + " completions so far");
                    }
                }
            }
            if (n != 1 || !wc.ok(0)) {
                throw new IllegalStateException(loopback + ": expected one successful completion, got " + n
                        + ", first " + wc.toString(0));
            }
            completions++;
            return wc.wrId(0);
        }
    }

    /**
     * The receive side of {@link #postRecv}: its own loopback QP (in INIT; nothing is ever sent to it) and
     * receive request, emptied before each invocation. Its own, not {@link Connection}'s: JMH 1.37 gives a
     * state injected into another state's fixture a different instance from the same state taken by the
     * benchmark method, so the fixture would reset one QP while the method posts to another.
     */
    @State(Scope.Thread)
    public static class ReceiveQueue extends CountingState {
        private static final long RECV_WR_ID = 3;
        private static final int RECV_BYTES = 64;

        LoopbackQueuePair loopback;
        QueuePair qp;
        ReceiveRequests receive;
        int posted;

        @Setup(Level.Trial)
        public void open() {
            loopback = new LoopbackQueuePair(16, 16, RECV_BATCH, 4096);
            qp = loopback.qp;
            receive = ReceiveRequests.allocate(1, 1);
            receive.at(0).wrId(RECV_WR_ID).sge(loopback.mr.address(), RECV_BYTES, loopback.mr.lkey());
            loopback.resetToInit();
            System.out.println("# verbs4j: " + loopback + ", receives in INIT");
        }

        @Setup(Level.Invocation)
        public void empty() {
            if (posted != 0) {
                loopback.resetToInit();
                posted = 0;
            }
        }

        @TearDown(Level.Trial)
        public void close() {
            try {
                loopback.close();
            } finally {
                receive.close();
            }
        }
    }

    /** {@code ibv_poll_cq} on an empty CQ: the cost of one poll call (user space only on rxe and most NICs). */
    @Benchmark
    public void pollEmpty(Connection c, Blackhole bh) {
        bh.consume(c.cq.poll(c.wc));
    }

    /**
     * One signaled 8-byte inline RDMA write to this QP's own memory, then busy-poll its completion: a whole
     * post, transport, ACK and poll round trip through the device. On rxe the post is a system call (the
     * doorbell) and the kernel does the transport.
     */
    @Benchmark
    public void postSendPoll(Connection c, Blackhole bh) {
        c.qp.postSend(c.signaledWrite);
        bh.consume(c.awaitCompletion());
    }

    /**
     * Unsignaled 8-byte inline RDMA writes, every {@value #SIGNAL_EVERY}th signaled and polled (that keeps
     * at most {@value #SIGNAL_EVERY} requests in the send queue): the cost per write of a streaming sender,
     * with the completion amortised as perftest's {@code ib_write_bw} does.
     */
    @Benchmark
    public void postSendUnsignaled(Connection c, Blackhole bh) {
        if (++c.sinceSignaled < SIGNAL_EVERY) {
            c.qp.postSend(c.unsignaledWrite);
            bh.consume(c.sinceSignaled);
        } else {
            c.sinceSignaled = 0;
            c.qp.postSend(c.signaledWrite);
            bh.consume(c.awaitCompletion());
        }
    }

    /**
     * {@code ibv_post_recv} of one receive request, {@value #RECV_BATCH} times per invocation.
     *
     * <p>Why this shape: a receive stays in the queue until a message consumes it, so posting receives in a
     * loop fills the queue and the post then fails (ENOMEM). Consuming them with sends would measure the
     * sends too. Instead each invocation posts {@value #RECV_BATCH} receives into an empty queue
     * ({@code max_recv_wr} = {@value #RECV_BATCH}), and {@link ReceiveQueue#empty} empties it between
     * invocations, outside the timed region (QP to RESET, which discards the receives, then INIT, where
     * receives may be posted). {@link OperationsPerInvocation} divides the time by the batch, so the
     * score is the cost of one post. A {@link Level#Invocation} fixture is only sound for invocations far
     * longer than a timer read; {@value #RECV_BATCH} posts are. The fixture runs in the measured thread, so
     * whatever it allocates shows in the allocation figures, divided by {@value #RECV_BATCH}.
     */
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
