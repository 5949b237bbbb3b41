package org.verbs4j.bench;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.verbs4j.api.Access;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.Rdma;

/**
 * What registering memory costs against its size: one operation is {@code ibv_reg_mr} of {@code length}
 * bytes of a direct buffer (local write, remote write and read) and {@code ibv_dereg_mr} of it, through
 * {@link ProtectionDomain#registerMemory(ByteBuffer, int)} and {@link MemoryRegion#close()}. The kernel pins
 * and maps every page on registration and unpins them on deregistration, so the cost grows with the size;
 * applications register once and reuse.
 *
 * <p>Not a data-path operation, and not allocation-free: every registration makes a {@link MemoryRegion}
 * object with its bookkeeping (the resource's leak-report state and {@code Cleaner} entry, its description
 * string, its entry in the protection domain's set of children). {@code benchmarks/bin/jmh-gc-check}
 * reports what it allocates and does not gate on it.
 *
 * <p>The buffer is allocated (and so zeroed and faulted in) once per trial: the benchmark measures
 * registration, not page faults.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class MemoryRegistrationBenchmark {

    @State(Scope.Thread)
    public static class Registration extends DeviceState {
        /** Bytes registered per operation: 4 KiB, 64 KiB, 1 MiB, 16 MiB, 64 MiB. */
        @Param({"4096", "65536", "1048576", "16777216", "67108864"})
        public int length;

        private static final int ACCESS = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ;

        DeviceContext ctx;
        ProtectionDomain pd;
        ByteBuffer buffer;

        @Setup(Level.Trial)
        public void open() {
            ctx = Rdma.open(device);
            try {
                pd = ctx.allocProtectionDomain();
                buffer = ByteBuffer.allocateDirect(length);
                try (MemoryRegion mr = pd.registerMemory(buffer, ACCESS)) {
                    System.out.println("# verbs4j: " + device + ", registering " + length + " bytes: " + mr);
                }
            } catch (RuntimeException e) {
                close();
                throw e;
            }
        }

        int registerAndDeregister() {
            MemoryRegion mr = pd.registerMemory(buffer, ACCESS);
            int rkey = mr.rkey();
            mr.close();
            return rkey;
        }

        @TearDown(Level.Trial)
        public void close() {
            try {
                if (pd != null) {
                    pd.close();
                }
            } finally {
                ctx.close();
            }
        }
    }

    /** {@code ibv_reg_mr} + {@code ibv_dereg_mr} of {@code length} bytes. */
    @Benchmark
    public int registerDeregister(Registration r) {
        return r.registerAndDeregister();
    }
}
