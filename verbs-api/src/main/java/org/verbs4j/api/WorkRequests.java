package org.verbs4j.api;

import static org.verbs4j.api.internal.WrLayout.Wr.*;

import org.verbs4j.api.internal.RawMemory;
import org.verbs4j.api.spi.CloseGuard;

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
    /** Posts in progress on other threads: {@link #close} waits for them before it frees the memory. */
    private final CloseGuard guard = new CloseGuard();

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

    /** {@return how many slots a post sends} */
    public final int count() {
        return count;
    }

    /** {@return how many slots the array has} */
    public final int capacity() {
        return capacity;
    }

    /** {@return how many scatter/gather entries each slot has room for} */
    public final int maxSge() {
        return maxSge;
    }

    /** {@return native address of slot 0: what backends pass to {@code ibv_post_send} / {@code ibv_post_recv}} */
    public final long address() {
        checkOpen();
        return base;
    }

    /**
     * For backends: enters a post that reads this array and returns the address of slot 0; the memory is
     * not freed until {@link #leave()}, which must follow in a {@code finally}, even when {@link #close()}
     * runs on another thread meanwhile. Throws {@link IllegalStateException} when the array is closed.
     *
     * @return the native address of slot 0
     */
    public final long enter() {
        if (!guard.tryEnter()) {
            throw closed();
        }
        return base;
    }

    /** For backends: leaves the post {@link #enter() entered}. */
    public final void leave() {
        guard.leave();
    }

    /**
     * For backends, before a post: throws {@link IllegalArgumentException} when the chain is longer than
     * {@code maxWr} (the queue's depth) or a request in it has more than {@code maxSge} entries, naming
     * {@code queue}. A provider may drop what does not fit without an error (siw does): nothing a user posts
     * may be lost silently. Costs two comparisons when the array's shape fits the queue.
     *
     * @param maxWr the most outstanding work requests
     * @param maxSge the most scatter/gather entries per request
     * @param queue the queue the requests go to, for the message
     */
    public final void checkFits(int maxWr, int maxSge, Object queue) {
        if (count > maxWr) {
            throw new IllegalArgumentException("a chain of " + count + " " + slotsName + " is longer than " + queue
                    + " can hold (" + maxWr + " work requests): post at most " + maxWr
                    + " at once, and no more than the queue has free");
        }
        if (maxSge > this.maxSge) {
            return;
        }
        for (int i = 0; i < count; i++) {
            int n = RawMemory.getInt(slot(i) + NUM_SGE);
            if (n > maxSge) {
                throw new IllegalArgumentException("slot " + i + " of the chain has " + n + " scatter/gather entries; "
                        + queue + " takes at most " + maxSge + " per request (max_sge)");
            }
        }
    }

    /**
     * The slot index of a native request address inside this array (for a failed post's {@code bad_wr}), or -1.
     *
     * @param wrAddress the work request address
     * @return the slot index, or -1 when the address is not in this array
     */
    public final int indexOf(long wrAddress) {
        long off = wrAddress - base;
        return off >= 0 && off < (long) capacity * wrSize ? (int) (off / wrSize) : -1;
    }

    final void checkOpen() {
        if (guard.isShut()) {
            throw closed();
        }
    }

    private IllegalStateException closed() {
        return new IllegalStateException(name + " is closed");
    }

    /**
     * Frees the native memory, once the posts in progress on other threads have returned; the array and its
     * flyweight refuse every later use. Idempotent. Filling the array is not thread-safe: close it from the
     * thread that fills it, or after that thread is done.
     */
    @Override
    public final void close() {
        if (guard.shut()) {
            guard.awaitIdle(name);
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

        /**
         * Entry {@code j}: {@code length} bytes at {@code offset} in {@code mr}, after checking that the region
         * is open and that the bytes lie inside it (so the device, or a provider copying inline data, reads
         * only registered memory).
         */
        final void putSge(int j, MemoryRegion mr, long offset, int length) {
            if (mr.isClosed()) {
                throw new IllegalStateException(mr + " is closed");
            }
            if (offset < 0 || length < 0 || offset > mr.length() - length) {
                throw new IndexOutOfBoundsException("offset " + offset + " + length " + length + " outside the "
                        + mr.length() + "-byte region " + mr);
            }
            putSge(j, mr.address() + offset, length, mr.lkey());
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

        /** {@return native address of this request} */
        public final long address() {
            return address;
        }
    }
}
