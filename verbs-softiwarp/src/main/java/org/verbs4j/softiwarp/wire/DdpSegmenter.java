package org.verbs4j.softiwarp.wire;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;
import org.verbs4j.api.internal.RawMemory;

/**
 * Cuts one DDP message into FPDUs of at most MULPDU bytes of ULPDU (RFC 5041 §5): the same STag with a growing
 * tagged offset, or the same MSN with a growing message offset, and the L bit on the last segment only. It writes
 * into a transmit buffer as many whole FPDUs as fit and resumes where it stopped, so a non-blocking socket can
 * drain the buffer in between. A zero-length message is one FPDU without payload. Reused across messages: no
 * allocation per message or frame.
 */
final class DdpSegmenter {
    private final CRC32C crc = new CRC32C();
    private final boolean crcOn;
    private final int mulpdu;
    private int opcode;
    private boolean tagged;
    private int stag;
    private long taggedOffset;
    private int queue;
    private int msn;
    private int invalidateStag;
    private ByteBuffer payload;
    private Gather gather;
    private int gatherLength;
    private int sent;
    private boolean done = true;

    DdpSegmenter(boolean crcOn, int mulpdu) {
        if (mulpdu <= Ddp.UNTAGGED_HEADER || mulpdu > MpaSettings.MAX_ULPDU) {
            throw new IllegalArgumentException("MULPDU " + mulpdu);
        }
        this.crcOn = crcOn;
        this.mulpdu = mulpdu;
    }

    /** Starts a tagged message (Write, Read Response): payload from its position to its limit. */
    void startTagged(int rdmapOpcode, int sinkStag, long offset, ByteBuffer data) {
        start(rdmapOpcode, true, data);
        stag = sinkStag;
        taggedOffset = offset;
    }

    /** Starts a tagged message whose {@code length} bytes come from a {@link Gather}. */
    void startTagged(int rdmapOpcode, int sinkStag, long offset, Gather data, int length) {
        startTagged(rdmapOpcode, sinkStag, offset, (ByteBuffer) null);
        gather = data;
        gatherLength = length;
    }

    /** Starts an untagged message whose {@code length} bytes come from a {@link Gather}. */
    void startUntagged(int rdmapOpcode, int queueNumber, int messageSequence, int stagToInvalidate, Gather data,
                       int length) {
        startUntagged(rdmapOpcode, queueNumber, messageSequence, stagToInvalidate, (ByteBuffer) null);
        gather = data;
        gatherLength = length;
    }

    /** Starts an untagged message on a queue (Send, Read Request, Terminate, extensions). */
    void startUntagged(int rdmapOpcode, int queueNumber, int messageSequence, int stagToInvalidate,
                       ByteBuffer data) {
        start(rdmapOpcode, false, data);
        queue = queueNumber;
        msn = messageSequence;
        invalidateStag = stagToInvalidate;
    }

    private void start(int rdmapOpcode, boolean isTagged, ByteBuffer data) {
        if (!done) {
            throw new IllegalStateException("a message is still being segmented");
        }
        opcode = rdmapOpcode;
        tagged = isTagged;
        payload = data;
        gather = null;
        gatherLength = 0;
        sent = 0;
        done = false;
    }

    /**
     * Writes whole FPDUs at tx's position while they fit.
     *
     * @return true once the message's last segment is written
     */
    boolean writeTo(ByteBuffer tx) {
        int header = tagged ? Ddp.TAGGED_HEADER : Ddp.UNTAGGED_HEADER;
        while (!done) {
            int left = payload != null ? payload.remaining() : gatherLength - sent;
            int chunk = Math.min(left, mulpdu - header);
            int ulpdu = header + chunk;
            if (tx.remaining() < Fpdu.frameLength(ulpdu)) {
                return false;
            }
            boolean last = chunk == left;
            int start = tx.position();
            tx.put(start + Ddp.CONTROL, (byte) Ddp.control(tagged, last));
            tx.put(start + Ddp.RDMAP_CONTROL, (byte) Ddp.rdmapControl(opcode));
            if (tagged) {
                tx.putInt(start + Ddp.STAG, stag);
                tx.putLong(start + Ddp.TAGGED_OFFSET, taggedOffset + sent);
            } else {
                tx.putInt(start + Ddp.INVALIDATE_STAG, invalidateStag);
                tx.putInt(start + Ddp.QUEUE, queue);
                tx.putInt(start + Ddp.MSN, msn);
                tx.putInt(start + Ddp.MESSAGE_OFFSET, sent);
            }
            tx.position(start + Fpdu.LENGTH_FIELD + header);
            if (payload != null) {
                int limit = payload.limit();
                payload.limit(payload.position() + chunk);
                tx.put(payload);
                payload.limit(limit);
            } else if (chunk > 0) {
                gather.copy(sent, RawMemory.addressOf(tx) + tx.position(), chunk);
                tx.position(tx.position() + chunk);
            }
            Fpdu.seal(tx, start, ulpdu, crcOn, crc);
            sent += chunk;
            done = last;
        }
        payload = null;
        gather = null;
        return true;
    }

    boolean done() {
        return done;
    }
}
