package org.verbs4j.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The lent part of a staging half: contiguous runs of blocks, freed in any order, from any thread. */
@Timeout(60)
class RegionBlocksTest {
    private static final int BLOCK = RegionBlocks.MIN_BLOCK_BYTES;

    /** Random allocations and frees in any order against a model of the blocks: no run overlaps a lent one. */
    @Test
    void anyOrderFreesMatchAModel() {
        int blocks = 200; // not a multiple of 64: the last word is partial
        long base = 3 * BLOCK;
        RegionBlocks b = new RegionBlocks(ByteBuffer.allocateDirect((int) base + blocks * BLOCK), base,
                (long) blocks * BLOCK, (long) blocks * BLOCK);
        boolean[] lent = new boolean[blocks];
        List<long[]> held = new ArrayList<>();
        Random r = new Random(5);
        int allocations = 0;
        for (int step = 0; step < 20_000; step++) {
            if (held.isEmpty() || r.nextInt(5) < 3) {
                long bytes = 1 + r.nextInt(r.nextBoolean() ? 2 * BLOCK : 40 * BLOCK);
                int n = (int) ((bytes + BLOCK - 1) / BLOCK);
                long at = b.allocate(bytes);
                int first = firstFit(lent, n);
                if (first < 0) {
                    assertEquals(-1, at, "no run of " + n + " free blocks, yet " + bytes + " bytes were lent");
                    continue;
                }
                assertEquals(base + (long) first * BLOCK, at, "first fit for " + n + " blocks");
                for (int i = first; i < first + n; i++) {
                    lent[i] = true;
                }
                held.add(new long[] {at, bytes});
                allocations++;
            } else {
                long[] h = held.remove(r.nextInt(held.size()));
                b.free(h[0], h[1]);
                int first = (int) ((h[0] - base) / BLOCK);
                for (int i = first; i < first + (h[1] + BLOCK - 1) / BLOCK; i++) {
                    lent[i] = false;
                }
            }
            int free = 0;
            for (boolean l : lent) {
                free += l ? 0 : 1;
            }
            assertEquals(free, b.freeBlocks());
        }
        assertTrue(allocations > 5_000, "allocations: " + allocations);
        for (long[] h : held) {
            b.free(h[0], h[1]);
        }
        assertEquals(blocks, b.freeBlocks());
        assertEquals(base, b.allocate((long) blocks * BLOCK), "all of it, once everything is back");
    }

    private static int firstFit(boolean[] lent, int n) {
        int run = 0;
        for (int i = 0; i < lent.length; i++) {
            run = lent[i] ? 0 : run + 1;
            if (run == n) {
                return i - n + 1;
            }
        }
        return -1;
    }

    @Test
    void limitsFreesTwiceAndClose() {
        RegionBlocks b = new RegionBlocks(ByteBuffer.allocateDirect(64 * BLOCK), 0, 64 * BLOCK, 10 * BLOCK);
        assertEquals(10 * BLOCK, b.largest());
        assertEquals(-1, b.allocate(10 * BLOCK + 1), "larger than the largest buffer");
        assertEquals(-1, b.allocate(0));
        long at = b.allocate(BLOCK + 1);
        assertEquals(0, at);
        assertEquals(62, b.freeBlocks(), "rounded up to whole blocks");
        assertThrows(IllegalArgumentException.class, () -> b.free(BLOCK + 7, 1), "not a block's start");
        assertThrows(IllegalStateException.class, () -> b.free(BLOCK, 1), "inside a run, not its start");
        assertThrows(IllegalStateException.class, () -> b.free(0, 1), "a run's start, but not its length");
        b.free(at, BLOCK + 1);
        assertThrows(IllegalStateException.class, () -> b.free(at, BLOCK + 1), "freed twice");
        long again = b.allocate(BLOCK);
        b.close();
        assertEquals(-1, b.allocate(1), "closed: nothing more is lent");
        b.free(again, BLOCK); // ignored once closed
        assertEquals(63, b.freeBlocks());
    }

    /** A large part has larger blocks: at most {@link RegionBlocks#MAX_BLOCKS} of them. */
    @Test
    void aLargePartHasLargerBlocks() {
        long capacity = 64L << 20;
        assertThrows(IllegalArgumentException.class,
                () -> new RegionBlocks(ByteBuffer.allocateDirect(BLOCK), 0, BLOCK - 1, BLOCK), "less than a block");
        assertEquals(BLOCK, new RegionBlocks(ByteBuffer.allocateDirect(BLOCK * 4096), 0, BLOCK * 4096L, 1)
                .blockBytes(), "4096 blocks of the smallest size");
        ByteBuffer big = ByteBuffer.allocateDirect((int) capacity);
        RegionBlocks large = new RegionBlocks(big, 0, capacity, capacity);
        assertEquals(capacity / RegionBlocks.MAX_BLOCKS, large.blockBytes());
        assertEquals(RegionBlocks.MAX_BLOCKS, large.freeBlocks());
    }

    /**
     * Four threads allocate, fill with their own byte, check, and free, at once: no two buffers ever share a byte, and
     * every block comes back.
     */
    @Test
    void threadsLendAndFreeAtOnce() throws Exception {
        int blocks = 256;
        ByteBuffer region = ByteBuffer.allocateDirect(blocks * BLOCK);
        RegionBlocks b = new RegionBlocks(region, 0, (long) blocks * BLOCK, 32 * BLOCK);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<Integer>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                byte mark = (byte) (t + 1);
                done.add(pool.submit(() -> {
                    Random r = new Random(mark);
                    int lent = 0;
                    for (int i = 0; i < 5_000; i++) {
                        int bytes = 1 + r.nextInt(32 * BLOCK);
                        long at = b.allocate(bytes);
                        if (at < 0) {
                            continue;
                        }
                        lent++;
                        ByteBuffer mine = b.slice(at, bytes);
                        for (int k = 0; k < bytes; k += 512) {
                            mine.put(k, mark);
                        }
                        Thread.yield();
                        for (int k = 0; k < bytes; k += 512) {
                            if (mine.get(k) != mark) {
                                throw new AssertionError("byte " + (at + k) + " was written by another buffer");
                            }
                        }
                        b.free(at, bytes);
                    }
                    return lent;
                }));
            }
            for (Future<Integer> f : done) {
                assertTrue(f.get(50, TimeUnit.SECONDS) > 1000);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(blocks, b.freeBlocks());
    }
}
