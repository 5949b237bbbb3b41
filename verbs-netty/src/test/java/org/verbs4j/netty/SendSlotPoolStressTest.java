package org.verbs4j.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The pool under threads: lenders lend, write and return slots on their threads while one thread plays the event
 * loop (takes, sends, completes in any order, untakes), in rounds that run open throughout and rounds closed midway.
 * The test keeps its own count of who holds each slot (dropped just before the pool is told), so a slot handed out
 * while someone still holds it, a slot lost, or a slot lent after the close fails it.
 */
class SendSlotPoolStressTest {
    private static final int DEPTH = 16;
    private static final int LENDERS = 3;
    private static final long ROUND_NANOS = TimeUnit.MILLISECONDS.toNanos(40);
    private static final int ROUNDS = 40;

    /** A lent buffer written to the channel: the loop releases it (the outbound buffer's reference) or its lender does. */
    private record Write(int slot, boolean retained) {
    }

    @Test
    void noSlotIsHandedOutTwiceLostOrLentAfterTheClose() throws InterruptedException {
        long[] totals = new long[3];
        for (int round = 0; round < ROUNDS; round++) {
            runRound(round, round % 2 == 1, totals);
        }
        assertTrue(totals[0] > 1000 && totals[1] > 1000 && totals[2] > 100, "the threads did not interleave: "
                + totals[0] + " lent, " + totals[1] + " taken, " + totals[2] + " sent as is");
    }

    private static void runRound(int round, boolean closeMidway, long[] totals) throws InterruptedException {
        SendSlotPool pool = SendSlotPoolTest.pool(DEPTH);
        Round r = new Round(pool);
        Thread loop = new Thread(r::loop, "stress-loop-" + round);
        Thread[] lenders = new Thread[LENDERS];
        for (int i = 0; i < LENDERS; i++) {
            lenders[i] = new Thread(r::lender, "stress-lender-" + round + "-" + i);
        }
        loop.start();
        for (Thread t : lenders) {
            t.start();
        }
        long start = System.nanoTime();
        if (closeMidway) {
            sleepNanos(ThreadLocalRandom.current().nextLong(ROUND_NANOS / 4, ROUND_NANOS * 3 / 4));
            pool.close();
            r.closed = true;
        }
        sleepNanos(ROUND_NANOS - (System.nanoTime() - start));
        r.stopLenders = true;
        for (Thread t : lenders) {
            join(t);
        }
        r.stopLoop = true;
        join(loop);

        assertNull(r.error.get(), "round " + round);
        totals[0] += r.lends;
        totals[1] += r.takes;
        totals[2] += r.sends;
        for (int s = 0; s < DEPTH; s++) {
            assertEquals(0, r.held.get(s), "round " + round + ": slot " + s + " still held by the test");
        }
        int free = pool.free();
        if (!closeMidway) {
            assertEquals(DEPTH, free, "round " + round + ": every slot back once all were returned and completed");
            assertTrue(pool.lend() >= 0, "round " + round + ": lending again");
        } else {
            assertTrue(free <= DEPTH, "round " + round + ": " + free + " free");
            assertEquals(-1, pool.lend(), "round " + round + ": nothing lent after the close");
        }
        if (!closeMidway) {
            return;
        }
        boolean[] seen = new boolean[DEPTH];
        for (int i = 0; i < free; i++) { // the transport's end of stream still takes from a closed pool
            int s = pool.take();
            assertTrue(s >= 0 && !seen[s], "round " + round + ": take " + i + " of " + free + " gave " + s);
            seen[s] = true;
        }
        assertEquals(-1, pool.take(), "round " + round + ": more slots than were counted free");
    }

    private static final class Round {
        final SendSlotPool pool;
        /** The test's own count of each slot's holders: 1 for its buffer or copy, 1 more while its send is in flight. */
        final AtomicIntegerArray held = new AtomicIntegerArray(DEPTH);
        /** Per slot: the loop has handled a retained write of it (sent or refused), so its lender may release it. */
        final AtomicIntegerArray written = new AtomicIntegerArray(DEPTH);
        final ConcurrentLinkedQueue<Write> writes = new ConcurrentLinkedQueue<>();
        final AtomicReference<String> error = new AtomicReference<>();
        volatile boolean closed;
        volatile boolean stopLenders;
        volatile boolean stopLoop;
        volatile long lends;
        long takes;
        long sends;

        Round(SendSlotPool pool) {
            this.pool = pool;
        }

        void fail(String what) {
            error.compareAndSet(null, Thread.currentThread().getName() + ": " + what);
        }

        /** A slot just handed out: nobody may hold it. */
        void handedOut(int slot, String how) {
            int was = held.getAndSet(slot, 1);
            if (was != 0) {
                fail("slot " + slot + " " + how + " while held " + was + " times");
            }
        }

        /** One holder of {@code slot} lets go; the caller tells the pool right after. */
        void letGo(int slot) {
            if (held.decrementAndGet(slot) < 0) {
                fail("slot " + slot + " let go more often than held");
            }
        }

        void lender() {
            ThreadLocalRandom rnd = ThreadLocalRandom.current();
            long lent = 0;
            while (!stopLenders && error.get() == null) {
                boolean closedBefore = closed;
                int slot = pool.lend();
                if (slot < 0) {
                    Thread.yield();
                    continue;
                }
                if (closedBefore) {
                    fail("slot " + slot + " lent after the close");
                }
                handedOut(slot, "lent");
                lent++;
                int what = rnd.nextInt(10);
                if (what < 4) { // released unwritten
                    letGo(slot);
                    pool.returned(slot);
                } else if (what < 7) { // written; the outbound buffer's release is the last reference
                    writes.add(new Write(slot, false));
                } else { // written but retained: released here, racing with the send's completion
                    written.set(slot, 0);
                    writes.add(new Write(slot, true));
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                    while (written.get(slot) == 0) {
                        if (System.nanoTime() > deadline || stopLoop) {
                            fail("slot " + slot + ": the loop never handled its write");
                            return;
                        }
                        Thread.yield();
                    }
                    if (rnd.nextBoolean()) {
                        Thread.yield();
                    }
                    letGo(slot);
                    pool.returned(slot);
                }
            }
            synchronized (this) {
                lends += lent;
            }
        }

        void loop() {
            ThreadLocalRandom rnd = ThreadLocalRandom.current();
            int[] inFlight = new int[DEPTH];
            int n = 0;
            for (;;) {
                boolean stopping = stopLoop;
                Write w;
                while ((w = writes.poll()) != null) {
                    int slot = w.slot();
                    if (pool.sending(slot)) {
                        held.incrementAndGet(slot);
                        sends++;
                        if (pool.sending(slot)) {
                            fail("slot " + slot + " sent twice at once");
                        }
                        if (n == DEPTH) {
                            fail("more sends in flight than slots");
                            return;
                        }
                        inFlight[n++] = slot;
                    } else if (!closed && !pool.isClosed()) {
                        fail("slot " + slot + ": a lent slot not in flight refused before the close");
                    }
                    if (w.retained()) {
                        written.set(slot, 1);
                    } else {
                        letGo(slot);
                        pool.returned(slot);
                    }
                }
                for (int i = rnd.nextInt(3); i > 0 && n < DEPTH / 2 && !stopping; i--) { // room left to lend
                    int slot = pool.take();
                    if (slot < 0) {
                        break;
                    }
                    handedOut(slot, "taken");
                    takes++;
                    if (rnd.nextInt(8) == 0) {
                        letGo(slot);
                        pool.untake(slot);
                    } else {
                        inFlight[n++] = slot;
                    }
                }
                for (int i = stopping ? n : rnd.nextInt(4); i > 0 && n > 0; i--) { // completions in any order
                    int k = rnd.nextInt(n);
                    int slot = inFlight[k];
                    inFlight[k] = inFlight[--n];
                    letGo(slot);
                    pool.completed(slot);
                }
                if (stopping && n == 0 && writes.isEmpty()) {
                    return;
                }
                if (error.get() != null && stopping) {
                    return;
                }
                if (rnd.nextInt(64) == 0) {
                    Thread.yield();
                }
            }
        }
    }

    private static void sleepNanos(long nanos) throws InterruptedException {
        if (nanos > 0) {
            TimeUnit.NANOSECONDS.sleep(nanos);
        }
    }

    private static void join(Thread t) throws InterruptedException {
        t.join(TimeUnit.SECONDS.toMillis(10));
        if (t.isAlive()) {
            fail(t.getName() + " still runs: " + java.util.Arrays.toString(t.getStackTrace()));
        }
    }
}
