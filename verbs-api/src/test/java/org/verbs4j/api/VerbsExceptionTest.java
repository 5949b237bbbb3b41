package org.verbs4j.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class VerbsExceptionTest {
    @Test
    void namesVerbErrnoMeaningAndHint() {
        VerbsException e = new VerbsException("ibv_reg_mr", Errno.ENOMEM, "4096 bytes at 0x7f00");
        assertEquals("ibv_reg_mr", e.verb());
        assertEquals(12, e.errno());
        assertEquals("ENOMEM", e.errnoName());
        assertTrue(e.getMessage().startsWith("ibv_reg_mr failed (4096 bytes at 0x7f00): ENOMEM (12, Cannot allocate memory)"),
                e.getMessage());
        assertTrue(e.getMessage().contains("ulimit -l"), e.getMessage());
    }

    @Test
    void modifyQpEinvalPointsAtTheTransition() {
        VerbsException e = new VerbsException("ibv_modify_qp", Errno.EINVAL, "INIT->RTR");
        assertTrue(e.hint().contains("GID index"), e.hint());
    }

    @Test
    void unknownErrnoStillReadable() {
        VerbsException e = new VerbsException("ibv_foo", 4242, null);
        assertTrue(e.getMessage().contains("errno 4242"), e.getMessage());
        assertEquals("", e.hint());
    }

    @Test
    void enumsCarryNativeValuesAndTexts() {
        assertEquals(PortState.ACTIVE, PortState.of(4));
        assertEquals("PORT_ACTIVE", PortState.ACTIVE.text());
        assertEquals(Mtu.MTU_1024, Mtu.of(3));
        assertEquals(Mtu.MTU_4096, Mtu.ofBytes(4096));
        assertEquals(TransportType.IWARP, TransportType.of(1));
        assertEquals(LinkLayer.ETHERNET, LinkLayer.of(2));
        assertTrue(LinkLayer.of(0).isInfiniBand());
        assertEquals(GidType.ROCE_V2, GidType.ofText("RoCE v2"));
        assertEquals(GidType.IB, GidType.ofText("IB/RoCE v1"));
        assertEquals(NodeType.RNIC, NodeType.of(4));
        assertEquals(AtomicCapability.HCA, AtomicCapability.of(1));
    }
}
