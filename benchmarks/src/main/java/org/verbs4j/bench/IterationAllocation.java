package org.verbs4j.bench;

import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Heap bytes the benchmark thread allocates between its iteration's setup and teardown: the measured
 * loop (with JMH's warm-up and warm-down spins around it, and any {@code Level.Invocation} fixture), and
 * nothing of JMH's per-iteration bookkeeping or of trial set-up and tear-down. {@link CountingState} calls
 * {@link #begin()} from its {@code @Setup(Level.Iteration)} and {@link #end()} from its
 * {@code @TearDown(Level.Iteration)}; {@link LoopAllocationProfiler} divides the total by the
 * iteration's operations and reports it as {@code alloc.loop.norm}.
 */
final class IterationAllocation {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    /** Sum over the benchmark threads of the current iteration; -1 until one of them reports. */
    private static final AtomicLong TOTAL = new AtomicLong(-1);

    private long start = -1;

    /** At the iteration's setup, in the benchmark thread. */
    void begin() {
        start = THREADS.getCurrentThreadAllocatedBytes();
    }

    /** At the iteration's teardown, in the benchmark thread. */
    void end() {
        long now = THREADS.getCurrentThreadAllocatedBytes();
        if (start >= 0 && now >= 0) {
            long bytes = now - start;
            TOTAL.accumulateAndGet(bytes, (sum, b) -> sum < 0 ? b : sum + b);
        }
        start = -1;
    }

    /** For the profiler, before an iteration. */
    static void reset() {
        TOTAL.set(-1);
    }

    /** For the profiler, after an iteration: the bytes, or -1 when no benchmark state reported. */
    static long total() {
        return TOTAL.get();
    }
}
