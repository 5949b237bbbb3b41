package org.verbs4j.bench;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Library;
import com.kenai.jffi.Type;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;
import org.verbs4j.api.internal.RawMemory;

/**
 * What the binding itself adds to every data-path verb, without a device: one call through a native function
 * pointer the way {@code JnrQueuePair.postSend} / {@code postReceive} and {@code JnrCompletionQueue.poll} make it
 * (jffi's {@link Invoker#invokeL3NoErrno}, {@code int f(void *, void *, void *)}, errno not saved), to a C
 * function that returns at once: {@code memcmp(p, p, 0)}. A verb through verbs4j costs this, plus what the
 * provider's function does (the same as from C), plus filling the request ({@link RawMemoryBenchmark}).
 * Runs anywhere.
 */
public class NativeCallBenchmark extends HostBenchmark {
    private static final Invoker INVOKER = Invoker.getInstance();
    /** The call context of post_send / post_recv. */
    private static final CallContext INT_PTR_PTR_PTR = CallContext.getCallContext(Type.SINT32,
            new Type[] {Type.POINTER, Type.POINTER, Type.POINTER}, CallingConvention.DEFAULT, false);

    private long memcmp;
    private long buffer;

    @Setup(Level.Trial)
    public void resolve() {
        memcmp = Library.getDefault().getSymbolAddress("memcmp");
        if (memcmp == 0) {
            throw new IllegalStateException("memcmp not found in the process: " + Library.getLastError());
        }
        buffer = RawMemory.allocate(64);
    }

    @TearDown(Level.Trial)
    public void free() {
        RawMemory.free(buffer);
    }

    /** One jffi call of a C function that returns at once: the binding's cost per verb. */
    @Benchmark
    public int nativeCall() {
        return (int) INVOKER.invokeL3NoErrno(INT_PTR_PTR_PTR, memcmp, buffer, buffer, 0L);
    }
}
