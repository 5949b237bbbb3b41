package org.verbs4j.examples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** rping's wire message and ping data, checked against bytes and lines C rping produced. */
class RpingMessageTest {

    @Test
    void theMessageIs16BytesInNetworkOrder() {
        byte[] b = new byte[RpingMessage.LENGTH];
        RpingMessage.encode(b, 0, 0x00005598411d1900L, 0xf3e40900, 30);
        assertArrayEquals(new byte[] {
            0x00, 0x00, 0x55, (byte) 0x98, 0x41, 0x1d, 0x19, 0x00,   // __be64 buf
            (byte) 0xf3, (byte) 0xe4, 0x09, 0x00,                   // __be32 rkey
            0x00, 0x00, 0x00, 0x1e}, b);                            // __be32 size
        // the same as a big-endian ByteBuffer writes it (struct order: u64, u32, u32, no padding)
        ByteBuffer bb = ByteBuffer.allocate(16).order(ByteOrder.BIG_ENDIAN).putLong(0x00005598411d1900L)
                .putInt(0xf3e40900).putInt(30);
        assertArrayEquals(bb.array(), b);
    }

    @Test
    void decodeReadsWhatEncodeWrote() {
        byte[] b = new byte[40];
        RpingMessage.encode(b, 7, 0xfedcba9876543210L, 0x80000001, 0xffffffff);
        assertEquals(0xfedcba9876543210L, RpingMessage.buf(b, 7));
        assertEquals(0x80000001, RpingMessage.rkey(b, 7));
        assertEquals(0xffffffffL, RpingMessage.size(b, 7), "the size is a uint32");
        assertEquals(0, b[6]);
        assertEquals(0, b[23]);
    }

    @Test
    void theGoAheadIsAllZeros() {
        byte[] b = new byte[16];
        assertEquals(0, RpingMessage.buf(b, 0));
        assertEquals(0, RpingMessage.rkey(b, 0));
        assertEquals(0, RpingMessage.size(b, 0));
    }

    /** The lines C rping 44 printed in the lab with {@code -v -S 30 -C 3}. */
    @Test
    void pingDataIsWhatCRpingPrints() {
        assertEquals("rdma-ping-0: ABCDEFGHIJKLMNOP", RpingMessage.pingText(30, 0));
        assertEquals("rdma-ping-1: BCDEFGHIJKLMNOPQ", RpingMessage.pingText(30, 1));
        assertEquals("rdma-ping-2: CDEFGHIJKLMNOPQR", RpingMessage.pingText(30, 2));
    }

    @Test
    void theBufferEndsWithNulAndTheTextFillsTheRest() {
        byte[] b = new byte[64];
        java.util.Arrays.fill(b, (byte) 0x7f);
        RpingMessage.fillPing(b, 64, 0);
        assertEquals(0, b[63]);
        assertEquals(63, RpingMessage.strlen(b, 0, 64));
        String s = new String(b, 0, 63, StandardCharsets.US_ASCII);
        assertEquals("rdma-ping-0: ", s.substring(0, 13));
        for (int i = 13; i < 63; i++) {
            assertEquals('A' + (i - 13), s.charAt(i));
        }
    }

    @Test
    void theCharactersWrapFromLowercaseZToUppercaseA() {
        String s = RpingMessage.pingText(100, 0);
        // 'A' .. 'z' is 58 characters, then 'A' again
        assertEquals('z', s.charAt(13 + 57));
        assertEquals('A', s.charAt(13 + 58));
        assertEquals('B', s.charAt(13 + 59));
        assertEquals(99, s.length());
    }

    @Test
    void eachPingStartsOneCharacterLaterAndWrapsEvery58Pings() {
        assertEquals('z', RpingMessage.pingText(40, 57).charAt("rdma-ping-57: ".length()));
        assertEquals('A', RpingMessage.pingText(40, 58).charAt("rdma-ping-58: ".length()));
        assertEquals('B', RpingMessage.pingText(40, 59).charAt("rdma-ping-59: ".length()));
        // the rotation is its own counter in C: it keeps going past the int range of the text
        long ping = 1L << 32;
        assertEquals("rdma-ping-0: " + (char) ('A' + (int) (ping % 58)), RpingMessage.pingText(15, ping));
    }

    @Test
    void theSmallestSizeHoldsTheLongestNumber() {
        assertEquals("rdma-ping-2147483647: ", RpingMessage.pingText(23, Integer.MAX_VALUE));
        // snprintf cuts what does not fit, and the last byte is NUL
        assertEquals("rdma-ping--2147483648:", RpingMessage.pingText(23, Integer.MIN_VALUE));
        assertEquals("rdma-ping-1", RpingMessage.pingText(12, 12345));
        assertEquals("", RpingMessage.pingText(1, 0));
    }

    @Test
    void firstDifferenceFindsTheChangedByte() {
        byte[] data = new byte[1000];
        byte[] scratch = new byte[1000];
        RpingMessage.fillPing(data, 1000, 7);
        assertEquals(-1, RpingMessage.firstDifference(data, scratch, 1000, 7));
        assertEquals(10, RpingMessage.firstDifference(data, scratch, 1000, 8), "the digit differs");
        data[500] ^= 1;
        assertEquals(500, RpingMessage.firstDifference(data, scratch, 1000, 7));
    }

    @Test
    void cStringStopsAtNulOrTheLimit() {
        byte[] b = "abc\0def".getBytes(StandardCharsets.US_ASCII);
        assertEquals("abc", RpingMessage.cString(b, 0, b.length));
        assertEquals("ab", RpingMessage.cString(b, 0, 2));
        assertEquals("def", RpingMessage.cString(b, 4, 3));
    }

    @Test
    void anAdvertLargerThanTheBufferIsRefused() {
        byte[] m = new byte[RpingMessage.LENGTH];
        RpingMessage.encode(m, 0, 0x1000, 7, -1); // 2^32 - 1 bytes, as an unsigned be32
        assertEquals(0xffffffffL, RpingMessage.size(m, 0));
        RpingFailure f = assertThrows(RpingFailure.class, () -> RpingMessage.readLength(RpingMessage.size(m, 0), 100));
        assertTrue(f.getMessage().contains("4294967295 bytes, more than this server's 100 (-S)"), f.getMessage());
        assertThrows(RpingFailure.class, () -> RpingMessage.readLength(101, 100));
        assertEquals(100, RpingMessage.readLength(100, 100));
        assertEquals(0, RpingMessage.readLength(0, 100));
    }
}
