package org.verbs4j.examples;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

/**
 * When a benchmark's warm-up ends: after its minimum time, once this JVM's just-in-time compiler has gone quiet (its
 * total compilation time, {@link CompilationMXBean#getTotalCompilationTime}, has not grown for {@link #QUIET_MILLIS}),
 * and at the latest after {@link #LIMIT} times the minimum. A busy-polling loop measured while the compiler still
 * works loses a core to the compiler threads for milliseconds at a time on a host with few cores. The compiler is
 * looked at every {@link #LOOK_MILLIS} at most, so the loop may ask at every iteration.
 */
final class WarmUp {
    /** How long the compilation time must stay the same. */
    static final long QUIET_MILLIS = 200;
    /** The longest warm-up, in multiples of the minimum. */
    static final int LIMIT = 3;
    static final long LOOK_MILLIS = 10;
    private final CompilationMXBean jit;
    private final long minEnd;
    private final long limitEnd;
    private long lastTotal = -1;
    private long lastChange;
    private long lastLook;
    private boolean quiet;

    /**
     * @param startNanos {@link System#nanoTime} at the start
     * @param minMillis  the shortest warm-up
     * @param jit        the compiler to watch; null when the JVM does not report its compilation time (then the
     *                   warm-up lasts its minimum)
     */
    WarmUp(long startNanos, long minMillis, CompilationMXBean jit) {
        this.jit = jit;
        this.minEnd = startNanos + minMillis * 1_000_000L;
        this.limitEnd = startNanos + LIMIT * minMillis * 1_000_000L;
        this.quiet = jit == null;
    }

    /** {@return this JVM's compiler, or null when it does not report its compilation time} */
    static CompilationMXBean thisJvmsCompiler() {
        CompilationMXBean b = ManagementFactory.getCompilationMXBean();
        return b != null && b.isCompilationTimeMonitoringSupported() ? b : null;
    }

    /** {@return whether the warm-up is over at {@code nanoTime}} */
    boolean over(long nanoTime) {
        if (!quiet) {
            quiet = compilerQuiet(nanoTime);
        }
        return nanoTime - minEnd >= 0 && (quiet || nanoTime - limitEnd >= 0);
    }

    /** {@return whether the compiler went quiet during the warm-up} (false: it ended at its limit) */
    boolean compilerWentQuiet() {
        return quiet;
    }

    private boolean compilerQuiet(long nanoTime) {
        if (lastTotal >= 0 && nanoTime - lastLook < LOOK_MILLIS * 1_000_000L) {
            return false;
        }
        lastLook = nanoTime;
        long total = jit.getTotalCompilationTime();
        if (total != lastTotal) {
            lastTotal = total;
            lastChange = nanoTime;
            return false;
        }
        return nanoTime - lastChange >= QUIET_MILLIS * 1_000_000L;
    }
}
