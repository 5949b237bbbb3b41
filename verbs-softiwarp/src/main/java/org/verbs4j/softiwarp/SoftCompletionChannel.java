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
    /** A waiting thread sleeps on the sockets of the QPs of the channel's queues, and receives what wakes it. */
    private final SocketWaiter sockets = new SocketWaiter();
    /** This channel alone, for {@link #sockets}. */
    private final SoftCompletionChannel[] self = {this};

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

    /** {@return the queues using the channel (never changed in place)} */
    SoftCompletionQueue[] queues() {
        return queues;
    }

    /** Called by a queue that fired, after counting the event on itself. */
    void signal() {
        release(1);
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

    /** Adds permits and wakes the waiter, parked or asleep on the sockets. */
    private void release(int n) {
        events.release(n);
        sockets.wakeup();
    }

    @Override
    public void wakeup() {
        if (!closing && !woken.getAndSet(true)) {
            release(1);
        }
    }

    /**
     * Takes a permit, waiting up to {@code nanos}: asleep on the sockets of the queues' QPs when no other thread sleeps
     * there and a QP is connected (it then receives what wakes it), else parked. A thread that slept on the sockets
     * nudges the one parked behind it as it leaves, and that one takes the sockets over: it receives what comes next
     * itself, where it would wait for the progress thread's next look (up to tens of milliseconds) otherwise.
     */
    private boolean acquire(long nanos) throws InterruptedException {
        if (events.tryAcquire()) {
            return true;
        }
        long deadline = System.nanoTime() + nanos;
        while (true) {
            events.clearNudge(); // before trying the sockets: a sleeper that leaves after this nudges us again
            if (deadline - System.nanoTime() >= 1_000_000 && sockets.tryStart()) {
                boolean slept = false;
                try {
                    while (true) {
                        sockets.armSelect(); // before the look: a release after it wakes the select
                        if (events.tryAcquire()) {
                            return true;
                        }
                        if (Thread.interrupted()) {
                            throw new InterruptedException();
                        }
                        long left = deadline - System.nanoTime();
                        if (left < 1_000_000 || !sockets.sleep(self, left)) {
                            break; // under a select's millisecond, or nothing to watch: park for the rest
                        }
                        slept = true;
                    }
                } finally {
                    sockets.finish();
                    if (slept) {
                        events.nudge(); // a thread parked behind this one takes the sockets over
                    }
                }
                return events.tryAcquire(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
            // another thread sleeps on the sockets: park until a permit, or until it leaves them (a nudge)
            int got = events.acquireOrNudged(Math.max(0, deadline - System.nanoTime()));
            if (got != EventPermits.NUDGED) {
                return got == EventPermits.ACQUIRED;
            }
        }
    }

    @Override
    public CompletionQueue awaitEvent(long timeout, TimeUnit unit) {
        enter();
        try {
            if (!acquire(unit.toNanos(timeout))) {
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
        release(Integer.MAX_VALUE / 2);
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
        sockets.close();
    }
}
