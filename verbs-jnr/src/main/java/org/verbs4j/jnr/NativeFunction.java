package org.verbs4j.jnr;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Library;
import com.kenai.jffi.Type;

/**
 * One C function of a native library, called through jffi with its exact C parameter types.
 * (JNR-FFI's interface mapping passed {@code _ibv_query_gid_ex}'s 32-bit arguments wrongly here,
 * so every verb is declared with explicit types.) Control-path calls save errno; read it with
 * {@link #errno()} right after a failing call, on the same thread.
 */
final class NativeFunction {
    private static final Invoker INVOKER = Invoker.getInstance();

    final String name;
    final long address;
    private final CallContext context;

    private NativeFunction(String name, long address, CallContext context) {
        this.name = name;
        this.address = address;
        this.context = context;
    }

    /** Looks {@code name} up in {@code library}; a missing symbol is reported when the function is called. */
    static NativeFunction of(Library library, String name, Type result, Type... params) {
        long address = library.getSymbolAddress(name);
        return new NativeFunction(name, address,
                CallContext.getCallContext(result, params, CallingConvention.DEFAULT, true));
    }

    /** The errno the last call on this thread left. */
    static int errno() {
        return com.kenai.jffi.LastError.getInstance().get();
    }

    boolean exists() {
        return address != 0;
    }

    private long checked() {
        if (address == 0) {
            throw new UnsupportedOperationException(name + " is not in the installed libibverbs/librdmacm "
                    + "(too old?); verbs4j needs rdma-core 28 or newer");
        }
        return address;
    }

    long call0() {
        return INVOKER.invokeL0(context, checked());
    }

    long call(long a) {
        return INVOKER.invokeL1(context, checked(), a);
    }

    long call(long a, long b) {
        return INVOKER.invokeL2(context, checked(), a, b);
    }

    long call(long a, long b, long c) {
        return INVOKER.invokeL3(context, checked(), a, b, c);
    }

    long call(long a, long b, long c, long d) {
        return INVOKER.invokeL4(context, checked(), a, b, c, d);
    }

    long call(long a, long b, long c, long d, long e) {
        return INVOKER.invokeL5(context, checked(), a, b, c, d, e);
    }

    long call(long a, long b, long c, long d, long e, long f) {
        return INVOKER.invokeL6(context, checked(), a, b, c, d, e, f);
    }

    @Override
    public String toString() {
        return name + "@0x" + Long.toHexString(address);
    }
}
