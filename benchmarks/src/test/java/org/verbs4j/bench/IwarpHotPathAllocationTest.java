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
 * above {@value #LOOP_LIMIT} B/op) or in any thread of the JVM, the device's progress thread included
 * ({@code gc.alloc.rate.norm} above {@value #ALL_THREADS_LIMIT} B/op: looser than the script's 0.1, because JMH
 * itself allocates ~6 KB per iteration, 0.1 B/op of a one-second iteration of the slowest benchmark; an allocation
 * per operation is tens of bytes). About 30 seconds.
 */
class IwarpHotPathAllocationTest {
    private static final double LOOP_LIMIT = 0.1;
    private static final double ALL_THREADS_LIMIT = 0.5;

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
            double loop = median(r, "alloc.loop.norm");
            double all = median(r, "gc.alloc.rate.norm");
            System.out.printf("  %-40s %,12.0f ns/op  loop %.3f B/op  all threads %.3f B/op (median iteration)%n",
                    name, r.getPrimaryResult().getScore(), loop, all);
            if (!(loop <= LOOP_LIMIT) || !(all <= ALL_THREADS_LIMIT)) {
                failures.add(name + ": " + loop + " B/op in the loop, " + all + " B/op in all threads");
            }
        }
        assertEquals(Set.of("IwarpHotPathBenchmark.pollEmpty", "IwarpHotPathBenchmark.postRecv",
                "IwarpHotPathBenchmark.sendPoll", "IwarpHotPathBenchmark.writePoll"), names);
        assertTrue(failures.isEmpty(), "allocates: " + failures);
    }

    /** The median measurement iteration's value of {@code metric}; NaN when there is none. */
    private static double median(RunResult r, String metric) {
        List<Double> values = new ArrayList<>();
        for (var b : r.getBenchmarkResults()) {
            for (IterationResult it : b.getIterationResults()) {
                Result<?> m = it.getSecondaryResults().get(metric);
                if (m != null) {
                    values.add(m.getScore());
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
