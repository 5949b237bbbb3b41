package org.verbs4j.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.verbs4j.api.internal.RawMemory;

/** The bounds-checked accessors {@link MemoryRegion} gives every backend's region, on plain native memory. */
class MemoryRegionTest {

    /** A region over {@code length} bytes of native memory; closing frees them. */
    record Native(ProtectionDomain protectionDomain, long address, long length, int lkey, int rkey, int access,
            ByteBuffer buffer, AtomicBoolean closed) implements MemoryRegion {
        Native(long length) {
            this(null, RawMemory.allocate(length), length, 1, 2, Access.LOCAL_WRITE, null, new AtomicBoolean());
        }

        @Override
        public boolean isClosed() {
            return closed.get();
        }

        @Override
        public void close() {
            if (closed.compareAndSet(false, true)) {
                RawMemory.free(address);
            }
        }

        @Override
        public String toString() {
            return "test region";
        }
    }

    @Test
    void everyAccessorReadsAndWritesAtTheOffset() {
        try (Native mr = new Native(64)) {
            mr.putLong(8, 0x1122_3344_5566_7788L);
            assertEquals(0x1122_3344_5566_7788L, RawMemory.getLong(mr.address() + 8));
            assertEquals(0x1122_3344_5566_7788L, mr.getLong(8));
            assertEquals(0x1122_3344_5566_7788L, mr.getLongVolatile(8));
            mr.putInt(60, -7);
            assertEquals(-7, mr.getInt(60));
            mr.putByteVolatile(63, (byte) 9);
            assertEquals(9, mr.getByteVolatile(63));
            mr.putBytes(16, new byte[] {1, 2, 3});
            assertArrayEquals(new byte[] {1, 2, 3}, mr.getBytes(16, 3));
            mr.fill(32, 4, (byte) 0x5a);
            assertEquals(0x5a5a_5a5a, mr.getInt(32));
            assertEquals(0, mr.getInt(36), "fill stops at its length");
        }
    }

    @Test
    void anAccessThatLeavesTheRegionIsRefusedBeforeItTouchesMemory() {
        try (Native mr = new Native(64)) {
            assertEquals("offset 57 + length 8 outside the 64-byte region",
                    assertThrows(IndexOutOfBoundsException.class, () -> mr.putLong(57, 1)).getMessage());
            assertThrows(IndexOutOfBoundsException.class, () -> mr.getInt(-1));
            assertThrows(IndexOutOfBoundsException.class, () -> mr.getByteVolatile(64));
            assertThrows(IndexOutOfBoundsException.class, () -> mr.getBytes(60, 5));
            assertThrows(IndexOutOfBoundsException.class, () -> mr.fill(0, 65, (byte) 1));
            assertThrows(IndexOutOfBoundsException.class, () -> mr.putBytes(0, new byte[4], 2, 3), "source array bounds");
            assertEquals(0L, mr.getLong(56), "nothing was written");
        }
    }

    @Test
    void aNegativeOrOverflowingOffsetOrLengthIsRefusedBeforeAnythingIsAllocatedOrTouched() {
        try (Native mr = new Native(64)) {
            assertThrows(IndexOutOfBoundsException.class, () -> mr.getBytes(0, -1), "not NegativeArraySizeException");
            assertThrows(IndexOutOfBoundsException.class, () -> mr.putLong(Long.MAX_VALUE, 1), "offset + 8 overflows");
            assertThrows(IndexOutOfBoundsException.class, () -> mr.getLong(Long.MAX_VALUE - 3));
            assertThrows(IndexOutOfBoundsException.class, () -> mr.fill(8, Long.MAX_VALUE, (byte) 1));
            assertThrows(IndexOutOfBoundsException.class, () -> mr.putBytes(1, new byte[8], 1, Integer.MAX_VALUE),
                    "source offset + length overflows int");
            assertEquals(0L, mr.getLong(0), "nothing was written");
        }
    }

    @Test
    void aClosedRegionRefusesEveryAccess() {
        Native mr = new Native(16);
        mr.close();
        assertEquals("test region is closed", assertThrows(IllegalStateException.class, () -> mr.getLong(0)).getMessage());
        assertThrows(IllegalStateException.class, () -> mr.putInt(0, 1));
        assertThrows(IllegalStateException.class, () -> mr.getBytes(0, 1));
    }
}
