package org.verbs4j.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The rendezvous regions' first-in, first-out allocator: contiguous, never overlapping, never outside the region. */
class RegionRingTest {

    @Test
    void allocationsAreContiguousAndWrapWhenTheOldestLeftRoom() {
        RegionRing r = new RegionRing(100, 8);
        assertEquals(0, r.allocate(40));
        assertEquals(40, r.allocate(40));
        assertEquals(-1, r.allocate(30), "20 bytes at the end, none at the start");
        r.free(); // [0, 40) free
        assertEquals(0, r.allocate(30), "wraps to the start");
        assertEquals(-1, r.allocate(20), "10 bytes between the newest and the oldest");
        assertEquals(30, r.allocate(10));
        r.free(); // the one at 40
        assertEquals(40, r.allocate(60), "after the wrapped ones, up to the end");
        assertEquals(3, r.held());
    }

    @Test
    void anEmptyRingStartsAgainAtZeroSoTheWholeRegionFits() {
        RegionRing r = new RegionRing(100, 4);
        assertEquals(0, r.allocate(30));
        assertEquals(30, r.allocate(30));
        r.free();
        r.free();
        assertEquals(0, r.allocate(100));
        assertEquals(-1, r.allocate(1));
    }

    @Test
    void theEntriesBoundTheAllocationsHeld() {
        RegionRing r = new RegionRing(1000, 2);
        assertEquals(0, r.allocate(1));
        assertEquals(1, r.allocate(1));
        assertEquals(-1, r.allocate(1));
        r.free();
        assertEquals(2, r.allocate(1));
    }

    @Test
    void dropNewestTakesBackTheLastAllocation() {
        RegionRing r = new RegionRing(100, 4);
        assertEquals(0, r.allocate(50));
        assertEquals(50, r.allocate(50));
        r.dropNewest();
        assertEquals(50, r.allocate(20));
        r.dropNewest();
        r.dropNewest();
        assertEquals(0, r.held());
        assertEquals(0, r.allocate(100));
    }

    @Test
    void badUseIsRefused() {
        RegionRing r = new RegionRing(100, 4);
        assertThrows(IllegalArgumentException.class, () -> r.allocate(0));
        assertThrows(IllegalArgumentException.class, () -> r.allocate(101));
        assertThrows(IllegalStateException.class, r::free);
        assertThrows(IllegalStateException.class, r::dropNewest);
        assertThrows(IllegalStateException.class, r::oldestOffset);
        assertThrows(IllegalArgumentException.class, () -> new RegionRing(0, 1));
    }

    /** Random allocations and frees against a model: what is held never overlaps and stays inside the region. */
    @Test
    void randomUseNeverOverlaps() {
        Random rnd = new Random(42);
        for (int round = 0; round < 200; round++) {
            int capacity = 1 + rnd.nextInt(5000);
            RegionRing r = new RegionRing(capacity, 1 + rnd.nextInt(16));
            ArrayDeque<long[]> held = new ArrayDeque<>();
            boolean[] used = new boolean[capacity];
            for (int step = 0; step < 2000; step++) {
                if (!held.isEmpty() && rnd.nextInt(3) == 0) {
                    long[] a = held.pollFirst();
                    assertEquals(a[0], r.oldestOffset());
                    assertEquals(a[1], r.oldestLength());
                    r.free();
                    for (long i = a[0]; i < a[0] + a[1]; i++) {
                        used[(int) i] = false;
                    }
                    continue;
                }
                int length = 1 + rnd.nextInt(Math.max(1, capacity / (1 + rnd.nextInt(4))));
                long at = r.allocate(length);
                if (held.isEmpty()) {
                    assertEquals(0, at, "an empty ring allocates at 0");
                }
                if (at < 0) {
                    continue;
                }
                assertTrue(at + length <= capacity, at + " + " + length + " outside " + capacity);
                for (long i = at; i < at + length; i++) {
                    assertTrue(!used[(int) i], "byte " + i + " given twice");
                    used[(int) i] = true;
                }
                held.addLast(new long[] {at, length});
                assertEquals(held.size(), r.held());
            }
        }
    }
}
