package org.verbs4j.api.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/**
 * Every operation of the raw-memory class, on whichever mechanism this JVM runs (the build runs this class on
 * JDK 17, {@code sun.misc.Unsafe}, and on JDK 22+, {@code java.lang.foreign}), checked against a direct buffer's
 * view of the same bytes.
 */
class RawMemoryTest {

    @Test
    void usesTheMechanismOfThisJdk() {
        String expected = Runtime.version().feature() >= 22 ? "java.lang.foreign" : "sun.misc.Unsafe";
        assertEquals(expected, RawMemory.mechanism());
        assertEquals(8, RawMemory.ADDRESS_SIZE);
        assertTrue(RawMemory.PAGE_SIZE >= 4096 && Integer.bitCount(RawMemory.PAGE_SIZE) == 1, "page " + RawMemory.PAGE_SIZE);
    }

    @Test
    void readsAndWritesInNativeOrderUnaligned() {
        ByteBuffer b = ByteBuffer.allocateDirect(64).order(ByteOrder.nativeOrder());
        long a = RawMemory.addressOf(b);
        RawMemory.putByte(a + 1, (byte) -2);
        RawMemory.putShort(a + 3, (short) 0xBEEF);
        RawMemory.putInt(a + 5, 0xCAFEBABE);
        RawMemory.putLong(a + 9, 0x0102030405060708L);
        RawMemory.putAddress(a + 17, 0x7fff_0000_1234L);
        assertEquals((byte) -2, b.get(1));
        assertEquals((short) 0xBEEF, b.getShort(3));
        assertEquals(0xCAFEBABE, b.getInt(5));
        assertEquals(0x0102030405060708L, b.getLong(9));
        assertEquals(0x7fff_0000_1234L, b.getLong(17));
        assertEquals((byte) -2, RawMemory.getByte(a + 1));
        assertEquals(254, RawMemory.getUByte(a + 1));
        assertEquals((short) 0xBEEF, RawMemory.getShort(a + 3));
        assertEquals(0xBEEF, RawMemory.getUShort(a + 3));
        assertEquals(0xCAFEBABE, RawMemory.getInt(a + 5));
        assertEquals(0xCAFEBABEL, RawMemory.getUInt(a + 5));
        assertEquals(0x0102030405060708L, RawMemory.getLong(a + 9));
        assertEquals(0x7fff_0000_1234L, RawMemory.getAddress(a + 17));
        b.putLong(32, -5L);
        assertEquals(-5L, RawMemory.getLongVolatile(a + 32));
        RawMemory.putByteVolatile(a + 40, (byte) 7);
        assertEquals((byte) 7, RawMemory.getByteVolatile(a + 40));
        assertEquals(7, b.get(40));
    }

    @Test
    void allocatesZeroedCopiesFillsAndFrees() {
        long a = RawMemory.allocate(100);
        long c = RawMemory.allocate(100);
        try {
            for (int i = 0; i < 100; i++) {
                assertEquals(0, RawMemory.getByte(a + i), "allocate zeroes byte " + i);
            }
            byte[] src = new byte[100];
            for (int i = 0; i < src.length; i++) {
                src[i] = (byte) (i * 3);
            }
            RawMemory.copyFromArray(src, 10, 50, a);
            RawMemory.copy(a, c, 50);
            byte[] back = new byte[60];
            RawMemory.copyToArray(c, back, 5, 50);
            for (int i = 0; i < 50; i++) {
                assertEquals(src[10 + i], back[5 + i], "byte " + i);
            }
            RawMemory.fill(c, 20, (byte) 0x5A);
            assertEquals(0x5A, RawMemory.getByte(c + 19));
            assertEquals(src[30], RawMemory.getByte(c + 20), "fill stops at its size");
            RawMemory.fill(c + 1, 13, (byte) 0xA5); // words and a tail, unaligned
            assertEquals(0x5A, RawMemory.getByte(c));
            for (int i = 1; i < 14; i++) {
                assertEquals((byte) 0xA5, RawMemory.getByte(c + i), "byte " + i);
            }
            assertEquals(0x5A, RawMemory.getByte(c + 14));
            long big = RawMemory.allocate(5000);
            try {
                RawMemory.fill(big, 5000, (byte) 3);
                assertEquals(3, RawMemory.getByte(big + 4999));
                assertEquals(0x0303030303030303L, RawMemory.getLong(big + 2000));
            } finally {
                RawMemory.free(big);
            }
            RawMemory.zero(c, 100);
            assertEquals(0, RawMemory.getLong(c + 8));
            assertThrows(IndexOutOfBoundsException.class, () -> RawMemory.copyToArray(a, new byte[4], 2, 3));
            assertThrows(IndexOutOfBoundsException.class, () -> RawMemory.copyFromArray(new byte[4], -1, 1, a));
        } finally {
            RawMemory.free(a);
            RawMemory.free(c);
            RawMemory.free(0);
        }
    }

    @Test
    void readsStringsAndBufferAddresses() {
        ByteBuffer b = ByteBuffer.allocateDirect(16);
        b.put("mlx5_0\0junk".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        long a = RawMemory.addressOf(b);
        assertEquals(a, RawMemory.addressOf(b.position(5)), "the address ignores the position");
        assertEquals("mlx5_0", RawMemory.getString(a, 16));
        assertEquals("mlx", RawMemory.getString(a, 3));
        ByteBuffer slice = b.position(4).slice();
        assertEquals(a + 4, RawMemory.addressOf(slice));
        byte[] all = new byte[6];
        RawMemory.copyToArray(a, all, 0, 6);
        assertArrayEquals("mlx5_0".getBytes(java.nio.charset.StandardCharsets.US_ASCII), all);
        assertThrows(IllegalArgumentException.class, () -> RawMemory.addressOf(ByteBuffer.allocate(4)));
    }
}
