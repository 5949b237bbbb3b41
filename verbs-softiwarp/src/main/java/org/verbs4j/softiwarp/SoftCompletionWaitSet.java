package org.verbs4j.softiwarp;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.verbs4j.api.CompletionChannel;
import org.verbs4j.api.CompletionWaitSet;
import org.verbs4j.api.spi.AbstractResource;

/**
 * A wait set in pure Java: a channel of the set that fires (or closes) sets {@link #signalled} and unparks the
 * waiting thread, which then takes the pending events of every channel. {@link #wakeup} sets a flag and unparks it.
 * The wait takes no lock but the one that queues waiters, and allocates nothing.
 */
final class SoftCompletionWaitSet extends AbstractResource implements CompletionWaitSet {
    /** Guards changes of {@link #channels}; never held while waiting. */
    private final Object lock = new Object();
    /** One waiter at a time. */
    private final Object waitLock = new Object();
    private volatile SoftCompletionChannel[] channels = new SoftCompletionChannel[0];
    private volatile Thread waiter;
    /** A channel fired, closed, or the set changed since the waiter last looked. */
    private volatile boolean signalled;
    private final AtomicBoolean woken = new AtomicBoolean();
    private volatile boolean closing;
    /** The waiter sleeps on the sockets of the QPs of the channels' queues, and receives what wakes it. */
    private final SocketWaiter sockets = new SocketWaiter();

    SoftCompletionWaitSet(String device) {
        super(null);
        describeForLeakReport(device + " completion wait set");
    }

    /** A channel of the set fired or closes: the waiter looks again. */
    void signal() {
        signalled = true;
        Thread t = waiter;
        if (t != null) {
            LockSupport.unpark(t);
        }
        sockets.wakeup();
    }

    @Override
    public void add(CompletionChannel channel) {
        if (!(channel instanceof SoftCompletionChannel)) {
            throw new IllegalArgumentException(channel + " is not a channel of the software iWARP backend; a "
                    + "completion wait set takes the channels of its own backend only (use one set per backend)");
        }
        SoftCompletionChannel ch = (SoftCompletionChannel) channel;
        synchronized (lock) {
            checkOpen();
            if (ch.closing()) {
                throw new IllegalStateException(ch + " is closed; a wait set takes open channels only");
            }
            for (SoftCompletionChannel c : channels) {
                if (c == ch) {
                    return;
                }
            }
            SoftCompletionChannel[] a = Arrays.copyOf(channels, channels.length + 1);
            a[a.length - 1] = ch;
            channels = a;
            ch.joined(this);
        }
        signal();
    }

    @Override
    public void remove(CompletionChannel channel) {
        synchronized (lock) {
            SoftCompletionChannel[] a = channels;
            for (int i = 0; i < a.length; i++) {
                if (a[i] == channel) {
                    SoftCompletionChannel[] b = new SoftCompletionChannel[a.length - 1];
                    System.arraycopy(a, 0, b, 0, i);
                    System.arraycopy(a, i + 1, b, i, a.length - i - 1);
                    channels = b;
                    a[i].left(this);
                    return;
                }
            }
        }
    }

    @Override
    public int size() {
        return channels.length;
    }

    @Override
    public int await(long timeout, TimeUnit unit) {
        synchronized (waitLock) {
            enter();
            try {
                long deadline = System.nanoTime() + unit.toNanos(timeout);
                waiter = Thread.currentThread();
                boolean onSockets = sockets.tryStart(); // the only waiter (waitLock): it always may
                try {
                    while (true) {
                        signalled = false; // before looking: what fires after the look unparks this thread
                        if (onSockets) {
                            sockets.armSelect(); // and wakes its select
                        }
                        int n = 0;
                        for (SoftCompletionChannel ch : channels) {
                            if (ch.closing()) {
                                throw closedChannel(ch);
                            }
                            n += ch.drainEvents();
                        }
                        if (closing) {
                            throw closedException();
                        }
                        if (n > 0) {
                            return n;
                        }
                        if (woken.getAndSet(false)) {
                            return 0;
                        }
                        long left = deadline - System.nanoTime();
                        if (left <= 0 || Thread.currentThread().isInterrupted()) {
                            return 0;
                        }
                        if (!signalled && (!onSockets || left < 1_000_000 || !sockets.sleep(channels, left))) {
                            LockSupport.parkNanos(this, left); // nothing to watch, or under a select's millisecond
                        }
                    }
                } finally {
                    waiter = null;
                    if (onSockets) {
                        sockets.finish();
                    }
                }
            } finally {
                leave();
            }
        }
    }

    private IllegalStateException closedChannel(CompletionChannel ch) {
        return new IllegalStateException(ch + " in " + this + " is closed: remove it from the set "
                + "(CompletionWaitSet.remove) before waiting again");
    }

    @Override
    public void wakeup() {
        woken.set(true);
        Thread t = waiter;
        if (t != null) {
            LockSupport.unpark(t);
        }
        sockets.wakeup();
    }

    @Override
    protected void interruptWaits() {
        closing = true;
        signal();
    }

    @Override
    protected void resumeWaits() {
        closing = false;
    }

    @Override
    protected String kind() {
        return "CompletionWaitSet";
    }

    @Override
    protected void destroy() {
        synchronized (lock) {
            for (SoftCompletionChannel ch : channels) {
                ch.left(this);
            }
            channels = new SoftCompletionChannel[0];
        }
        sockets.close();
    }
}
