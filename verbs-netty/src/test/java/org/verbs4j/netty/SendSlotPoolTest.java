package org.verbs4j.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** Who holds a send slot, without any device: a slot is free only when no buffer holds it and no send is in flight. */
class SendSlotPoolTest {
    static SendSlotPool pool(int depth) {
        ByteBuffer[] memory = new ByteBuffer[depth];
        ByteBuffer all = ByteBuffer.allocateDirect(depth * 64);
        for (int i = 0; i < depth; i++) {
            memory[i] = all.slice(i * 64, 64);
        }
        return new SendSlotPool(memory, 64);
    }

    @Test
    void aWrittenSlotComesBackOnlyAtItsCompletion() {
        SendSlotPool p = pool(8);
        int s = p.lend();
        assertEquals(7, p.free());
        assertTrue(p.sending(s));
        assertFalse(p.sending(s), "a second send of the same slot while one is in flight: copied instead");
        p.returned(s); // the outbound buffer released the buffer: the send is still in flight
        assertEquals(7, p.free());
        for (int i = 0; i < 7; i++) {
            assertNotEquals(s, p.take(), "the in-flight slot is not handed out");
        }
        assertEquals(-1, p.take());
        p.completed(s);
        assertEquals(1, p.free());
        assertEquals(s, p.take());
    }

    @Test
    void aSlotStillHeldAfterItsSendWaitsForItsRelease() {
        SendSlotPool p = pool(4);
        int s = p.lend();
        assertTrue(p.sending(s));
        p.completed(s); // the buffer was retained by the application: still its
        assertEquals(3, p.free());
        assertTrue(p.sending(s), "written again after the completion: goes as is");
        p.completed(s);
        p.returned(s);
        assertEquals(4, p.free());
    }

    @Test
    void lendingKeepsAReserveAndStopsAtTheClose() {
        SendSlotPool p = pool(16);
        int lent = 0;
        while (p.lend() >= 0) {
            lent++;
        }
        assertEquals(12, lent, "a quarter kept for the transport");
        assertEquals(4, p.free());
        int t = p.take();
        p.untake(t);
        assertEquals(4, p.free());
        p.close();
        assertEquals(-1, p.lend());
        p.returned(0);
        assertEquals(4, p.free(), "nothing comes back into a closed pool");
        assertFalse(p.sending(1));
        assertEquals(1, pool(1).lend() < 0 ? 1 : 0, "one slot: it is the reserve");
    }

    @Test
    void freedSlotsComeBackInTheOrderTheyWereFreed() {
        SendSlotPool p = pool(4);
        int a = p.take();
        int b = p.take();
        int c = p.take();
        int d = p.take();
        p.completed(b);
        p.completed(a);
        p.completed(d);
        p.completed(c);
        assertEquals(b, p.take());
        assertEquals(a, p.take());
        assertEquals(d, p.take());
        assertEquals(c, p.take());
        p.completed(99); // not a slot: ignored
        p.completed(a);
        p.completed(a); // twice: counted once
        assertEquals(1, p.free());
    }
}
