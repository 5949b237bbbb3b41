package org.verbs4j.softiwarp;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.verbs4j.api.internal.RawMemory;
import org.verbs4j.api.internal.WrLayout.RecvWr;
import org.verbs4j.api.internal.WrLayout.Wr;

/**
 * A send or receive queue of a software QP: {@code depth} slots of {@code slotSize} bytes in native memory,
 * each holding one posted work request copied in the layout of {@code struct ibv_send_wr} /
 * {@code struct ibv_recv_wr} followed by its own scatter/gather entries (and, on a send queue, its inline data),
 * so that the poster may reuse its requests as soon as the post returns. A post claims all the slots of its
 * chain at once with one compare-and-set on the tail (a chain never interleaves with another thread's), fills
 * them and publishes each through its sequence number; the one consumer (the QP's progress, or a flush under
 * {@link #tryConsume()}) takes them in order. No lock, no allocation.
 */
final class WorkQueue {
    private final int depth;
    private final int slotSize;
    private final long base;
    /** Per slot: {@code pos + 1} once the request of queue position {@code pos} is published. */
    private final AtomicLongArray published;
    private final AtomicLong tail = new AtomicLong();
    /** Written by the consumer only. */
    private volatile long head;
    /** The consumer's token: the progress and the flushes never take entries at the same time. */
    private final java.util.concurrent.atomic.AtomicBoolean consuming = new java.util.concurrent.atomic.AtomicBoolean();

    WorkQueue(int depth, int slotSize) {
        this.depth = depth;
        this.slotSize = slotSize;
        this.base = RawMemory.allocate((long) depth * slotSize);
        RawMemory.zero(base, (long) depth * slotSize);
        this.published = new AtomicLongArray(depth);
    }

    int depth() {
        return depth;
    }

    /** {@return how many requests are queued (a snapshot)} */
    int size() {
        return (int) (tail.get() - head);
    }

    /**
     * Claims {@code n} consecutive slots for a chain; {@code -1} when fewer than {@code n} are free.
     *
     * @return the queue position of the first slot
     */
    long claim(int n) {
        while (true) {
            long t = tail.get();
            if (t + n - head > depth) {
                return -1;
            }
            if (tail.compareAndSet(t, t + n)) {
                return t;
            }
        }
    }

    /** {@return the address of the slot of queue position {@code pos}} */
    long slot(long pos) {
        return base + (pos % depth) * slotSize;
    }

    /** Makes the request at {@code pos} visible to the consumer. */
    void publish(long pos) {
        published.lazySet((int) (pos % depth), pos + 1);
    }

    /**
     * Copies a chain of {@code n} {@code ibv_recv_wr} at {@code list} into the queue, each with its own SGEs after
     * it (a receive queue's slots have room for them); false, and nothing queued, when fewer than {@code n}
     * slots are free.
     */
    boolean offerReceives(long list, int n) {
        long pos = claim(n);
        if (pos < 0) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            long wr = list + (long) i * RecvWr.WR_SIZE;
            long slot = slot(pos + i);
            RawMemory.copy(wr, slot, RecvWr.WR_SIZE);
            RawMemory.putLong(slot + Wr.NEXT, 0L);
            RawMemory.putLong(slot + Wr.SG_LIST, slot + RecvWr.WR_SIZE);
            RawMemory.copy(RawMemory.getAddress(wr + Wr.SG_LIST), slot + RecvWr.WR_SIZE,
                    (long) RawMemory.getInt(wr + Wr.NUM_SGE) * Wr.SGE_SIZE);
            publish(pos + i);
        }
        return true;
    }

    /** Takes the consumer's token; false when another consumer holds it. */
    boolean tryConsume() {
        return consuming.compareAndSet(false, true);
    }

    /** Gives the consumer's token back. */
    void endConsume() {
        consuming.set(false);
    }

    /** {@return whether a consumer holds the token now} A hint: it may be given back at once. */
    boolean consumed() {
        return consuming.get();
    }

    /** {@return the address of the oldest published request, or 0 when there is none} Holder of the token only. */
    long peek() {
        long h = head;
        return published.get((int) (h % depth)) == h + 1 ? slot(h) : 0;
    }

    /** Frees the oldest request's slot. Holder of the token only. */
    void pop() {
        head = head + 1;
    }

    /** Forgets every queued request without completing it (a move to RESET); holder of the token only. */
    void clear() {
        long t = tail.get();
        for (long h = head; h < t; h++) {
            while (published.get((int) (h % depth)) != h + 1) {
                Thread.onSpinWait(); // a post that claimed the slot is still copying its request
            }
        }
        head = t;
    }

    /** Frees the native memory; once, when nothing can reach the queue. */
    void free() {
        RawMemory.free(base);
    }
}
