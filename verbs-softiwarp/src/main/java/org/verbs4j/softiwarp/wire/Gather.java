package org.verbs4j.softiwarp.wire;

/**
 * Where the payload of an outgoing message comes from when it is not one {@link java.nio.ByteBuffer}: a work
 * request's scatter/gather list over registered memory, or the part of a region a Read Response returns. The
 * segmenter asks for the message's bytes in order, a segment's worth at a time, and copies them straight into the
 * connection's transmit buffer, so no buffer wraps the application's memory and nothing allocates.
 *
 * <pre>{@code
 * Gather g = (messageOffset, destination, length) -> RawMemory.copy(source + messageOffset, destination, length);
 * connection.startWrite(rkey, remoteAddress, g, length);
 * while (!connection.pump()) { ... wait until the socket is writable ... }
 * }</pre>
 */
@FunctionalInterface
public interface Gather {
    /**
     * Copies {@code length} bytes of the message, from {@code messageOffset} on, to native memory.
     *
     * @param messageOffset where in the message the bytes start
     * @param destination   the native address to copy them to
     * @param length        how many bytes
     */
    void copy(long messageOffset, long destination, int length);
}
