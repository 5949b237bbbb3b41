package org.verbs4j.api;

import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import org.verbs4j.api.internal.RawMemory;

/**
 * Registered memory ({@code struct ibv_mr}): pinned, translated for the NIC, and named by its keys. The
 * {@link #lkey()} goes into local scatter/gather entries; the {@link #rkey()} and {@link #address()} go to
 * the peer for RDMA reads, writes and atomics.
 *
 * <p>The accessors below read and write the region from Java with bounds checks (a negative or overflowing
 * offset or length throws {@link IndexOutOfBoundsException}, a closed region {@link IllegalStateException}).
 * Memory that verbs4j allocated ({@link ProtectionDomain#allocateMemory}) stays valid for as long as the
 * region object is reachable, even after {@link #close()}, so an accessor racing a close on another thread
 * never touches freed memory; it is freed when the region becomes unreachable. Memory the NIC writes
 * (receive buffers, RDMA write targets) changes underneath Java: read it after the completion that
 * says it arrived, or poll it with {@link #getByteVolatile}.
 */
public interface MemoryRegion extends AutoCloseable {

    /** {@return the protection domain ({@code pd} of {@code struct ibv_mr})} */
    ProtectionDomain protectionDomain();

    /** {@return start address of the registered memory} */
    long address();

    /** {@return length in bytes} */
    long length();

    /** {@return the lkey ({@code lkey} of {@code struct ibv_mr})} */
    int lkey();

    /** {@return the rkey ({@code rkey} of {@code struct ibv_mr})} */
    int rkey();

    /** {@return the {@link Access} flags it was registered with} */
    int access();

    /** {@return the direct buffer behind the region, or {@code null} when it was registered from a raw address} */
    ByteBuffer buffer();

    /** {@return whether closed} */
    boolean isClosed();

    /** {@code ibv_dereg_mr}; frees the memory when the region allocated it. */
    @Override
    void close();

    /**
     * The native address of {@code offset}, after checking that the region is open and that {@code length}
     * bytes from there lie inside it: every accessor below goes through here.
     */
    private long at(long offset, long length) {
        if (isClosed()) {
            throw new IllegalStateException(this + " is closed");
        }
        if (offset < 0 || length < 0 || offset > length() - length) {
            throw new IndexOutOfBoundsException("offset " + offset + " + length " + length + " outside the "
                    + length() + "-byte region");
        }
        return address() + offset;
    }

    /**
     * Copies {@code length} bytes of {@code src} into the region.
     *
     * @param offset    the offset in the region, in bytes
     * @param src       the bytes
     * @param srcOffset the first index of {@code src} copied
     * @param length    how many bytes
     * @throws IndexOutOfBoundsException when a range is outside the region or the array
     * @throws IllegalStateException     when the region is closed
     */
    default void putBytes(long offset, byte[] src, int srcOffset, int length) {
        try {
            RawMemory.copyFromArray(src, srcOffset, length, at(offset, length));
        } finally {
            Reference.reachabilityFence(this); // the memory lives as long as the region
        }
    }

    /**
     * Copies all of {@code src} into the region.
     *
     * @param offset the offset in the region, in bytes
     * @param src    the bytes
     * @throws IndexOutOfBoundsException when the range is outside the region
     */
    default void putBytes(long offset, byte[] src) {
        putBytes(offset, src, 0, src.length);
    }

    /**
     * Copies {@code length} bytes of the region into {@code dst}.
     *
     * @param offset    the offset in the region, in bytes
     * @param dst       the array to fill
     * @param dstOffset the first index of {@code dst} written
     * @param length    how many bytes
     * @throws IndexOutOfBoundsException when a range is outside the region or the array
     * @throws IllegalStateException     when the region is closed
     */
    default void getBytes(long offset, byte[] dst, int dstOffset, int length) {
        try {
            RawMemory.copyToArray(at(offset, length), dst, dstOffset, length);
        } finally {
            Reference.reachabilityFence(this); // the memory lives as long as the region
        }
    }

    /**
     * Copies {@code length} bytes of the region into a new array.
     *
     * @param offset the offset in the region, in bytes
     * @param length how many bytes
     * @return a new array with the bytes
     * @throws IndexOutOfBoundsException when the range is outside the region
     */
    default byte[] getBytes(long offset, int length) {
        at(offset, length);
        byte[] b = new byte[length];
        getBytes(offset, b, 0, length);
        return b;
    }

    /**
     * Writes 8 bytes, native (little-endian on x86_64) byte order.
     *
     * @param offset the offset in the region, in bytes
     * @param value  the value
     * @throws IndexOutOfBoundsException when the 8 bytes are not all inside the region
     */
    default void putLong(long offset, long value) {
        try {
            RawMemory.putLong(at(offset, 8), value);
        } finally {
            Reference.reachabilityFence(this); // the memory lives as long as the region
        }
    }

    /**
     * Reads 8 bytes, native byte order (plain read: use {@link #getLongVolatile} for memory the NIC writes while you
     * poll).
     *
     * @param offset the offset in the region, in bytes
     * @return the value
     * @throws IndexOutOfBoundsException when the 8 bytes are not all inside the region
     */
    default long getLong(long offset) {
        try {
            return RawMemory.getLong(at(offset, 8));
        } finally {
            Reference.reachabilityFence(this); // the memory lives as long as the region
        }
    }

    /**
     * A volatile read: sees what the NIC wrote, for polling on a flag byte as perftest does.
     *
     * @param offset the offset in bytes
     * @return the value read
     */
    default long getLongVolatile(long offset) {
        try {
            return RawMemory.getLongVolatile(at(offset, 8));
        } finally {
            Reference.reachabilityFence(this); // the memory lives as long as the region
        }
    }

    /**
     * A volatile read of one byte: sees what the NIC wrote, for polling on a flag byte.
     *
     * @param offset the offset in the region, in bytes
     * @return the byte read
     * @throws IndexOutOfBoundsException when the offset is outside the region
     */
    default byte getByteVolatile(long offset) {
        try {
            return RawMemory.getByteVolatile(at(offset, 1));
        } finally {
            Reference.reachabilityFence(this); // the memory lives as long as the region
        }
    }

    /**
     * A volatile write of one byte.
     *
     * @param offset the offset in the region, in bytes
     * @param value  the byte
     * @throws IndexOutOfBoundsException when the offset is outside the region
     */
    default void putByteVolatile(long offset, byte value) {
        try {
            RawMemory.putByteVolatile(at(offset, 1), value);
        } finally {
            Reference.reachabilityFence(this); // the memory lives as long as the region
        }
    }

    /**
     * Writes 4 bytes, native byte order.
     *
     * @param offset the offset in the region, in bytes
     * @param value  the value
     * @throws IndexOutOfBoundsException when the 4 bytes are not all inside the region
     */
    default void putInt(long offset, int value) {
        try {
            RawMemory.putInt(at(offset, 4), value);
        } finally {
            Reference.reachabilityFence(this); // the memory lives as long as the region
        }
    }

    /**
     * Reads 4 bytes, native byte order.
     *
     * @param offset the offset in the region, in bytes
     * @return the value
     * @throws IndexOutOfBoundsException when the 4 bytes are not all inside the region
     */
    default int getInt(long offset) {
        try {
            return RawMemory.getInt(at(offset, 4));
        } finally {
            Reference.reachabilityFence(this); // the memory lives as long as the region
        }
    }

    /**
     * Sets {@code length} bytes of the region to {@code value} ({@code memset}).
     *
     * @param offset the offset in the region, in bytes
     * @param length how many bytes
     * @param value  the byte to write
     * @throws IndexOutOfBoundsException when the range is outside the region
     */
    default void fill(long offset, long length, byte value) {
        try {
            RawMemory.fill(at(offset, length), length, value);
        } finally {
            Reference.reachabilityFence(this); // the memory lives as long as the region
        }
    }
}
