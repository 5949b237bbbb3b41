package org.verbs4j.netty;

/**
 * Space in one side's RDMA region for rendezvous messages, handed out and given back first in, first out: a
 * sender's staged messages come back in the order the peer acknowledges them, a receiver's read sinks in the order it
 * delivers them. An allocation is contiguous; one that does not fit before the region's end starts again at 0 when the
 * oldest allocations have left room there. An empty ring starts again at 0, so any length up to the region's fits
 * once everything before it is freed. Plain fields: one channel's event loop uses it.
 */
final class RegionRing {
    private final long capacity;
    /** The allocations still held, oldest first: their offsets and lengths in a ring of {@code entries} cells. */
    private final long[] offsets;
    private final int[] lengths;
    private int first;
    private int count;
    /** Where the next allocation goes unless it wraps. */
    private long end;

    /**
     * @param capacity the region's bytes
     * @param entries  the most allocations held at once
     */
    RegionRing(long capacity, int entries) {
        if (capacity < 1 || entries < 1) {
            throw new IllegalArgumentException("region ring of " + capacity + " bytes, " + entries + " entries");
        }
        this.capacity = capacity;
        this.offsets = new long[entries];
        this.lengths = new int[entries];
    }

    long capacity() {
        return capacity;
    }

    /** {@return the allocations held} */
    int held() {
        return count;
    }

    /**
     * {@return the offset of {@code length} new contiguous bytes, or -1 when they do not fit now (or more allocations
     * are held than the ring has entries)}
     */
    long allocate(int length) {
        if (length < 1 || length > capacity) {
            throw new IllegalArgumentException(length + " bytes in a " + capacity + "-byte region");
        }
        if (count == offsets.length) {
            return -1;
        }
        long at;
        if (count == 0) {
            at = 0;
        } else {
            long start = offsets[first];
            if (end > start) {
                // held: [start, end); free: [end, capacity) and [0, start)
                if (capacity - end >= length) {
                    at = end;
                } else if (start >= length) {
                    at = 0;
                } else {
                    return -1;
                }
            } else {
                // wrapped: held [start, capacity) and [0, end); free: [end, start)
                if (start - end >= length) {
                    at = end;
                } else {
                    return -1;
                }
            }
        }
        int cell = (first + count) % offsets.length;
        offsets[cell] = at;
        lengths[cell] = length;
        count++;
        end = at + length;
        return at;
    }

    /** {@return the offset of the oldest allocation held} */
    long oldestOffset() {
        if (count == 0) {
            throw new IllegalStateException("no allocation held");
        }
        return offsets[first];
    }

    /** {@return the length of the oldest allocation held} */
    int oldestLength() {
        if (count == 0) {
            throw new IllegalStateException("no allocation held");
        }
        return lengths[first];
    }

    /** Takes back the newest allocation, not used after all. */
    void dropNewest() {
        if (count == 0) {
            throw new IllegalStateException("no allocation held");
        }
        count--;
        if (count == 0) {
            first = 0;
            end = 0;
        } else {
            int last = (first + count - 1) % offsets.length;
            end = offsets[last] + lengths[last];
        }
    }

    /** Gives back the oldest allocation. */
    void free() {
        if (count == 0) {
            throw new IllegalStateException("no allocation held");
        }
        first = (first + 1) % offsets.length;
        count--;
        if (count == 0) {
            first = 0;
            end = 0;
        }
    }
}
