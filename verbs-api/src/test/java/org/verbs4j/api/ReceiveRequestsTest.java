package org.verbs4j.api;

import org.verbs4j.api.internal.WrLayout.Wr;
import org.verbs4j.api.internal.WrLayout.RecvWr;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;
import org.verbs4j.api.internal.RawMemory;

/** {@link ReceiveRequests} writes {@code struct ibv_recv_wr} / {@code struct ibv_sge} at the ABI offsets. */
class ReceiveRequestsTest {

    /** Where the slots and their SGE blocks are: the layout {@link WorkRequestsTest} checks for both arrays. */
    private static final WorkRequestsTest.Kind KIND = WorkRequestsTest.Kind.RECEIVE;

    @Test
    void abiSizeIsThatOfX86_64Libibverbs() {
        assertEquals(32, RecvWr.WR_SIZE);
    }

    @Test
    void fieldsLandAtTheNativeOffsets() {
        try (ReceiveRequests rrs = ReceiveRequests.allocate(3, 2)) {
            ReceiveRequests.ReceiveRequest r = rrs.at(1).wrId(-0x0123_4567_89ab_cdefL)
                    .sge(0, 0x7f00_0000_1000L, 4096, 0xabcd).sge(1, 0x7f00_0000_9000L, 512, 0xef01).numSge(2);
            long a = KIND.wr(rrs, 1);
            assertEquals(a, r.address());
            assertEquals(-0x0123_4567_89ab_cdefL, RawMemory.getLong(a + Wr.WR_ID));
            assertEquals(2, RawMemory.getInt(a + Wr.NUM_SGE));
            long sg = RawMemory.getLong(a + Wr.SG_LIST);
            assertEquals(KIND.sgeBlock(rrs, 1), sg, "sg_list of slot 1 points at slot 1's own SGE block");
            WorkRequestsTest.assertSge(sg, 0, 0x7f00_0000_1000L, 4096, 0xabcd);
            WorkRequestsTest.assertSge(sg, 1, 0x7f00_0000_9000L, 512, 0xef01);
            assertEquals(-0x0123_4567_89ab_cdefL, r.wrId());
            assertEquals(2, r.numSge());
            assertEquals(4096L + 512L, r.totalLength());
            for (int other : new int[] {0, 2}) {
                assertEquals(0L, RawMemory.getLong(KIND.wr(rrs, other) + Wr.WR_ID));
                assertEquals(0, RawMemory.getInt(KIND.wr(rrs, other) + Wr.NUM_SGE));
                assertEquals(0L, RawMemory.getLong(KIND.sgeBlock(rrs, other)));
            }
        }
    }

    @Test
    void theOneEntrySetterAndClearWorkThroughThePublicView() {
        try (ReceiveRequests rrs = ReceiveRequests.allocate(2, 4)) {
            ReceiveRequests.ReceiveRequest r = rrs.at(1).wrId(9).sge(0x5000, 77, 0x99);
            assertEquals(1, RawMemory.getInt(KIND.wr(rrs, 1) + Wr.NUM_SGE));
            assertEquals(0x5000L, RawMemory.getLong(KIND.sgeBlock(rrs, 1)));
            assertEquals(77L, r.totalLength());
            assertSame(r, r.clear());
            assertEquals(0L, r.wrId());
            assertEquals(0, r.numSge());
            assertEquals(0L, RawMemory.getLong(KIND.sgeBlock(rrs, 1)));
            assertEquals(KIND.sgeBlock(rrs, 1), RawMemory.getLong(KIND.wr(rrs, 1) + Wr.SG_LIST));
        }
    }
}
