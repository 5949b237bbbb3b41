package org.verbs4j.jnr;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Type;

/**
 * How one C function is called with {@code long} arguments, errno saved, through jffi (JDK 17-21); the
 * multi-release jar's JDK 22+ class of this name calls through a {@code java.lang.foreign} downcall handle.
 * {@link NativeFunction} holds what is not mechanism: the name, the checks, the errors.
 */
final class NativeCall {
    private static final Invoker INVOKER = Invoker.getInstance();

    private final long address;
    private final CallContext context;

    private NativeCall(long address, CallContext context) {
        this.address = address;
        this.context = context;
    }

    static NativeCall of(long address, CType result, CType... params) {
        Type[] types = new Type[params.length];
        for (int i = 0; i < params.length; i++) {
            types[i] = type(params[i]);
        }
        return new NativeCall(address, CallContext.getCallContext(type(result), types, CallingConvention.DEFAULT, true));
    }

    static Type type(CType t) {
        switch (t) {
            case VOID:
                return Type.VOID;
            case UINT8:
                return Type.UINT8;
            case SINT32:
                return Type.SINT32;
            case UINT32:
                return Type.UINT32;
            case SINT64:
                return Type.SINT64;
            case UINT64:
                return Type.UINT64;
            case POINTER:
                return Type.POINTER;
            default:
                throw new AssertionError(t);
        }
    }

    /** The errno the last call on this thread left. */
    static int errno() {
        return com.kenai.jffi.LastError.getInstance().get();
    }

    long call0() {
        return INVOKER.invokeL0(context, address);
    }

    long call(long a) {
        return INVOKER.invokeL1(context, address, a);
    }

    long call(long a, long b) {
        return INVOKER.invokeL2(context, address, a, b);
    }

    long call(long a, long b, long c) {
        return INVOKER.invokeL3(context, address, a, b, c);
    }

    long call(long a, long b, long c, long d) {
        return INVOKER.invokeL4(context, address, a, b, c, d);
    }

    long call(long a, long b, long c, long d, long e) {
        return INVOKER.invokeL5(context, address, a, b, c, d, e);
    }

    long call(long a, long b, long c, long d, long e, long f) {
        return INVOKER.invokeL6(context, address, a, b, c, d, e, f);
    }
}
