package org.verbs4j.softiwarp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.verbs4j.lab.Async;

/** The completion channel's event count: counting, timed waits, wake-ups from other threads, no allocation. */
@Timeout(60)
class EventPermitsTest {

    @Test
    void permitsAreCountedAndDrained() throws Exception {
        EventPermits p = new EventPermits();
        assertFalse(p.tryAcquire());
        p.release(3);
        assertTrue(p.tryAcquire());
        assertTrue(p.tryAcquire(0, TimeUnit.SECONDS));
        p.drainPermits();
        assertFalse(p.tryAcquire());
        long start = System.nanoTime();
        assertFalse(p.tryAcquire(50, TimeUnit.MILLISECONDS), "no permit: the time runs out");
        assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(50));
    }

    @Test
    void aReleaseOnAnotherThreadWakesTheWaiterAndAnInterruptEndsIt() throws Exception {
        EventPermits p = new EventPermits();
        CompletableFuture<Long> waited = Async.supply(() -> {
            long start = System.nanoTime();
            try {
                return p.tryAcquire(30, TimeUnit.SECONDS) ? System.nanoTime() - start : -1L;
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(100);
        p.release(1);
        long nanos = waited.get(10, TimeUnit.SECONDS);
        assertTrue(nanos > 0 && nanos < TimeUnit.SECONDS.toNanos(10), "woken by the release, not the time-out");
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> p.tryAcquire(1, TimeUnit.SECONDS));
        assertFalse(Thread.interrupted(), "the interrupt is consumed by the exception");
    }

    /**
     * A nudge wakes the thread parked in {@code acquireOrNudged} without a permit, is remembered for a waiter that
     * comes after it until cleared, and never ends a plain timed wait; a permit still goes first.
     */
    @Test
    void aNudgeWakesANudgeableWaiterOnlyAndLeavesThePermits() throws Exception {
        EventPermits p = new EventPermits();
        CompletableFuture<Integer> parked = Async.supply(() -> {
            try {
                return p.acquireOrNudged(TimeUnit.SECONDS.toNanos(30));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(100);
        assertFalse(parked.isDone(), "parked until nudged");
        p.nudge();
        assertEquals(EventPermits.NUDGED, parked.get(10, TimeUnit.SECONDS));
        assertEquals(EventPermits.NUDGED, p.acquireOrNudged(TimeUnit.SECONDS.toNanos(30)), "remembered until cleared");
        p.clearNudge();
        assertEquals(EventPermits.TIMED_OUT, p.acquireOrNudged(TimeUnit.MILLISECONDS.toNanos(20)));
        p.nudge();
        long start = System.nanoTime();
        assertFalse(p.tryAcquire(50, TimeUnit.MILLISECONDS), "a plain wait ignores nudges");
        assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(50));
        p.release(1);
        assertEquals(EventPermits.ACQUIRED, p.acquireOrNudged(0), "a permit before the nudge");
        assertFalse(p.tryAcquire(), "the permit was taken");
    }

    /** Two threads hand permits back and forth 20,000 times, each parking for its turn; neither allocates. */
    @Test
    void waitingAndReleasingAllocateNothing() throws Exception {
        EventPermits ping = new EventPermits();
        EventPermits pong = new EventPermits();
        int rounds = 20_000;
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        AtomicInteger failures = new AtomicInteger();
        Thread other = new Thread(() -> {
            try {
                for (int i = 0; i < 2 * rounds; i++) {
                    if (!ping.tryAcquire(10, TimeUnit.SECONDS)) {
                        failures.incrementAndGet();
                    }
                    pong.release(1);
                }
            } catch (InterruptedException e) {
                failures.incrementAndGet();
            }
        });
        other.start();
        long least = Long.MAX_VALUE;
        for (int window = 0; window < 2; window++) {
            long before = mx.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < rounds; i++) {
                ping.release(1);
                assertTrue(pong.tryAcquire(10, TimeUnit.SECONDS));
            }
            least = Math.min(least, mx.getCurrentThreadAllocatedBytes() - before);
        }
        other.join();
        assertEquals(0, failures.get());
        assertTrue(least < rounds, least + " bytes allocated in " + rounds + " waits and releases");
    }
}
