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

    default void putBytes(long offset, byte[] src, int srcOffset, int length) {
        try {
            RawMemory.copyFromArray(src, srcOffset, length, at(offset, length));
        } finally {
            Reference.reachabilityFence(this); // the memory lives as long as the region
        }
    }

    default void putBytes(long offset, byte[] src) {
        putBytes(offset, src, 0, src.length);
    }

    default void getBytes(long offset, byte[] dst, int dstOffset, int length) {
        try {
            RawMemory.copyToArray(at(offset, length), dst, dstOffset, length);
        } finally {
            Reference.reachabilityFence(this); // the memory lives as long as the region
        }
    }

    default byte[] getBytes(long offset, int length) {
        at(offset, length);
        byte[] b = new byte[length];
        getBytes(offset, b, 0, length);
        return b;
    }

    default void putLong(long offset, long value) {
        try {
            RawMemory.putLong(at(offset, 8), value);
        } finally {
            Reference.reachabilityFence(this); // the memory lives as long as the region
        }
    }

    default long getLong(long offset) {
        try {
            return RawMemory.getLong(at(offset, 8));
        } finally {
            Reference.reachabilityFence(this); // the memory lives as long as the region
        }
    }

    /** A volatile read: sees what the NIC wrote, for polling on a flag byte as perftest does. */
    default long getLongVolatile(long offset) {
        try {
            return RawMemory.getLongVolatile(at(offset, 8));
        } finally {
            Reference.reachabilityFence(this); // the memory lives as long as the region
        }
    }

    default byte getByteVolatile(long offset) {
        try {
            return RawMemory.getByteVolatile(at(offset, 1));
        } finally {
            Reference.reachabilityFence(this); // the memory lives as long as the region
        }
    }

    default void putByteVolatile(long offset, byte value) {
        try {
            RawMemory.putByteVolatile(at(offset, 1), value);
        } finally {
            Reference.reachabilityFence(this); // the memory lives as long as the region
        }
    }

    default void putInt(long offset, int value) {
        try {
            RawMemory.putInt(at(offset, 4), value);
        } finally {
            Reference.reachabilityFence(this); // the memory lives as long as the region
        }
    }

    default int getInt(long offset) {
        try {
            return RawMemory.getInt(at(offset, 4));
        } finally {
            Reference.reachabilityFence(this); // the memory lives as long as the region
        }
    }

    default void fill(long offset, long length, byte value) {
        try {
            RawMemory.fill(at(offset, length), length, value);
        } finally {
            Reference.reachabilityFence(this); // the memory lives as long as the region
        }
    }
}
