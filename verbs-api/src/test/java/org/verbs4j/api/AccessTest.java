package org.verbs4j.api;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.verbs4j.api.NativeConstants.assertBitsInOrder;

import org.junit.jupiter.api.Test;

class AccessTest {

    @Test
    void bitsAreThoseOfIbvAccessFlags() {
        assertBitsInOrder("IBV_ACCESS_*", Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ,
                Access.REMOTE_ATOMIC, Access.MW_BIND, Access.ZERO_BASED, Access.ON_DEMAND, Access.HUGETLB);
        assertEquals(1 << 20, Access.RELAXED_ORDERING, "IBV_ACCESS_OPTIONAL_FIRST");
        assertEquals(1 | 2 | 4 | 8, Access.ALL_REMOTE);
    }

    @Test
    void remoteWriteAndAtomicNeedLocalWrite() {
        for (int bad : new int[] {Access.REMOTE_WRITE, Access.REMOTE_ATOMIC, Access.REMOTE_WRITE | Access.REMOTE_READ,
            Access.REMOTE_ATOMIC | Access.REMOTE_READ | Access.MW_BIND}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Access.check(bad),
                    Access.toString(bad));
            assertTrue(e.getMessage().contains(Access.toString(bad)), "names the flags: " + e.getMessage());
            assertTrue(e.getMessage().contains("need LOCAL_WRITE"), "says what is missing: " + e.getMessage());
        }
    }

    @Test
    void validCombinationsPass() {
        for (int ok : new int[] {0, Access.LOCAL_WRITE, Access.REMOTE_READ, Access.LOCAL_WRITE | Access.REMOTE_WRITE,
            Access.LOCAL_WRITE | Access.REMOTE_ATOMIC, Access.ALL_REMOTE, Access.ALL_REMOTE | Access.RELAXED_ORDERING}) {
            assertDoesNotThrow(() -> Access.check(ok), Access.toString(ok));
        }
    }

    @Test
    void toStringNamesTheFlags() {
        assertEquals("0", Access.toString(0));
        assertEquals("LOCAL_WRITE", Access.toString(Access.LOCAL_WRITE));
        assertEquals("LOCAL_WRITE|REMOTE_READ", Access.toString(Access.LOCAL_WRITE | Access.REMOTE_READ));
        assertEquals("LOCAL_WRITE|REMOTE_WRITE|REMOTE_READ|REMOTE_ATOMIC", Access.toString(Access.ALL_REMOTE));
        assertEquals("LOCAL_WRITE|REMOTE_WRITE|REMOTE_READ|REMOTE_ATOMIC|MW_BIND|ZERO_BASED|ON_DEMAND|HUGETLB|RELAXED_ORDERING",
                Access.toString(0xff | Access.RELAXED_ORDERING));
        assertEquals("RELAXED_ORDERING", Access.toString(Access.RELAXED_ORDERING));
        assertEquals("ON_DEMAND", Access.toString(Access.ON_DEMAND));
    }
}
