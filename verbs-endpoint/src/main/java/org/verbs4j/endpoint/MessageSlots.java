package org.verbs4j.endpoint;

import java.nio.ByteBuffer;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.ProtectionDomain;

/**
 * One registered buffer cut into {@code count} slots of {@code size} bytes (the send slots, or the receive
 * slots), with a {@link ByteBuffer} view of each slot made once and handed out again and again: the data path
 * reads and writes messages through these views and allocates nothing.
 */
final class MessageSlots {
    /** Registered buffers start on a page, as the backends' own allocations do. */
    static final int ALIGNMENT = 4096;
    /** The largest registered buffer the endpoint makes: what one {@link ByteBuffer} views, with room to align. */
    static final long MAX_BYTES = Integer.MAX_VALUE + 1L - 2 * ALIGNMENT;

    private final String what;
    private final MemoryRegion region;
    private final ByteBuffer[] views;
    private final int size;
    private final long base;
    private final int lkey;

    private MessageSlots(String what, MemoryRegion region, ByteBuffer memory, int count, int size) {
        this.what = what;
        this.region = region;
        this.size = size;
        this.base = region.address();
        this.lkey = region.lkey();
        this.views = new ByteBuffer[count];
        for (int i = 0; i < count; i++) {
            views[i] = memory.slice(i * size, size);
        }
    }

    /** Registers {@code count × size} bytes in {@code pd}; {@code what} names a slot in messages ("send slot"). */
    static MessageSlots register(ProtectionDomain pd, String what, int count, int size, int access) {
        ByteBuffer memory = allocate((long) count * size, what + "s");
        return new MessageSlots(what, pd.registerMemory(memory, access), memory, count, size);
    }

    /**
     * A page-aligned direct buffer of {@code bytes}, for registration. Its memory belongs to the garbage
     * collector, so a view kept after the endpoint closed stays harmless Java memory.
     */
    static ByteBuffer allocate(long bytes, String what) {
        if (bytes > MAX_BYTES) {
            throw new IllegalArgumentException(what + " would take " + bytes + " bytes: at most " + MAX_BYTES
                    + " (what one ByteBuffer views) per registered buffer");
        }
        // alignedSlice rounds both ends to the alignment: ask for whole units plus one
        long rounded = (bytes + ALIGNMENT - 1) & -ALIGNMENT;
        ByteBuffer b = ByteBuffer.allocateDirect((int) rounded + ALIGNMENT).alignedSlice(ALIGNMENT);
        return b.slice(0, (int) bytes);
    }

    /** {@code slot}, after checking it is one of these slots. */
    int check(int slot) {
        if (slot < 0 || slot >= views.length) {
            throw new IndexOutOfBoundsException(what + " " + slot + " is not in 0.." + (views.length - 1));
        }
        return slot;
    }

    /** Checks that a message of {@code length} bytes fits a slot. */
    void checkLength(int length) {
        if (length < 0 || length > size) {
            throw new IllegalArgumentException("message length " + length + " is not in 0.." + size
                    + " (the endpoint's messageSize)");
        }
    }

    /** The view of {@code slot}: position 0, limit {@code length}, capacity the slot size. */
    ByteBuffer view(int slot, int length) {
        ByteBuffer b = views[check(slot)];
        b.clear().limit(length);
        return b;
    }

    /** The native address of {@code slot}, for its scatter/gather entry. */
    long address(int slot) {
        return base + (long) slot * size;
    }

    int lkey() {
        return lkey;
    }

    int count() {
        return views.length;
    }

    int size() {
        return size;
    }

    MemoryRegion region() {
        return region;
    }

    private static final int RECEIVE_OPCODE_BIT = 0x80;
    private static final int RECV_RDMA_WITH_IMM = org.verbs4j.api.WcOpcode.RECV_RDMA_WITH_IMM.value();

    /**
     * The view of the receive slot that completion {@code i} of {@code wc} names, limit the message's length
     * (0 for an RDMA WRITE with immediate); refuses a failed completion, one that is no receive, and a work
     * request id that is no slot of {@code owner}.
     */
    ByteBuffer message(org.verbs4j.api.WorkCompletions wc, int i, String owner) {
        if (!wc.ok(i) || (wc.opcodeValue(i) & RECEIVE_OPCODE_BIT) == 0) {
            throw new IllegalArgumentException("completion " + i + " is not a received message: " + wc.toString(i));
        }
        long slot = wc.wrId(i);
        if (slot < 0 || slot >= count()) {
            throw new IllegalArgumentException("completion " + i + " has work request id " + slot + ", not a "
                    + "receive slot of " + owner + " (0.." + (count() - 1) + ")");
        }
        return view((int) slot, wc.opcodeValue(i) == RECV_RDMA_WITH_IMM ? 0 : wc.byteLength(i));
    }
}
