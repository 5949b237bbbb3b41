package org.verbs4j.bench.perf;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Waits, after a warm-up, until the JIT compiler threads have stopped using the CPU, from their CPU time in
 * {@code /proc/self/task/TID/stat} (Linux). The end of a warm-up loop makes the JIT compile again: the code
 * after the loop, or the loop itself after the deoptimization its first exit causes. In the lab that C2
 * compilation took half of a vCPU for about a second, right inside the measured run that followed, and on
 * siw, whose transport runs in a kernel thread that competes with the two busy-polling processes for the
 * two vCPUs, the measured bandwidth of a short run fell by a third. C perftest has no compiler to wait for.
 */
final class CompilerQuiet {
    /** The compiler threads have used no CPU for this long: quiet. */
    static final long QUIET_NANOS = TimeUnit.MILLISECONDS.toNanos(300);
    /** Never wait longer than this. */
    static final long MAX_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final long STEP_MILLIS = 50;

    private CompilerQuiet() {
    }

    /**
     * Returns once the compiler threads' CPU time has not grown for {@link #QUIET_NANOS} (or after
     * {@link #MAX_NANOS}, or at once where {@code /proc} does not say). Returns the nanoseconds waited.
     */
    static long await() {
        return await(MAX_NANOS);
    }

    /** As {@link #await()}, but never longer than {@code maxNanos}. */
    static long await(long maxNanos) {
        long start = System.nanoTime();
        List<Path> stats = compilerThreads();
        if (stats.isEmpty()) {
            return 0;
        }
        long last = cpuTicks(stats);
        long quietSince = start;
        while (System.nanoTime() - start < maxNanos) {
            try {
                Thread.sleep(STEP_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            long now = cpuTicks(stats);
            long t = System.nanoTime();
            if (now != last) {
                last = now;
                quietSince = t;
            } else if (t - quietSince >= QUIET_NANOS) {
                break;
            }
        }
        return System.nanoTime() - start;
    }

    /** The stat files of this JVM's JIT compiler threads ("C1 CompilerThre", "C2 CompilerThre"; kernel names). */
    static List<Path> compilerThreads() {
        List<Path> found = new ArrayList<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                try {
                    if (Files.readString(task.resolve("comm")).contains("CompilerThre")) {
                        found.add(task.resolve("stat"));
                    }
                } catch (IOException gone) {
                    // a thread that ended while we listed
                }
            }
        } catch (IOException | UnsupportedOperationException noProc) {
            return List.of();
        }
        return found;
    }

    /** utime + stime, in clock ticks, of the threads whose stat files these are (a vanished one counts 0). */
    static long cpuTicks(List<Path> stats) {
        long sum = 0;
        for (Path stat : stats) {
            try {
                sum += ticks(Files.readString(stat));
            } catch (IOException gone) {
                // a compiler thread that ended (HotSpot stops idle ones)
            }
        }
        return sum;
    }

    /** utime + stime of one {@code stat} line: fields 14 and 15, counted after the ")" that ends the name. */
    static long ticks(String stat) {
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
        // f[0] is field 3 (state): utime, field 14, is f[11]; stime, field 15, is f[12]
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }
}
