package org.verbs4j.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The channel's queue of received messages without a connection: order kept across the ring's wrap, a rendezvous
 * holding back what follows until its read is done (or, with the input shut, dropped unread), a lost connection
 * queued after the receive depth's messages.
 */
class ReceiveQueueTest {

    @Test
    void messagesComeOutInTheirOrderAcrossTheWrap() {
        ReceiveQueue q = new ReceiveQueue(3, null, 0, 0);
        int next = 0;
        for (int round = 0; round < 10; round++) {
            q.add(ReceiveQueue.DATA, round % 3, 100 + round, 0);
            q.add(ReceiveQueue.DATA, (round + 1) % 3, 200 + round, 0);
            assertEquals(2, q.size());
            for (int k = 0; k < 2; k++) {
                assertTrue(q.headReady(false));
                int cell = q.take();
                assertEquals(ReceiveQueue.DATA, q.kind(cell));
                assertEquals((k == 0 ? 100 : 200) + round, q.length(cell));
                next++;
            }
            assertEquals(0, q.size());
        }
        assertEquals(20, next);
        assertEquals(0, q.receivingHalf(), "no region");
    }

    @Test
    void aRendezvousHoldsBackWhatFollowsUntilItsReadIsDone() {
        ReceiveQueue q = new ReceiveQueue(4, new RegionRing(1000, 4), 1000, 2);
        assertEquals(1000, q.receivingHalf());
        q.add(ReceiveQueue.RENDEZVOUS, 0, 300, 64);
        q.add(ReceiveQueue.DATA, 1, 10, 0);
        q.add(ReceiveQueue.END, 2, 0, 0);
        assertFalse(q.headReady(false), "its read is not posted");
        assertTrue(q.headReady(true), "with the input shut, an unread rendezvous is dropped");
        int cell = q.take();
        assertEquals(ReceiveQueue.RENDEZVOUS, q.kind(cell));
        assertFalse(q.wasRead(cell));
        assertEquals(0, q.slot(cell));
        assertEquals(ReceiveQueue.DATA, q.kind(q.take()));
        assertEquals(ReceiveQueue.END, q.kind(q.take()));
        assertEquals(0, q.size());
    }

    @Test
    void aLostConnectionFitsAfterAFullQueue() {
        ReceiveQueue q = new ReceiveQueue(2, null, 0, 0);
        q.add(ReceiveQueue.DATA, 0, 1, 0);
        q.add(ReceiveQueue.DATA, 1, 1, 0);
        q.add(ReceiveQueue.LOST, -1, 0, 0);
        assertEquals(3, q.size());
        q.take();
        q.take();
        int lost = q.take();
        assertEquals(ReceiveQueue.LOST, q.kind(lost));
        assertEquals(-1, q.slot(lost));
    }

    @Test
    void aReadsCompletionReleasesItsRendezvousAndWhatFollows() {
        ReceiveQueue q = new ReceiveQueue(4, new RegionRing(1000, 4), 1000, 2);
        q.add(ReceiveQueue.DATA, 3, 5, 0);
        q.take(); // the rendezvous below is in the ring's second cell
        q.add(ReceiveQueue.RENDEZVOUS, 0, 300, 64);
        q.add(ReceiveQueue.DATA, 1, 10, 0);
        long id = ReceiveQueue.readId(1);
        assertTrue(ReceiveQueue.isRead(id));
        assertFalse(ReceiveQueue.isRead(3), "a send's id is its slot");
        assertFalse(q.headReady(false));
        q.readDone(id);
        assertTrue(q.headReady(false));
        int cell = q.take();
        assertEquals(1, cell);
        assertTrue(q.wasRead(cell));
        assertEquals(300, q.length(cell));
        assertTrue(q.headReady(false));
        assertEquals(10, q.length(q.take()));
    }
}
