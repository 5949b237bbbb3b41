package org.verbs4j.api;

import java.nio.ByteBuffer;
import org.verbs4j.api.internal.RawMemory;

/**
 * Registered memory ({@code struct ibv_mr}): pinned, translated for the NIC, and named by its keys. The
 * {@link #lkey()} goes into local scatter/gather entries; the {@link #rkey()} and {@link #address()} go to
 * the peer for RDMA reads, writes and atomics.
 *
 * <p>The accessors below read and write the region from Java with bounds checks. Memory the NIC writes
 * (receive buffers, RDMA write targets) changes underneath Java: read it after the completion that
 * says it arrived, or poll it with {@link #getByteVolatile}.
 */
public interface MemoryRegion extends AutoCloseable {

    ProtectionDomain protectionDomain();

    /** Start address of the registered memory. */
    long address();

    /** Length in bytes. */
    long length();

    int lkey();

    int rkey();

    /** The {@link Access} flags it was registered with. */
    int access();

    /** The direct buffer behind the region, or {@code null} when it was registered from a raw address. */
    ByteBuffer buffer();

    boolean isClosed();

    /** {@code ibv_dereg_mr}; frees the memory when the region allocated it. */
    @Override
    void close();

    private void check(long offset, long length) {
        if (isClosed()) {
            throw new IllegalStateException(this + " is closed");
        }
        if (offset < 0 || length < 0 || offset + length > length()) {
            throw new IndexOutOfBoundsException("offset " + offset + " + length " + length + " outside the "
                    + length() + "-byte region");
        }
    }

    default void putBytes(long offset, byte[] src, int srcOffset, int length) {
        check(offset, length);
        RawMemory.copyFromArray(src, srcOffset, length, address() + offset);
    }

    default void putBytes(long offset, byte[] src) {
        putBytes(offset, src, 0, src.length);
    }

    default void getBytes(long offset, byte[] dst, int dstOffset, int length) {
        check(offset, length);
        RawMemory.copyToArray(address() + offset, dst, dstOffset, length);
    }

    default byte[] getBytes(long offset, int length) {
        byte[] b = new byte[length];
        getBytes(offset, b, 0, length);
        return b;
    }

    default void putLong(long offset, long value) {
        check(offset, 8);
        RawMemory.putLong(address() + offset, value);
    }

    default long getLong(long offset) {
        check(offset, 8);
        return RawMemory.getLong(address() + offset);
    }

    /** A volatile read: sees what the NIC wrote, for polling on a flag byte as perftest does. */
    default long getLongVolatile(long offset) {
        check(offset, 8);
        return RawMemory.getLongVolatile(address() + offset);
    }

    default byte getByteVolatile(long offset) {
        check(offset, 1);
        return RawMemory.getByteVolatile(address() + offset);
    }

    default void putByteVolatile(long offset, byte value) {
        check(offset, 1);
        RawMemory.putByteVolatile(address() + offset, value);
    }

    default void putInt(long offset, int value) {
        check(offset, 4);
        RawMemory.putInt(address() + offset, value);
    }

    default int getInt(long offset) {
        check(offset, 4);
        return RawMemory.getInt(address() + offset);
    }

    default void fill(long offset, long length, byte value) {
        check(offset, length);
        RawMemory.fill(address() + offset, length, value);
    }
}
