package org.verbs4j.api;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.verbs4j.api.internal.RawMemory;

/**
 * {@link SendRequests} writes {@code struct ibv_send_wr} / {@code struct ibv_sge} exactly as libibverbs
 * reads them: every value is read back with {@link RawMemory} at the ABI offset (the offsets themselves
 * are proven against verbs.h by {@code ApiLayoutIT} in the lab).
 */
class SendRequestsTest {

    private static long wr(SendRequests wrs, int i) {
        return wrs.address() + (long) i * SendRequests.WR_SIZE;
    }

    /** Where slot {@code i}'s own SGE block must be: after all WRs, {@code maxSge} entries per slot. */
    private static long sgeBlock(SendRequests wrs, int i) {
        return wrs.address() + (long) wrs.capacity() * SendRequests.WR_SIZE
                + (long) i * wrs.maxSge() * SendRequests.SGE_SIZE;
    }

    @Test
    void abiSizesAreThoseOfX86_64Libibverbs() {
        assertEquals(128, SendRequests.WR_SIZE);
        assertEquals(16, SendRequests.SGE_SIZE);
        assertEquals(8, RawMemory.ADDRESS_SIZE, "the offsets assume an LP64 ABI");
    }

    @Test
    void fieldsLandAtTheNativeOffsets() {
        try (SendRequests wrs = SendRequests.allocate(4, 3)) {
            SendRequests.SendRequest r = wrs.at(2)
                    .wrId(0x1122334455667788L)
                    .opcode(Opcode.RDMA_WRITE_WITH_IMM)
                    .flags(SendFlags.SIGNALED | SendFlags.SOLICITED)
                    .immData(0x01020304)
                    .sge(0, 0xA000_0000_1000L, 100, 0x11)
                    .sge(1, 0xB000_0000_2000L, 200, 0x22)
                    .numSge(2)
                    .rdma(0x7f00_dead_beef_0000L, 0x3344_5566);
            long a = wr(wrs, 2);
            assertEquals(a, r.address());
            assertEquals(0x1122334455667788L, RawMemory.getLong(a + SendRequests.WR_ID_OFFSET));
            assertEquals(Opcode.RDMA_WRITE_WITH_IMM.value(), RawMemory.getInt(a + SendRequests.OPCODE_OFFSET));
            assertEquals(SendFlags.SIGNALED | SendFlags.SOLICITED, RawMemory.getInt(a + SendRequests.SEND_FLAGS_OFFSET));
            assertEquals(2, RawMemory.getInt(a + SendRequests.NUM_SGE_OFFSET));
            assertEquals(0x7f00_dead_beef_0000L, RawMemory.getLong(a + SendRequests.RDMA_REMOTE_ADDR_OFFSET));
            assertEquals(0x3344_5566, RawMemory.getInt(a + SendRequests.RDMA_RKEY_OFFSET));

            long sg = RawMemory.getLong(a + SendRequests.SG_LIST_OFFSET);
            assertEquals(sgeBlock(wrs, 2), sg, "sg_list of slot 2 points at slot 2's own SGE block");
            assertEquals(0xA000_0000_1000L, RawMemory.getLong(sg + SendRequests.SGE_ADDR_OFFSET));
            assertEquals(100, RawMemory.getInt(sg + SendRequests.SGE_LENGTH_OFFSET));
            assertEquals(0x11, RawMemory.getInt(sg + SendRequests.SGE_LKEY_OFFSET));
            long sg1 = sg + SendRequests.SGE_SIZE;
            assertEquals(0xB000_0000_2000L, RawMemory.getLong(sg1 + SendRequests.SGE_ADDR_OFFSET));
            assertEquals(200, RawMemory.getInt(sg1 + SendRequests.SGE_LENGTH_OFFSET));
            assertEquals(0x22, RawMemory.getInt(sg1 + SendRequests.SGE_LKEY_OFFSET));
            assertEquals(0L, RawMemory.getLong(sg1 + SendRequests.SGE_SIZE), "third SGE untouched");

            // the getters read the same memory
            assertEquals(0x1122334455667788L, r.wrId());
            assertEquals(Opcode.RDMA_WRITE_WITH_IMM.value(), r.opcodeValue());
            assertEquals(SendFlags.SIGNALED | SendFlags.SOLICITED, r.flags());
            assertEquals(2, r.numSge());

            // neighbours untouched
            for (int other : new int[] {1, 3}) {
                long o = wr(wrs, other);
                assertEquals(0L, RawMemory.getLong(o + SendRequests.WR_ID_OFFSET), "slot " + other + " wr_id");
                assertEquals(0, RawMemory.getInt(o + SendRequests.OPCODE_OFFSET), "slot " + other + " opcode");
                assertEquals(0, RawMemory.getInt(o + SendRequests.NUM_SGE_OFFSET), "slot " + other + " num_sge");
                assertEquals(0L, RawMemory.getLong(sgeBlock(wrs, other)), "slot " + other + " SGE 0");
            }
        }
    }

    @Test
    void freshArrayIsZeroedExceptItsSgListPointers() {
        try (SendRequests wrs = SendRequests.allocate(3, 2)) {
            for (int i = 0; i < 3; i++) {
                long a = wr(wrs, i);
                for (int off = 0; off < SendRequests.WR_SIZE; off += 8) {
                    long expected = off == SendRequests.SG_LIST_OFFSET ? sgeBlock(wrs, i) : 0L;
                    assertEquals(expected, RawMemory.getLong(a + off), "slot " + i + " bytes " + off + "..+8");
                }
            }
            assertEquals(1, wrs.count(), "a fresh array posts one request");
        }
    }

    @Test
    void immDataIsStoredBigEndianAsHtonlWould() {
        try (SendRequests wrs = SendRequests.allocate(1, 1)) {
            long a = wr(wrs, 0) + SendRequests.IMM_DATA_OFFSET;
            wrs.at(0).immData(0x01020304);
            assertEquals(0x01, RawMemory.getByte(a));
            assertEquals(0x02, RawMemory.getByte(a + 1));
            assertEquals(0x03, RawMemory.getByte(a + 2));
            assertEquals(0x04, RawMemory.getByte(a + 3));
            wrs.at(0).immData(0xCAFEBABE);
            assertEquals((byte) 0xCA, RawMemory.getByte(a));
            assertEquals((byte) 0xBE, RawMemory.getByte(a + 3));
        }
    }

    @Test
    void countLinksExactlyTheFirstNSlots() {
        try (SendRequests wrs = SendRequests.allocate(5, 1)) {
            assertEquals(0L, RawMemory.getLong(wr(wrs, 0) + SendRequests.NEXT_OFFSET), "count 1: slot 0 ends the chain");
            assertSame(wrs, wrs.count(4));
            assertEquals(4, wrs.count());
            for (int i = 0; i < 3; i++) {
                assertEquals(wr(wrs, i + 1), RawMemory.getLong(wr(wrs, i) + SendRequests.NEXT_OFFSET), "slot " + i + " next");
            }
            assertEquals(0L, RawMemory.getLong(wr(wrs, 3) + SendRequests.NEXT_OFFSET), "slot 3 ends the chain");

            wrs.count(2);
            assertEquals(wr(wrs, 1), RawMemory.getLong(wr(wrs, 0) + SendRequests.NEXT_OFFSET));
            assertEquals(0L, RawMemory.getLong(wr(wrs, 1) + SendRequests.NEXT_OFFSET), "shrinking re-terminates the chain");

            wrs.count(5);
            for (int i = 0; i < 4; i++) {
                assertEquals(wr(wrs, i + 1), RawMemory.getLong(wr(wrs, i) + SendRequests.NEXT_OFFSET), "slot " + i + " next");
            }
            assertEquals(0L, RawMemory.getLong(wr(wrs, 4) + SendRequests.NEXT_OFFSET), "last slot ends the chain");
        }
    }

    @Test
    void clearZeroesFieldsAndEntriesButKeepsLinksAndSgList() {
        try (SendRequests wrs = SendRequests.allocate(3, 2)) {
            wrs.count(3);
            wrs.at(1).wrId(7).opcode(Opcode.SEND_WITH_IMM).flags(SendFlags.SIGNALED).immData(5)
                    .sge(0, 0x1000, 64, 9).sge(1, 0x2000, 32, 9).numSge(2).rdma(0x3000, 4);
            wrs.at(1).clear();
            long a = wr(wrs, 1);
            assertEquals(wr(wrs, 2), RawMemory.getLong(a + SendRequests.NEXT_OFFSET), "next survives clear()");
            assertEquals(sgeBlock(wrs, 1), RawMemory.getLong(a + SendRequests.SG_LIST_OFFSET), "sg_list survives clear()");
            for (int off = 0; off < SendRequests.WR_SIZE; off += 4) {
                if (off == SendRequests.NEXT_OFFSET || off == SendRequests.NEXT_OFFSET + 4
                        || off == SendRequests.SG_LIST_OFFSET || off == SendRequests.SG_LIST_OFFSET + 4) {
                    continue;
                }
                assertEquals(0, RawMemory.getInt(a + off), "byte " + off + " after clear()");
            }
            for (int off = 0; off < 2 * SendRequests.SGE_SIZE; off += 4) {
                assertEquals(0, RawMemory.getInt(sgeBlock(wrs, 1) + off), "SGE byte " + off + " after clear()");
            }
            // and it can be refilled: the entry goes to the same block
            wrs.at(1).sge(0x4000, 16, 3);
            assertEquals(0x4000L, RawMemory.getLong(RawMemory.getLong(a + SendRequests.SG_LIST_OFFSET)));
        }
    }

    @Test
    void clearOfOneSlotLeavesTheOthersAlone() {
        try (SendRequests wrs = SendRequests.allocate(3, 1)) {
            wrs.at(0).wrId(10).sge(0x10, 1, 1);
            wrs.at(2).wrId(30).sge(0x30, 3, 3);
            wrs.at(1).wrId(20).sge(0x20, 2, 2).clear();
            assertEquals(10L, wrs.at(0).wrId());
            assertEquals(0x10L, RawMemory.getLong(sgeBlock(wrs, 0)));
            assertEquals(30L, wrs.at(2).wrId());
            assertEquals(0x30L, RawMemory.getLong(sgeBlock(wrs, 2)));
        }
    }

    @Test
    void singleSgeSetterSetsEntryZeroAndNumSgeOne() {
        try (SendRequests wrs = SendRequests.allocate(1, 4)) {
            wrs.at(0).sge(0x5000, 77, 0x99);
            assertEquals(1, RawMemory.getInt(wr(wrs, 0) + SendRequests.NUM_SGE_OFFSET));
            assertEquals(0x5000L, RawMemory.getLong(sgeBlock(wrs, 0)));
            assertEquals(77, RawMemory.getInt(sgeBlock(wrs, 0) + SendRequests.SGE_LENGTH_OFFSET));
        }
    }

    @Test
    void atomicPutsItsOperandsInTheUnion() {
        try (SendRequests wrs = SendRequests.allocate(2, 1)) {
            wrs.at(1).opcode(Opcode.ATOMIC_CMP_AND_SWP).atomic(0x1234_5678_9abc_def0L, 0x0bad_f00d, 41L, -2L);
            long a = wr(wrs, 1);
            assertEquals(Opcode.ATOMIC_CMP_AND_SWP.value(), RawMemory.getInt(a + SendRequests.OPCODE_OFFSET));
            assertEquals(0x1234_5678_9abc_def0L, RawMemory.getLong(a + SendRequests.ATOMIC_REMOTE_ADDR_OFFSET));
            assertEquals(41L, RawMemory.getLong(a + SendRequests.ATOMIC_COMPARE_ADD_OFFSET));
            assertEquals(-2L, RawMemory.getLong(a + SendRequests.ATOMIC_SWAP_OFFSET));
            assertEquals(0x0bad_f00d, RawMemory.getInt(a + SendRequests.ATOMIC_RKEY_OFFSET));
            assertEquals(40, SendRequests.ATOMIC_REMOTE_ADDR_OFFSET);
            assertEquals(64, SendRequests.ATOMIC_RKEY_OFFSET);
        }
    }

    @Test
    void udPutsTheHandleQpnAndQkeyInTheUnion() {
        try (SendRequests wrs = SendRequests.allocate(1, 1)) {
            wrs.at(0).ud(new FakeAddressHandle(0x00007f12_3456_7890L), 0x00ab_cdef, 0x1111_1111);
            long a = wr(wrs, 0);
            assertEquals(0x00007f12_3456_7890L, RawMemory.getLong(a + SendRequests.UD_AH_OFFSET));
            assertEquals(0x00ab_cdef, RawMemory.getInt(a + SendRequests.UD_REMOTE_QPN_OFFSET));
            assertEquals(0x1111_1111, RawMemory.getInt(a + SendRequests.UD_REMOTE_QKEY_OFFSET));
        }
    }

    @Test
    void totalLengthSumsTheUsedEntriesUnsigned() {
        try (SendRequests wrs = SendRequests.allocate(1, 3)) {
            SendRequests.SendRequest r = wrs.at(0).sge(0, 0x1000, 100, 1).sge(1, 0x2000, 250, 1).sge(2, 0x3000, 7, 1);
            r.numSge(2);
            assertEquals(350L, r.totalLength(), "only num_sge entries count");
            r.numSge(3);
            assertEquals(357L, r.totalLength());
            r.sge(0, 0x1000, -1, 1); // 0xffffffff: 4 GiB - 1, ibv_sge.length is uint32_t
            assertEquals(0xffff_ffffL + 257L, r.totalLength());
            r.numSge(0);
            assertEquals(0L, r.totalLength());
        }
    }

    @Test
    void slotBoundsAreChecked() {
        try (SendRequests wrs = SendRequests.allocate(4, 2)) {
            IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class, () -> wrs.at(4));
            assertEquals("slot 4 of 4 send requests", e.getMessage());
            assertThrows(IndexOutOfBoundsException.class, () -> wrs.at(-1));
            assertDoesNotThrow(() -> wrs.at(3));
        }
    }

    @Test
    void sgeBoundsAreChecked() {
        try (SendRequests wrs = SendRequests.allocate(2, 2)) {
            SendRequests.SendRequest r = wrs.at(0);
            IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class, () -> r.sge(2, 0, 1, 1));
            assertEquals("SGE 2 of 2", e.getMessage());
            assertThrows(IndexOutOfBoundsException.class, () -> r.sge(-1, 0, 1, 1));
            // slot 1's block starts right after slot 0's: an overflow would have written into it
            assertEquals(0L, RawMemory.getLong(sgeBlock(wrs, 1)));
            IllegalArgumentException n = assertThrows(IllegalArgumentException.class, () -> r.numSge(3));
            assertEquals("num_sge 3 of at most 2", n.getMessage());
            assertThrows(IllegalArgumentException.class, () -> r.numSge(-1));
            assertDoesNotThrow(() -> r.numSge(2));
            assertDoesNotThrow(() -> r.numSge(0));
        }
    }

    @Test
    void zeroSgeRequestsCannotTakeAnEntry() {
        try (SendRequests wrs = SendRequests.allocate(2, 0)) {
            SendRequests.SendRequest r = wrs.at(1).wrId(3).opcode(Opcode.RDMA_WRITE_WITH_IMM).numSge(0);
            assertThrows(IndexOutOfBoundsException.class, () -> r.sge(0x1000, 8, 1));
            assertEquals(0, r.numSge());
            assertEquals(0L, r.totalLength());
            assertDoesNotThrow(r::clear);
            assertEquals(0L, r.wrId());
        }
    }

    @Test
    void countBoundsAreChecked() {
        try (SendRequests wrs = SendRequests.allocate(4, 1)) {
            IllegalArgumentException zero = assertThrows(IllegalArgumentException.class, () -> wrs.count(0));
            assertEquals("count 0: must be 1..4", zero.getMessage());
            IllegalArgumentException over = assertThrows(IllegalArgumentException.class, () -> wrs.count(5));
            assertEquals("count 5: must be 1..4", over.getMessage());
            assertEquals(1, wrs.count(), "a refused count changes nothing");
            assertEquals(0L, RawMemory.getLong(wr(wrs, 0) + SendRequests.NEXT_OFFSET));
        }
    }

    @Test
    void allocateRejectsBadSizes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SendRequests.allocate(0, 1));
        assertTrue(e.getMessage().contains("capacity 0"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> SendRequests.allocate(1, -1));
    }

    @Test
    void useAfterCloseThrowsAndDoubleCloseIsHarmless() {
        SendRequests wrs = SendRequests.allocate(2, 1);
        wrs.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> wrs.at(0));
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> wrs.count(1));
        assertThrows(IllegalStateException.class, wrs::address);
        assertDoesNotThrow(wrs::close);
    }

    @Test
    void indexOfMapsABadWrAddressBackToItsSlot() {
        try (SendRequests wrs = SendRequests.allocate(4, 2)) {
            for (int i = 0; i < 4; i++) {
                assertEquals(i, wrs.indexOf(wr(wrs, i)));
                assertEquals(i, wrs.indexOf(wrs.at(i).address()));
            }
            assertEquals(2, wrs.indexOf(wr(wrs, 2) + SendRequests.WR_SIZE - 1), "inside slot 2");
            assertEquals(-1, wrs.indexOf(wrs.address() - 1));
            assertEquals(-1, wrs.indexOf(wr(wrs, 4)), "one past the last slot (the SGE blocks) is not a request");
            assertEquals(-1, wrs.indexOf(0L));
            assertEquals(-1, wrs.indexOf(Long.MAX_VALUE));
        }
    }

    @Test
    void atReturnsTheSameFlyweight() {
        try (SendRequests wrs = SendRequests.allocate(2, 1)) {
            assertSame(wrs.at(0), wrs.at(1));
            assertEquals(wr(wrs, 1), wrs.at(1).address());
        }
    }

    /** An address handle whose native handle is a known value. */
    static final class FakeAddressHandle implements AddressHandle {
        private final long handle;

        FakeAddressHandle(long handle) {
            this.handle = handle;
        }

        @Override
        public ProtectionDomain protectionDomain() {
            return null;
        }

        @Override
        public AddressVector addressVector() {
            return AddressVector.local(1, 1);
        }

        @Override
        public long handle() {
            return handle;
        }

        @Override
        public boolean isClosed() {
            return false;
        }

        @Override
        public void close() {
        }
    }
}
