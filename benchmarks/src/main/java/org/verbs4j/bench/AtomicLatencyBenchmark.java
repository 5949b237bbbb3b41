package org.verbs4j.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import org.verbs4j.api.Opcode;
import org.verbs4j.api.SendFlags;
import org.verbs4j.api.SendRequests;

/**
 * Latency of the two 8-byte RC atomics, as perftest's {@code ib_atomic_lat} measures it: A posts a fetch-and-add
 * or a compare-and-swap on a word of B's buffer (signaled), and polls its completion on its send CQ; the
 * word's old value comes back into A's buffer, and is checked. Same pair of connected QPs as
 * {@link LatencyBenchmark}.
 *
 * <p>A device without atomics (siw: {@code atomic_cap} is ATOMIC_NONE) is skipped: the trial's set-up
 * throws {@link BenchmarkSkipped} with the reason, JMH reports that parameter combination as failed and
 * goes on with the next ({@code benchmarks/bin/jmh-gc-check} lists it as skipped).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
public class AtomicLatencyBenchmark {

    @State(Scope.Thread)
    public static class Atomics extends PairState {
        private static final long FETCH_ADD = 1;
        private static final long COMPARE_SWAP = 2;
        /** The target words in B's buffer, and where their old values land in A's. */
        private static final long ADD_WORD = 0;
        private static final long SWAP_WORD = 8;

        SendRequests fetchAdd;
        SendRequests compareSwap;
        /** The value B's words hold now (each op adds 1 / swaps in +1). */
        long added;
        long swapped;

        @Setup(Level.Trial)
        public void open() {
            openPair(new ConnectedQueuePairs.Shape(16, 4, 1, 0, 4096));
            if (!pair.supportsAtomics()) {
                throw skip(pair.ctx.device().name() + " does not execute atomics (atomic_cap "
                        + pair.attributes.atomicCap().text() + "): the atomic latency benchmarks do not run on it");
            }
            fetchAdd = own(SendRequests.allocate(1, 1));
            fetchAdd.at(0).wrId(FETCH_ADD).opcode(Opcode.ATOMIC_FETCH_AND_ADD).flags(SendFlags.SIGNALED)
                    .sge(a.mr().address() + ADD_WORD, 8, a.mr().lkey())
                    .atomic(b.mr().address() + ADD_WORD, b.mr().rkey(), 1, 0);
            compareSwap = own(SendRequests.allocate(1, 1));
            compareSwap.at(0).wrId(COMPARE_SWAP).opcode(Opcode.ATOMIC_CMP_AND_SWP).flags(SendFlags.SIGNALED)
                    .sge(a.mr().address() + SWAP_WORD, 8, a.mr().lkey());
            b.mr().putLong(ADD_WORD, 0);
            b.mr().putLong(SWAP_WORD, 0);
            // One of each before measuring: checks that the device really does them.
            fetchAndAdd();
            compareAndSwap();
            if (b.mr().getLong(ADD_WORD) != 1 || b.mr().getLong(SWAP_WORD) != 1) {
                throw new IllegalStateException(pair + ": the atomics completed but B's words are "
                        + b.mr().getLong(ADD_WORD) + " and " + b.mr().getLong(SWAP_WORD) + ", expected 1 and 1");
            }
            System.out.println("# verbs4j: " + pair + ", atomics " + pair.attributes.atomicCap().text());
        }

        long fetchAndAdd() {
            atomic(fetchAdd, ADD_WORD, added, "A's fetch-and-add");
            return ++added;
        }

        long compareAndSwap() {
            long expected = swapped;
            compareSwap.at(0).atomic(b.mr().address() + SWAP_WORD, b.mr().rkey(), expected, expected + 1);
            atomic(compareSwap, SWAP_WORD, expected, "A's compare-and-swap");
            return ++swapped;
        }

        /** Posts {@code request}, polls its completion and checks the old value it brought back into {@code word}. */
        private void atomic(SendRequests request, long word, long expected, String what) {
            a.qp().postSend(request);
            pair.awaitOne(a.sendCq(), wc, what);
            long old = a.mr().getLong(word);
            if (old != expected) {
                throw new IllegalStateException(pair + ": " + what + " returned " + old + ", expected " + expected);
            }
        }
    }

    /** One 8-byte fetch-and-add (+1) on B's memory, its completion polled, the old value checked. */
    @Benchmark
    public void fetchAdd(Atomics s, Blackhole bh) {
        bh.consume(s.fetchAndAdd());
    }

    /** One 8-byte compare-and-swap (n → n+1, always succeeding) on B's memory, polled, the old value checked. */
    @Benchmark
    public void compareSwap(Atomics s, Blackhole bh) {
        bh.consume(s.compareAndSwap());
    }
}
