package org.verbs4j.softiwarp;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A counting semaphore for a completion channel's events that allocates nothing, neither to release nor to wait
 * ({@link java.util.concurrent.Semaphore} allocates a queue node each time a thread parks): permits are one atomic
 * count; waiters take turns on a monitor, and the one whose turn it is parks until a release unparks it or its time
 * runs out. A release never blocks and takes no lock. A waiter that waits for its turn behind another one's timed wait
 * waits up to that one's time-out, then its own (several threads on one channel are rare).
 */
final class EventPermits {
    private final AtomicInteger permits = new AtomicInteger();
    private final Object turn = new Object();
    /** The thread parked for a permit, or null. */
    private volatile Thread waiter;

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
        if (tryAcquire()) {
            return true;
        }
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        synchronized (turn) {
            // set before looking: a release after the look sees this thread and unparks it
            waiter = Thread.currentThread();
            try {
                for (;;) {
                    if (tryAcquire()) {
                        return true;
                    }
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return false;
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
