package org.verbs4j.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class AddressVectorTest {

    private static final Gid PEER = Gid.parse("::ffff:10.77.0.2");

    @Test
    void defaultsAreThoseOfAZeroedIbvAhAttrOnPortOne() {
        AddressVector av = new AddressVector();
        assertEquals(1, av.port());
        assertEquals(0, av.dlid());
        assertEquals(0, av.serviceLevel());
        assertEquals(0, av.srcPathBits());
        assertEquals(0, av.staticRate());
        assertFalse(av.isGlobal());
        assertEquals(Gid.ZERO, av.dgid());
        assertEquals(0, av.flowLabel());
        assertEquals(0, av.sgidIndex());
        assertEquals(1, av.hopLimit());
        assertEquals(0, av.trafficClass());
    }

    @Test
    void localIsLidAddressedWithoutGrh() {
        AddressVector av = AddressVector.local(2, 0x1f);
        assertEquals(2, av.port());
        assertEquals(0x1f, av.dlid());
        assertFalse(av.isGlobal());
        assertEquals("AddressVector[port 2, dlid 31, sl 0]", av.toString());
    }

    @Test
    void globalSetsTheGrhWithHopLimit64() {
        AddressVector av = AddressVector.global(1, PEER, 3);
        assertTrue(av.isGlobal());
        assertEquals(PEER, av.dgid());
        assertEquals(3, av.sgidIndex());
        assertEquals(64, av.hopLimit());
        assertEquals(1, av.port());
        String s = av.toString();
        assertTrue(s.contains("dgid " + PEER), s);
        assertTrue(s.contains("sgid_index 3"), s);
        assertTrue(s.contains("hop_limit 64"), s);
    }

    @Test
    void settersChainAndStore() {
        AddressVector av = new AddressVector();
        assertSame(av, av.port(2).dlid(5).serviceLevel(3).srcPathBits(1).staticRate(7).flowLabel(0xfffff).hopLimit(9)
                .trafficClass(0x68).grh(PEER, 4));
        assertEquals(2, av.port());
        assertEquals(5, av.dlid());
        assertEquals(3, av.serviceLevel());
        assertEquals(1, av.srcPathBits());
        assertEquals(7, av.staticRate());
        assertEquals(0xfffff, av.flowLabel());
        assertEquals(9, av.hopLimit());
        assertEquals(0x68, av.trafficClass());
        assertEquals(4, av.sgidIndex());
        assertTrue(av.toString().contains("tclass 104"), av.toString());
    }

    @Test
    void grhNeedsADestinationGid() {
        NullPointerException e = assertThrows(NullPointerException.class, () -> new AddressVector().grh(null, 0));
        assertEquals("dgid", e.getMessage());
    }
}
