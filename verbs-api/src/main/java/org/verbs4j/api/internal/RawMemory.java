package org.verbs4j.api.internal;

import java.lang.reflect.Field;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import sun.misc.Unsafe;

/**
 * The one class that touches raw native memory. Every struct read and write in verbs4j goes through
 * it, so the rest of the code never sees {@code Unsafe}. Native byte order (x86_64: little endian);
 * fields that are big endian on the wire (GUIDs, GIDs, {@code imm_data}) are swapped by the caller.
 *
 * <p>Not API: backends and flyweights use it. Addresses are not checked; callers check bounds once
 * per object, not per access.
 */
public final class RawMemory {
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

    /** Size of a native pointer. */
    public static final int ADDRESS_SIZE = U.addressSize();
    /** Page size of this machine. */
    public static final int PAGE_SIZE = U.pageSize();

    private RawMemory() {
    }

    /**
     * Reads a byte at {@code address}, in native byte order; no bounds check.
     *
     * @param address the native address
     * @return the value read
     */
    public static byte getByte(long address) {
        return U.getByte(address);
    }

    /**
     * Writes a byte at {@code address}, in native byte order; no bounds check.
     *
     * @param address the native address
     * @param value   the value to write
     */
    public static void putByte(long address, byte value) {
        U.putByte(address, value);
    }

    /**
     * Reads a 16-bit value at {@code address}, in native byte order; no bounds check.
     *
     * @param address the native address
     * @return the value read
     */
    public static short getShort(long address) {
        return U.getShort(address);
    }

    /**
     * Writes a 16-bit value at {@code address}, in native byte order; no bounds check.
     *
     * @param address the native address
     * @param value   the value to write
     */
    public static void putShort(long address, short value) {
        U.putShort(address, value);
    }

    /**
     * Reads a 32-bit value at {@code address}, in native byte order; no bounds check.
     *
     * @param address the native address
     * @return the value read
     */
    public static int getInt(long address) {
        return U.getInt(address);
    }

    /**
     * Writes a 32-bit value at {@code address}, in native byte order; no bounds check.
     *
     * @param address the native address
     * @param value   the value to write
     */
    public static void putInt(long address, int value) {
        U.putInt(address, value);
    }

    /**
     * Reads a 64-bit value at {@code address}, in native byte order; no bounds check.
     *
     * @param address the native address
     * @return the value read
     */
    public static long getLong(long address) {
        return U.getLong(address);
    }

    /**
     * Writes a 64-bit value at {@code address}, in native byte order; no bounds check.
     *
     * @param address the native address
     * @param value   the value to write
     */
    public static void putLong(long address, long value) {
        U.putLong(address, value);
    }

    /**
     * Reads a pointer at {@code address}, in native byte order; no bounds check.
     *
     * @param address the native address
     * @return the value read
     */
    public static long getAddress(long address) {
        return U.getAddress(address);
    }

    /**
     * Writes a pointer at {@code address}, in native byte order; no bounds check.
     *
     * @param address the native address
     * @param value   the value to write
     */
    public static void putAddress(long address, long value) {
        U.putAddress(address, value);
    }

    /**
     * Unsigned byte.
     *
     * @param address the native address
     * @return the byte, zero-extended
     */
    public static int getUByte(long address) {
        return U.getByte(address) & 0xff;
    }

    /**
     * Unsigned 16-bit value.
     *
     * @param address the native address
     * @return the value, zero-extended
     */
    public static int getUShort(long address) {
        return U.getShort(address) & 0xffff;
    }

    /**
     * Unsigned 32-bit value.
     *
     * @param address the native address
     * @return the value, zero-extended
     */
    public static long getUInt(long address) {
        return U.getInt(address) & 0xffffffffL;
    }

    /**
     * Reads a 64-bit value with volatile semantics at {@code address}, in native byte order; no bounds check.
     *
     * @param address the native address
     * @return the value read
     */
    public static long getLongVolatile(long address) {
        return U.getLongVolatile(null, address);
    }

    /**
     * Reads a byte with volatile semantics at {@code address}, in native byte order; no bounds check.
     *
     * @param address the native address
     * @return the value read
     */
    public static byte getByteVolatile(long address) {
        return U.getByteVolatile(null, address);
    }

    /**
     * Writes a byte with volatile semantics at {@code address}, in native byte order; no bounds check.
     *
     * @param address the native address
     * @param value   the value to write
     */
    public static void putByteVolatile(long address, byte value) {
        U.putByteVolatile(null, address, value);
    }

    /**
     * Allocates {@code size} bytes ({@code malloc}), zeroed. Free with {@link #free}.
     *
     * @param size the size in bytes
     * @return the address of the zeroed memory (at least one byte); free it with {@link #free}
     */
    public static long allocate(long size) {
        long a = U.allocateMemory(Math.max(1, size));
        U.setMemory(a, Math.max(1, size), (byte) 0);
        return a;
    }

    /**
     * Frees memory from {@link #allocate}; 0 is ignored. Freeing twice corrupts the heap.
     *
     * @param address the address {@link #allocate} returned, or 0
     */
    public static void free(long address) {
        if (address != 0) {
            U.freeMemory(address);
        }
    }

    /**
     * Sets {@code size} bytes at {@code address} to 0; no bounds check.
     *
     * @param address the native address
     * @param size    how many bytes
     */
    public static void zero(long address, long size) {
        U.setMemory(address, size, (byte) 0);
    }

    /**
     * Zeroed, page-aligned memory for a memory region: a direct buffer when it fits in one (the JVM frees it
     * once unreachable), else raw memory that the region owns ({@link #ownedRaw}, to {@link #free} after it).
     *
     * @param address  the first byte, page-aligned
     * @param buffer   the direct buffer over exactly the bytes asked for, or null
     * @param ownedRaw the raw allocation to free (at or before {@code address}), or 0
     */
    public record PageAligned(long address, ByteBuffer buffer, long ownedRaw) {
        /** Frees the raw allocation, if there is one (a registration that failed). */
        public void freeOwned() {
            if (ownedRaw != 0) {
                free(ownedRaw);
            }
        }
    }

    /**
     * Allocates {@code length} zeroed bytes starting at a multiple of {@code page}.
     *
     * @param length the length in bytes, positive
     * @param page   the alignment, a power of two
     * @return the memory
     */
    public static PageAligned allocatePageAligned(long length, int page) {
        if (length <= 0) {
            throw new IllegalArgumentException("length " + length + ": must be positive");
        }
        long rounded = (length + page - 1) & -page;
        if (rounded <= Integer.MAX_VALUE - page) {
            // alignedSlice rounds the limit down to whole pages: whole pages plus one for the alignment
            ByteBuffer b = ByteBuffer.allocateDirect((int) rounded + page).alignedSlice(page);
            b.limit((int) length);
            ByteBuffer exact = b.slice();
            return new PageAligned(addressOf(exact), exact, 0);
        }
        long raw = allocate(length + page);
        zero(raw, length + page);
        return new PageAligned((raw + page - 1) & -page, null, raw);
    }

    /**
     * Sets {@code size} bytes at {@code address} to {@code value}; no bounds check.
     *
     * @param address the native address
     * @param size    how many bytes
     * @param value   the byte
     */
    public static void fill(long address, long size, byte value) {
        U.setMemory(address, size, value);
    }

    /**
     * Copies native memory; no bounds check.
     *
     * @param from the source address
     * @param to   the destination address
     * @param size how many bytes
     */
    public static void copy(long from, long to, long size) {
        U.copyMemory(from, to, size);
    }

    /**
     * Copies native memory into an array (the array range is checked, the native one is not).
     *
     * @param from   the source address
     * @param to     the array
     * @param offset the first index written
     * @param length how many bytes
     */
    public static void copyToArray(long from, byte[] to, int offset, int length) {
        checkArray(to, offset, length);
        U.copyMemory(null, from, to, BYTE_ARRAY_BASE + offset, length);
    }

    /**
     * Copies an array range into native memory (the array range is checked, the native one is not).
     *
     * @param from   the array
     * @param offset the first index read
     * @param length how many bytes
     * @param to     the destination address
     */
    public static void copyFromArray(byte[] from, int offset, int length, long to) {
        checkArray(from, offset, length);
        U.copyMemory(from, BYTE_ARRAY_BASE + offset, null, to, length);
    }

    /**
     * Reads a NUL-terminated ASCII string of at most {@code max} bytes.
     *
     * @param address the native address
     * @param max the most to take
     * @return the string, without the NUL
     */
    public static String getString(long address, int max) {
        int n = 0;
        while (n < max && U.getByte(address + n) != 0) {
            n++;
        }
        byte[] b = new byte[n];
        copyToArray(address, b, 0, n);
        return new String(b, java.nio.charset.StandardCharsets.US_ASCII);
    }

    /**
     * The native address of a direct buffer's first byte (ignores its position).
     *
     * @param directBuffer a direct buffer
     * @return the address of byte 0
     */
    public static long addressOf(ByteBuffer directBuffer) {
        if (!directBuffer.isDirect()) {
            throw new IllegalArgumentException("RDMA needs a direct ByteBuffer (ByteBuffer.allocateDirect), got a heap buffer");
        }
        return U.getLong(directBuffer, BUFFER_ADDRESS);
    }

    private static void checkArray(byte[] a, int offset, int length) {
        if (offset < 0 || length < 0 || offset > a.length - length) {
            throw new IndexOutOfBoundsException("offset " + offset + ", length " + length + ", array " + a.length);
        }
    }
}
