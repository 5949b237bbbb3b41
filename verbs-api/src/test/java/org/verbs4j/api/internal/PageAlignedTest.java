package org.verbs4j.api.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** The memory behind {@code ProtectionDomain.allocateMemory}: zeroed, page-aligned, exactly as long as asked. */
class PageAlignedTest {

    @Test
    void isAlignedZeroedAndExactlyAsLongAsAsked() {
        for (long length : new long[] {1, 4095, 4096, 4097, 3 * 4096 + 17}) {
            for (int page : new int[] {4096, RawMemory.PAGE_SIZE, 65536}) {
                RawMemory.PageAligned m = RawMemory.allocatePageAligned(length, page);
                assertEquals(0, m.address() % page, length + " bytes on " + page + "-byte pages: address");
                assertEquals(length, m.buffer().capacity(), "the buffer covers the bytes asked for");
                assertEquals(m.address(), RawMemory.addressOf(m.buffer()), "the buffer starts at the address");
                assertEquals(0, m.ownedRaw(), "a direct buffer needs no free");
                for (long i = 0; i < length; i++) {
                    assertEquals(0, RawMemory.getByte(m.address() + i), "byte " + i + " is zero");
                }
                m.freeOwned(); // nothing to free: no effect
            }
        }
    }

    @Test
    void refusesANonPositiveLength() {
        assertThrows(IllegalArgumentException.class, () -> RawMemory.allocatePageAligned(0, 4096));
        assertThrows(IllegalArgumentException.class, () -> RawMemory.allocatePageAligned(-1, 4096));
    }
}
