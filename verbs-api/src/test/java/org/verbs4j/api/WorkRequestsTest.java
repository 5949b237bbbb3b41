package org.verbs4j.api;

import org.verbs4j.api.internal.WrLayout.Wr;
import org.verbs4j.api.internal.WrLayout.SendWr;
import org.verbs4j.api.internal.WrLayout.RecvWr;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.verbs4j.api.internal.RawMemory;

/**
 * What {@link SendRequests} and {@link ReceiveRequests} share through {@link WorkRequests}, for both: the
 * layout of slots and entries, the chain {@code count} builds, the scatter/gather entries, clearing, the
 * bounds checks with their messages and use after close. Every value is read back with {@link RawMemory}
 * at the ABI offset. What only one of them has (the send request's opcode, union, immediate data) is in
 * {@link SendRequestsTest} and {@link ReceiveRequestsTest}.
 */
class WorkRequestsTest {

    /** One of the two arrays, reached through its public {@code allocate}, {@code at} and {@code count}. */
    record Kind(String className, String slots, int wrSize, Allocate allocate, At at, Count count) {
        static final Kind SEND = new Kind("SendRequests", "send requests", SendWr.WR_SIZE, SendRequests::allocate,
                (w, i) -> ((SendRequests) w).at(i), (w, n) -> ((SendRequests) w).count(n));
        static final Kind RECEIVE = new Kind("ReceiveRequests", "receive requests", RecvWr.WR_SIZE,
                ReceiveRequests::allocate, (w, i) -> ((ReceiveRequests) w).at(i), (w, n) -> ((ReceiveRequests) w).count(n));

        WorkRequests allocate(int capacity, int maxSge) {
            return allocate.apply(capacity, maxSge);
        }

        WorkRequests.Slot at(WorkRequests w, int i) {
            return at.apply(w, i);
        }

        WorkRequests count(WorkRequests w, int n) {
            return count.apply(w, n);
        }

        long wr(WorkRequests w, int i) {
            return w.address() + (long) i * wrSize;
        }

        /** Where slot {@code i}'s own SGE block must be: after all WRs, {@code maxSge} entries per slot. */
        long sgeBlock(WorkRequests w, int i) {
            return w.address() + (long) w.capacity() * wrSize + (long) i * w.maxSge() * Wr.SGE_SIZE;
        }

        @Override
        public String toString() {
            return className;
        }
    }

    /** Entry {@code j} of the SGE block at {@code block} holds {@code addr}, {@code length} and {@code lkey}. */
    static void assertSge(long block, int j, long addr, int length, int lkey) {
        long s = block + (long) j * Wr.SGE_SIZE;
        assertEquals(addr, RawMemory.getLong(s + Wr.SGE_ADDR), "SGE " + j + " addr");
        assertEquals(length, RawMemory.getInt(s + Wr.SGE_LENGTH), "SGE " + j + " length");
        assertEquals(lkey, RawMemory.getInt(s + Wr.SGE_LKEY), "SGE " + j + " lkey");
    }

    interface Allocate {
        WorkRequests apply(int capacity, int maxSge);
    }

    interface At {
        WorkRequests.Slot apply(WorkRequests w, int i);
    }

    interface Count {
        WorkRequests apply(WorkRequests w, int n);
    }

    static Stream<Kind> kinds() {
        return Stream.of(Kind.SEND, Kind.RECEIVE);
    }

    @ParameterizedTest
    @MethodSource("kinds")
    void theHeaderOffsetsAreTheSameInBothStructs(Kind k) {
        assertEquals(0, Wr.WR_ID);
        assertEquals(8, Wr.NEXT);
        assertEquals(16, Wr.SG_LIST);
        assertEquals(24, Wr.NUM_SGE);
        assertEquals(Wr.WR_ID, Wr.WR_ID);
        assertEquals(Wr.NEXT, Wr.NEXT);
        assertEquals(Wr.SG_LIST, Wr.SG_LIST);
        assertEquals(Wr.NUM_SGE, Wr.NUM_SGE);
        assertEquals(16, Wr.SGE_SIZE);
        assertEquals(8, RawMemory.ADDRESS_SIZE, "the offsets assume an LP64 ABI");
    }

    @ParameterizedTest
    @MethodSource("kinds")
    void freshArrayIsZeroedExceptItsSgListPointers(Kind k) {
        try (WorkRequests w = k.allocate(3, 2)) {
            for (int i = 0; i < 3; i++) {
                for (int off = 0; off < k.wrSize(); off += 8) {
                    long expected = off == Wr.SG_LIST ? k.sgeBlock(w, i) : 0L;
                    assertEquals(expected, RawMemory.getLong(k.wr(w, i) + off), "slot " + i + " bytes " + off + "..+8");
                }
                for (int off = 0; off < 2 * Wr.SGE_SIZE; off += 8) {
                    assertEquals(0L, RawMemory.getLong(k.sgeBlock(w, i) + off), "slot " + i + " SGE byte " + off);
                }
            }
            assertEquals(1, w.count(), "a fresh array posts one request");
            assertEquals(3, w.capacity());
            assertEquals(2, w.maxSge());
        }
    }

    @ParameterizedTest
    @MethodSource("kinds")
    void countLinksExactlyTheFirstNSlots(Kind k) {
        try (WorkRequests w = k.allocate(5, 1)) {
            assertEquals(0L, RawMemory.getLong(k.wr(w, 0) + Wr.NEXT), "count 1: slot 0 ends the chain");
            assertSame(w, k.count(w, 4));
            assertEquals(4, w.count());
            for (int i = 0; i < 3; i++) {
                assertEquals(k.wr(w, i + 1), RawMemory.getLong(k.wr(w, i) + Wr.NEXT), "slot " + i + " next");
            }
            assertEquals(0L, RawMemory.getLong(k.wr(w, 3) + Wr.NEXT), "slot 3 ends the chain");

            k.count(w, 2);
            assertEquals(k.wr(w, 1), RawMemory.getLong(k.wr(w, 0) + Wr.NEXT));
            assertEquals(0L, RawMemory.getLong(k.wr(w, 1) + Wr.NEXT), "shrinking re-terminates the chain");

            k.count(w, 5);
            for (int i = 0; i < 4; i++) {
                assertEquals(k.wr(w, i + 1), RawMemory.getLong(k.wr(w, i) + Wr.NEXT), "slot " + i + " next");
            }
            assertEquals(0L, RawMemory.getLong(k.wr(w, 4) + Wr.NEXT), "last slot ends the chain");
        }
    }

    @ParameterizedTest
    @MethodSource("kinds")
    void entriesLandInTheSlotsOwnBlock(Kind k) {
        try (WorkRequests w = k.allocate(5, 3)) {
            for (int i = 0; i < 5; i++) {
                WorkRequests.Slot r = k.at(w, i);
                assertEquals(k.wr(w, i), r.address());
                r.putWrId(100 + i);
                r.putSge(2, 0x10_0000L + i * 4096L, 4096 + i, 7 + i);
            }
            for (int i = 0; i < 5; i++) {
                assertEquals(k.sgeBlock(w, i), RawMemory.getLong(k.wr(w, i) + Wr.SG_LIST), "slot " + i);
                assertEquals(100L + i, RawMemory.getLong(k.wr(w, i) + Wr.WR_ID));
                assertSge(k.sgeBlock(w, i), 2, 0x10_0000L + i * 4096L, 4096 + i, 7 + i);
                assertEquals(100L + i, k.at(w, i).getWrId());
            }
        }
    }

    @ParameterizedTest
    @MethodSource("kinds")
    void clearZeroesFieldsAndEntriesButKeepsLinksAndSgList(Kind k) {
        try (WorkRequests w = k.allocate(3, 2)) {
            k.count(w, 3);
            WorkRequests.Slot r = k.at(w, 1);
            r.putWrId(7);
            r.putSge(0, 0x1000, 64, 9);
            r.putSge(1, 0x2000, 32, 9);
            r.putNumSge(2);
            k.at(w, 2).putWrId(30);
            k.at(w, 1).zero();
            long a = k.wr(w, 1);
            assertEquals(k.wr(w, 2), RawMemory.getLong(a + Wr.NEXT), "next survives clear()");
            assertEquals(k.sgeBlock(w, 1), RawMemory.getLong(a + Wr.SG_LIST), "sg_list survives clear()");
            for (int off = 0; off < k.wrSize(); off += 8) {
                if (off != Wr.NEXT && off != Wr.SG_LIST) {
                    assertEquals(0L, RawMemory.getLong(a + off), "byte " + off + " after clear()");
                }
            }
            for (int off = 0; off < 2 * Wr.SGE_SIZE; off += 8) {
                assertEquals(0L, RawMemory.getLong(k.sgeBlock(w, 1) + off), "SGE byte " + off + " after clear()");
            }
            assertEquals(30L, k.at(w, 2).getWrId(), "the next slot is left alone");
        }
    }

    @ParameterizedTest
    @MethodSource("kinds")
    void usedLengthSumsTheUsedEntriesUnsigned(Kind k) {
        try (WorkRequests w = k.allocate(1, 3)) {
            WorkRequests.Slot r = k.at(w, 0);
            r.putSge(0, 0x1000, 100, 1);
            r.putSge(1, 0x2000, 250, 1);
            r.putSge(2, 0x3000, 7, 1);
            r.putNumSge(2);
            assertEquals(350L, r.usedLength(), "only num_sge entries count");
            r.putNumSge(3);
            assertEquals(357L, r.usedLength());
            r.putSge(0, 0x1000, -1, 1); // 0xffffffff: 4 GiB - 1, ibv_sge.length is uint32_t
            assertEquals(0xffff_ffffL + 257L, r.usedLength());
            r.putNumSge(0);
            assertEquals(0L, r.usedLength());
        }
    }

    @ParameterizedTest
    @MethodSource("kinds")
    void boundsAreCheckedWithClearMessages(Kind k) {
        try (WorkRequests w = k.allocate(2, 2)) {
            assertEquals("slot 2 of 2 " + k.slots(),
                    assertThrows(IndexOutOfBoundsException.class, () -> k.at(w, 2)).getMessage());
            assertThrows(IndexOutOfBoundsException.class, () -> k.at(w, -1));
            WorkRequests.Slot r = k.at(w, 0);
            assertEquals("SGE 2 of 2", assertThrows(IndexOutOfBoundsException.class, () -> r.putSge(2, 0, 1, 1)).getMessage());
            assertThrows(IndexOutOfBoundsException.class, () -> r.putSge(-1, 0, 1, 1));
            // slot 1's block starts right after slot 0's: an overflow would have written into it
            assertEquals(0L, RawMemory.getLong(k.sgeBlock(w, 1)), "no write past slot 0's SGE block");
            assertEquals("num_sge 3 of at most 2",
                    assertThrows(IllegalArgumentException.class, () -> r.putNumSge(3)).getMessage());
            assertThrows(IllegalArgumentException.class, () -> r.putNumSge(-1));
            assertDoesNotThrow(() -> r.putNumSge(2));
            assertDoesNotThrow(() -> r.putNumSge(0));
            assertEquals("count 0: must be 1..2", assertThrows(IllegalArgumentException.class, () -> k.count(w, 0)).getMessage());
            assertEquals("count 3: must be 1..2", assertThrows(IllegalArgumentException.class, () -> k.count(w, 3)).getMessage());
            assertEquals(1, w.count(), "a refused count changes nothing");
            assertEquals(0L, RawMemory.getLong(k.wr(w, 0) + Wr.NEXT));
        }
    }

    @ParameterizedTest
    @MethodSource("kinds")
    void zeroSgeRequestsCannotTakeAnEntry(Kind k) {
        try (WorkRequests w = k.allocate(2, 0)) {
            WorkRequests.Slot r = k.at(w, 1);
            r.putWrId(3);
            r.putNumSge(0);
            assertThrows(IndexOutOfBoundsException.class, () -> r.putSge(0, 0x1000, 8, 1));
            assertEquals(0L, r.usedLength());
            assertDoesNotThrow(r::zero);
            assertEquals(0L, r.getWrId());
        }
    }

    @ParameterizedTest
    @MethodSource("kinds")
    void allocateRejectsBadSizes(Kind k) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> k.allocate(0, 1));
        assertTrue(e.getMessage().contains("capacity 0"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> k.allocate(1, -1));
    }

    @ParameterizedTest
    @MethodSource("kinds")
    void useAfterCloseThrowsAndDoubleCloseIsHarmless(Kind k) {
        WorkRequests w = k.allocate(2, 1);
        WorkRequests.Slot r = k.at(w, 1);
        w.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> k.at(w, 0));
        assertEquals(k.className() + " is closed", e.getMessage());
        assertThrows(IllegalStateException.class, () -> k.count(w, 1));
        assertThrows(IllegalStateException.class, w::address);
        // a flyweight obtained before the close must not write to (or read) the freed memory
        assertThrows(IllegalStateException.class, () -> r.putWrId(1));
        assertThrows(IllegalStateException.class, () -> r.putSge(0, 0x1000, 8, 1));
        assertThrows(IllegalStateException.class, () -> r.putNumSge(1));
        assertThrows(IllegalStateException.class, r::getWrId);
        assertThrows(IllegalStateException.class, r::getNumSge);
        assertThrows(IllegalStateException.class, r::zero);
        assertDoesNotThrow(w::close);
    }

    @ParameterizedTest
    @MethodSource("kinds")
    void indexOfMapsABadWrAddressBackToItsSlot(Kind k) {
        try (WorkRequests w = k.allocate(4, 2)) {
            for (int i = 0; i < 4; i++) {
                assertEquals(i, w.indexOf(k.wr(w, i)));
                assertEquals(i, w.indexOf(k.at(w, i).address()));
            }
            assertEquals(2, w.indexOf(k.wr(w, 2) + k.wrSize() - 1), "inside slot 2");
            assertEquals(-1, w.indexOf(w.address() - 1));
            assertEquals(-1, w.indexOf(k.wr(w, 4)), "one past the last slot (the SGE blocks) is not a request");
            assertEquals(-1, w.indexOf(0L));
            assertEquals(-1, w.indexOf(Long.MAX_VALUE));
        }
    }

    @ParameterizedTest
    @MethodSource("kinds")
    void atReturnsTheSameFlyweight(Kind k) {
        try (WorkRequests w = k.allocate(2, 1)) {
            assertSame(k.at(w, 0), k.at(w, 1));
            assertEquals(k.wr(w, 1), k.at(w, 1).address());
        }
    }
}
