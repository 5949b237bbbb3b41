package org.verbs4j.netty;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * The allocator of an {@link RdmaChannel} with {@link RdmaChannelOption#REGISTERED_ALLOCATOR}: a direct buffer of at
 * most a send slot's bytes is a free send slot of the channel's endpoint (memory registered with its protection
 * domain), so writing it to the channel posts it without a copy. With an RDMA region on both sides, a direct buffer
 * of at least the rendezvous threshold (and larger than a slot) is blocks of the region's lent part
 * ({@link RegionByteBuf}), announced to the peer without a copy. Everything else comes from the channel's
 * {@code ALLOCATOR} (Netty's default unless set): heap buffers, other sizes, buffers asked for before the channel
 * is connected or after it closed, and any buffer once the free slots are down to the reserve the transport keeps
 * for its own copies (or the lent part has no room).
 *
 * <p>The transport's reads never take a slot: a received message is copied into a buffer of the channel's
 * {@code ALLOCATOR}. Netty's leak detector tracks the lent buffers as it tracks its own pooled ones (sampled at its
 * level): one never released keeps its slot or its blocks, which then serve no other write (copied writes still go,
 * through the reserve), and is reported as a {@code LEAK} when the garbage collector finds it.
 */
final class RdmaChannelAllocator extends AbstractByteBufAllocator {
    private final RdmaChannelConfig config;
    private volatile SendSlotPool pool;
    private volatile RegionBlocks lending;

    RdmaChannelAllocator(RdmaChannelConfig config) {
        super(true);
        this.config = config;
    }

    /**
     * The channel's endpoint is connected: its send slots may be lent from now on, and the lent part of its RDMA
     * region's staging half ({@code region}, null when there is none).
     */
    void attach(SendSlotPool slots, RegionBlocks region) {
        this.lending = region;
        this.pool = slots;
    }

    /** {@return the allocator buffers not in a slot come from: the channel's {@code ALLOCATOR}} */
    ByteBufAllocator fallback() {
        return config.baseAllocator();
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
        return fallback().heapBuffer(initialCapacity, maxCapacity);
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        SendSlotPool p = pool;
        if (p != null && initialCapacity <= p.slotBytes() && maxCapacity >= p.slotBytes()) {
            int slot = p.lend();
            if (slot >= 0) {
                return toLeakAwareBuffer(new SendSlotByteBuf(this, p, slot, maxCapacity));
            }
        }
        RegionBlocks r = lending;
        if (p != null && r != null && initialCapacity > p.slotBytes()
                && initialCapacity >= config.getRendezvousThreshold() && initialCapacity <= r.largest()) {
            long at = r.allocate(initialCapacity);
            if (at >= 0) {
                return toLeakAwareBuffer(new RegionByteBuf(this, r, at, initialCapacity, maxCapacity));
            }
        }
        return fallback().directBuffer(initialCapacity, maxCapacity);
    }

    @Override
    public boolean isDirectBufferPooled() {
        return true;
    }
}
