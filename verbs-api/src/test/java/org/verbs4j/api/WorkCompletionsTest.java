package org.verbs4j.api;

import org.verbs4j.api.internal.WrLayout.Wc;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.verbs4j.api.internal.RawMemory;

/** {@link WorkCompletions} reads {@code struct ibv_wc} as a provider writes it: raw bytes in, getters out. */
class WorkCompletionsTest {

    private static long slot(WorkCompletions wc, int i) {
        return wc.address() + (long) i * Wc.WC_SIZE;
    }

    /** Writes a whole {@code struct ibv_wc} the way a provider would. */
    private static void put(WorkCompletions wc, int i, long wrId, int status, int opcode, int vendorErr, int byteLen,
            int immBigEndianHostValue, int qpNum, int srcQp, int wcFlags, int pkeyIndex, int slid, int sl, int dlidPathBits) {
        long s = slot(wc, i);
        RawMemory.putLong(s + Wc.WR_ID_OFFSET, wrId);
        RawMemory.putInt(s + Wc.STATUS_OFFSET, status);
        RawMemory.putInt(s + Wc.OPCODE_OFFSET, opcode);
        RawMemory.putInt(s + Wc.VENDOR_ERR_OFFSET, vendorErr);
        RawMemory.putInt(s + Wc.BYTE_LEN_OFFSET, byteLen);
        // __be32 imm_data: network order in memory, byte by byte
        long imm = s + Wc.IMM_DATA_OFFSET;
        RawMemory.putByte(imm, (byte) (immBigEndianHostValue >>> 24));
        RawMemory.putByte(imm + 1, (byte) (immBigEndianHostValue >>> 16));
        RawMemory.putByte(imm + 2, (byte) (immBigEndianHostValue >>> 8));
        RawMemory.putByte(imm + 3, (byte) immBigEndianHostValue);
        RawMemory.putInt(s + Wc.QP_NUM_OFFSET, qpNum);
        RawMemory.putInt(s + Wc.SRC_QP_OFFSET, srcQp);
        RawMemory.putInt(s + Wc.WC_FLAGS_OFFSET, wcFlags);
        RawMemory.putShort(s + Wc.PKEY_INDEX_OFFSET, (short) pkeyIndex);
        RawMemory.putShort(s + Wc.SLID_OFFSET, (short) slid);
        RawMemory.putByte(s + Wc.SL_OFFSET, (byte) sl);
        RawMemory.putByte(s + Wc.DLID_PATH_BITS_OFFSET, (byte) dlidPathBits);
    }

    @Test
    void abiSizeIsThatOfX86_64Libibverbs() {
        assertEquals(48, Wc.WC_SIZE);
    }

    @Test
    void everyGetterReadsItsField() {
        try (WorkCompletions wc = WorkCompletions.allocate(3)) {
            put(wc, 1, 0x0102_0304_0506_0708L, WcStatus.SUCCESS.value(), WcOpcode.RECV_RDMA_WITH_IMM.value(), 0x5a,
                    1_000_000, 0xAABBCCDD, 0x00_1234, 0x00_5678, WcFlags.WITH_IMM | WcFlags.GRH, 0xFFFF, 0xBEEF, 0x0F, 0x7F);
            assertEquals(0x0102_0304_0506_0708L, wc.wrId(1));
            assertEquals(0, wc.statusValue(1));
            assertSame(WcStatus.SUCCESS, wc.status(1));
            assertTrue(wc.ok(1));
            assertSame(WcOpcode.RECV_RDMA_WITH_IMM, wc.opcode(1));
            assertEquals(129, wc.opcodeValue(1));
            assertEquals(0x5a, wc.vendorError(1));
            assertEquals(1_000_000, wc.byteLength(1));
            assertEquals(0xAABBCCDD, wc.immData(1), "imm_data is big endian in memory, host order from the getter");
            assertEquals(0x1234, wc.qpNum(1));
            assertEquals(0x5678, wc.srcQp(1));
            assertEquals(WcFlags.WITH_IMM | WcFlags.GRH, wc.flags(1));
            assertTrue(wc.hasImmData(1));
            assertEquals(0xFFFF, wc.pkeyIndex(1), "pkey_index is uint16_t: unsigned");
            assertEquals(0xBEEF, wc.slid(1), "slid is uint16_t: unsigned");
            assertEquals(0x0F, wc.sl(1));
            assertEquals(0x7F, wc.dlidPathBits(1));

            // neighbours are not read by mistake: slots 0 and 2 are still zero
            for (int other : new int[] {0, 2}) {
                assertEquals(0L, wc.wrId(other));
                assertEquals(0, wc.byteLength(other));
                assertEquals(0, wc.qpNum(other));
                assertEquals(0, wc.dlidPathBits(other));
            }
        }
    }

    @Test
    void narrowFieldsAreUnsignedAndDoNotBleedIntoEachOther() {
        try (WorkCompletions wc = WorkCompletions.allocate(1)) {
            put(wc, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x8001, 0x8002, 0xFF, 0xFE);
            assertEquals(0x8001, wc.pkeyIndex(0));
            assertEquals(0x8002, wc.slid(0));
            assertEquals(0xFF, wc.sl(0));
            assertEquals(0xFE, wc.dlidPathBits(0));
        }
    }

    @Test
    void immDataIsConvertedFromNetworkOrder() {
        try (WorkCompletions wc = WorkCompletions.allocate(1)) {
            long imm = slot(wc, 0) + Wc.IMM_DATA_OFFSET;
            RawMemory.putByte(imm, (byte) 0x00);
            RawMemory.putByte(imm + 1, (byte) 0x00);
            RawMemory.putByte(imm + 2, (byte) 0x00);
            RawMemory.putByte(imm + 3, (byte) 0x2a);
            assertEquals(42, wc.immData(0), "ntohl(bytes 00 00 00 2a) == 42");
            assertFalse(wc.hasImmData(0), "without IBV_WC_WITH_IMM the value is not valid");
            RawMemory.putInt(slot(wc, 0) + Wc.WC_FLAGS_OFFSET, WcFlags.WITH_IMM);
            assertTrue(wc.hasImmData(0));
            RawMemory.putInt(slot(wc, 0) + Wc.WC_FLAGS_OFFSET, WcFlags.GRH | WcFlags.WITH_INV);
            assertFalse(wc.hasImmData(0));
        }
    }

    @Test
    void statusMapsEveryKnownValueAndUnknownToNull() {
        try (WorkCompletions wc = WorkCompletions.allocate(1)) {
            for (WcStatus s : WcStatus.values()) {
                RawMemory.putInt(slot(wc, 0) + Wc.STATUS_OFFSET, s.value());
                assertSame(s, wc.status(0));
                assertEquals(s.value(), wc.statusValue(0));
                assertEquals(s == WcStatus.SUCCESS, wc.ok(0), s.name());
            }
            for (int unknown : new int[] {24, 99, 255, 256, -1, Integer.MIN_VALUE}) {
                RawMemory.putInt(slot(wc, 0) + Wc.STATUS_OFFSET, unknown);
                assertNull(wc.status(0), "status " + unknown);
                assertEquals(unknown, wc.statusValue(0));
                assertFalse(wc.ok(0));
            }
        }
    }

    @Test
    void opcodeMapsEveryKnownValueAndUnknownToNull() {
        try (WorkCompletions wc = WorkCompletions.allocate(1)) {
            for (WcOpcode o : WcOpcode.values()) {
                RawMemory.putInt(slot(wc, 0) + Wc.OPCODE_OFFSET, o.value());
                assertSame(o, wc.opcode(0));
                assertEquals(o.value(), wc.opcodeValue(0));
            }
            for (int unknown : new int[] {8, 127, 200, 1000, -1}) {
                RawMemory.putInt(slot(wc, 0) + Wc.OPCODE_OFFSET, unknown);
                assertNull(wc.opcode(0), "opcode " + unknown);
            }
        }
    }

    @Test
    void toStringOfASuccessfulReceive() {
        try (WorkCompletions wc = WorkCompletions.allocate(2)) {
            put(wc, 1, 42, 0, WcOpcode.RECV.value(), 0, 1024, 0xAABBCCDD, 0x1234, 0, WcFlags.WITH_IMM, 0, 0, 0, 0);
            String s = wc.toString(1);
            assertTrue(s.contains("wr_id 42"), s);
            assertTrue(s.contains("SUCCESS (success)"), s);
            assertTrue(s.contains("opcode RECV"), s);
            assertTrue(s.contains("byte_len 1024"), s);
            assertTrue(s.contains("qp 0x1234"), s);
            assertTrue(s.contains("imm 0xaabbccdd"), s);
            assertFalse(s.contains("vendor_err"), s);
        }
    }

    @Test
    void toStringOfAnError() {
        try (WorkCompletions wc = WorkCompletions.allocate(1)) {
            put(wc, 0, 7, WcStatus.REM_ACCESS_ERR.value(), 0x55, 0x88, 0, 0, 0xabc, 0, 0, 0, 0, 0, 0);
            String s = wc.toString(0);
            assertTrue(s.contains("wr_id 7"), s);
            assertTrue(s.contains("REM_ACCESS_ERR (remote access error)"), s);
            assertTrue(s.contains("vendor_err 0x88"), s);
            assertTrue(s.contains("qp 0xabc"), s);
            assertFalse(s.contains("opcode"), "the opcode of a failed completion is undefined: " + s);
            assertFalse(s.contains("imm"), s);

            RawMemory.putInt(slot(wc, 0) + Wc.STATUS_OFFSET, 99);
            s = wc.toString(0);
            assertTrue(s.contains("status 99"), "an unknown status is printed as its number: " + s);
        }
    }

    @Test
    void boundsAndLifecycle() {
        WorkCompletions wc = WorkCompletions.allocate(4);
        assertEquals(4, wc.capacity());
        assertEquals("completion 4 of 4", assertThrows(IndexOutOfBoundsException.class, () -> wc.wrId(4)).getMessage());
        assertThrows(IndexOutOfBoundsException.class, () -> wc.status(-1));
        assertThrows(IndexOutOfBoundsException.class, () -> wc.toString(4));
        wc.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, wc::address);
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
        assertDoesNotThrow(wc::close);
        assertThrows(IllegalArgumentException.class, () -> WorkCompletions.allocate(0));
    }

    @Test
    void freshArrayIsZeroed() {
        try (WorkCompletions wc = WorkCompletions.allocate(2)) {
            for (int off = 0; off < 2 * Wc.WC_SIZE; off += 8) {
                assertEquals(0L, RawMemory.getLong(wc.address() + off), "byte " + off);
            }
        }
    }

    @Test
    void copyMovesAWholeCompletionAndChecksBothSlots() {
        try (WorkCompletions a = WorkCompletions.allocate(2); WorkCompletions b = WorkCompletions.allocate(2)) {
            put(a, 1, 42, WcStatus.SUCCESS.value(), WcOpcode.RECV_RDMA_WITH_IMM.value(), 0, 100, 0x01020304, 7, 0,
                    WcFlags.WITH_IMM, 0, 0, 0, 0);
            a.copy(1, b, 0);
            assertEquals(42, b.wrId(0));
            assertSame(WcOpcode.RECV_RDMA_WITH_IMM, b.opcode(0));
            assertEquals(100, b.byteLength(0));
            assertEquals(0x01020304, b.immData(0));
            a.copy(1, a, 0); // within one array
            assertEquals(42, a.wrId(0));
            assertThrows(IndexOutOfBoundsException.class, () -> a.copy(2, b, 0));
            assertThrows(IndexOutOfBoundsException.class, () -> a.copy(0, b, 2));
        }
    }
}
