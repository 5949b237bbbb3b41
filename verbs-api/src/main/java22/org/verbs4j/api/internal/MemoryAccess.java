package org.verbs4j.api.internal;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

/**
 * The memory mechanism of JDK 22+: {@code java.lang.foreign}, no {@code sun.misc.Unsafe}. Replaces the JDK 17
 * class of this name in the multi-release jar, method for method; only {@link RawMemory} calls it.
 *
 * <p>Every access goes through one segment that spans the whole address space ({@code reinterpret} of
 * {@code NULL}, a restricted method: the module needs native access), with unaligned layouts, since verbs4j's
 * callers check bounds once per object, as they did with {@code Unsafe}. The segment is a constant, so the JIT
 * folds its bounds to the single check that the address is not negative. {@code malloc} and {@code free}
 * are libc's, called through the linker, so that memory from {@link #allocate} is freed the same way on both
 * paths (and by libibverbs where it frees what we allocate).
 */
final class MemoryAccess {
    private static final MemorySegment ALL = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);
    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    // volatile access needs the aligned layouts' handles (coordinates: segment, offset)
    private static final VarHandle LONG_VOLATILE = JAVA_LONG.varHandle();
    private static final VarHandle BYTE_VOLATILE = JAVA_BYTE.varHandle();
    /** Up to this many bytes {@link #fill} stores words itself. */
    private static final long SMALL_FILL = 1024;
    private static final MethodHandle MALLOC;
    private static final MethodHandle FREE;
    private static final MethodHandle GETPAGESIZE;

    static {
        Linker linker = Linker.nativeLinker();
        var libc = linker.defaultLookup();
        // pointers as 64-bit integers: the same registers on x86_64 SysV, and no segment per call
        MALLOC = linker.downcallHandle(libc.find("malloc").orElseThrow(), FunctionDescriptor.of(JAVA_LONG, JAVA_LONG));
        FREE = linker.downcallHandle(libc.find("free").orElseThrow(), FunctionDescriptor.ofVoid(JAVA_LONG));
        GETPAGESIZE = linker.downcallHandle(libc.find("getpagesize").orElseThrow(), FunctionDescriptor.of(JAVA_INT));
    }

    static final int ADDRESS_SIZE = (int) ValueLayout.ADDRESS.byteSize();
    static final int PAGE_SIZE = pageSize();

    private MemoryAccess() {
    }

    /** A method, not a constant: javac would copy a constant into RawMemory, whichever class runs. */
    static String mechanism() {
        return "java.lang.foreign";
    }

    private static int pageSize() {
        try {
            return (int) GETPAGESIZE.invokeExact();
        } catch (Throwable t) {
            throw new ExceptionInInitializerError(t);
        }
    }

    static byte getByte(long address) {
        return ALL.get(JAVA_BYTE, address);
    }

    static void putByte(long address, byte value) {
        ALL.set(JAVA_BYTE, address, value);
    }

    static short getShort(long address) {
        return ALL.get(SHORT, address);
    }

    static void putShort(long address, short value) {
        ALL.set(SHORT, address, value);
    }

    static int getInt(long address) {
        return ALL.get(INT, address);
    }

    static void putInt(long address, int value) {
        ALL.set(INT, address, value);
    }

    static long getLong(long address) {
        return ALL.get(LONG, address);
    }

    static void putLong(long address, long value) {
        ALL.set(LONG, address, value);
    }

    static long getLongVolatile(long address) {
        return (long) LONG_VOLATILE.getVolatile(ALL, address);
    }

    static byte getByteVolatile(long address) {
        return (byte) BYTE_VOLATILE.getVolatile(ALL, address);
    }

    static void putByteVolatile(long address, byte value) {
        BYTE_VOLATILE.setVolatile(ALL, address, value);
    }

    /** {@code size} bytes, not zeroed; at least 1. */
    static long allocate(long size) {
        long a;
        try {
            a = (long) MALLOC.invokeExact(size);
        } catch (Throwable t) {
            throw new IllegalStateException("malloc(" + size + ")", t);
        }
        if (a == 0) {
            throw new OutOfMemoryError("malloc(" + size + ") failed: native memory exhausted");
        }
        return a;
    }

    static void free(long address) {
        try {
            FREE.invokeExact(address);
        } catch (Throwable t) {
            throw new IllegalStateException("free", t);
        }
    }

    static void fill(long address, long size, byte value) {
        if (size > SMALL_FILL) {
            ALL.asSlice(address, size).fill(value);
            return;
        }
        // a work request or SGE list cleared while it is filled: plain stores, no slice object on the data path
        long pattern = (value & 0xFFL) * 0x0101010101010101L;
        long end = address + size;
        long a = address;
        for (; a + 8 <= end; a += 8) {
            ALL.set(LONG, a, pattern);
        }
        for (; a < end; a++) {
            ALL.set(JAVA_BYTE, a, value);
        }
    }

    static void copy(long from, long to, long size) {
        MemorySegment.copy(ALL, from, ALL, to, size);
    }

    static void copyToArray(long from, byte[] to, int offset, int length) {
        MemorySegment.copy(ALL, JAVA_BYTE, from, to, offset, length);
    }

    static void copyFromArray(byte[] from, int offset, int length, long to) {
        MemorySegment.copy(from, offset, ALL, JAVA_BYTE, to, length);
    }

    /** The address of a direct buffer's byte 0 (a segment of a buffer starts at its position). */
    static long bufferAddress(ByteBuffer directBuffer) {
        return MemorySegment.ofBuffer(directBuffer).address() - directBuffer.position();
    }
}
