package org.verbs4j.softiwarp.wire;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Finds FPDUs in a byte stream held in a big-endian buffer fed by TCP. {@link #next} looks at the bytes from the
 * buffer's position on and never moves it, never allocates, and never throws for the peer's bytes: a length out
 * of bounds or a wrong CRC is an error, after which the deframer stays failed (MPA without markers cannot
 * resynchronise).
 */
final class FpduDeframer {
    static final int NEED_MORE = 0;
    static final int FAILED = -1;

    private final CRC32C crc = new CRC32C();
    private final boolean crcOn;
    private final int maxUlpdu;
    private WireError error;
    private int ulpduLength;

    FpduDeframer(boolean crcOn, int maxUlpdu) {
        if (maxUlpdu < Ddp.UNTAGGED_HEADER || maxUlpdu > MpaSettings.MAX_ULPDU) {
            throw new IllegalArgumentException("MULPDU " + maxUlpdu);
        }
        this.crcOn = crcOn;
        this.maxUlpdu = maxUlpdu;
    }

    /**
     * Looks for a complete FPDU at src's position.
     *
     * @return the frame's length in bytes (length field to CRC), {@link #NEED_MORE}, or {@link #FAILED} with
     *         {@link #error()} set
     */
    int next(ByteBuffer src) {
        if (error != null) {
            return FAILED;
        }
        int available = src.remaining();
        if (available < Fpdu.LENGTH_FIELD) {
            return NEED_MORE;
        }
        int at = src.position();
        int length = src.getShort(at) & 0xFFFF;
        if (length > maxUlpdu) {
            return fail(WireError.FPDU_TOO_LONG);
        }
        if (length < Ddp.TAGGED_HEADER) {
            return fail(WireError.FPDU_TOO_SHORT);
        }
        int frame = Fpdu.frameLength(length);
        if (available < frame) {
            return NEED_MORE;
        }
        if (crcOn) {
            int expected = Integer.reverseBytes(src.getInt(at + frame - Fpdu.CRC_FIELD));
            if (Fpdu.crc32c(src, at, frame - Fpdu.CRC_FIELD, crc) != expected) {
                return fail(WireError.FPDU_BAD_CRC);
            }
        }
        ulpduLength = length;
        return frame;
    }

    /** The ULPDU length of the frame {@link #next} last returned. */
    int ulpduLength() {
        return ulpduLength;
    }

    /** Why the stream failed, or null. */
    WireError error() {
        return error;
    }

    private int fail(WireError why) {
        error = why;
        return FAILED;
    }
}
