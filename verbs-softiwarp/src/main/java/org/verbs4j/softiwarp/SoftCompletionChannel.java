package org.verbs4j.softiwarp;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.verbs4j.api.CompletionChannel;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.spi.AbstractResource;

/**
 * A completion channel in pure Java: an armed queue that fires counts an event on itself and releases one
 * permit here, and wakes the {@link SoftCompletionWaitSet}s the channel is in; {@link #awaitEvent} takes a permit
 * and the first queue with an event. {@link #wakeup} adds one permit, at most one pending. Neither firing nor waiting
 * allocates ({@link EventPermits}); firing takes no lock, only the waiting side blocks. There is no file descriptor
 * behind it.
 */
final class SoftCompletionChannel extends AbstractResource implements CompletionChannel {
    private final SoftDeviceContext context;
    private final EventPermits events = new EventPermits();
    /** The queues using the channel (copied on change, read per event without allocation). */
    private volatile SoftCompletionQueue[] queues = new SoftCompletionQueue[0];
    private volatile boolean closing;
    /** A {@link #wakeup} whose permit no wait has taken yet. */
    private final AtomicBoolean woken = new AtomicBoolean();
    /** The wait sets this channel is in (few; copied on change, read per event without allocation). */
    private volatile SoftCompletionWaitSet[] sets = new SoftCompletionWaitSet[0];

    SoftCompletionChannel(SoftDeviceContext context) {
        super(context);
        this.context = context;
        describeForLeakReport(context.softDevice().name() + " completion channel");
    }

    synchronized void attach(SoftCompletionQueue cq) {
        queues = with(queues, cq);
    }

    synchronized void detach(SoftCompletionQueue cq) {
        queues = without(queues, cq);
    }

    /** {@code a} and {@code x}: a copy (the arrays here are read without a lock, so never changed in place). */
    private static <T> T[] with(T[] a, T x) {
        T[] b = Arrays.copyOf(a, a.length + 1);
        b[a.length] = x;
        return b;
    }

    private static <T> T[] without(T[] a, T x) {
        return Arrays.stream(a).filter(y -> y != x).toArray(n -> Arrays.copyOf(a, n));
    }

    /** Called by a queue that fired, after counting the event on itself. */
    void signal() {
        events.release(1);
        for (SoftCompletionWaitSet s : sets) {
            s.signal();
        }
    }

    synchronized void joined(SoftCompletionWaitSet set) {
        sets = with(sets, set);
    }

    synchronized void left(SoftCompletionWaitSet set) {
        sets = without(sets, set);
    }

    /** {@return whether closed or being closed} For a wait set, which then refuses to wait on it. */
    boolean closing() {
        return closing || isClosed();
    }

    /**
     * For a wait set: takes every event pending on this channel (the permits and the queues' counts), as many
     * {@link #awaitEvent} calls would, without blocking. {@return how many}
     */
    int drainEvents() {
        int n = 0;
        for (SoftCompletionQueue cq : queues) {
            while (cq.takeEvent()) {
                n++;
            }
        }
        if (n > 0) {
            // the permits of the events taken; a wakeup's permit, or one of a queue destroyed meanwhile, may be left
            int left = n;
            while (left > 0 && events.tryAcquire()) {
                left--;
            }
        }
        return n;
    }

    @Override
    public void wakeup() {
        if (!closing && !woken.getAndSet(true)) {
            events.release(1);
        }
    }

    @Override
    public CompletionQueue awaitEvent(long timeout, TimeUnit unit) {
        enter();
        try {
            if (!events.tryAcquire(timeout, unit)) {
                return null;
            }
            if (closing) {
                throw closedException();
            }
            for (SoftCompletionQueue cq : queues) {
                if (cq.takeEvent()) {
                    return cq; // a wakeup pending too keeps its permit: the next wait returns null at once
                }
            }
            woken.set(false);
            return null; // woken, or the queue that fired was destroyed meanwhile
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } finally {
            leave();
        }
    }

    @Override
    protected void interruptWaits() {
        closing = true;
        events.release(Integer.MAX_VALUE / 2);
        for (SoftCompletionWaitSet s : sets) {
            s.signal(); // a set waiting on this channel throws that it closed
        }
    }

    @Override
    protected void resumeWaits() {
        events.drainPermits();
        closing = false;
        int pending = 0;
        for (SoftCompletionQueue cq : queues) {
            pending += cq.pendingEvents();
        }
        events.release(pending + (woken.get() ? 1 : 0));
    }

    @Override
    public DeviceContext context() {
        return context;
    }

    /** {@return -1: a software channel has no file descriptor for an event loop} */
    @Override
    public int fd() {
        return -1;
    }

    @Override
    protected String kind() {
        return "CompletionChannel";
    }

    @Override
    protected void destroy() {
        queues = new SoftCompletionQueue[0];
    }
}
