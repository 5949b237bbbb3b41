package org.verbs4j.examples;

import java.nio.charset.StandardCharsets;

/**
 * What rping puts on the wire and in its buffers, without any RDMA: the {@code struct rping_rdma_info}
 * message and the ping data.
 *
 * <p>The message, sent with SEND by the client to advertise a buffer (and by the server, all zeros, as its
 * "go ahead"), is 16 bytes in network byte order:
 *
 * <pre>
 * struct rping_rdma_info {
 *     __be64 buf;    // offset 0: the buffer's address
 *     __be32 rkey;   // offset 8: its rkey
 *     __be32 size;   // offset 12: its length
 * };
 * </pre>
 *
 * <p>The ping data of ping {@code n} (from 0) is {@code snprintf(buf, size, "rdma-ping-%d: ", n)}, then
 * printable characters from {@code 'A' + n % 58} upwards, each one more than the last and wrapping from
 * {@code 'z'} (122) back to {@code 'A'} (65), up to the last byte, which is {@code NUL}.
 */
final class RpingMessage {
    /** {@code sizeof(struct rping_rdma_info)}. */
    static final int LENGTH = 16;
    static final int BUF_OFFSET = 0;
    static final int RKEY_OFFSET = 8;
    static final int SIZE_OFFSET = 12;

    static final byte FIRST_CHAR = 65;  // 'A'
    static final byte LAST_CHAR = 122;  // 'z'
    private static final int CHARS = LAST_CHAR - FIRST_CHAR + 1;
    private static final byte[] PREFIX = "rdma-ping-".getBytes(StandardCharsets.US_ASCII);

    private RpingMessage() {
    }

    /** Writes the message into {@code dst[off .. off+16)}, big-endian. */
    static void encode(byte[] dst, int off, long buf, int rkey, int size) {
        putBigEndian(dst, off + BUF_OFFSET, buf, 8);
        putBigEndian(dst, off + RKEY_OFFSET, rkey, 4);
        putBigEndian(dst, off + SIZE_OFFSET, size, 4);
    }

    static long buf(byte[] src, int off) {
        return getBigEndian(src, off + BUF_OFFSET, 8);
    }

    static int rkey(byte[] src, int off) {
        return (int) getBigEndian(src, off + RKEY_OFFSET, 4);
    }

    /** The advertised length, as C's {@code be32toh} gives it (an unsigned value; rping keeps it in a uint32_t). */
    static long size(byte[] src, int off) {
        return getBigEndian(src, off + SIZE_OFFSET, 4) & 0xffffffffL;
    }

    /**
     * The bytes to RDMA READ for a client's start-buffer advert of {@code advertised} bytes into this server's
     * {@code size}-byte buffer.
     *
     * @throws RpingFailure when the client advertises more than the buffer holds (nothing is read then)
     */
    static int readLength(long advertised, int size) {
        if (advertised > size) {
            throw new RpingFailure("rping: the client's buffer is " + advertised + " bytes, more than this "
                    + "server's " + size + " (-S): give both sides the same -S");
        }
        return (int) advertised;
    }

    private static void putBigEndian(byte[] dst, int off, long v, int bytes) {
        for (int i = bytes - 1; i >= 0; i--) {
            dst[off + i] = (byte) v;
            v >>>= 8;
        }
    }

    private static long getBigEndian(byte[] src, int off, int bytes) {
        long v = 0;
        for (int i = 0; i < bytes; i++) {
            v = (v << 8) | (src[off + i] & 0xff);
        }
        return v;
    }

    /**
     * Writes the ping data of ping {@code ping} into {@code dst[0 .. size)} ({@code size >= 1}), as
     * {@code rping_test_client} does: the text "rdma-ping-N: " (cut to {@code size - 1} bytes, as snprintf
     * cuts it), the rotating characters, and {@code NUL} in the last byte. Allocates nothing.
     */
    static void fillPing(byte[] dst, int size, long ping) {
        int end = size - 1;
        int i = 0;
        for (int k = 0; k < PREFIX.length && i < end; k++) {
            dst[i++] = PREFIX[k];
        }
        i = putDecimal(dst, i, end, (int) ping); // C's int counter: printed as an int
        if (i < end) {
            dst[i++] = ':';
        }
        if (i < end) {
            dst[i++] = ' ';
        }
        int c = FIRST_CHAR + Math.floorMod(ping, CHARS);
        for (; i < end; i++) {
            dst[i] = (byte) c;
            if (++c > LAST_CHAR) {
                c = FIRST_CHAR;
            }
        }
        dst[end] = 0;
    }

    /** {@code %d} of {@code v} into {@code dst} from {@code at}, cut at {@code end}; returns the next index. */
    private static int putDecimal(byte[] dst, int at, int end, int v) {
        long x = v;
        if (x < 0) {
            if (at < end) {
                dst[at] = '-';
            }
            at++;
            x = -x;
        }
        long div = 1;
        while (x / div >= 10) {
            div *= 10;
        }
        for (; div > 0; div /= 10) {
            if (at < end) {
                dst[at] = (byte) ('0' + (x / div) % 10);
            }
            at++;
        }
        return Math.min(at, end);
    }

    /** The ping data of ping {@code ping} with {@code size} bytes, as text (what {@code %s} prints of it). */
    static String pingText(int size, long ping) {
        byte[] b = new byte[size];
        fillPing(b, size, ping);
        return cString(b, 0, size);
    }

    /** {@code strlen} of {@code b[off ..]}, looking at most at {@code max} bytes ({@code max} when there is no NUL). */
    static int strlen(byte[] b, int off, int max) {
        for (int i = 0; i < max; i++) {
            if (b[off + i] == 0) {
                return i;
            }
        }
        return max;
    }

    /** What {@code printf("%s", b + off)} prints, reading at most {@code max} bytes. */
    static String cString(byte[] b, int off, int max) {
        return new String(b, off, strlen(b, off, max), StandardCharsets.ISO_8859_1);
    }

    /**
     * The first index in {@code [0, length)} where {@code data} differs from the ping data of ping
     * {@code ping} with {@code length} bytes, or -1 when it is that data; {@code expected} is scratch space
     * of at least {@code length} bytes.
     */
    static int firstDifference(byte[] data, byte[] expected, int length, long ping) {
        fillPing(expected, length, ping);
        for (int i = 0; i < length; i++) {
            if (data[i] != expected[i]) {
                return i;
            }
        }
        return -1;
    }
}
