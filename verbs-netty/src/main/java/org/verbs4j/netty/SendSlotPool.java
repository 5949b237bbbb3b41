package org.verbs4j.netty;

import java.nio.ByteBuffer;

/**
 * Who holds each send slot of one channel's endpoint: free, taken by the transport for a copied message, or lent to a
 * {@link SendSlotByteBuf} of the channel's {@linkplain RdmaChannelOption#REGISTERED_ALLOCATOR registered allocator}.
 * A slot is free again only when nobody holds it and no send from it is in flight: a lent buffer released
 * before it was written returns its slot at once; a written one returns it at its send's completion.
 *
 * <p>The free slots are a FIFO ring, so the transport's own slots come back in the order their sends completed and
 * are mostly consecutive (one chain per flush). Lending happens on any thread, the transport's calls on the event
 * loop: every method is {@code synchronized} (uncontended almost always) and allocates nothing. Lending keeps a
 * reserve of free slots for the transport's copies and its end-of-stream message, so buffers held by the
 * application can slow copied writes down but never stop them.
 */
final class SendSlotPool {
    private final ByteBuffer[] memory;
    private final int slotBytes;
    private final int reserve;
    private final int[] ring;
    private final boolean[] lent;
    private final boolean[] inFlight;
    private int head;
    private int free;
    private boolean closed;

    /**
     * @param memory    one view per send slot (position 0, limit {@code slotBytes}), made once; read only here
     * @param slotBytes the bytes a slot may send: the smaller of this side's and the peer's message size
     */
    SendSlotPool(ByteBuffer[] memory, int slotBytes) {
        int depth = memory.length;
        this.memory = memory;
        this.slotBytes = slotBytes;
        this.reserve = Math.max(1, depth / 4);
        this.ring = new int[depth];
        this.lent = new boolean[depth];
        this.inFlight = new boolean[depth];
        for (int i = 0; i < depth; i++) {
            ring[i] = i;
        }
        this.free = depth;
    }

    int slotBytes() {
        return slotBytes;
    }

    /** {@return a free slot for the transport (a copied message or the end of stream), marked in flight; -1 if none} */
    synchronized int take() {
        if (free == 0) {
            return -1;
        }
        int slot = pop();
        inFlight[slot] = true;
        return slot;
    }

    /** Gives back a slot {@link #take} returned but nothing was posted from. */
    synchronized void untake(int slot) {
        inFlight[slot] = false;
        push(slot);
    }

    /** {@return a slot lent to a buffer, or -1: closed, or no more free slots than the reserve} */
    synchronized int lend() {
        if (closed || free <= reserve) {
            return -1;
        }
        int slot = pop();
        lent[slot] = true;
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
    synchronized boolean sending(int slot) {
        if (closed || !lent[slot] || inFlight[slot]) {
            return false;
        }
        inFlight[slot] = true;
        return true;
    }

    /** The buffer lent slot {@code slot} let it go (released, or moved to other memory as it grew). */
    synchronized void returned(int slot) {
        lent[slot] = false;
        if (!inFlight[slot] && !closed) {
            push(slot);
        }
    }

    /** The send from slot {@code slot} completed. */
    synchronized void completed(int slot) {
        if (slot < 0 || slot >= inFlight.length || !inFlight[slot]) {
            return;
        }
        inFlight[slot] = false;
        if (!lent[slot] && !closed) {
            push(slot);
        }
    }

    /** {@return the slots free now (for the transport's copies)} */
    synchronized int free() {
        return free;
    }

    /** The endpoint is closed: nothing more is lent; buffers still out keep plain Java memory. */
    synchronized void close() {
        closed = true;
    }

    synchronized boolean isClosed() {
        return closed;
    }

    private int pop() {
        int slot = ring[head];
        head = head + 1 == ring.length ? 0 : head + 1;
        free--;
        return slot;
    }

    private void push(int slot) {
        int tail = head + free;
        ring[tail >= ring.length ? tail - ring.length : tail] = slot;
        free++;
    }
}
