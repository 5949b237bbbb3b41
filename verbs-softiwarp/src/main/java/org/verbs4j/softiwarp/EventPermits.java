package org.verbs4j.softiwarp;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A counting semaphore for a completion channel's events that allocates nothing, neither to release nor to wait
 * ({@link java.util.concurrent.Semaphore} allocates a queue node each time a thread parks): permits are one atomic
 * count; waiters take turns on a monitor, and the one whose turn it is parks until a release unparks it or its time
 * runs out. A release never blocks and takes no lock. A waiter that waits for its turn behind another one's timed wait
 * waits until that one leaves (with a permit, nudged, or at its time-out), then for its own time.
 */
final class EventPermits {
    private final AtomicInteger permits = new AtomicInteger();
    private final Object turn = new Object();
    /** The thread parked for a permit, or null. */
    private volatile Thread waiter;
    /** A {@link #nudge} since the last {@link #clearNudge}. */
    private volatile boolean nudged;

    /** {@link #acquireOrNudged}: a permit was taken. */
    static final int ACQUIRED = 1;
    /** {@link #acquireOrNudged}: the time ran out. */
    static final int TIMED_OUT = 0;
    /** {@link #acquireOrNudged}: {@link #nudge} woke the waiter (no permit taken). */
    static final int NUDGED = -1;

    /** Adds {@code n} permits and wakes the parked waiter. */
    void release(int n) {
        permits.addAndGet(n);
        Thread t = waiter;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /** {@return whether a permit was there (and is taken now)} Never waits. */
    boolean tryAcquire() {
        for (;;) {
            int p = permits.get();
            if (p <= 0) {
                return false;
            }
            if (permits.compareAndSet(p, p - 1)) {
                return true;
            }
        }
    }

    /**
     * Takes a permit, waiting up to {@code timeout} for one.
     *
     * @return false when the time ran out
     * @throws InterruptedException the thread was interrupted while it waited
     */
    boolean tryAcquire(long timeout, TimeUnit unit) throws InterruptedException {
        return await(unit.toNanos(timeout), false) == ACQUIRED;
    }

    /**
     * Takes a permit, waiting up to {@code nanos} for one, or returns early at a {@link #nudge} made since the last
     * {@link #clearNudge}.
     *
     * @return {@link #ACQUIRED}, {@link #TIMED_OUT} or {@link #NUDGED}
     * @throws InterruptedException the thread was interrupted while it waited
     */
    int acquireOrNudged(long nanos) throws InterruptedException {
        return await(nanos, true);
    }

    /**
     * Wakes the thread parked for a permit without giving it one; {@link #acquireOrNudged} returns {@link #NUDGED}
     * to it, or to the next thread that waits so, until {@link #clearNudge}. A channel's waiter that leaves its
     * sockets nudges the one parked behind it, which takes the sockets over.
     */
    void nudge() {
        nudged = true;
        Thread t = waiter;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /** Forgets the nudges made so far: called before the caller looks at what it was nudged for. */
    void clearNudge() {
        nudged = false;
    }

    private int await(long nanos, boolean nudgeable) throws InterruptedException {
        if (tryAcquire()) {
            return ACQUIRED;
        }
        long deadline = System.nanoTime() + nanos;
        synchronized (turn) {
            // set before looking: a release or nudge after the look sees this thread and unparks it
            waiter = Thread.currentThread();
            try {
                for (;;) {
                    if (tryAcquire()) {
                        return ACQUIRED;
                    }
                    if (nudgeable && nudged) {
                        return NUDGED;
                    }
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return TIMED_OUT;
                    }
                    if (Thread.interrupted()) {
                        throw new InterruptedException();
                    }
                    LockSupport.parkNanos(this, left);
                }
            } finally {
                waiter = null;
            }
        }
    }

    /** Takes every permit there is. */
    void drainPermits() {
        permits.set(0);
    }
}
