package org.verbs4j.jnr;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;
import org.verbs4j.api.internal.RawMemory;
import org.verbs4j.bench.HostBenchmark;

/**
 * The binding's own cost per data-path verb, through the backend's real call path ({@link NativeCalls#post}, the
 * call {@code JnrQueuePair.postSend} makes): jffi on JDK 17-21, {@code java.lang.foreign} with
 * {@code Linker.Option.critical} on JDK 22+ (the multi-release jar picks the class). The target is a C function
 * of post_send's shape that returns at once ({@code memcmp(p, p, 0)}), as in
 * {@link org.verbs4j.bench.NativeCallBenchmark}, which measures bare jffi. In the backend's package, so that it
 * reaches the package-private mechanism on the class path of the benchmarks jar. Run it on both JDKs:
 * {@code JAVA_HOME=... java -jar benchmarks/target/benchmarks.jar BindingCallBenchmark -prof gc}.
 */
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class BindingCallBenchmark extends HostBenchmark {
    private NativeCalls.Target memcmp;
    private long buffer;

    @Setup(Level.Trial)
    public void resolve() {
        long address = NativeLibrary.libc().symbol("memcmp");
        if (address == 0) {
            throw new IllegalStateException("memcmp not found in libc");
        }
        memcmp = NativeCalls.target(address);
        buffer = RawMemory.allocate(64);
    }

    @TearDown(Level.Trial)
    public void free() {
        RawMemory.free(buffer);
    }

    /** One hot-path call ({@code int f(void *, void *, void *)}) of a C function that returns at once. */
    @Benchmark
    public int post() {
        return NativeCalls.post(memcmp, buffer, buffer, 0L);
    }
}
