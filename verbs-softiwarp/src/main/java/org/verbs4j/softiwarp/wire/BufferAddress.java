package org.verbs4j.softiwarp.wire;

import java.nio.ByteBuffer;
import org.verbs4j.api.internal.RawMemory;

/**
 * The native address of a direct buffer, taken once for the buffer its owner uses over and over (a connection's
 * transmit or receive buffer), not per segment: on JDK 22 and later taking it makes a memory segment, which only
 * escape analysis would remove. It holds the last buffer asked about, so it is for the owner's own long-lived
 * buffers, not for a region's. One thread at a time, as its owner.
 */
public final class BufferAddress {
    private ByteBuffer buffer;
    private long address;

    /** An address cache that has not taken an address yet. */
    public BufferAddress() {
    }

    /**
     * {@return the native address of {@code b}'s first byte} (not of its position)
     *
     * @param b a direct buffer
     */
    public long of(ByteBuffer b) {
        if (b != buffer) {
            address = RawMemory.addressOf(b);
            buffer = b;
        }
        return address;
    }
}
