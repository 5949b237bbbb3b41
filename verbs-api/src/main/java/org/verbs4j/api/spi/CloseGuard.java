package org.verbs4j.api.spi;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What makes {@code close()} safe while other threads are inside a native call on the same object: a count
 * of the calls in progress and a shut flag, in one {@code long}. A call {@linkplain #tryEnter() enters}
 * before it touches native memory and {@linkplain #leave() leaves} after; {@link #shut()} makes every later
 * entry fail, and {@link #awaitIdle} returns once the calls in progress have left, so that the native
 * object is freed only when no thread can still reach it.
 *
 * <p>An entry and a leave are one atomic add each (about 1 ns each on a current x86 core, uncontended), with
 * no lock and no allocation. Calls that can block (an event wait) must be woken by the owner's close before
 * it waits for them to leave.
 *
 * <p>{@code -Dverbs4j.closeGuard=false} turns the count off, for programs that never close an object while
 * another thread uses it: entries then only check the flag, as a plain volatile read, and a close racing a
 * call can crash the JVM. Safety is the default.
 */
public final class CloseGuard {
    private static final Logger LOG = LoggerFactory.getLogger(CloseGuard.class);
    /** Read once: the JIT folds the disabled branch away. */
    private static final boolean COUNTING = !"false".equalsIgnoreCase(System.getProperty("verbs4j.closeGuard"));
    private static final long SHUT = 1L;
    private static final long ONE_CALL = 2L;
    private static final long WARN_AFTER_NANOS = TimeUnit.SECONDS.toNanos(2);
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(CloseGuard.class, "state", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Bit 0: shut. The rest: twice the number of calls in progress. */
    private volatile long state;

    /** A guard for one resource: open, with no call in flight. */
    public CloseGuard() {
    }

    /**
     * Enters a call: true when the guard is open (then {@link #leave()} must follow, in a {@code finally}),
     * false when it is shut (then the caller throws its "closed" exception and does not leave).
     *
     * @return true when entered, false when the guard is shut
     */
    public boolean tryEnter() {
        if (!COUNTING) {
            return (state & SHUT) == 0;
        }
        long s = (long) STATE.getAndAdd(this, ONE_CALL);
        if ((s & SHUT) != 0) {
            STATE.getAndAdd(this, -ONE_CALL);
            return false;
        }
        return true;
    }

    /** Leaves a call entered with {@link #tryEnter()}. */
    public void leave() {
        if (COUNTING) {
            STATE.getAndAdd(this, -ONE_CALL);
        }
    }

    /** {@return whether {@link #shut()} was called (and not undone by {@link #reopen()})} */
    public boolean isShut() {
        return (state & SHUT) != 0;
    }

    /**
     * Refuses every later entry.
     *
     * @return true when this call shut the guard, false when it was shut already
     */
    public boolean shut() {
        return ((long) STATE.getAndBitwiseOr(this, SHUT) & SHUT) == 0;
    }

    /** Accepts entries again, after a close that failed. */
    public void reopen() {
        STATE.getAndBitwiseAnd(this, ~SHUT);
    }

    /** {@return how many calls are in progress now} */
    public long inProgress() {
        return state >>> 1;
    }

    /**
     * Waits until no call is in progress (spinning briefly, then yielding, then sleeping in short steps).
     * Logs a warning naming {@code what} when that takes more than two seconds: a call that blocks and was
     * not woken. Call only after {@link #shut()}.
     *
     * @param what the object the guard protects, for the warning
     */
    public void awaitIdle(Object what) {
        long start = 0;
        boolean warned = false;
        for (int i = 0; inProgress() != 0; i++) {
            if (i < 100) {
                Thread.onSpinWait();
            } else if (i < 200) {
                Thread.yield();
            } else {
                if (start == 0) {
                    start = System.nanoTime();
                } else if (!warned && System.nanoTime() - start > WARN_AFTER_NANOS) {
                    warned = true;
                    LOG.warn("close of {} is waiting for {} call(s) in progress on another thread to return",
                            what, inProgress());
                }
                LockSupport.parkNanos(20_000);
            }
        }
    }
}
