package org.verbs4j.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class GidTest {
    @Test
    void inet6TextIsInetNtops() {
        // expected values: glibc 2.36 inet_ntop(AF_INET6)
        assertEquals("::", Gid.ZERO.toInet6String());
        assertEquals("::ffff:10.77.0.1", Gid.parse("0000:0000:0000:0000:0000:ffff:0a4d:0001").toInet6String());
        assertEquals("fe80::e431:c6ff:fea3:dcd2", Gid.parse("fe80:0000:0000:0000:e431:c6ff:fea3:dcd2").toInet6String());
        assertEquals("7625:21b4:b552::", Gid.parse("7625:21b4:b552:0000:0000:0000:0000:0000").toInet6String());
        assertEquals("::1", Gid.parse("0000:0000:0000:0000:0000:0000:0000:0001").toInet6String());
        assertEquals("::10.0.0.1", Gid.parse("0000:0000:0000:0000:0000:0000:0a00:0001").toInet6String());
        assertEquals("1:0:1::1", Gid.parse("0001:0000:0001:0000:0000:0000:0000:0001").toInet6String());
        assertEquals("1::1:0:0:1", Gid.parse("0001:0000:0000:0000:0001:0000:0000:0001").toInet6String());
        assertEquals("1:2:3:4:5:6:7:8", Gid.parse("0001:0002:0003:0004:0005:0006:0007:0008").toInet6String());
        assertEquals("1:0:2:3:4:5:6:7", Gid.parse("0001:0000:0002:0003:0004:0005:0006:0007").toInet6String());
        assertEquals("fe80::", Gid.parse("fe80:0000:0000:0000:0000:0000:0000:0000").toInet6String());
    }

    @Test
    void devinfoPrintsRoceV2GidsAsInet6AndTheOthersAsHexGroups() {
        Gid v4 = Gid.parse("::ffff:10.77.0.1");
        assertEquals("::ffff:10.77.0.1", v4.toString(GidType.ROCE_V2));
        assertEquals("0000:0000:0000:0000:0000:ffff:0a4d:0001", v4.toString(GidType.ROCE_V1));
        assertEquals("0000:0000:0000:0000:0000:ffff:0a4d:0001", v4.toString(GidType.IB));
        assertEquals(v4.toString(), v4.toString(GidType.IB));
    }

    @Test
    void parsesEveryFormTheToolsPrint() {
        Gid devinfo = Gid.parse("0000:0000:0000:0000:0000:ffff:0a4d:0001");
        assertEquals(devinfo, Gid.parse("00000000000000000000ffff0a4d0001"));
        assertEquals(devinfo, Gid.parse("::ffff:10.77.0.1"));
        assertEquals(devinfo, Gid.parse("10.77.0.1"));
        assertTrue(devinfo.isIpv4Mapped());
        assertEquals("10.77.0.1", devinfo.toInetAddress().getHostAddress());
        assertEquals("0000:0000:0000:0000:0000:ffff:0a4d:0001", devinfo.toString());
        assertEquals("00000000000000000000ffff0a4d0001", devinfo.toHex());
    }

    @Test
    void linkLocalAndPrefixes() {
        Gid g = Gid.parse("fe80:0000:0000:0000:0c42:a103:0065:d6b6");
        assertTrue(g.isLinkLocal());
        assertFalse(g.isIpv4Mapped());
        assertEquals(0xfe80000000000000L, g.subnetPrefix());
        assertEquals(0x0c42a1030065d6b6L, g.interfaceId());
        assertEquals(g, Gid.of(g.subnetPrefix(), g.interfaceId()));
        assertEquals(g, Gid.parse("fe80::c42:a103:65:d6b6"));
    }

    @Test
    void rejectsGarbageAndWrongLengths() {
        assertThrows(IllegalArgumentException.class, () -> Gid.parse("fe80::zz"));
        assertThrows(IllegalArgumentException.class, () -> Gid.parse("rxe0"));
        assertThrows(IllegalArgumentException.class, () -> Gid.of(new byte[15]));
        assertTrue(Gid.ZERO.isZero());
    }

    @Test
    void rawIsACopy() {
        Gid g = Gid.parse("::ffff:10.0.0.1");
        byte[] raw = g.raw();
        raw[15] = 9;
        assertEquals(1, g.get(15));
    }
}
