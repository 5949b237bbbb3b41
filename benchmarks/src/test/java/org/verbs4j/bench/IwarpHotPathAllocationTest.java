package org.verbs4j.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * The host's short form of {@code WHERE=host benchmarks/bin/jmh-gc-check}: {@link IwarpHotPathBenchmark} on the
 * pure-Java software device jsiw_lo (no lab, no kernel module), one fork, 3 + 3 one-second iterations, with JMH's
 * GC profiler. Fails when the median iteration of a benchmark allocates in its own loop ({@code alloc.loop.norm}
 * above {@value #LOOP_LIMIT} B/op), or in all the JVM's threads together (the device's progress thread included)
 * both more than {@value #LOOP_LIMIT} B/op ({@code gc.alloc.rate.norm}) and more than {@value #ALL_THREADS_BYTES}
 * bytes in the iteration: JMH itself allocates ~6 KB per iteration, which on a loaded host, at a few thousand
 * operations a second, exceeds 0.1 B/op; one object per operation is 10^5 bytes and more. About 30 seconds.
 */
class IwarpHotPathAllocationTest {
    private static final double LOOP_LIMIT = 0.1;
    private static final double ALL_THREADS_BYTES = 16_384;

    @Test
    void theSoftwareDeviceDataPathAllocatesNothing() throws RunnerException {
        Options options = new OptionsBuilder()
                .include("org\\.verbs4j\\.bench\\.IwarpHotPathBenchmark\\.")
                .forks(1)
                .warmupIterations(3)
                .warmupTime(TimeValue.seconds(1))
                .measurementIterations(3)
                .measurementTime(TimeValue.seconds(1))
                .addProfiler(GCProfiler.class)
                .addProfiler(LoopAllocationProfiler.class)
                .build();
        Collection<RunResult> results = new Runner(options).run();

        Set<String> names = new TreeSet<>();
        List<String> failures = new ArrayList<>();
        for (RunResult r : results) {
            String name = r.getParams().getBenchmark().replace("org.verbs4j.bench.", "");
            names.add(name);
            double loop = median(r, "alloc.loop.norm", false);
            double all = median(r, "gc.alloc.rate.norm", false);
            double allBytes = median(r, "gc.alloc.rate.norm", true);
            System.out.printf("  %-40s %,12.0f ns/op  loop %.3f B/op  all threads %.3f B/op, %,.0f B/iteration"
                    + " (median iteration)%n", name, r.getPrimaryResult().getScore(), loop, all, allBytes);
            if (!(loop <= LOOP_LIMIT) || !(all <= LOOP_LIMIT || allBytes <= ALL_THREADS_BYTES)) {
                failures.add(name + ": " + loop + " B/op in the loop, " + all + " B/op (" + allBytes
                        + " B per iteration) in all threads");
            }
        }
        assertEquals(Set.of("IwarpHotPathBenchmark.pollEmpty", "IwarpHotPathBenchmark.postRecv",
                "IwarpHotPathBenchmark.sendPoll", "IwarpHotPathBenchmark.writePoll"), names);
        assertTrue(failures.isEmpty(), "allocates: " + failures);
    }

    /**
     * The median measurement iteration's value of {@code metric} (B/op), or with {@code perIteration} its bytes in
     * the iteration (B/op times the operations of the one-second iteration); NaN when there is none.
     */
    private static double median(RunResult r, String metric, boolean perIteration) {
        List<Double> values = new ArrayList<>();
        for (var b : r.getBenchmarkResults()) {
            for (IterationResult it : b.getIterationResults()) {
                Result<?> m = it.getSecondaryResults().get(metric);
                if (m != null) {
                    double opsPerIteration = 1e9 / it.getPrimaryResult().getScore(); // ns/op, 1-s iterations
                    values.add(perIteration ? m.getScore() * opsPerIteration : m.getScore());
                }
            }
        }
        if (values.isEmpty()) {
            return Double.NaN;
        }
        values.sort(null);
        return values.get(values.size() / 2);
    }
}
