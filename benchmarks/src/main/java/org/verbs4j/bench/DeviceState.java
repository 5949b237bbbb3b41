package org.verbs4j.bench;

import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * Base of the states that open an RDMA device: the {@code device} JMH parameter ({@code -p device=mlx5_0};
 * default the fabric lab's {@code rxe0} and {@code siw0}), and the allocation count of
 * {@link CountingState}. JMH injects inherited parameters as its own; it wants them declared in a
 * {@code @State} class, and the subclasses' own {@code @State(Scope.Thread)} is the same.
 */
@State(Scope.Thread)
public abstract class DeviceState extends CountingState {
    /** The RDMA device. */
    @Param({"rxe0", "siw0"})
    public String device;
}
