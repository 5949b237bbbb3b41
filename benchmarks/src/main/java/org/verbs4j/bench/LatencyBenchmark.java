package org.verbs4j.bench;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.Opcode;
import org.verbs4j.api.ReceiveRequests;
import org.verbs4j.api.SendFlags;
import org.verbs4j.api.SendRequests;
import org.verbs4j.api.WcOpcode;

/**
 * Latency of the RC operations perftest measures ({@code ib_send_lat}, {@code ib_write_lat},
 * {@code ib_read_lat}), through verbs4j, between two queue pairs of one device connected to each other
 * ({@link ConnectedQueuePairs}: by hand on RoCE/InfiniBand, through rdma_cm on iWARP). One thread drives
 * both ends, so every number includes the work of both sides, as a round trip between two processes does.
 *
 * <p>{@code device} ({@code -p device=mlx5_0}; default the fabric lab's {@code rxe0} and {@code siw0}) and
 * {@code size}, the message size in bytes, are JMH parameters. Messages of at most the QP's inline size
 * (64 bytes asked) are posted inline, as perftest does.
 *
 * <p>One operation is:
 * <ul>
 * <li>{@link #sendLatency}: one round trip of SENDs. A posts a SEND, B's receive completes (polled on B's
 * receive CQ), B reposts that receive and SENDs back, A's receive completes and A reposts it.</li>
 * <li>{@link #writeLatency}: one round trip of RDMA WRITEs, as {@code ib_write_lat} measures it: A writes
 * the message into B's buffer, and B sees it arrive by polling the <em>last byte</em> of its own buffer
 * (a volatile read of registered memory), not its CQ; then B writes back and A polls its last byte. The
 * last byte carries a counter, so every round changes it.</li>
 * <li>{@link #readLatency}: one RDMA READ of the message from B's buffer into A's, posted signaled, its
 * completion polled on A's send CQ.</li>
 * <li>{@link #writeCompletion}: one signaled RDMA WRITE from A to B, its completion polled on A's send CQ:
 * what {@link HotPathBenchmark#postSendPoll} measures, on any device (it needs no QP connected to
 * itself, so it runs on iWARP too).</li>
 * </ul>
 * perftest prints half a round trip for send and write ({@code t_typical} = RTT / 2); these print the whole
 * round trip. In the ping-pongs, every {@value #SIGNAL_EVERY}th round's two sends (or writes) are signaled
 * and their completions polled after the round; the others are unsignaled, as in perftest.
 *
 * <p>Every request is filled once in {@link Pair#open()}; the set-up runs one operation of each kind and
 * checks that its bytes arrived. The measured methods post, poll and compare, and allocate nothing.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
public class LatencyBenchmark {
    /** In the ping-pongs, one round in this many is signaled (both directions); also bounds the send queue. */
    static final int SIGNAL_EVERY = 16;
    /** Receives kept posted on each side. */
    static final int RECV_DEPTH = 4;
    /** Asked of the QPs; perftest posts messages up to its inline size inline. */
    static final int MAX_INLINE = 64;

    /** Two connected QPs and every request the benchmarks post, filled once. */
    @State(Scope.Thread)
    public static class Pair extends PairState {
        /** Message size in bytes. */
        @Param({"2", "64", "1024", "4096", "65536"})
        public int size;

        private static final long SEND_AB = 1;
        private static final long SEND_BA = 2;
        private static final long WRITE_AB = 3;
        private static final long WRITE_BA = 4;
        private static final long READ = 5;
        private static final long RECV_A = 6;
        private static final long RECV_B = 7;

        /** Each buffer: the message source at 0, the target (receives, writes, reads) at {@link #dst}. */
        long dst;
        SendRequests sendAB;
        SendRequests sendBA;
        SendRequests writeAB;
        SendRequests writeBA;
        SendRequests read;
        ReceiveRequests recvA;
        ReceiveRequests recvB;
        int inlineFlag;
        long sendRounds;
        long writeRounds;

        @Setup(Level.Trial)
        public void open() {
            if (size < 1) {
                throw new IllegalArgumentException("size " + size + ": at least 1 byte");
            }
            dst = (size + 4095L) & ~4095L;
            openPair(new ConnectedQueuePairs.Shape(64, 2 * SIGNAL_EVERY + 4, RECV_DEPTH, MAX_INLINE, 2 * dst));
            fill(a.mr(), (byte) 0x10);
            fill(b.mr(), (byte) 0x60);
            inlineFlag = size <= a.qp().capabilities().maxInlineData() ? SendFlags.INLINE : 0;

            sendAB = request(SEND_AB, Opcode.SEND, a.mr(), 0);
            sendBA = request(SEND_BA, Opcode.SEND, b.mr(), 0);
            writeAB = request(WRITE_AB, Opcode.RDMA_WRITE, a.mr(), 0);
            writeAB.at(0).rdma(b.mr().address() + dst, b.mr().rkey());
            writeBA = request(WRITE_BA, Opcode.RDMA_WRITE, b.mr(), 0);
            writeBA.at(0).rdma(a.mr().address() + dst, a.mr().rkey());
            read = own(SendRequests.allocate(1, 1));
            read.at(0).wrId(READ).opcode(Opcode.RDMA_READ).flags(SendFlags.SIGNALED)
                    .sge(a.mr().address() + dst, size, a.mr().lkey()).rdma(b.mr().address(), b.mr().rkey());
            recvA = own(ReceiveRequests.allocate(1, 1));
            recvA.at(0).wrId(RECV_A).sge(a.mr().address() + dst, size, a.mr().lkey());
            recvB = own(ReceiveRequests.allocate(1, 1));
            recvB.at(0).wrId(RECV_B).sge(b.mr().address() + dst, size, b.mr().lkey());
            for (int i = 0; i < RECV_DEPTH; i++) {
                a.qp().postReceive(recvA);
                b.qp().postReceive(recvB);
            }

            // One of each before measuring, data checked: a broken connection fails here, clearly.
            // The first message goes from A, the active side (iWARP wants the active side to send first).
            sendRoundTrip();
            expectSame("SEND A->B", a.mr(), 0, b.mr(), dst);
            expectSame("SEND B->A", b.mr(), 0, a.mr(), dst);
            writeRoundTrip();
            expectSame("RDMA WRITE A->B", a.mr(), 0, b.mr(), dst);
            expectSame("RDMA WRITE B->A", b.mr(), 0, a.mr(), dst);
            a.mr().fill(dst, size, (byte) 0);
            readOnce();
            expectSame("RDMA READ of B into A", b.mr(), 0, a.mr(), dst);
            writeSignaled();
            System.out.println("# verbs4j: " + pair + ", " + size + "-byte messages"
                    + (inlineFlag != 0 ? ", inline" : ""));
        }

        private static void fill(MemoryRegion mr, byte seed) {
            byte[] pattern = new byte[(int) Math.min(mr.length(), 1 << 20)];
            for (int i = 0; i < pattern.length; i++) {
                pattern[i] = (byte) (seed + i * 7);
            }
            for (long off = 0; off < mr.length(); off += pattern.length) {
                mr.putBytes(off, pattern, 0, (int) Math.min(pattern.length, mr.length() - off));
            }
        }

        private SendRequests request(long wrId, Opcode opcode, MemoryRegion from, long offset) {
            SendRequests r = own(SendRequests.allocate(1, 1));
            r.at(0).wrId(wrId).opcode(opcode).flags(inlineFlag).sge(from.address() + offset, size, from.lkey());
            return r;
        }

        private void expectSame(String what, MemoryRegion from, long fromOffset, MemoryRegion to, long toOffset) {
            byte[] sent = from.getBytes(fromOffset, size);
            byte[] got = to.getBytes(toOffset, size);
            if (!Arrays.equals(sent, got)) {
                throw new IllegalStateException(pair + ": " + what + " of " + size + " bytes completed, but the bytes "
                        + "differ at index " + Arrays.mismatch(sent, got));
            }
        }

        /** The flags of a ping-pong request in round {@code round}: signaled once in {@value #SIGNAL_EVERY}. */
        private int flags(long round) {
            return round % SIGNAL_EVERY == 0 ? inlineFlag | SendFlags.SIGNALED : inlineFlag;
        }

        /** After a signaled round: both sends' completions (they come with the ACKs, possibly after the data). */
        private void reapSends(long round) {
            if (round % SIGNAL_EVERY == 0) {
                pair.awaitOne(a.sendCq(), wc, "A's signaled send");
                pair.awaitOne(b.sendCq(), wc, "B's signaled send");
            }
        }

        long sendRoundTrip() {
            long round = ++sendRounds;
            int f = flags(round);
            sendAB.at(0).flags(f);
            sendBA.at(0).flags(f);
            a.qp().postSend(sendAB);
            awaitReceive(b.recvCq(), "B's receive");
            b.qp().postReceive(recvB);
            b.qp().postSend(sendBA);
            long id = awaitReceive(a.recvCq(), "A's receive");
            a.qp().postReceive(recvA);
            reapSends(round);
            return id;
        }

        private long awaitReceive(org.verbs4j.api.CompletionQueue cq, String what) {
            long id = pair.awaitOne(cq, wc, what);
            if (wc.byteLength(0) != size || wc.opcodeValue(0) != WcOpcode.RECV.value()) {
                throw new IllegalStateException(pair + ": " + what + ": " + wc.toString(0) + ", expected a RECV of "
                        + size + " bytes");
            }
            return id;
        }

        long writeRoundTrip() {
            long round = ++writeRounds;
            byte mark = (byte) round;
            int f = flags(round);
            long last = size - 1;
            a.mr().putByteVolatile(last, mark);
            writeAB.at(0).flags(f);
            a.qp().postSend(writeAB);
            pair.awaitByte(b.mr(), dst + last, mark, "A's RDMA write arriving in B's last byte");
            b.mr().putByteVolatile(last, mark);
            writeBA.at(0).flags(f);
            b.qp().postSend(writeBA);
            pair.awaitByte(a.mr(), dst + last, mark, "B's RDMA write arriving in A's last byte");
            reapSends(round);
            return round;
        }

        long readOnce() {
            a.qp().postSend(read);
            return pair.awaitOne(a.sendCq(), wc, "A's RDMA read");
        }

        /** Reuses the A→B write request, signaled: nothing else posts it in the same trial. */
        long writeSignaled() {
            writeAB.at(0).flags(inlineFlag | SendFlags.SIGNALED);
            a.qp().postSend(writeAB);
            return pair.awaitOne(a.sendCq(), wc, "A's signaled RDMA write");
        }
    }

    /** One round trip of SENDs, A → B → A, each receive polled on its CQ and reposted. */
    @Benchmark
    public void sendLatency(Pair p, Blackhole bh) {
        bh.consume(p.sendRoundTrip());
    }

    /** One round trip of RDMA WRITEs, A → B → A, each seen arriving by polling the target's last byte. */
    @Benchmark
    public void writeLatency(Pair p, Blackhole bh) {
        bh.consume(p.writeRoundTrip());
    }

    /** One RDMA READ of {@code size} bytes, its completion polled. */
    @Benchmark
    public void readLatency(Pair p, Blackhole bh) {
        bh.consume(p.readOnce());
    }

    /** One signaled RDMA WRITE of {@code size} bytes, its completion polled (the requester's view). */
    @Benchmark
    public void writeCompletion(Pair p, Blackhole bh) {
        bh.consume(p.writeSignaled());
    }
}
