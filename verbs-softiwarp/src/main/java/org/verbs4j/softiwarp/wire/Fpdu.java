package org.verbs4j.softiwarp.wire;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * MPA's framed PDU (RFC 5044 §4): ULPDU_Length (2, big-endian, excludes itself, the pad and the CRC) | ULPDU |
 * pad to a multiple of 4 | CRC32C (4). The CRC field is always there; with CRC off it is sent as zero and ignored.
 * The CRC covers the length field through the pad and, as siw writes it, goes on the wire little-endian.
 */
final class Fpdu {
    static final int LENGTH_FIELD = 2;
    static final int CRC_FIELD = 4;
    /** The largest FPDU: a 16-bit ULPDU length, pad and CRC. */
    static final int MAX_FRAME = LENGTH_FIELD + 0xFFFF + 3 + CRC_FIELD;

    private Fpdu() {
    }

    static int padding(int ulpduLength) {
        return -(LENGTH_FIELD + ulpduLength) & 3;
    }

    static int frameLength(int ulpduLength) {
        return LENGTH_FIELD + ulpduLength + padding(ulpduLength) + CRC_FIELD;
    }

    /**
     * The largest ULPDU whose FPDU fills one TCP segment of {@code mss & ~7} bytes (siw's tcp_seglen) with no pad.
     */
    static int mulpduForMss(int mss) {
        return (mss & ~7) - LENGTH_FIELD - CRC_FIELD;
    }

    /**
     * Completes the FPDU whose ULPDU the caller wrote at {@code start + 2}: writes the length, the pad and the CRC
     * field, and leaves dst's position after the frame.
     */
    static void seal(ByteBuffer dst, int start, int ulpduLength, boolean crcOn, CRC32C crc) {
        dst.putShort(start, (short) ulpduLength);
        int at = start + LENGTH_FIELD + ulpduLength;
        for (int i = padding(ulpduLength); i > 0; i--) {
            dst.put(at++, (byte) 0);
        }
        dst.putInt(at, crcOn ? Integer.reverseBytes(crc32c(dst, start, at - start, crc)) : 0);
        dst.position(at + CRC_FIELD);
    }

    /** CRC32C of {@code length} bytes at {@code from}, leaving buf's position and limit as they were. */
    static int crc32c(ByteBuffer buf, int from, int length, CRC32C crc) {
        int position = buf.position();
        int limit = buf.limit();
        crc.reset();
        buf.limit(from + length).position(from);
        crc.update(buf);
        buf.limit(limit).position(position);
        return (int) crc.getValue();
    }
}
