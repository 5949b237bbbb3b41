package org.verbs4j.softiwarp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.verbs4j.api.Access;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.internal.RawMemory;

class StagTest {
    private static final int RW = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ;
    private final DeviceContext ctx = SoftIwarp.devices().get(0).open();
    private final SoftProtectionDomain pd = (SoftProtectionDomain) ctx.allocProtectionDomain();

    @AfterEach
    void close() {
        for (var child : pd.openChildren()) {
            child.close();
        }
        pd.close();
        ctx.close();
    }

    private static TaggedAccessError refusal(SoftProtectionDomain pd, int stag, long to, long len, int access) {
        TaggedAccessException e = assertThrows(TaggedAccessException.class, () -> pd.resolve(stag, to, len, access));
        assertTrue(e.getMessage().contains("0x" + Integer.toHexString(stag)), e.getMessage());
        return e.error();
    }

    @Test
    void aRegionIsFoundByItsStagWithinItsBoundsAndEnteredUntilLeft() throws Exception {
        MemoryRegion mr = pd.allocateMemory(4096, RW);
        assertEquals(mr.lkey(), mr.rkey());
        SoftMemoryRegion r = pd.resolve(mr.rkey(), mr.address(), 4096, Access.REMOTE_WRITE);
        assertSame(mr, r);
        assertEquals(mr.address() + 10, r.addressOf(mr.address() + 10));
        r.leave();
        pd.resolve(mr.rkey(), mr.address() + 4095, 1, Access.REMOTE_READ).leave();
        pd.resolve(mr.rkey(), mr.address() + 4096, 0, 0).leave();
    }

    @Test
    void anUnknownOrDeregisteredStagIsInvalid() {
        MemoryRegion mr = pd.allocateMemory(64, RW);
        int stag = mr.rkey();
        assertEquals(TaggedAccessError.INVALID_STAG, refusal(pd, stag ^ 0x100, mr.address(), 1, 0));
        assertEquals(TaggedAccessError.INVALID_STAG, refusal(pd, 0, mr.address(), 1, 0));
        assertEquals(TaggedAccessError.INVALID_STAG, refusal(pd, 1, mr.address(), 1, 0));
        assertEquals(TaggedAccessError.INVALID_STAG, refusal(pd, 0xffffffff, mr.address(), 1, 0));
        assertEquals(TaggedAccessError.INVALID_STAG, refusal(pd, stag ^ 1, mr.address(), 1, 0), "another key byte");
        long address = mr.address();
        mr.close();
        assertEquals(TaggedAccessError.INVALID_STAG, refusal(pd, stag, address, 1, 0));
    }

    @Test
    void aReusedSlotGetsTheNextKeyByteSoAnOldStagStaysInvalid() {
        MemoryRegion a = pd.allocateMemory(64, RW);
        int old = a.rkey();
        a.close();
        MemoryRegion b = pd.allocateMemory(64, RW);
        assertNotEquals(old, b.rkey());
        assertEquals(TaggedAccessError.INVALID_STAG, refusal(pd, old, b.address(), 1, 0));

        StagTable oneSlot = new StagTable(1); // every registration reuses slot 1
        SoftMemoryRegion probe = (SoftMemoryRegion) b;
        int real = probe.stag();
        int s1 = oneSlot.add(probe);
        oneSlot.remove(s1);
        int s2 = oneSlot.add(probe);
        assertEquals(1, s1 >>> 8, "index 0 is never given out");
        assertEquals(1, s2 >>> 8, "the one slot again");
        assertEquals(((s1 & 0xff) + 1) & 0xff, s2 & 0xff, "the key byte moved on");
        oneSlot.remove(s2);
        for (int i = 0; i < 255; i++) {
            oneSlot.remove(oneSlot.add(probe));
        }
        assertEquals(s2, oneSlot.add(probe), "the key byte wraps after 256 uses");
        probe.assignStag(real); // the small table renamed it: give it back the device's STag, for its close
    }

    @Test
    void aFullTableIsEnomem() {
        StagTable t = new StagTable(2);
        SoftMemoryRegion r = (SoftMemoryRegion) pd.allocateMemory(64, RW);
        try {
            t.add(r);
            t.add(r);
            assertEquals(12, assertThrows(org.verbs4j.api.VerbsException.class, () -> t.add(r)).errno());
        } finally {
            r.close();
        }
    }

    @Test
    void outsideTheRegionIsABaseOrBoundsViolation() {
        MemoryRegion mr = pd.allocateMemory(4096, RW);
        long a = mr.address();
        assertEquals(TaggedAccessError.BASE_BOUNDS, refusal(pd, mr.rkey(), a - 1, 1, 0));
        assertEquals(TaggedAccessError.BASE_BOUNDS, refusal(pd, mr.rkey(), a + 4095, 2, 0));
        assertEquals(TaggedAccessError.BASE_BOUNDS, refusal(pd, mr.rkey(), a, 4097, Access.REMOTE_WRITE));
        assertEquals(TaggedAccessError.BASE_BOUNDS, refusal(pd, mr.rkey(), a, -1, 0));
        assertEquals(TaggedAccessError.TO_WRAP, refusal(pd, mr.rkey(), -16L, 32, 0));
    }

    @Test
    void aZeroBasedRegionIsAddressedFromZero() throws Exception {
        ByteBuffer b = ByteBuffer.allocateDirect(256);
        MemoryRegion mr = pd.registerMemory(b, RW | Access.ZERO_BASED);
        SoftMemoryRegion r = pd.resolve(mr.rkey(), 16, 240, Access.REMOTE_READ);
        assertEquals(RawMemory.addressOf(b) + 16, r.addressOf(16));
        r.leave();
        assertSame(b, mr.buffer());
        assertEquals(TaggedAccessError.BASE_BOUNDS, refusal(pd, mr.rkey(), 16, 241, 0));
    }

    @Test
    void eachMissingRightIsAnAccessViolation() {
        MemoryRegion local = pd.allocateMemory(64, 0);
        MemoryRegion readOnly = pd.allocateMemory(64, Access.REMOTE_READ);
        MemoryRegion writeOnly = pd.allocateMemory(64, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        assertEquals(TaggedAccessError.ACCESS_RIGHTS, refusal(pd, local.rkey(), local.address(), 8, Access.LOCAL_WRITE));
        assertEquals(TaggedAccessError.ACCESS_RIGHTS, refusal(pd, local.rkey(), local.address(), 8, Access.REMOTE_READ));
        assertEquals(TaggedAccessError.ACCESS_RIGHTS,
                refusal(pd, readOnly.rkey(), readOnly.address(), 8, Access.REMOTE_WRITE));
        assertEquals(TaggedAccessError.ACCESS_RIGHTS,
                refusal(pd, writeOnly.rkey(), writeOnly.address(), 8, Access.REMOTE_READ));
        assertEquals(TaggedAccessError.ACCESS_RIGHTS,
                refusal(pd, writeOnly.rkey(), writeOnly.address(), 8, Access.REMOTE_ATOMIC));
        assertEquals(0x02, TaggedAccessError.ACCESS_RIGHTS.rdmapCode());
    }

    @Test
    void aRegionOfAnotherProtectionDomainIsNotAssociated() {
        SoftProtectionDomain other = (SoftProtectionDomain) ctx.allocProtectionDomain();
        try {
            MemoryRegion mr = pd.allocateMemory(64, RW);
            assertEquals(TaggedAccessError.STAG_NOT_ASSOCIATED, refusal(other, mr.rkey(), mr.address(), 8, 0));
            assertEquals(0x03, TaggedAccessError.STAG_NOT_ASSOCIATED.rdmapCode());
            assertEquals(0x02, TaggedAccessError.STAG_NOT_ASSOCIATED.ddpCode());
        } finally {
            other.close();
        }
    }

    @Test
    void theStagIsCheckedBeforeThePdTheRightsAndTheBounds() {
        SoftProtectionDomain other = (SoftProtectionDomain) ctx.allocProtectionDomain();
        try {
            MemoryRegion mr = pd.allocateMemory(64, 0);
            assertEquals(TaggedAccessError.STAG_NOT_ASSOCIATED,
                    refusal(other, mr.rkey(), 0, 1 << 20, Access.REMOTE_WRITE), "PD before rights and bounds");
            assertEquals(TaggedAccessError.ACCESS_RIGHTS, refusal(pd, mr.rkey(), 0, 1 << 20, Access.REMOTE_WRITE),
                    "rights before bounds");
        } finally {
            other.close();
        }
    }

    @Test
    void aRegionBeingClosedIsNotResolvedAndWaitsForAnAccessInProgress() throws Exception {
        MemoryRegion mr = pd.allocateMemory(64, RW);
        SoftMemoryRegion r = pd.resolve(mr.rkey(), mr.address(), 8, Access.REMOTE_WRITE);
        Thread closer = new Thread(mr::close);
        closer.start();
        closer.join(200);
        assertTrue(closer.isAlive(), "the close waits for the copy in progress");
        assertFalse(mr.isClosed());
        assertEquals(TaggedAccessError.INVALID_STAG, refusal(pd, mr.rkey(), mr.address(), 8, 0));
        r.leave();
        closer.join(5000);
        assertTrue(mr.isClosed());
    }

    @Test
    void registrationChecksItsArgumentsAndThePdKnowsItsRegions() {
        assertThrows(IllegalArgumentException.class, () -> pd.registerMemory(ByteBuffer.allocate(8), RW));
        assertThrows(IllegalArgumentException.class, () -> pd.allocateMemory(0, RW));
        assertThrows(IllegalArgumentException.class, () -> pd.allocateMemory(8, Access.REMOTE_WRITE));
        MemoryRegion mr = pd.allocateMemory(100, RW);
        assertEquals(0, mr.address() % 4096, "page-aligned");
        assertEquals(100, mr.length());
        IllegalStateException e = assertThrows(IllegalStateException.class, pd::close);
        assertTrue(e.getMessage().contains("MemoryRegion"), e.getMessage());
        mr.putLong(92, 0x1122334455667788L);
        assertEquals(0x1122334455667788L, mr.getLong(92));
    }
}
