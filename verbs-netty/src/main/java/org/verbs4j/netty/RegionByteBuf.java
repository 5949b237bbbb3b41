package org.verbs4j.netty;

import io.netty.buffer.ByteBufAllocator;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * A large buffer of the {@linkplain RdmaChannelOption#REGISTERED_ALLOCATOR registered allocator} whose memory is
 * blocks of its channel's RDMA region: written to that channel, it is announced to the peer as it is, and the peer
 * reads it from there (a rendezvous without a copy). Its blocks have two holders, the buffer (until it is released or
 * grows into other memory, as any unpooled buffer does) and the rendezvous (from its announcement until the peer
 * releases it); the last of the two to let go gives the blocks back, on whatever thread that is.
 */
final class RegionByteBuf extends LentByteBuf {
    private static final int LENT = 1;
    private static final int IN_FLIGHT = 2;
    private static final AtomicIntegerFieldUpdater<RegionByteBuf> HOLDERS =
            AtomicIntegerFieldUpdater.newUpdater(RegionByteBuf.class, "holders");

    private final RegionBlocks blocks;
    private final long offset;
    private final long lentBytes;
    private volatile int holders = LENT;

    /**
     * @param offset the blocks' region offset, as {@link RegionBlocks#allocate} returned it for {@code bytes}
     */
    RegionByteBuf(ByteBufAllocator alloc, RegionBlocks blocks, long offset, int bytes, int maxCapacity) {
        super(alloc, blocks.slice(offset, bytes), maxCapacity);
        this.blocks = blocks;
        this.offset = offset;
        this.lentBytes = bytes;
    }

    /**
     * {@return the region offset of the buffer's first byte when its memory is still the blocks of {@code owner},
     * else -1} The channel asks, once the buffer is written to it.
     */
    long regionOffset(RegionBlocks owner) {
        return blocks == owner && (holders & LENT) != 0 ? offset : -1;
    }

    /** {@return whether an announcement of it may go: still lent, not announced already, and the blocks open} */
    boolean announcing() {
        for (;;) {
            int h = holders;
            if (h != LENT || blocks.isClosed()) {
                return false;
            }
            if (HOLDERS.compareAndSet(this, h, h | IN_FLIGHT)) {
                return true;
            }
        }
    }

    /** The peer has read it (or will never): the rendezvous lets the blocks go. */
    void readByPeer() {
        drop(IN_FLIGHT);
    }

    @Override
    protected void letGo() {
        drop(LENT);
    }

    private void drop(int holder) {
        for (;;) {
            int h = holders;
            if ((h & holder) == 0) {
                return; // let go already
            }
            if (HOLDERS.compareAndSet(this, h, h & ~holder)) {
                if (h == holder) {
                    blocks.free(offset, lentBytes);
                }
                return;
            }
        }
    }
}
