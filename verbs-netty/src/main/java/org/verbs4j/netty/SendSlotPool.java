package org.verbs4j.netty;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Who holds each send slot of one channel's endpoint: free, taken by the transport for a copied message, or lent to a
 * {@link SendSlotByteBuf} of the channel's {@linkplain RdmaChannelOption#REGISTERED_ALLOCATOR registered allocator}.
 * A slot is free again only when nobody holds it and no send from it is in flight: a lent buffer released
 * before it was written returns its slot at once; a written one returns it at its send's completion.
 *
 * <p>The free slots are a FIFO queue, so the transport's own slots come back in the order their sends completed and
 * are mostly consecutive (one chain per flush). Lending keeps a reserve of free slots for the transport's copies and
 * its end-of-stream message, so buffers held by the application can slow copied writes down but never stop them.
 *
 * <p>Lending and returning happen on any thread, the transport's calls on the event loop, and no method takes a lock
 * or allocates: a channel without the registered allocator pays a few uncontended compare-and-sets per message.
 * <ul>
 * <li>Each slot's holders are one atomic word (lent, in flight); the call that clears its last holder is the one
 * that gives the slot back, so a slot is queued once however its release and its completion interleave.</li>
 * <li>The count of free slots and the closed flag are one atomic word: a taker or lender first claims a slot in the
 * count (lending only above the reserve and while open), a giver counts its slot in only while the pool is open
 * (untake always), so nothing is lent after {@link #close} and nothing freed after it comes back.</li>
 * <li>The queue is a bounded ring of sequence-numbered cells (Vyukov's multi-producer multi-consumer queue) of at
 * least as many cells as slots. A claim in the count guarantees a slot to dequeue. The one wait left is a spin (never
 * a park) of a few instructions: a claimant whose slot's giver has counted it but not stored it yet, or a giver whose
 * cell's last reader has claimed it but not released it yet, waits for that other thread to finish.</li>
 * </ul>
 */
final class SendSlotPool {
    /** A slot's word: lent to a buffer. */
    private static final int LENT = 1;
    /** A slot's word: a send from it is in flight (or about to be posted). */
    private static final int IN_FLIGHT = 2;
    /** The count word's closed flag; the low bits count the free slots. */
    private static final int CLOSED = 1 << 30;
    private static final int COUNT = CLOSED - 1;

    private final ByteBuffer[] memory;
    private final int slotBytes;
    private final int reserve;
    /** Per slot: {@link #LENT} | {@link #IN_FLIGHT}; 0 when free (queued or about to be). */
    private final AtomicIntegerArray holders;
    /** The free slots (low bits) and {@link #CLOSED}. */
    private final AtomicInteger count = new AtomicInteger();
    /** The queue's cells: a slot each, and its sequence number (whose turn the cell is, and whether it is full). */
    private final int[] cells;
    private final AtomicLongArray turns;
    private final int mask;
    private final AtomicLong tail = new AtomicLong();
    private final AtomicLong head = new AtomicLong();

    /**
     * @param memory    one view per send slot (position 0, limit {@code slotBytes}), made once; read only here
     * @param slotBytes the bytes a slot may send: the smaller of this side's and the peer's message size
     */
    SendSlotPool(ByteBuffer[] memory, int slotBytes) {
        int depth = memory.length;
        if (depth < 1 || depth > COUNT) {
            throw new IllegalArgumentException("send slots: " + depth);
        }
        this.memory = memory;
        this.slotBytes = slotBytes;
        this.reserve = Math.max(1, depth / 4);
        this.holders = new AtomicIntegerArray(depth);
        int capacity = Integer.highestOneBit(depth) == depth ? depth : Integer.highestOneBit(depth) << 1;
        this.cells = new int[capacity];
        this.turns = new AtomicLongArray(capacity);
        this.mask = capacity - 1;
        for (int i = 0; i < capacity; i++) {
            turns.set(i, i);
        }
        for (int i = 0; i < depth; i++) {
            enqueue(i);
        }
        count.set(depth);
    }

    int slotBytes() {
        return slotBytes;
    }

    /** {@return a free slot for the transport (a copied message or the end of stream), marked in flight; -1 if none} */
    int take() {
        for (;;) {
            int c = count.get();
            if ((c & COUNT) == 0) {
                return -1;
            }
            if (count.compareAndSet(c, c - 1)) {
                break;
            }
        }
        int slot = dequeue();
        holders.lazySet(slot, IN_FLIGHT); // the slot was free: nobody else holds it
        return slot;
    }

    /** Gives back a slot {@link #take} returned but nothing was posted from. */
    void untake(int slot) {
        holders.lazySet(slot, 0);
        count.getAndIncrement(); // counted in even when closed, as a taken slot always was
        enqueue(slot);
    }

    /** {@return a slot lent to a buffer, or -1: closed, or no more free slots than the reserve} */
    int lend() {
        for (;;) {
            int c = count.get();
            if ((c & CLOSED) != 0 || (c & COUNT) <= reserve) {
                return -1;
            }
            if (count.compareAndSet(c, c - 1)) {
                break;
            }
        }
        int slot = dequeue();
        holders.lazySet(slot, LENT);
        return slot;
    }

    /** {@return the memory of slot {@code slot}} Its position and limit are never changed. */
    ByteBuffer memory(int slot) {
        return memory[slot];
    }

    /**
     * Marks a lent slot as sent from (its buffer is being written as is); {@return false, nothing changed, when a
     * send from it is in flight already (the buffer written twice): then it is copied instead}
     */
    boolean sending(int slot) {
        for (;;) {
            int h = holders.get(slot);
            if ((count.get() & CLOSED) != 0 || (h & LENT) == 0 || (h & IN_FLIGHT) != 0) {
                return false;
            }
            if (holders.compareAndSet(slot, h, h | IN_FLIGHT)) {
                return true;
            }
        }
    }

    /** The buffer lent slot {@code slot} let it go (released, or moved to other memory as it grew). */
    void returned(int slot) {
        for (;;) {
            int h = holders.get(slot);
            if ((h & LENT) == 0) {
                return; // not lent (returned twice): nothing changes
            }
            if (holders.compareAndSet(slot, h, h & ~LENT)) {
                if (h == LENT) {
                    giveBack(slot);
                }
                return;
            }
        }
    }

    /** The send from slot {@code slot} completed. */
    void completed(int slot) {
        if (slot < 0 || slot >= holders.length()) {
            return;
        }
        for (;;) {
            int h = holders.get(slot);
            if ((h & IN_FLIGHT) == 0) {
                return;
            }
            if (holders.compareAndSet(slot, h, h & ~IN_FLIGHT)) {
                if (h == IN_FLIGHT) {
                    giveBack(slot);
                }
                return;
            }
        }
    }

    /** {@return the slots free now (for the transport's copies)} */
    int free() {
        return count.get() & COUNT;
    }

    /** The endpoint is closed: nothing more is lent; buffers still out keep plain Java memory. */
    void close() {
        for (;;) {
            int c = count.get();
            if ((c & CLOSED) != 0 || count.compareAndSet(c, c | CLOSED)) {
                return;
            }
        }
    }

    boolean isClosed() {
        return (count.get() & CLOSED) != 0;
    }

    /** Queues a slot nobody holds any more, unless the pool is closed (then it stays out for good). */
    private void giveBack(int slot) {
        for (;;) {
            int c = count.get();
            if ((c & CLOSED) != 0) {
                return;
            }
            if (count.compareAndSet(c, c + 1)) {
                break;
            }
        }
        enqueue(slot);
    }

    /**
     * Stores {@code slot} in the next cell. The ring has a cell per slot at least and a slot is queued at most once,
     * so the cell is free, or about to be: its last reader may still be between claiming and releasing it.
     */
    private void enqueue(int slot) {
        long pos = tail.get();
        for (;;) {
            int cell = (int) pos & mask;
            long d = turns.get(cell) - pos;
            if (d == 0) {
                if (tail.compareAndSet(pos, pos + 1)) {
                    cells[cell] = slot;
                    turns.lazySet(cell, pos + 1); // published: the cell is the reader of turn pos's
                    return;
                }
                pos = tail.get();
            } else if (d < 0) {
                Thread.onSpinWait(); // the reader of the previous round has not released the cell yet
                pos = tail.get();
            } else {
                pos = tail.get(); // another giver took this turn
            }
        }
    }

    /**
     * {@return the slot in the next cell} The caller claimed one in {@link #count}, so one is queued or about to be:
     * its giver may still be between counting and storing it.
     */
    private int dequeue() {
        long pos = head.get();
        for (;;) {
            int cell = (int) pos & mask;
            long d = turns.get(cell) - (pos + 1);
            if (d == 0) {
                if (head.compareAndSet(pos, pos + 1)) {
                    int slot = cells[cell];
                    turns.lazySet(cell, pos + mask + 1); // free for the giver of the next round
                    return slot;
                }
                pos = head.get();
            } else if (d < 0) {
                Thread.onSpinWait(); // counted but not stored yet
                pos = head.get();
            } else {
                pos = head.get(); // another claimant took this turn
            }
        }
    }
}
