package org.verbs4j.bench;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Library;
import com.kenai.jffi.Type;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;
import org.verbs4j.api.SendRequests;
import org.verbs4j.api.spi.AbstractResource;

/**
 * What close safety costs a data-path verb, without a device: the call {@link NativeCallBenchmark} makes
 * (jffi, a function pointer, a C function that returns at once), bare, and bracketed the way
 * {@code JnrQueuePair.postSend} brackets it: the queue pair's guard and the request array's guard entered
 * before the call and left after it. {@link #guardedPostOptedOut} runs the same code with
 * {@code -Dverbs4j.closeGuard=false}. The difference between {@link #guardedPost} and {@link #bareCall} is
 * the price of a close that can race the call without crashing the JVM. Runs anywhere.
 */
public class CloseGuardBenchmark extends HostBenchmark {
    private static final Invoker INVOKER = Invoker.getInstance();
    private static final CallContext INT_PTR_PTR_PTR = CallContext.getCallContext(Type.SINT32,
            new Type[] {Type.POINTER, Type.POINTER, Type.POINTER}, CallingConvention.DEFAULT, false);

    /** Stands for a queue pair: only the guard matters here. */
    static final class Guarded extends AbstractResource {
        Guarded() {
            super(null);
        }

        @Override
        protected String kind() {
            return "CloseGuardBenchmark";
        }

        @Override
        protected void destroy() {
        }
    }

    private long memcmp;
    private Guarded qp;
    private SendRequests wrs;

    @Setup(Level.Trial)
    public void setUp() {
        memcmp = Library.getDefault().getSymbolAddress("memcmp");
        if (memcmp == 0) {
            throw new IllegalStateException("memcmp not found in the process: " + Library.getLastError());
        }
        qp = new Guarded();
        wrs = SendRequests.allocate(1, 1);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        wrs.close();
        qp.close();
    }

    /** The call alone, with the array's address read as a post reads it (no guard). */
    @Benchmark
    public int bareCall() {
        long list = wrs.address();
        return (int) INVOKER.invokeL3NoErrno(INT_PTR_PTR_PTR, memcmp, list, list, 0L);
    }

    /** The call inside the two guards a post enters. */
    @Benchmark
    public int guardedPost() {
        return guarded();
    }

    /** {@link #guardedPost} with the count turned off ({@code -Dverbs4j.closeGuard=false}). */
    @Benchmark
    @Fork(value = 1, jvmArgsAppend = "-Dverbs4j.closeGuard=false")
    public int guardedPostOptedOut() {
        return guarded();
    }

    private int guarded() {
        qp.enter();
        try {
            long list = wrs.enter();
            try {
                return (int) INVOKER.invokeL3NoErrno(INT_PTR_PTR_PTR, memcmp, list, list, 0L);
            } finally {
                wrs.leave();
            }
        } finally {
            qp.leave();
        }
    }
}
