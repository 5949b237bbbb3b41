package org.verbs4j.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledDirectByteBuf;
import io.netty.buffer.WrappedByteBuf;
import java.nio.ByteBuffer;

/**
 * A buffer of the {@linkplain RdmaChannelOption#REGISTERED_ALLOCATOR registered allocator} over memory its channel's
 * endpoint owns (a send slot, or blocks of the RDMA region): the buffer starts empty over that memory, and lets go of
 * it once, when it is released or when it changes capacity (moving into ordinary direct memory, as any unpooled
 * buffer does). What letting go means is the subclass's: the memory is never freed here.
 */
abstract class LentByteBuf extends UnpooledDirectByteBuf {
    LentByteBuf(ByteBufAllocator alloc, ByteBuffer memory, int maxCapacity) {
        super(alloc, memory, maxCapacity);
        setIndex(0, 0); // the constructor took the memory as data to wrap: it is empty memory to fill
    }

    /**
     * {@return the lent buffer {@code buf} is, or null} The allocator hands a lent buffer out inside Netty's
     * leak-detection wrapper when the detector samples it; any {@link WrappedByteBuf} shares its buffer's indexes and
     * memory, so the channel looks through it.
     */
    static LentByteBuf of(ByteBuf buf) {
        ByteBuf b = buf instanceof WrappedByteBuf ? buf.unwrap() : buf;
        return b instanceof LentByteBuf ? (LentByteBuf) b : null;
    }

    /** The buffer no longer holds its memory (released, or moved): called at most twice, once per cause. */
    protected abstract void letGo();

    @Override
    public ByteBuf capacity(int newCapacity) {
        if (newCapacity == capacity()) {
            return this;
        }
        super.capacity(newCapacity); // copies into new memory; the lent memory is no longer this buffer's
        letGo();
        return this;
    }

    @Override
    protected void deallocate() {
        super.deallocate(); // frees nothing of the lent memory (it is the endpoint's)
        letGo();
    }
}
