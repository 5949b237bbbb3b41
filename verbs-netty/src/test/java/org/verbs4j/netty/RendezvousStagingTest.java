package org.verbs4j.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.UnpooledByteBufAllocator;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * The staging half on its own: copies and lent buffers announced in one order and released by the peer in that
 * order; the two parts never take room from each other; a lent buffer's blocks come back only when both the buffer
 * and the peer let go.
 */
class RendezvousStagingTest {
    private static final int HALF = 1 << 20;
    private final ByteBuffer region = ByteBuffer.allocateDirect(2 * HALF);

    @Test
    void withoutLendingCopiesHaveTheWholeHalf() {
        RendezvousStaging s = new RendezvousStaging(region, HALF, 64, false, HALF);
        assertNull(s.lending());
        assertEquals(HALF, s.copyCapacity());
        assertEquals(0, s.stageCopy(HALF));
        assertEquals(-1, s.stageCopy(1), "full until the peer releases");
        s.release(1);
        assertEquals(0, s.held());
        assertEquals(0, s.stageCopy(HALF));
    }

    @Test
    void lendingSplitsTheHalfAndTheOrderIsKept() {
        RendezvousStaging s = new RendezvousStaging(region, HALF, 64, true, HALF / 4);
        RegionBlocks lent = s.lending();
        assertEquals(HALF / 2, s.copyCapacity());
        assertEquals(HALF / 2, lent.capacity());
        assertEquals(HALF / 4, lent.largest(), "at most the peer's receiving half");

        RegionByteBuf a = buffer(lent, 100_000);
        RegionByteBuf b = buffer(lent, 100_000);
        long copy = s.stageCopy(HALF / 2);
        assertEquals(0, copy, "copies start at the half's start");
        assertTrue(a.regionOffset(lent) >= HALF / 2, "lent buffers live in the second part");
        assertEquals(-1, s.stageCopy(1), "the copies' part is full; the lent part is not theirs");

        assertTrue(a.announcing());
        s.announceLent(a);
        assertFalse(a.announcing(), "announced once");
        assertTrue(b.announcing());
        s.announceLent(b);
        assertEquals(3, s.held());
        int free = lent.freeBlocks();

        a.release(); // the writer's hold gone first: the peer still reads it
        assertEquals(free, lent.freeBlocks());
        s.release(1); // the copy: its room is free again
        assertEquals(0, s.stageCopy(HALF / 2));
        s.release(1); // a: now both let go
        assertEquals(free + blocks(lent, 100_000), lent.freeBlocks());
        s.release(1); // b: the peer first, the buffer still held
        assertEquals(free + blocks(lent, 100_000), lent.freeBlocks());
        b.release();
        assertEquals(free + 2 * blocks(lent, 100_000), lent.freeBlocks());
        assertEquals(1, s.held(), "the second copy");
    }

    @Test
    void announcementsAreBoundedAndOnlyACopyIsTakenBack() {
        RendezvousStaging s = new RendezvousStaging(region, HALF, 3, true, HALF);
        RegionByteBuf a = buffer(s.lending(), 70_000);
        assertTrue(a.announcing());
        s.announceLent(a);
        assertThrows(IllegalStateException.class, s::dropNewestCopy, "the newest is a lent buffer");
        assertTrue(s.stageCopy(10) >= 0);
        s.dropNewestCopy();
        assertTrue(s.stageCopy(10) >= 0);
        assertTrue(s.stageCopy(10) >= 0);
        assertTrue(s.full());
        assertEquals(-1, s.stageCopy(10), "three announcements at most");
        RegionByteBuf b = buffer(s.lending(), 70_000);
        assertThrows(IllegalStateException.class, () -> s.announceLent(b));
        s.close();
        assertFalse(b.announcing(), "closed: a buffer still out is written as a copy");
        assertEquals(-1, s.lending().allocate(1));
        a.release();
        b.release();
    }

    private static RegionByteBuf buffer(RegionBlocks blocks, int bytes) {
        long at = blocks.allocate(bytes);
        assertTrue(at >= 0);
        return new RegionByteBuf(UnpooledByteBufAllocator.DEFAULT, blocks, at, bytes, bytes);
    }

    private static int blocks(RegionBlocks b, int bytes) {
        return (bytes + b.blockBytes() - 1) / b.blockBytes();
    }
}
