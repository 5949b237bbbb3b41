package org.verbs4j.jnr;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Arrays;

/**
 * How one C function is called with {@code long} arguments, errno saved, through a {@code java.lang.foreign}
 * downcall handle (JDK 22+). Replaces the jffi class of this name in the multi-release jar, method for method.
 *
 * <p>errno is captured by the linker ({@code captureCallState("errno")}) into a small per-thread segment, so
 * {@link #errno()} means what it means on the jffi path: the errno the last call on this thread left. Pointers
 * are passed and returned as 64-bit integers (the same registers on x86_64 SysV, the only ABI whose layouts
 * verbs4j verifies), so no call makes a segment.
 */
final class NativeCall {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout STATE = Linker.Option.captureStateLayout();
    private static final long ERRNO = STATE.byteOffset(MemoryLayout.PathElement.groupElement("errno"));
    private static final ThreadLocal<MemorySegment> CALL_STATE =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(STATE));
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");

    /** {@code (MemorySegment callState, long...)long}. */
    private final MethodHandle handle;

    private NativeCall(MethodHandle handle) {
        this.handle = handle;
    }

    static NativeCall of(long address, CType result, CType... params) {
        ValueLayout[] layouts = new ValueLayout[params.length];
        for (int i = 0; i < params.length; i++) {
            layouts[i] = layout(params[i]);
        }
        if (result == CType.UINT8 || result == CType.UINT32) {
            // no verbs4j function returns one; a widening cast would sign-extend it, unlike jffi
            throw new IllegalArgumentException("unsigned 8/32-bit results are not supported: " + result);
        }
        FunctionDescriptor fd = result == CType.VOID ? FunctionDescriptor.ofVoid(layouts)
                : FunctionDescriptor.of(layout(result), layouts);
        MethodHandle h = LINKER.downcallHandle(MemorySegment.ofAddress(address), fd, CAPTURE_ERRNO);
        // one shape for every function: long arguments narrowed to the C type, the result widened (void: 0)
        Class<?>[] longs = new Class<?>[params.length + 1];
        Arrays.fill(longs, long.class);
        longs[0] = MemorySegment.class;
        return new NativeCall(MethodHandles.explicitCastArguments(h, MethodType.methodType(long.class, longs)));
    }

    static ValueLayout layout(CType t) {
        switch (t) {
            case UINT8:
                return JAVA_BYTE;
            case SINT32:
            case UINT32:
                return JAVA_INT;
            case SINT64:
            case UINT64:
            case POINTER:
                return JAVA_LONG;
            default:
                throw new IllegalArgumentException("no layout for " + t);
        }
    }

    /** The errno the last call on this thread left. */
    static int errno() {
        return CALL_STATE.get().get(JAVA_INT, ERRNO);
    }

    long call0() {
        try {
            return (long) handle.invokeExact(CALL_STATE.get());
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    long call(long a) {
        try {
            return (long) handle.invokeExact(CALL_STATE.get(), a);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    long call(long a, long b) {
        try {
            return (long) handle.invokeExact(CALL_STATE.get(), a, b);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    long call(long a, long b, long c) {
        try {
            return (long) handle.invokeExact(CALL_STATE.get(), a, b, c);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    long call(long a, long b, long c, long d) {
        try {
            return (long) handle.invokeExact(CALL_STATE.get(), a, b, c, d);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    long call(long a, long b, long c, long d, long e) {
        try {
            return (long) handle.invokeExact(CALL_STATE.get(), a, b, c, d, e);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    long call(long a, long b, long c, long d, long e, long f) {
        try {
            return (long) handle.invokeExact(CALL_STATE.get(), a, b, c, d, e, f);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new IllegalStateException("a native call failed: " + t, t);
    }
}
