package org.verbs4j.api;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.verbs4j.api.internal.RawMemory;

/** {@link ReceiveRequests} writes {@code struct ibv_recv_wr} / {@code struct ibv_sge} at the ABI offsets. */
class ReceiveRequestsTest {

    private static long wr(ReceiveRequests rrs, int i) {
        return rrs.address() + (long) i * ReceiveRequests.WR_SIZE;
    }

    private static long sgeBlock(ReceiveRequests rrs, int i) {
        return rrs.address() + (long) rrs.capacity() * ReceiveRequests.WR_SIZE
                + (long) i * rrs.maxSge() * SendRequests.SGE_SIZE;
    }

    @Test
    void abiSizeIsThatOfX86_64Libibverbs() {
        assertEquals(32, ReceiveRequests.WR_SIZE);
    }

    @Test
    void fieldsLandAtTheNativeOffsets() {
        try (ReceiveRequests rrs = ReceiveRequests.allocate(3, 2)) {
            ReceiveRequests.ReceiveRequest r = rrs.at(1).wrId(-0x0123_4567_89ab_cdefL)
                    .sge(0, 0x7f00_0000_1000L, 4096, 0xabcd).sge(1, 0x7f00_0000_9000L, 512, 0xef01).numSge(2);
            long a = wr(rrs, 1);
            assertEquals(a, r.address());
            assertEquals(-0x0123_4567_89ab_cdefL, RawMemory.getLong(a + ReceiveRequests.WR_ID_OFFSET));
            assertEquals(2, RawMemory.getInt(a + ReceiveRequests.NUM_SGE_OFFSET));
            long sg = RawMemory.getLong(a + ReceiveRequests.SG_LIST_OFFSET);
            assertEquals(sgeBlock(rrs, 1), sg, "sg_list of slot 1 points at slot 1's own SGE block");
            assertEquals(0x7f00_0000_1000L, RawMemory.getLong(sg + SendRequests.SGE_ADDR_OFFSET));
            assertEquals(4096, RawMemory.getInt(sg + SendRequests.SGE_LENGTH_OFFSET));
            assertEquals(0xabcd, RawMemory.getInt(sg + SendRequests.SGE_LKEY_OFFSET));
            assertEquals(0x7f00_0000_9000L, RawMemory.getLong(sg + SendRequests.SGE_SIZE + SendRequests.SGE_ADDR_OFFSET));
            assertEquals(512, RawMemory.getInt(sg + SendRequests.SGE_SIZE + SendRequests.SGE_LENGTH_OFFSET));
            assertEquals(0xef01, RawMemory.getInt(sg + SendRequests.SGE_SIZE + SendRequests.SGE_LKEY_OFFSET));
            assertEquals(-0x0123_4567_89ab_cdefL, r.wrId());
            assertEquals(2, r.numSge());
            for (int other : new int[] {0, 2}) {
                assertEquals(0L, RawMemory.getLong(wr(rrs, other) + ReceiveRequests.WR_ID_OFFSET));
                assertEquals(0, RawMemory.getInt(wr(rrs, other) + ReceiveRequests.NUM_SGE_OFFSET));
                assertEquals(0L, RawMemory.getLong(sgeBlock(rrs, other)));
            }
        }
    }

    @Test
    void everySlotPointsAtItsOwnSgeBlock() {
        try (ReceiveRequests rrs = ReceiveRequests.allocate(5, 3)) {
            for (int i = 0; i < 5; i++) {
                assertEquals(sgeBlock(rrs, i), RawMemory.getLong(wr(rrs, i) + ReceiveRequests.SG_LIST_OFFSET), "slot " + i);
            }
            // the documented usage: one buffer per slot
            for (int i = 0; i < 5; i++) {
                rrs.at(i).wrId(i).sge(0x10_0000L + i * 4096L, 4096, 7);
            }
            for (int i = 0; i < 5; i++) {
                assertEquals(0x10_0000L + i * 4096L, RawMemory.getLong(sgeBlock(rrs, i)), "slot " + i + " SGE 0");
                assertEquals(1, RawMemory.getInt(wr(rrs, i) + ReceiveRequests.NUM_SGE_OFFSET));
            }
        }
    }

    @Test
    void countLinksExactlyTheFirstNSlots() {
        try (ReceiveRequests rrs = ReceiveRequests.allocate(4, 1)) {
            assertEquals(1, rrs.count());
            assertEquals(0L, RawMemory.getLong(wr(rrs, 0) + ReceiveRequests.NEXT_OFFSET));
            assertSame(rrs, rrs.count(4));
            for (int i = 0; i < 3; i++) {
                assertEquals(wr(rrs, i + 1), RawMemory.getLong(wr(rrs, i) + ReceiveRequests.NEXT_OFFSET), "slot " + i);
            }
            assertEquals(0L, RawMemory.getLong(wr(rrs, 3) + ReceiveRequests.NEXT_OFFSET));
            rrs.count(3);
            assertEquals(3, rrs.count());
            assertEquals(wr(rrs, 2), RawMemory.getLong(wr(rrs, 1) + ReceiveRequests.NEXT_OFFSET));
            assertEquals(0L, RawMemory.getLong(wr(rrs, 2) + ReceiveRequests.NEXT_OFFSET), "shrinking re-terminates");
        }
    }

    @Test
    void boundsAreCheckedWithClearMessages() {
        try (ReceiveRequests rrs = ReceiveRequests.allocate(2, 1)) {
            assertEquals("slot 2 of 2 receive requests",
                    assertThrows(IndexOutOfBoundsException.class, () -> rrs.at(2)).getMessage());
            assertThrows(IndexOutOfBoundsException.class, () -> rrs.at(-1));
            ReceiveRequests.ReceiveRequest r = rrs.at(0);
            assertEquals("SGE 1 of 1", assertThrows(IndexOutOfBoundsException.class, () -> r.sge(1, 0, 1, 1)).getMessage());
            assertThrows(IndexOutOfBoundsException.class, () -> r.sge(-1, 0, 1, 1));
            assertEquals(0L, RawMemory.getLong(sgeBlock(rrs, 1)), "no write past slot 0's SGE block");
            assertEquals("num_sge 2 of at most 1",
                    assertThrows(IllegalArgumentException.class, () -> r.numSge(2)).getMessage());
            assertEquals("count 0: must be 1..2",
                    assertThrows(IllegalArgumentException.class, () -> rrs.count(0)).getMessage());
            assertEquals("count 3: must be 1..2",
                    assertThrows(IllegalArgumentException.class, () -> rrs.count(3)).getMessage());
            assertThrows(IllegalArgumentException.class, () -> ReceiveRequests.allocate(0, 1));
            assertThrows(IllegalArgumentException.class, () -> ReceiveRequests.allocate(1, -1));
        }
    }

    @Test
    void useAfterCloseThrowsAndDoubleCloseIsHarmless() {
        ReceiveRequests rrs = ReceiveRequests.allocate(2, 1);
        rrs.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> rrs.at(0));
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> rrs.count(1));
        assertThrows(IllegalStateException.class, rrs::address);
        assertDoesNotThrow(rrs::close);
    }

    @Test
    void indexOfMapsABadWrAddressBackToItsSlot() {
        try (ReceiveRequests rrs = ReceiveRequests.allocate(3, 1)) {
            for (int i = 0; i < 3; i++) {
                assertEquals(i, rrs.indexOf(wr(rrs, i)));
            }
            assertEquals(1, rrs.indexOf(wr(rrs, 1) + ReceiveRequests.WR_SIZE - 1));
            assertEquals(-1, rrs.indexOf(rrs.address() - 1));
            assertEquals(-1, rrs.indexOf(wr(rrs, 3)));
            assertEquals(-1, rrs.indexOf(0L));
        }
    }
}
