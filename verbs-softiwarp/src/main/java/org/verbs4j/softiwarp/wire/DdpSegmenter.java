package org.verbs4j.softiwarp.wire;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Cuts one DDP message into FPDUs of at most MULPDU bytes of ULPDU (RFC 5041 §5): the same STag with a growing
 * tagged offset, or the same MSN with a growing message offset, and the L bit on the last segment only. It writes
 * into a transmit buffer as many whole FPDUs as fit and resumes where it stopped, so a non-blocking socket can
 * drain the buffer in between. A zero-length message is one FPDU without payload. Reused across messages: no
 * allocation per message or frame.
 */
final class DdpSegmenter {
    /** The most FPDUs in one gathered batch ({@link #writeTo(ByteBuffer, ByteBuffer[], ByteBuffer[])}). */
    static final int MAX_BATCH = Gather.MAX_VIEWS;
    /** The entries of a gathered batch: a piece of the transmit buffer before each payload, and one after. */
    static final int MAX_IOV = 2 * MAX_BATCH + 1;
    /**
     * A gathered batch starts only at a segment of at least this much payload (FPDUs of loopback's or a jumbo frame's
     * size): with Ethernet's 1.4 KiB segments the gathering write's bookkeeping, two buffers per segment, costs about
     * what the copy saves (in the fabric lab, `read_bw` was no faster that way).
     */
    static final int VIEW_MIN = 8192;
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
    /** The transmit buffer's address. */
    private final BufferAddress txAddress = new BufferAddress();
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
        int header = header();
        while (!done) {
            int left = payload != null ? payload.remaining() : gatherLength - sent;
            int chunk = Math.min(left, mulpdu - header);
            int ulpdu = header + chunk;
            if (tx.remaining() < Fpdu.frameLength(ulpdu)) {
                return false;
            }
            boolean last = chunk == left;
            int start = tx.position();
            putHeader(tx, start, last);
            tx.position(start + Fpdu.LENGTH_FIELD + header);
            if (payload != null) {
                int limit = payload.limit();
                payload.limit(payload.position() + chunk);
                tx.put(payload);
                payload.limit(limit);
            } else if (chunk > 0) {
                gather.copy(sent, txAddress.of(tx) + tx.position(), chunk);
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

    /**
     * Writes the next FPDUs as a gathered batch when the message's bytes come from a {@link Gather} that has
     * {@linkplain Gather#view views} of them: each FPDU's header and trailer (pad, CRC) go into {@code tx}, its
     * payload stays in the application's memory, and {@code iov} gets the pieces in wire order (a part of
     * {@code tx}, a payload, a part of {@code tx}, ...), for one gathering write without a copy of the payload.
     * Otherwise (bytes from a buffer, no view, a segment under {@link #VIEW_MIN}) it writes whole FPDUs into
     * {@code tx} as {@link #writeTo(ByteBuffer)} does. Called with {@code tx} cleared; nothing allocates.
     *
     * @param tx      the transmit buffer, at position 0
     * @param iov     where the batch's pieces go, {@link #MAX_IOV} long
     * @param txParts {@link #MAX_BATCH} + 1 duplicates of {@code tx}, set here to the parts that {@code iov} names
     * @return the number of pieces in {@code iov}, or 0 when the FPDUs went whole into {@code tx}
     */
    int writeTo(ByteBuffer tx, ByteBuffer[] iov, ByteBuffer[] txParts) {
        if (gather == null || done || Math.min(gatherLength - sent, mulpdu - header()) < VIEW_MIN) {
            writeTo(tx);
            return 0;
        }
        int header = header();
        int n = 0;
        int parts = 0;
        int partStart = tx.position();
        while (!done && parts < MAX_BATCH) {
            int left = gatherLength - sent;
            int chunk = Math.min(left, mulpdu - header);
            ByteBuffer payload = chunk > 0 ? gather.view(sent, chunk, parts) : null;
            if (payload == null || tx.remaining() < Fpdu.LENGTH_FIELD + header + 3 + Fpdu.CRC_FIELD) {
                break; // the rest goes in the next call, copied if it has no view
            }
            boolean last = chunk == left;
            int start = tx.position();
            putHeader(tx, start, last);
            int payloadAt = start + Fpdu.LENGTH_FIELD + header;
            iov[n++] = part(txParts[parts], partStart, payloadAt);
            iov[n++] = payload;
            Fpdu.sealAround(tx, start, header, payload, crcOn, crc);
            partStart = payloadAt; // this frame's pad and CRC, then the next frame's header
            sent += chunk;
            done = last;
            parts++;
        }
        if (n == 0) {
            writeTo(tx);
            return 0;
        }
        iov[n++] = part(txParts[parts], partStart, tx.position());
        if (done) {
            gather = null;
        }
        return n;
    }

    private int header() {
        return tagged ? Ddp.TAGGED_HEADER : Ddp.UNTAGGED_HEADER;
    }

    /** The DDP and RDMAP header of the next segment at {@code start + 2} (the length field is the caller's). */
    private void putHeader(ByteBuffer tx, int start, boolean last) {
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
    }

    private static ByteBuffer part(ByteBuffer txPart, int from, int to) {
        txPart.clear();
        return txPart.position(from).limit(to);
    }

    boolean done() {
        return done;
    }
}
