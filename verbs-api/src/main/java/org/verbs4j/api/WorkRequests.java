package org.verbs4j.api;

import static org.verbs4j.api.internal.WrLayout.Wr.*;

import org.verbs4j.api.internal.RawMemory;

/**
 * What {@link SendRequests} and {@link ReceiveRequests} share: an array of {@code capacity} work requests
 * of {@code wrSize} bytes in one native block, followed by each slot's own {@code struct ibv_sge[maxSge]};
 * slot {@code i}'s {@code sg_list} points at its entries once and for all, and the first {@code count}
 * slots are linked through {@code next} into one chain. {@code struct ibv_send_wr} and
 * {@code struct ibv_recv_wr} begin alike ({@code wr_id}, {@code next}, {@code sg_list}, {@code num_sge} at
 * the same offsets), so the chain, the entries and the bounds checks are written here, once.
 *
 * <p>Every method the fill path calls is final and the subclasses are final classes: a call resolves to
 * one target, and the flyweight is one object reused for every slot. Nothing is allocated after the
 * constructor.
 */
abstract class WorkRequests implements AutoCloseable {

    private final String name;
    private final String slotsName;
    private final int wrSize;
    private final int capacity;
    private final int maxSge;
    private final long base;
    private final long sgeBase;
    private int count;
    private boolean closed;

    /**
     * @param name      the class name, for "... is closed"
     * @param slotsName what a slot is, for "slot i of n ..."
     */
    WorkRequests(String name, String slotsName, int wrSize, int capacity, int maxSge) {
        if (capacity < 1 || maxSge < 0) {
            throw new IllegalArgumentException("capacity " + capacity + " and maxSge " + maxSge
                    + ": need capacity >= 1, maxSge >= 0");
        }
        this.name = name;
        this.slotsName = slotsName;
        this.wrSize = wrSize;
        this.capacity = capacity;
        this.maxSge = maxSge;
        this.base = RawMemory.allocate((long) capacity * (wrSize + (long) maxSge * SGE_SIZE));
        this.sgeBase = base + (long) capacity * wrSize;
        for (int i = 0; i < capacity; i++) {
            RawMemory.putLong(slot(i) + SG_LIST, sgeBlock(i));
        }
        chain(1);
    }

    private long slot(int i) {
        return base + (long) i * wrSize;
    }

    private long sgeBlock(int i) {
        return sgeBase + (long) i * maxSge * SGE_SIZE;
    }

    /** Points {@code view} at slot {@code i}, after checking that the array is open and {@code i} in it. */
    final void point(Slot view, int i) {
        checkOpen();
        if (i < 0 || i >= capacity) {
            throw new IndexOutOfBoundsException("slot " + i + " of " + capacity + " " + slotsName);
        }
        view.address = slot(i);
        view.sgeAddress = sgeBlock(i);
    }

    /** Links slots 0..n-1 into one chain and terminates it at slot {@code n - 1}. */
    final void chain(int n) {
        checkOpen();
        if (n < 1 || n > capacity) {
            throw new IllegalArgumentException("count " + n + ": must be 1.." + capacity);
        }
        for (int i = 0; i < n - 1; i++) {
            RawMemory.putLong(slot(i) + NEXT, slot(i + 1));
        }
        RawMemory.putLong(slot(n - 1) + NEXT, 0L);
        count = n;
    }

    /** How many slots a post sends. */
    public final int count() {
        return count;
    }

    /** How many slots the array has. */
    public final int capacity() {
        return capacity;
    }

    /** How many scatter/gather entries each slot has room for. */
    public final int maxSge() {
        return maxSge;
    }

    /** Native address of slot 0: what backends pass to {@code ibv_post_send} / {@code ibv_post_recv}. */
    public final long address() {
        checkOpen();
        return base;
    }

    /** The slot index of a native request address inside this array (for a failed post's {@code bad_wr}), or -1. */
    public final int indexOf(long wrAddress) {
        long off = wrAddress - base;
        return off >= 0 && off < (long) capacity * wrSize ? (int) (off / wrSize) : -1;
    }

    final void checkOpen() {
        if (closed) {
            throw new IllegalStateException(name + " is closed");
        }
    }

    /** Frees the native memory; the array and its flyweight refuse every later use. Idempotent. */
    @Override
    public final void close() {
        if (!closed) {
            closed = true;
            RawMemory.free(base);
        }
    }

    /**
     * The flyweight over one slot: its address and its entries' address, set by {@link #point}. The
     * subclasses' fluent setters call the final methods here.
     */
    abstract static class Slot {
        private final WorkRequests owner;
        /** The owner's, copied: one load less on every entry written. */
        private final int maxSge;
        private long address;
        private long sgeAddress;

        /** Made by the subclass's field initialiser, so after {@code owner}'s constructor has set its shape. */
        Slot(WorkRequests owner) {
            this.owner = owner;
            this.maxSge = owner.maxSge;
        }

        /** The request's address, after checking that its array is still open (a closed one is freed). */
        final long wr() {
            owner.checkOpen();
            return address;
        }

        final void putWrId(long id) {
            RawMemory.putLong(wr() + WR_ID, id);
        }

        final long getWrId() {
            return RawMemory.getLong(wr() + WR_ID);
        }

        /** Entry {@code j}: {@code length} bytes at {@code addr} of a region with {@code lkey}. */
        final void putSge(int j, long addr, int length, int lkey) {
            if (j < 0 || j >= maxSge) {
                throw new IndexOutOfBoundsException("SGE " + j + " of " + maxSge);
            }
            owner.checkOpen();
            long s = sgeAddress + (long) j * SGE_SIZE;
            RawMemory.putLong(s + SGE_ADDR, addr);
            RawMemory.putInt(s + SGE_LENGTH, length);
            RawMemory.putInt(s + SGE_LKEY, lkey);
        }

        final void putNumSge(int n) {
            if (n < 0 || n > maxSge) {
                throw new IllegalArgumentException("num_sge " + n + " of at most " + maxSge);
            }
            RawMemory.putInt(wr() + NUM_SGE, n);
        }

        final int getNumSge() {
            return RawMemory.getInt(wr() + NUM_SGE);
        }

        /** Total bytes of the used entries ({@code length} is unsigned). */
        final long usedLength() {
            long sum = 0;
            int n = getNumSge();
            for (int j = 0; j < n; j++) {
                sum += RawMemory.getUInt(sgeAddress + (long) j * SGE_SIZE + SGE_LENGTH);
            }
            return sum;
        }

        /** Zeroes the request's fields and its entries, keeping {@code next} and {@code sg_list}. */
        final void zero() {
            long wr = wr();
            long next = RawMemory.getLong(wr + NEXT);
            RawMemory.zero(wr, owner.wrSize);
            RawMemory.putLong(wr + NEXT, next);
            RawMemory.putLong(wr + SG_LIST, sgeAddress);
            RawMemory.zero(sgeAddress, (long) maxSge * SGE_SIZE);
        }

        /** Native address of this request. */
        public final long address() {
            return address;
        }
    }
}
