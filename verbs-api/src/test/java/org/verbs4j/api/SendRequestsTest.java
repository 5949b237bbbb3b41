package org.verbs4j.api;

import org.verbs4j.api.internal.WrLayout.Wr;
import org.verbs4j.api.internal.WrLayout.SendWr;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;
import org.verbs4j.api.internal.RawMemory;

/**
 * {@link SendRequests} writes {@code struct ibv_send_wr} / {@code struct ibv_sge} exactly as libibverbs
 * reads them: every value is read back with {@link RawMemory} at the ABI offset (the offsets themselves
 * are proven against verbs.h by {@code ApiLayoutIT} in the lab).
 */
class SendRequestsTest {

    /** Where the slots and their SGE blocks are: the layout {@link WorkRequestsTest} checks for both arrays. */
    private static final WorkRequestsTest.Kind KIND = WorkRequestsTest.Kind.SEND;

    @Test
    void abiSizesAreThoseOfX86_64Libibverbs() {
        assertEquals(128, SendWr.WR_SIZE);
        assertEquals(16, Wr.SGE_SIZE);
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
            long a = KIND.wr(wrs, 2);
            assertEquals(a, r.address());
            assertEquals(0x1122334455667788L, RawMemory.getLong(a + Wr.WR_ID));
            assertEquals(Opcode.RDMA_WRITE_WITH_IMM.value(), RawMemory.getInt(a + SendWr.OPCODE_OFFSET));
            assertEquals(SendFlags.SIGNALED | SendFlags.SOLICITED, RawMemory.getInt(a + SendWr.SEND_FLAGS_OFFSET));
            assertEquals(2, RawMemory.getInt(a + Wr.NUM_SGE));
            assertEquals(0x7f00_dead_beef_0000L, RawMemory.getLong(a + SendWr.RDMA_REMOTE_ADDR_OFFSET));
            assertEquals(0x3344_5566, RawMemory.getInt(a + SendWr.RDMA_RKEY_OFFSET));

            long sg = RawMemory.getLong(a + Wr.SG_LIST);
            assertEquals(KIND.sgeBlock(wrs, 2), sg, "sg_list of slot 2 points at slot 2's own SGE block");
            WorkRequestsTest.assertSge(sg, 0, 0xA000_0000_1000L, 100, 0x11);
            WorkRequestsTest.assertSge(sg, 1, 0xB000_0000_2000L, 200, 0x22);
            WorkRequestsTest.assertSge(sg, 2, 0L, 0, 0);

            // the getters read the same memory
            assertEquals(0x1122334455667788L, r.wrId());
            assertEquals(Opcode.RDMA_WRITE_WITH_IMM.value(), r.opcodeValue());
            assertEquals(SendFlags.SIGNALED | SendFlags.SOLICITED, r.flags());
            assertEquals(2, r.numSge());
            assertEquals(300L, r.totalLength());

            // neighbours untouched
            for (int other : new int[] {1, 3}) {
                long o = KIND.wr(wrs, other);
                assertEquals(0L, RawMemory.getLong(o + Wr.WR_ID), "slot " + other + " wr_id");
                assertEquals(0, RawMemory.getInt(o + SendWr.OPCODE_OFFSET), "slot " + other + " opcode");
                assertEquals(0, RawMemory.getInt(o + Wr.NUM_SGE), "slot " + other + " num_sge");
                assertEquals(0L, RawMemory.getLong(KIND.sgeBlock(wrs, other)), "slot " + other + " SGE 0");
            }
        }
    }

    @Test
    void immDataIsStoredBigEndianAsHtonlWould() {
        try (SendRequests wrs = SendRequests.allocate(1, 1)) {
            long a = KIND.wr(wrs, 0) + SendWr.IMM_DATA_OFFSET;
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
    void clearZeroesTheSendFieldsToo() {
        try (SendRequests wrs = SendRequests.allocate(2, 1)) {
            SendRequests.SendRequest r = wrs.at(1).wrId(7).opcode(Opcode.SEND_WITH_IMM).flags(SendFlags.SIGNALED)
                    .immData(5).sge(0x1000, 64, 9).rdma(0x3000, 4);
            assertSame(r, r.clear());
            assertEquals(0, r.opcodeValue());
            assertEquals(0, r.flags());
            assertEquals(0, RawMemory.getInt(KIND.wr(wrs, 1) + SendWr.IMM_DATA_OFFSET));
            assertEquals(0L, RawMemory.getLong(KIND.wr(wrs, 1) + SendWr.RDMA_REMOTE_ADDR_OFFSET));
            assertEquals(0L, r.totalLength());
            assertEquals(KIND.sgeBlock(wrs, 1), RawMemory.getLong(KIND.wr(wrs, 1) + Wr.SG_LIST));
        }
    }

    @Test
    void singleSgeSetterSetsEntryZeroAndNumSgeOne() {
        try (SendRequests wrs = SendRequests.allocate(1, 4)) {
            wrs.at(0).sge(0x5000, 77, 0x99);
            assertEquals(1, RawMemory.getInt(KIND.wr(wrs, 0) + Wr.NUM_SGE));
            assertEquals(0x5000L, RawMemory.getLong(KIND.sgeBlock(wrs, 0)));
            assertEquals(77, RawMemory.getInt(KIND.sgeBlock(wrs, 0) + Wr.SGE_LENGTH));
        }
    }

    @Test
    void atomicPutsItsOperandsInTheUnion() {
        try (SendRequests wrs = SendRequests.allocate(2, 1)) {
            wrs.at(1).opcode(Opcode.ATOMIC_CMP_AND_SWP).atomic(0x1234_5678_9abc_def0L, 0x0bad_f00d, 41L, -2L);
            long a = KIND.wr(wrs, 1);
            assertEquals(Opcode.ATOMIC_CMP_AND_SWP.value(), RawMemory.getInt(a + SendWr.OPCODE_OFFSET));
            assertEquals(0x1234_5678_9abc_def0L, RawMemory.getLong(a + SendWr.ATOMIC_REMOTE_ADDR_OFFSET));
            assertEquals(41L, RawMemory.getLong(a + SendWr.ATOMIC_COMPARE_ADD_OFFSET));
            assertEquals(-2L, RawMemory.getLong(a + SendWr.ATOMIC_SWAP_OFFSET));
            assertEquals(0x0bad_f00d, RawMemory.getInt(a + SendWr.ATOMIC_RKEY_OFFSET));
            assertEquals(40, SendWr.ATOMIC_REMOTE_ADDR_OFFSET);
            assertEquals(64, SendWr.ATOMIC_RKEY_OFFSET);
        }
    }

    @Test
    void udPutsTheHandleQpnAndQkeyInTheUnion() {
        try (SendRequests wrs = SendRequests.allocate(1, 1)) {
            wrs.at(0).ud(new FakeAddressHandle(0x00007f12_3456_7890L), 0x00ab_cdef, 0x1111_1111);
            long a = KIND.wr(wrs, 0);
            assertEquals(0x00007f12_3456_7890L, RawMemory.getLong(a + SendWr.UD_AH_OFFSET));
            assertEquals(0x00ab_cdef, RawMemory.getInt(a + SendWr.UD_REMOTE_QPN_OFFSET));
            assertEquals(0x1111_1111, RawMemory.getInt(a + SendWr.UD_REMOTE_QKEY_OFFSET));
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
