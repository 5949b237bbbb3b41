package org.verbs4j.softiwarp;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.verbs4j.api.internal.RawMemory;
import org.verbs4j.api.internal.WrLayout.Wc;

/**
 * A bounded queue of {@code struct ibv_wc} entries in native memory, for any number of producers (the QPs
 * that complete into a CQ) and consumers (pollers), with no lock: each slot has a sequence number that says
 * whose turn it is (D. Vyukov's bounded MPMC queue). A producer claims a slot with one compare-and-set on the
 * tail, writes the entry in place, then publishes it; a poller claims it on the head and copies its 48 bytes
 * into the caller's completion array. Nothing allocates.
 */
final class CompletionRing {
    private final long base;
    private final int mask;
    private final AtomicLongArray sequence;
    private final AtomicLong head = new AtomicLong();
    private final AtomicLong tail = new AtomicLong();

    /**
     * @param capacity a power of two, at least 2: with one slot a published entry's sequence (pos + 1) equals the
     *                 next producer's turn, so a second completion would overwrite the first instead of overrunning
     */
    CompletionRing(int capacity) {
        if (Integer.bitCount(capacity) != 1 || capacity < 2) {
            throw new IllegalArgumentException("capacity " + capacity + ": not a power of two of at least 2");
        }
        this.mask = capacity - 1;
        this.base = RawMemory.allocate((long) capacity * Wc.WC_SIZE);
        RawMemory.zero(base, (long) capacity * Wc.WC_SIZE);
        this.sequence = new AtomicLongArray(capacity);
        for (int i = 0; i < capacity; i++) {
            sequence.set(i, i);
        }
    }

    int capacity() {
        return mask + 1;
    }

    /** {@return how many entries are queued now (a snapshot)} */
    int size() {
        return (int) Math.max(0, tail.get() - head.get());
    }

    /** Adds one completion; false when the ring is full (an overrun). */
    boolean offer(long wrId, int status, int opcode, int vendorErr, int byteLen, int immData, int qpNum, int srcQp,
            int wcFlags) {
        long pos = tail.get();
        while (true) {
            int i = (int) pos & mask;
            long dif = sequence.get(i) - pos;
            if (dif == 0) {
                if (tail.compareAndSet(pos, pos + 1)) {
                    long slot = base + (long) i * Wc.WC_SIZE;
                    RawMemory.putLong(slot + Wc.WR_ID_OFFSET, wrId);
                    RawMemory.putInt(slot + Wc.STATUS_OFFSET, status);
                    RawMemory.putInt(slot + Wc.OPCODE_OFFSET, opcode);
                    RawMemory.putInt(slot + Wc.VENDOR_ERR_OFFSET, vendorErr);
                    RawMemory.putInt(slot + Wc.BYTE_LEN_OFFSET, byteLen);
                    RawMemory.putInt(slot + Wc.IMM_DATA_OFFSET, immData);
                    RawMemory.putInt(slot + Wc.QP_NUM_OFFSET, qpNum);
                    RawMemory.putInt(slot + Wc.SRC_QP_OFFSET, srcQp);
                    RawMemory.putInt(slot + Wc.WC_FLAGS_OFFSET, wcFlags);
                    RawMemory.putLong(slot + Wc.PKEY_INDEX_OFFSET, 0L); // pkey_index, slid, sl, dlid_path_bits
                    sequence.lazySet(i, pos + 1);
                    return true;
                }
                pos = tail.get();
            } else if (dif < 0) {
                return false;
            } else {
                pos = tail.get();
            }
        }
    }

    /** Moves up to {@code max} entries to the {@code ibv_wc} array at {@code out}; returns how many. */
    int poll(long out, int max) {
        int n = 0;
        while (n < max && take(out + (long) n * Wc.WC_SIZE)) {
            n++;
        }
        return n;
    }

    private boolean take(long to) {
        long pos = head.get();
        while (true) {
            int i = (int) pos & mask;
            long dif = sequence.get(i) - (pos + 1);
            if (dif == 0) {
                if (head.compareAndSet(pos, pos + 1)) {
                    RawMemory.copy(base + (long) i * Wc.WC_SIZE, to, Wc.WC_SIZE);
                    sequence.lazySet(i, pos + mask + 1);
                    return true;
                }
                pos = head.get();
            } else if (dif < 0) {
                return false;
            } else {
                pos = head.get();
            }
        }
    }

    /**
     * Moves every queued entry, in order, to {@code to} (empty, at least as large); call only while no producer or
     * poller is inside either ring.
     *
     * @return {@code to}
     */
    CompletionRing moveTo(CompletionRing to) {
        int n = poll(to.base, Integer.MAX_VALUE);
        for (int i = 0; i < n; i++) {
            to.sequence.set(i, i + 1L);
        }
        to.tail.set(n);
        return to;
    }

    /** Frees the native memory; call once, when no thread can reach the ring. */
    void free() {
        RawMemory.free(base);
    }
}
