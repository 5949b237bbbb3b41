package org.verbs4j.netty;

import java.nio.ByteBuffer;

/**
 * The part of one channel's staging half that the {@linkplain RdmaChannelOption#REGISTERED_ALLOCATOR registered
 * allocator} lends to large buffers ({@link RegionByteBuf}): blocks of {@link #blockBytes()} handed out as contiguous
 * runs and given back in any order (a buffer is released whenever its owner and the peer are done with it), first
 * fit. Any thread allocates and frees: the methods synchronize on the object, which a large buffer's allocation and
 * release may afford (a send's path takes no lock). Once {@link #close}d it lends nothing more and frees nothing:
 * buffers still out keep their memory, which is the endpoint's region, plain Java memory the collector frees.
 */
final class RegionBlocks {
    /** The most blocks: a larger part has larger blocks. */
    static final int MAX_BLOCKS = 4096;
    /** The smallest block. */
    static final int MIN_BLOCK_BYTES = 4096;

    /** The whole region, a view of its own whose position and limit never change (slices are absolute). */
    private final ByteBuffer memory;
    private final long base;
    private final int blockBytes;
    private final int blocks;
    private final long largest;
    /** A bit per block, set while it is lent. */
    private final long[] used;
    /** Per block: the length in blocks of the run lent from it, 0 when no run starts there. */
    private final int[] runs;
    private int freeBlocks;
    private boolean closed;

    /**
     * @param region   the channel's RDMA region (a view of it is kept)
     * @param base     where the lent part starts in the region
     * @param capacity the lent part's bytes, from {@code base}
     * @param largest  the largest buffer lent (it must go in one rendezvous: at most the peer's receiving half)
     */
    RegionBlocks(ByteBuffer region, long base, long capacity, long largest) {
        if (base < 0 || capacity < MIN_BLOCK_BYTES || base + capacity > region.capacity()) {
            throw new IllegalArgumentException("lending " + capacity + " bytes at " + base + " of a "
                    + region.capacity() + "-byte region");
        }
        int bytes = MIN_BLOCK_BYTES;
        while (capacity / bytes > MAX_BLOCKS) {
            bytes <<= 1;
        }
        this.memory = region.duplicate().clear();
        this.base = base;
        this.blockBytes = bytes;
        this.blocks = (int) (capacity / bytes);
        this.largest = Math.min(largest, (long) blocks * bytes);
        this.used = new long[(blocks + 63) >>> 6];
        this.runs = new int[blocks];
        this.freeBlocks = blocks;
    }

    int blockBytes() {
        return blockBytes;
    }

    /** {@return the bytes lent out at most, in whole blocks} */
    long capacity() {
        return (long) blocks * blockBytes;
    }

    /** {@return the largest buffer that may be lent} */
    long largest() {
        return largest;
    }

    /** {@return the blocks free now} */
    synchronized int freeBlocks() {
        return freeBlocks;
    }

    synchronized boolean isClosed() {
        return closed;
    }

    /**
     * {@return the region offset of {@code bytes} new contiguous bytes (rounded up to blocks), or -1: more than
     * {@link #largest}, no such run free now, or closed}
     */
    synchronized long allocate(long bytes) {
        if (closed || bytes < 1 || bytes > largest) {
            return -1;
        }
        int n = (int) ((bytes + blockBytes - 1) / blockBytes);
        if (n > freeBlocks) {
            return -1;
        }
        int run = 0;
        for (int i = 0; i < blocks; i++) {
            if ((i & 63) == 0 && used[i >>> 6] == -1L) {
                run = 0;
                i += 63; // a word of lent blocks
                continue;
            }
            if ((used[i >>> 6] & (1L << i)) != 0) {
                run = 0;
                continue;
            }
            if (++run == n) {
                int start = i - n + 1;
                mark(start, n, true);
                runs[start] = n;
                freeBlocks -= n;
                return base + (long) start * blockBytes;
            }
        }
        return -1;
    }

    /** Gives back what {@link #allocate}({@code bytes}) returned at {@code offset}; nothing once closed. */
    synchronized void free(long offset, long bytes) {
        if (closed) {
            return;
        }
        long rel = offset - base;
        int n = (int) ((bytes + blockBytes - 1) / blockBytes);
        if (rel < 0 || rel % blockBytes != 0 || rel / blockBytes + n > blocks || n < 1) {
            throw new IllegalArgumentException("freeing " + bytes + " bytes at " + offset + ": not lent here");
        }
        int start = (int) (rel / blockBytes);
        if (runs[start] != n) {
            throw new IllegalStateException("freeing " + bytes + " bytes at " + offset + ": " + (runs[start] == 0
                    ? "not lent (freed twice?)" : "lent as " + runs[start] + " blocks, not " + n));
        }
        runs[start] = 0;
        mark(start, n, false);
        freeBlocks += n;
    }

    /** Lends nothing more; what is out keeps its memory. */
    synchronized void close() {
        closed = true;
    }

    /** {@return the region's {@code length} bytes at {@code offset}, as a buffer of their own} Any thread. */
    ByteBuffer slice(long offset, int length) {
        return memory.slice((int) offset, length);
    }

    private void mark(int start, int n, boolean lent) {
        for (int i = start; i < start + n; i++) {
            if (lent) {
                used[i >>> 6] |= 1L << i;
            } else {
                used[i >>> 6] &= ~(1L << i);
            }
        }
    }
}
