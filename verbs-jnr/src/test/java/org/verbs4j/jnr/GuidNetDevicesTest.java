package org.verbs4j.jnr;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The node GUIDs drivers make from a MAC address (no device needed). */
class GuidNetDevicesTest {
    private static final byte[] MAC = {(byte) 0xba, 0x39, 0x14, (byte) 0xac, 0x11, 0x20};

    @Test
    void siwMakesTheModifiedEui64OfTheMac() {
        // siw0 on a dummy netdev with MAC ba:39:14:ac:11:20, as ibv_devices printed it in the lab
        assertTrue(GuidNetDevices.derivedFrom(0xb83914fffeac1120L, MAC));
    }

    @Test
    void irdmaCopiesTheMacIntoTheFirstSixBytes() {
        assertTrue(GuidNetDevices.derivedFrom(0xba3914ac11200000L, MAC));
    }

    @Test
    void otherGuidsAndAddressesDoNotMatch() {
        assertFalse(GuidNetDevices.derivedFrom(0xba3914fffeac1120L, MAC), "the universal/local bit is flipped");
        assertFalse(GuidNetDevices.derivedFrom(0xb83914fffeac1121L, MAC));
        assertFalse(GuidNetDevices.derivedFrom(0xb83914fffeac1120L, new byte[] {1, 2, 3, 4, 5, 6, 7, 8}), "not a MAC");
        assertTrue(GuidNetDevices.of(0).isEmpty(), "GUID 0 names no interface");
    }
}
