package org.verbs4j.api.internal;

import java.nio.ByteBuffer;

/**
 * The one class that touches raw native memory. Every struct read and write in verbs4j goes through
 * it, so the rest of the code never sees the mechanism: {@code sun.misc.Unsafe} on JDK 17-21,
 * {@code java.lang.foreign} on JDK 22+ (the multi-release jar's {@code MemoryAccess}). Native byte order (x86_64: little endian);
 * fields that are big endian on the wire (GUIDs, GIDs, {@code imm_data}) are swapped by the caller.
 *
 * <p>Not API: backends and flyweights use it. Addresses are not checked; callers check bounds once
 * per object, not per access.
 */
public final class RawMemory {
    /** Size of a native pointer. */
    public static final int ADDRESS_SIZE = MemoryAccess.ADDRESS_SIZE;
    /** Page size of this machine. */
    public static final int PAGE_SIZE = MemoryAccess.PAGE_SIZE;

    private RawMemory() {
    }

    /**
     * Which mechanism reads and writes native memory in this JVM: {@code sun.misc.Unsafe} on JDK 17-21,
     * {@code java.lang.foreign} on JDK 22+.
     *
     * @return the mechanism's name
     */
    public static String mechanism() {
        return MemoryAccess.mechanism();
    }

    /**
     * Reads a byte at {@code address}, in native byte order; no bounds check.
     *
     * @param address the native address
     * @return the value read
     */
    public static byte getByte(long address) {
        return MemoryAccess.getByte(address);
    }

    /**
     * Writes a byte at {@code address}, in native byte order; no bounds check.
     *
     * @param address the native address
     * @param value   the value to write
     */
    public static void putByte(long address, byte value) {
        MemoryAccess.putByte(address, value);
    }

    /**
     * Reads a 16-bit value at {@code address}, in native byte order; no bounds check.
     *
     * @param address the native address
     * @return the value read
     */
    public static short getShort(long address) {
        return MemoryAccess.getShort(address);
    }

    /**
     * Writes a 16-bit value at {@code address}, in native byte order; no bounds check.
     *
     * @param address the native address
     * @param value   the value to write
     */
    public static void putShort(long address, short value) {
        MemoryAccess.putShort(address, value);
    }

    /**
     * Reads a 32-bit value at {@code address}, in native byte order; no bounds check.
     *
     * @param address the native address
     * @return the value read
     */
    public static int getInt(long address) {
        return MemoryAccess.getInt(address);
    }

    /**
     * Writes a 32-bit value at {@code address}, in native byte order; no bounds check.
     *
     * @param address the native address
     * @param value   the value to write
     */
    public static void putInt(long address, int value) {
        MemoryAccess.putInt(address, value);
    }

    /**
     * Reads a 64-bit value at {@code address}, in native byte order; no bounds check.
     *
     * @param address the native address
     * @return the value read
     */
    public static long getLong(long address) {
        return MemoryAccess.getLong(address);
    }

    /**
     * Writes a 64-bit value at {@code address}, in native byte order; no bounds check.
     *
     * @param address the native address
     * @param value   the value to write
     */
    public static void putLong(long address, long value) {
        MemoryAccess.putLong(address, value);
    }

    /**
     * Reads a pointer at {@code address}, in native byte order; no bounds check.
     *
     * @param address the native address
     * @return the value read
     */
    public static long getAddress(long address) {
        return MemoryAccess.getLong(address);
    }

    /**
     * Writes a pointer at {@code address}, in native byte order; no bounds check.
     *
     * @param address the native address
     * @param value   the value to write
     */
    public static void putAddress(long address, long value) {
        MemoryAccess.putLong(address, value);
    }

    /**
     * Unsigned byte.
     *
     * @param address the native address
     * @return the byte, zero-extended
     */
    public static int getUByte(long address) {
        return MemoryAccess.getByte(address) & 0xff;
    }

    /**
     * Unsigned 16-bit value.
     *
     * @param address the native address
     * @return the value, zero-extended
     */
    public static int getUShort(long address) {
        return MemoryAccess.getShort(address) & 0xffff;
    }

    /**
     * Unsigned 32-bit value.
     *
     * @param address the native address
     * @return the value, zero-extended
     */
    public static long getUInt(long address) {
        return MemoryAccess.getInt(address) & 0xffffffffL;
    }

    /**
     * Reads a 64-bit value with volatile semantics at {@code address}, in native byte order; no bounds check.
     *
     * @param address the native address
     * @return the value read
     */
    public static long getLongVolatile(long address) {
        return MemoryAccess.getLongVolatile(address);
    }

    /**
     * Reads a byte with volatile semantics at {@code address}, in native byte order; no bounds check.
     *
     * @param address the native address
     * @return the value read
     */
    public static byte getByteVolatile(long address) {
        return MemoryAccess.getByteVolatile(address);
    }

    /**
     * Writes a byte with volatile semantics at {@code address}, in native byte order; no bounds check.
     *
     * @param address the native address
     * @param value   the value to write
     */
    public static void putByteVolatile(long address, byte value) {
        MemoryAccess.putByteVolatile(address, value);
    }

    /**
     * Allocates {@code size} bytes ({@code malloc}), zeroed. Free with {@link #free}.
     *
     * @param size the size in bytes
     * @return the address of the zeroed memory (at least one byte); free it with {@link #free}
     */
    public static long allocate(long size) {
        long a = MemoryAccess.allocate(Math.max(1, size));
        MemoryAccess.fill(a, Math.max(1, size), (byte) 0);
        return a;
    }

    /**
     * Frees memory from {@link #allocate}; 0 is ignored. Freeing twice corrupts the heap.
     *
     * @param address the address {@link #allocate} returned, or 0
     */
    public static void free(long address) {
        if (address != 0) {
            MemoryAccess.free(address);
        }
    }

    /**
     * Sets {@code size} bytes at {@code address} to 0; no bounds check.
     *
     * @param address the native address
     * @param size    how many bytes
     */
    public static void zero(long address, long size) {
        MemoryAccess.fill(address, size, (byte) 0);
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
        MemoryAccess.fill(address, size, value);
    }

    /**
     * Copies native memory; no bounds check.
     *
     * @param from the source address
     * @param to   the destination address
     * @param size how many bytes
     */
    public static void copy(long from, long to, long size) {
        MemoryAccess.copy(from, to, size);
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
        MemoryAccess.copyToArray(from, to, offset, length);
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
        MemoryAccess.copyFromArray(from, offset, length, to);
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
        while (n < max && MemoryAccess.getByte(address + n) != 0) {
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
        return MemoryAccess.bufferAddress(directBuffer);
    }

    private static void checkArray(byte[] a, int offset, int length) {
        if (offset < 0 || length < 0 || offset > a.length - length) {
            throw new IndexOutOfBoundsException("offset " + offset + ", length " + length + ", array " + a.length);
        }
    }
}
