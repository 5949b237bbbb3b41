package org.verbs4j.netty;

import io.netty.buffer.ByteBufAllocator;

/**
 * A buffer of the {@linkplain RdmaChannelOption#REGISTERED_ALLOCATOR registered allocator} whose memory is one send
 * slot of its channel's endpoint: written to that channel whole (reader index 0), it is posted from the slot as is.
 * Its capacity is the slot's bytes; a buffer that grows past them (or changes capacity at all) moves to ordinary
 * direct memory, as any unpooled buffer does, and gives the slot back. Releasing it gives the slot back too, or,
 * while a send from it is in flight, lets the send's completion do so.
 */
final class SendSlotByteBuf extends LentByteBuf {
    private final SendSlotPool pool;
    private final int slot;
    /** Whether the memory is still the slot; the buffer's owner changes it, the channel reads it once written. */
    private boolean onSlot = true;

    SendSlotByteBuf(ByteBufAllocator alloc, SendSlotPool pool, int slot, int maxCapacity) {
        super(alloc, pool.memory(slot), maxCapacity);
        this.pool = pool;
        this.slot = slot;
    }

    /** {@return the slot when the buffer is in it and belongs to {@code owner}, else -1} */
    int slotOf(SendSlotPool owner) {
        return onSlot && pool == owner ? slot : -1;
    }

    @Override
    protected void letGo() {
        if (onSlot) {
            onSlot = false;
            pool.returned(slot);
        }
    }
}
