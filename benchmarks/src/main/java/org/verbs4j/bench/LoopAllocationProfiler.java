package org.verbs4j.bench;

import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * Heap bytes per operation allocated by the benchmark thread inside the measured loop, as
 * {@code alloc.loop.norm}: {@code -prof org.verbs4j.bench.LoopAllocationProfiler}. The benchmark's state
 * must count with {@link IterationAllocation}; a benchmark that does not gets no {@code alloc.loop.norm}.
 *
 * <p>Why, beside {@code -prof gc}: JMH's {@code gc.alloc.rate.norm} divides what every thread of the JVM
 * allocated during the iteration by the iteration's operations. The forked JVM allocates about 6 KB per
 * iteration whatever the benchmark does (measured in the lab: 4.2-6.2 KB per 1 s iteration in every
 * benchmark here, {@link RawMemoryBenchmark} included, which touches no device); about 500 B of it in
 * the benchmark thread itself (JMH's iteration bookkeeping), plus the trial's tear-down in the last
 * iteration. That is nothing for a 300 ns operation, but an operation that takes 70-150 us on the
 * emulated device runs only 7,000-14,000 times an iteration, and the background then reads as
 * 0.5-1 B/op. Counting only the loop separates "the data path allocates" from "JMH allocates".
 */
public final class LoopAllocationProfiler implements InternalProfiler {

    @Override
    public String getDescription() {
        return "Heap bytes per operation allocated by the benchmark thread inside the measured loop (alloc.loop.norm)";
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
        IterationAllocation.reset();
    }

    @Override
    @SuppressWarnings("rawtypes") // InternalProfiler declares the raw Result
    public Collection<? extends Result> afterIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams,
            IterationResult result) {
        long bytes = IterationAllocation.total();
        long ops = result.getMetadata().getAllOps();
        if (bytes < 0 || ops <= 0) {
            return List.of();
        }
        return List.of(new ScalarResult("alloc.loop.norm", (double) bytes / ops, "B/op", AggregationPolicy.AVG));
    }
}
