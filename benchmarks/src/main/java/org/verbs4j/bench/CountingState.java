package org.verbs4j.bench;

import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Base of every benchmark state that {@link LoopAllocationProfiler} reports on: counts what the benchmark
 * thread allocates between the iteration's setup and teardown ({@link IterationAllocation}). JMH runs the
 * inherited fixtures of a {@code @State} class as its own; a state must declare no other
 * {@code Level.Iteration} fixture, so that the count covers exactly the measured loop.
 */
public abstract class CountingState {
    private final IterationAllocation allocation = new IterationAllocation();

    @Setup(Level.Iteration)
    public void startCounting() {
        allocation.begin();
    }

    @TearDown(Level.Iteration)
    public void stopCounting() {
        allocation.end();
    }
}
