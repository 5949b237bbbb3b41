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
        if (crcOn) {
            crc.reset();
            update(crc, dst, start, at - start);
        }
        trailer(dst, at, ulpduLength, crcOn, crc);
    }

    /**
     * Completes an FPDU whose payload stays outside {@code dst} (a gathering write sends it between the two parts):
     * writes the length at {@code start}, then the pad and the CRC field right after the {@code header} bytes at
     * {@code start + 2}, and leaves dst's position after them. The CRC covers the length, the header, the payload
     * (from its position to its limit, which it leaves as they were) and the pad, as on the wire.
     */
    static void sealAround(ByteBuffer dst, int start, int header, ByteBuffer payload, boolean crcOn, CRC32C crc) {
        int ulpduLength = header + payload.remaining();
        dst.putShort(start, (short) ulpduLength);
        int at = start + LENGTH_FIELD + header;
        if (crcOn) {
            crc.reset();
            update(crc, dst, start, at - start);
            update(crc, payload, payload.position(), payload.remaining());
        }
        trailer(dst, at, ulpduLength, crcOn, crc);
    }

    /** Writes the pad at {@code at} (into the CRC when on), then the CRC field; dst's position after them. */
    private static void trailer(ByteBuffer dst, int at, int ulpduLength, boolean crcOn, CRC32C crc) {
        int pad = padding(ulpduLength);
        for (int i = 0; i < pad; i++) {
            dst.put(at + i, (byte) 0);
        }
        if (crcOn) {
            update(crc, dst, at, pad);
        }
        dst.putInt(at + pad, crcOn ? Integer.reverseBytes((int) crc.getValue()) : 0);
        dst.position(at + pad + CRC_FIELD);
    }

    /** CRC32C of {@code length} bytes at {@code from}, leaving buf's position and limit as they were. */
    static int crc32c(ByteBuffer buf, int from, int length, CRC32C crc) {
        crc.reset();
        update(crc, buf, from, length);
        return (int) crc.getValue();
    }

    /** Adds {@code length} bytes of {@code buf} at {@code from} to {@code crc}, leaving its position and limit. */
    private static void update(CRC32C crc, ByteBuffer buf, int from, int length) {
        if (length == 0) {
            return;
        }
        int position = buf.position();
        int limit = buf.limit();
        buf.limit(from + length).position(from);
        crc.update(buf);
        buf.limit(limit).position(position);
    }
}
