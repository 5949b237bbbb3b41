package org.verbs4j.softiwarp.wire;

/**
 * Where the payload of an outgoing message comes from when it is not one {@link java.nio.ByteBuffer}: a work
 * request's scatter/gather list over registered memory, or the part of a region a Read Response returns. The
 * segmenter asks for the message's bytes in order, a segment's worth at a time, and copies them straight into the
 * connection's transmit buffer; or, where the memory has a direct buffer over it ({@link #view}), it writes them
 * from there with a gathering write, without the copy. Nothing allocates per message.
 *
 * <pre>{@code
 * Gather g = (messageOffset, destination, length) -> RawMemory.copy(source + messageOffset, destination, length);
 * connection.startWrite(rkey, remoteAddress, g, length);
 * while (!connection.pump()) { ... wait until the socket is writable ... }
 * }</pre>
 */
@FunctionalInterface
public interface Gather {
    /** The most views the segmenter holds at once, for one gathering write ({@link #view}'s slots). */
    int MAX_VIEWS = 32;

    /**
     * Copies {@code length} bytes of the message, from {@code messageOffset} on, to native memory.
     *
     * @param messageOffset where in the message the bytes start
     * @param destination   the native address to copy them to
     * @param length        how many bytes
     */
    void copy(long messageOffset, long destination, int length);

    /**
     * A buffer over {@code length} bytes of the message from {@code messageOffset} on, in the application's memory,
     * for a gathering write that sends them without a copy: its position and limit bound exactly those bytes, and
     * it stays valid until the message is all written. The segmenter asks for up to {@link #MAX_VIEWS} views at
     * once, numbered by {@code slot}; each slot's buffer must be a different object. Null when the bytes have no such buffer (then they are copied): by default, always.
     *
     * @param messageOffset where in the message the bytes start
     * @param length        how many bytes, at least 1
     * @param slot          0 to {@link #MAX_VIEWS} - 1
     * @return the buffer, or null
     */
    default java.nio.ByteBuffer view(long messageOffset, int length, int slot) {
        return null;
    }
}
