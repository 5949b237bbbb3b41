package org.verbs4j.softiwarp.wire;

import java.nio.ByteBuffer;

/**
 * Receives the validated DDP segments of one connection, in wire order. Every {@code payload} is the connection's
 * receive buffer with position and limit around the segment's payload: read it during the call (copy it into a
 * memory region), never keep it, and leave position and limit as they are; the connection restores them anyway.
 * No call allocates.
 *
 * <pre>{@code
 * FpduSink sink = new FpduSink() {
 *     public void onTagged(int opcode, boolean last, int stag, long offset, ByteBuffer payload) { ... }
 *     ...
 * };
 * while (connection.poll(sink) >= 0) { ... }
 * }</pre>
 */
public interface FpduSink {
    /**
     * A tagged segment: RDMA WRITE (opcode 0) or RDMA READ Response (opcode 2).
     *
     * @param opcode       the RDMAP opcode
     * @param last         whether this is the message's last segment (L bit)
     * @param stag         the data sink's STag
     * @param taggedOffset where in the STag's region the payload goes
     * @param payload      the segment's bytes
     */
    void onTagged(int opcode, boolean last, int stag, long taggedOffset, ByteBuffer payload);

    /**
     * An untagged segment on queue 0: SEND (opcodes 3 to 6) or, once negotiated, RFC 7306 Immediate Data (8, 9,
     * 8 bytes in one segment).
     *
     * @param opcode         the RDMAP opcode
     * @param last           whether this is the message's last segment (L bit)
     * @param queue          the DDP queue number
     * @param msn            the message sequence number (1 for a queue's first message)
     * @param messageOffset  where in the message the payload goes
     * @param invalidateStag the STag to invalidate (opcodes 4 and 6), else whatever the peer sent
     * @param payload        the segment's bytes
     */
    void onUntagged(int opcode, boolean last, int queue, int msn, int messageOffset, int invalidateStag,
                    ByteBuffer payload);

    /**
     * An RDMA READ Request (queue 1).
     *
     * @param msn          its message sequence number on queue 1
     * @param sinkStag     the STag the response is to be written to
     * @param sinkOffset   the tagged offset there
     * @param length       how many bytes to read
     * @param sourceStag   the STag to read from (ours)
     * @param sourceOffset the tagged offset there
     */
    void onReadRequest(int msn, int sinkStag, long sinkOffset, int length, int sourceStag, long sourceOffset);

    /**
     * An RFC 7306 Atomic Request (queue 1, sharing the Read Requests' MSN sequence); delivered only on a connection
     * that negotiated RFC 7306. A sink of such a connection overrides this.
     *
     * @param msn          its message sequence number on queue 1
     * @param atomicOp     the atomic operation code (0 FetchAdd, 1 Swap, 2 CmpSwap; others as sent)
     * @param requestId    the requester's identifier, returned in the response
     * @param stag         the STag of the target (ours)
     * @param taggedOffset the tagged offset of the 8-byte target
     * @param swapAdd      the add or swap data
     * @param swapAddMask  the add or swap mask
     * @param compare      the compare data
     * @param compareMask  the compare mask
     */
    default void onAtomicRequest(int msn, int atomicOp, int requestId, int stag, long taggedOffset, long swapAdd,
                                 long swapAddMask, long compare, long compareMask) {
        throw new UnsupportedOperationException("an Atomic Request reached a sink that does not take RFC 7306");
    }

    /**
     * An RFC 7306 Atomic Response (queue 3); delivered only on a connection that negotiated RFC 7306.
     *
     * @param msn           its message sequence number on queue 3
     * @param requestId     the identifier of the request it answers
     * @param originalValue the target's value before the operation
     */
    default void onAtomicResponse(int msn, int requestId, long originalValue) {
        throw new UnsupportedOperationException("an Atomic Response reached a sink that does not take RFC 7306");
    }

    /**
     * A Terminate from the peer; the stream is over and nothing more is delivered.
     *
     * @param layer      0 RDMAP, 1 DDP, 2 LLP (MPA)
     * @param errorType  the error type within the layer
     * @param errorCode  the error code
     * @param headerCopy the copy of the offending headers the peer sent, possibly empty
     */
    void onTerminate(int layer, int errorType, int errorCode, ByteBuffer headerCopy);
}
