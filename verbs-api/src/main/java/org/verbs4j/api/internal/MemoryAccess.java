package org.verbs4j.api.internal;

import java.lang.reflect.Field;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import sun.misc.Unsafe;

/**
 * The memory mechanism of JDK 17-21: {@code sun.misc.Unsafe}. Only {@link RawMemory} calls it. On JDK 22+ the
 * multi-release jar's {@code META-INF/versions/22} holds a class of this name over {@code java.lang.foreign}
 * instead, with the same methods; what is not mechanism (checks, page alignment, strings) stays in
 * {@link RawMemory}, once.
 */
final class MemoryAccess {
    private static final Unsafe U;
    private static final long BYTE_ARRAY_BASE;
    private static final long BUFFER_ADDRESS;

    static {
        try {
            Field f = Unsafe.class.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            U = (Unsafe) f.get(null);
            BYTE_ARRAY_BASE = U.arrayBaseOffset(byte[].class);
            BUFFER_ADDRESS = U.objectFieldOffset(Buffer.class.getDeclaredField("address"));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError("verbs4j needs sun.misc.Unsafe (module jdk.unsupported): " + e);
        }
    }

    static final int ADDRESS_SIZE = U.addressSize();
    static final int PAGE_SIZE = U.pageSize();

    private MemoryAccess() {
    }

    /** A method, not a constant: javac would copy a constant into RawMemory, whichever class runs. */
    static String mechanism() {
        return "sun.misc.Unsafe";
    }

    static byte getByte(long address) {
        return U.getByte(address);
    }

    static void putByte(long address, byte value) {
        U.putByte(address, value);
    }

    static short getShort(long address) {
        return U.getShort(address);
    }

    static void putShort(long address, short value) {
        U.putShort(address, value);
    }

    static int getInt(long address) {
        return U.getInt(address);
    }

    static void putInt(long address, int value) {
        U.putInt(address, value);
    }

    static long getLong(long address) {
        return U.getLong(address);
    }

    static void putLong(long address, long value) {
        U.putLong(address, value);
    }

    static long getLongVolatile(long address) {
        return U.getLongVolatile(null, address);
    }

    static byte getByteVolatile(long address) {
        return U.getByteVolatile(null, address);
    }

    static void putByteVolatile(long address, byte value) {
        U.putByteVolatile(null, address, value);
    }

    /** {@code size} bytes, not zeroed; at least 1. */
    static long allocate(long size) {
        return U.allocateMemory(size);
    }

    static void free(long address) {
        U.freeMemory(address);
    }

    static void fill(long address, long size, byte value) {
        U.setMemory(address, size, value);
    }

    static void copy(long from, long to, long size) {
        U.copyMemory(from, to, size);
    }

    static void copyToArray(long from, byte[] to, int offset, int length) {
        U.copyMemory(null, from, to, BYTE_ARRAY_BASE + offset, length);
    }

    static void copyFromArray(byte[] from, int offset, int length, long to) {
        U.copyMemory(from, BYTE_ARRAY_BASE + offset, null, to, length);
    }

    /** The address of a direct buffer's byte 0. */
    static long bufferAddress(ByteBuffer directBuffer) {
        return U.getLong(directBuffer, BUFFER_ADDRESS);
    }
}
