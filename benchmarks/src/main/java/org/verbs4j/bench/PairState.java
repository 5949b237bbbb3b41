package org.verbs4j.bench;

import java.util.ArrayList;
import java.util.List;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.TearDown;
import org.verbs4j.api.WorkCompletions;

/**
 * Base of the states that run between two connected RC queue pairs of {@link #device}
 * ({@link ConnectedQueuePairs}): opens them, keeps what the benchmark allocates for them, and closes it
 * all at the end of the trial, the pair first (a ping-pong trial can end with unsignaled requests not
 * yet reaped; destroying the QPs discards them), then every resource in the order it was made.
 */
public abstract class PairState extends DeviceState {
    ConnectedQueuePairs pair;
    ConnectedQueuePairs.Endpoint a;
    ConnectedQueuePairs.Endpoint b;
    /** Room for the completions the benchmarks poll, one at a time. */
    WorkCompletions wc;
    private final List<AutoCloseable> owned = new ArrayList<>();

    /** Opens the pair on {@link #device}; call from the state's {@code @Setup(Level.Trial)}. */
    final void openPair(ConnectedQueuePairs.Shape shape) {
        pair = ConnectedQueuePairs.open(device, shape);
        a = pair.a;
        b = pair.b;
        wc = own(WorkCompletions.allocate(16));
    }

    /** {@code resource}, closed after the pair at the end of the trial. */
    final <T extends AutoCloseable> T own(T resource) {
        owned.add(resource);
        return resource;
    }

    /** Closes the pair and gives up the trial: JMH reports it as failed, with {@code why}. */
    final BenchmarkSkipped skip(String why) {
        close();
        return new BenchmarkSkipped(why);
    }

    @TearDown(Level.Trial)
    public void close() {
        IllegalStateException failure = new IllegalStateException("closing the benchmark's queue pairs and requests");
        try {
            if (pair != null) {
                pair.close();
            }
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
        }
        pair = null;
        for (AutoCloseable c : owned) {
            try {
                c.close();
            } catch (Exception e) {
                failure.addSuppressed(e);
            }
        }
        owned.clear();
        if (failure.getSuppressed().length > 0) {
            throw failure;
        }
    }
}
