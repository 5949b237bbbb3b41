package org.verbs4j.api;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** What a backend checks before a post, and the checked scatter/gather entries. */
class PostChecksTest {

    @Test
    void aChainLongerThanTheQueueIsRefusedUpFront() {
        try (SendRequests wrs = SendRequests.allocate(64, 1)) {
            wrs.count(64);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> wrs.checkFits(16, 1, "qp"));
            assertTrue(e.getMessage().contains("a chain of 64 send requests is longer than qp can hold (16"),
                    e.getMessage());
            wrs.count(16);
            assertDoesNotThrow(() -> wrs.checkFits(16, 1, "qp"));
        }
    }

    @Test
    void moreEntriesThanTheQueueTakesAreRefusedNamingTheSlot() {
        try (ReceiveRequests wrs = ReceiveRequests.allocate(4, 4)) {
            wrs.count(3);
            wrs.at(2).numSge(3);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> wrs.checkFits(8, 2, "srq"));
            assertEquals("slot 2 of the chain has 3 scatter/gather entries; srq takes at most 2 per request (max_sge)",
                    e.getMessage());
            wrs.at(2).numSge(2);
            assertDoesNotThrow(() -> wrs.checkFits(8, 2, "srq"));
        }
    }

    @Test
    void aCheckedEntryMustLieInsideAnOpenRegion() {
        MemoryRegionTest.Native mr = new MemoryRegionTest.Native(64);
        try (SendRequests wrs = SendRequests.allocate(1, 2)) {
            wrs.at(0).sge(mr, 8, 56);
            assertEquals(1, wrs.at(0).numSge());
            assertEquals(56, wrs.at(0).totalLength());
            assertThrows(IndexOutOfBoundsException.class, () -> wrs.at(0).sge(1, mr, 8, 57));
            assertThrows(IndexOutOfBoundsException.class, () -> wrs.at(0).sge(1, mr, -1, 4));
            assertThrows(IndexOutOfBoundsException.class, () -> wrs.at(0).sge(1, mr, Long.MAX_VALUE, 8), "overflow");
            assertThrows(IndexOutOfBoundsException.class, () -> wrs.at(0).sge(1, mr, 0, -1));
            mr.close();
            assertThrows(IllegalStateException.class, () -> wrs.at(0).sge(mr, 0, 8));
        }
    }

    @Test
    void anArrayClosedWhileAPostIsInsideIsFreedOnlyAfterIt() throws Exception {
        SendRequests wrs = SendRequests.allocate(2, 1);
        wrs.enter();
        Thread closer = new Thread(wrs::close);
        closer.start();
        closer.join(200);
        assertTrue(closer.isAlive(), "close waits for the post inside");
        assertThrows(IllegalStateException.class, wrs::enter, "a new post is refused");
        wrs.leave();
        closer.join(5000);
        assertFalse(closer.isAlive());
        assertThrows(IllegalStateException.class, () -> wrs.at(0));
    }

    @Test
    void aCompletionArrayClosedWhileAPollIsInsideIsFreedOnlyAfterIt() throws Exception {
        WorkCompletions wc = WorkCompletions.allocate(4);
        wc.enter();
        Thread closer = new Thread(wc::close);
        closer.start();
        closer.join(200);
        assertTrue(closer.isAlive());
        assertThrows(IllegalStateException.class, wc::enter);
        wc.leave();
        closer.join(5000);
        assertFalse(closer.isAlive());
        assertThrows(IllegalStateException.class, () -> wc.wrId(0));
    }
}
