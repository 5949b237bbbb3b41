package org.verbs4j.endpoint;

import java.util.concurrent.locks.LockSupport;

/**
 * The pause of a loop that waits for the peer (a credit, a slot): it spins first, as a waiting sender wants
 * the credit within microseconds, then yields, then sleeps in short steps, so that a wait that lasts (a slow
 * or silent peer) does not take a CPU from the threads that have work, on a machine with few of them.
 */
final class Backoff {
    /** Rounds of {@link Thread#onSpinWait} before the first yield (a few microseconds). */
    static final int SPINS = 1_000;
    /** Rounds of {@link Thread#yield} after the spins, before the sleeps. */
    static final int YIELDS = 100;
    /** One sleep once spinning and yielding are over: the most a wait oversleeps its event. */
    static final long SLEEP_NANOS = 50_000;

    private Backoff() {
    }

    /** Pauses for round {@code round} (0, 1, 2, ... of one wait). */
    static void pause(int round) {
        if (round < SPINS) {
            Thread.onSpinWait();
        } else if (round < SPINS + YIELDS) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(SLEEP_NANOS);
        }
    }
}
