package org.verbs4j.api;

import org.verbs4j.api.internal.RawMemory;

/**
 * A reusable array of receive work requests in native memory ({@code struct ibv_recv_wr[]} with their
 * {@code struct ibv_sge}s), posted with {@link QueuePair#postReceive} or
 * {@link SharedReceiveQueue#postReceive}. Works like {@link SendRequests}.
 *
 * <pre>{@code
 * try (ReceiveRequests rrs = ReceiveRequests.allocate(64, 1)) {
 *     for (int i = 0; i < 64; i++) {
 *         rrs.at(i).wrId(i).sge(buf.address() + i * 4096L, 4096, buf.lkey());
 *     }
 *     rrs.count(64);
 *     qp.postReceive(rrs);
 * }
 * }</pre>
 */
public final class ReceiveRequests implements AutoCloseable {
    /** {@code sizeof(struct ibv_recv_wr)}. */
    public static final int WR_SIZE = 32;
    public static final int WR_ID_OFFSET = 0;
    public static final int NEXT_OFFSET = 8;
    public static final int SG_LIST_OFFSET = 16;
    public static final int NUM_SGE_OFFSET = 24;

    private final int capacity;
    private final int maxSge;
    private final long base;
    private final long sgeBase;
    private final ReceiveRequest flyweight = new ReceiveRequest(this);
    private int count;
    private boolean closed;

    private ReceiveRequests(int capacity, int maxSge) {
        this.capacity = capacity;
        this.maxSge = maxSge;
        this.base = RawMemory.allocate((long) capacity * (WR_SIZE + (long) maxSge * SendRequests.SGE_SIZE));
        this.sgeBase = base + (long) capacity * WR_SIZE;
        for (int i = 0; i < capacity; i++) {
            RawMemory.putLong(base + (long) i * WR_SIZE + SG_LIST_OFFSET,
                    sgeBase + (long) i * maxSge * SendRequests.SGE_SIZE);
        }
        count(1);
    }

    public static ReceiveRequests allocate(int capacity, int maxSge) {
        if (capacity < 1 || maxSge < 0) {
            throw new IllegalArgumentException("capacity " + capacity + " and maxSge " + maxSge + ": need capacity >= 1, maxSge >= 0");
        }
        return new ReceiveRequests(capacity, maxSge);
    }

    /** The flyweight over slot {@code i}: the same object for every call, valid until the next {@code at}. */
    public ReceiveRequest at(int i) {
        checkOpen();
        if (i < 0 || i >= capacity) {
            throw new IndexOutOfBoundsException("slot " + i + " of " + capacity + " receive requests");
        }
        flyweight.address = base + (long) i * WR_SIZE;
        flyweight.sgeAddress = sgeBase + (long) i * maxSge * SendRequests.SGE_SIZE;
        flyweight.maxSge = maxSge;
        return flyweight;
    }

    /** Post slots 0..n-1 as one chain from now on. */
    public ReceiveRequests count(int n) {
        checkOpen();
        if (n < 1 || n > capacity) {
            throw new IllegalArgumentException("count " + n + ": must be 1.." + capacity);
        }
        for (int i = 0; i < n - 1; i++) {
            RawMemory.putLong(base + (long) i * WR_SIZE + NEXT_OFFSET, base + (long) (i + 1) * WR_SIZE);
        }
        RawMemory.putLong(base + (long) (n - 1) * WR_SIZE + NEXT_OFFSET, 0L);
        count = n;
        return this;
    }

    public int count() {
        return count;
    }

    public int capacity() {
        return capacity;
    }

    public int maxSge() {
        return maxSge;
    }

    /** Native address of slot 0. */
    public long address() {
        checkOpen();
        return base;
    }

    /** The slot index of a native request address inside this array, or -1. */
    public int indexOf(long wrAddress) {
        long off = wrAddress - base;
        return off >= 0 && off < (long) capacity * WR_SIZE ? (int) (off / WR_SIZE) : -1;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("ReceiveRequests is closed");
        }
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            RawMemory.free(base);
        }
    }

    /** The view of one {@code struct ibv_recv_wr}. */
    public static final class ReceiveRequest {
        private final ReceiveRequests owner;
        private long address;
        private long sgeAddress;
        private int maxSge;

        ReceiveRequest(ReceiveRequests owner) {
            this.owner = owner;
        }

        /** The request's address, after checking that its array is still open (a closed one is freed). */
        private long wr() {
            if (owner.closed) {
                throw new IllegalStateException("ReceiveRequests is closed");
            }
            return address;
        }

        public ReceiveRequest wrId(long id) {
            RawMemory.putLong(wr() + WR_ID_OFFSET, id);
            return this;
        }

        public ReceiveRequest sge(int j, long addr, int length, int lkey) {
            if (j < 0 || j >= maxSge) {
                throw new IndexOutOfBoundsException("SGE " + j + " of " + maxSge);
            }
            wr(); // checks that the array is open
            long s = sgeAddress + (long) j * SendRequests.SGE_SIZE;
            RawMemory.putLong(s + SendRequests.SGE_ADDR_OFFSET, addr);
            RawMemory.putInt(s + SendRequests.SGE_LENGTH_OFFSET, length);
            RawMemory.putInt(s + SendRequests.SGE_LKEY_OFFSET, lkey);
            return this;
        }

        /** One entry: sets entry 0 and {@code num_sge = 1}. */
        public ReceiveRequest sge(long addr, int length, int lkey) {
            return sge(0, addr, length, lkey).numSge(1);
        }

        public ReceiveRequest numSge(int n) {
            if (n < 0 || n > maxSge) {
                throw new IllegalArgumentException("num_sge " + n + " of at most " + maxSge);
            }
            RawMemory.putInt(wr() + NUM_SGE_OFFSET, n);
            return this;
        }

        public long wrId() {
            return RawMemory.getLong(wr() + WR_ID_OFFSET);
        }

        public int numSge() {
            return RawMemory.getInt(wr() + NUM_SGE_OFFSET);
        }

        public long address() {
            return address;
        }
    }
}
