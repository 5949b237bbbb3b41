package org.verbs4j.jnr;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.verbs4j.api.CompletionChannel;
import org.verbs4j.api.CompletionWaitSet;
import org.verbs4j.api.Errno;
import org.verbs4j.api.VerbsException;
import org.verbs4j.api.internal.RawMemory;
import org.verbs4j.api.spi.AbstractResource;

/**
 * A wait set of libibverbs completion channels: one poll(2) over the set's eventfd and every channel's fd (made
 * non-blocking when the channel was created), then {@code ibv_get_cq_event} and {@code ibv_ack_cq_events} on each
 * readable channel until it has no event left. The {@code struct pollfd} array is native memory the waiting thread
 * fills again only after an {@link #add} or {@link #remove} (and grows only when the set grows); the wait itself
 * allocates nothing. While it waits, the waiter has entered every channel of the set, so that a channel's close
 * waits for it (no fd is closed under the poll); the close first wakes it through the set's eventfd, and the
 * waiter then throws that the channel is closed.
 */
final class JnrCompletionWaitSet extends AbstractResource implements CompletionWaitSet {
    /** Wait in slices, so that an interrupt is noticed. */
    private static final int SLICE_MILLIS = 100;
    /** Offsets in {@link #scratch}: ibv_get_cq_event's two out-pointers, 8 bytes holding 1, 8 for a read. */
    private static final long OUT = 0;
    private static final long ONE = 2L * RawMemory.ADDRESS_SIZE;
    private static final long DRAIN = ONE + 8;

    /** Guards {@link #channels}; never held while waiting. */
    private final Object lock = new Object();
    /** One waiter at a time; the fields below it are the waiter's. */
    private final Object waitLock = new Object();
    private volatile JnrCompletionChannel[] channels = new JnrCompletionChannel[0];
    /** The channels changed since the waiter last filled {@link #pollfds}. */
    private volatile boolean changed = true;
    private final long scratch = RawMemory.allocate(DRAIN + 8);
    /** Readable after {@link #wakeup}, {@link #signal} (a channel closes, the set changes) or a close of the set. */
    private volatile int wakeFd;
    private volatile boolean closing;
    /**
     * Set by the waiter just before it polls, cleared after: an add or remove signals the eventfd only then. A
     * signal when nobody waits would stay pending and end the next wait at once, before anything happened. (The
     * waiter sets this, then reads {@link #changed}; a change sets that, then reads this: one of them sees the
     * other.)
     */
    private volatile boolean waiting;
    /** A {@link #wakeup} not yet taken by a wait. */
    private final AtomicBoolean woken = new AtomicBoolean();

    // the waiter's (under waitLock)
    private JnrCompletionChannel[] polled = new JnrCompletionChannel[0];
    /** {@code struct pollfd[pollCapacity]}: index 0 the set's eventfd, then one per channel of {@link #polled}. */
    private long pollfds;
    private int pollCapacity;

    JnrCompletionWaitSet(String device) {
        super(null);
        this.wakeFd = LibC.eventFd();
        RawMemory.putLong(scratch + ONE, 1L);
        describeForLeakReport(device + " completion wait set, eventfd " + wakeFd);
    }

    @Override
    public void add(CompletionChannel channel) {
        if (!(channel instanceof JnrCompletionChannel)) {
            throw new IllegalArgumentException(channel + " is not a libibverbs channel; a completion wait set takes "
                    + "the channels of its own backend only (use one set per backend)");
        }
        JnrCompletionChannel ch = (JnrCompletionChannel) channel;
        synchronized (lock) {
            checkOpen();
            if (ch.closing()) {
                throw new IllegalStateException(ch + " is closed; a wait set takes open channels only");
            }
            for (JnrCompletionChannel c : channels) {
                if (c == ch) {
                    return;
                }
            }
            JnrCompletionChannel[] a = Arrays.copyOf(channels, channels.length + 1);
            a[a.length - 1] = ch;
            channels = a;
            changed = true;
            ch.joined(this);
        }
        if (waiting) {
            signal(); // the waiter takes the new channel in
        }
    }

    @Override
    public void remove(CompletionChannel channel) {
        synchronized (lock) {
            JnrCompletionChannel[] a = channels;
            for (int i = 0; i < a.length; i++) {
                if (a[i] == channel) {
                    JnrCompletionChannel[] b = new JnrCompletionChannel[a.length - 1];
                    System.arraycopy(a, 0, b, 0, i);
                    System.arraycopy(a, i + 1, b, i, a.length - i - 1);
                    channels = b;
                    changed = true;
                    a[i].left(this);
                    break;
                }
            }
        }
        if (waiting) {
            signal(); // the waiter leaves the removed channel (it may be closed next)
        }
    }

    @Override
    public int size() {
        return channels.length;
    }

    /** Makes the eventfd readable (allocates nothing); nothing on a set being closed, whose close wakes the waiter. */
    void signal() {
        if (closing) {
            return;
        }
        try {
            enter(); // the eventfd stays open meanwhile
        } catch (IllegalStateException closed) {
            return;
        }
        try {
            LibC.signal(wakeFd, scratch + ONE);
        } finally {
            leave();
        }
    }

    @Override
    public void wakeup() {
        woken.set(true); // ends this wait or the next one, whatever the eventfd says
        signal();
    }

    @Override
    public int await(long timeout, TimeUnit unit) {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        synchronized (waitLock) {
            enter();
            try {
                if (changed) {
                    refill();
                }
                JnrCompletionChannel[] a = polled;
                int entered = 0;
                try {
                    for (; entered < a.length; entered++) {
                        JnrCompletionChannel ch = a[entered];
                        if (ch.closing()) {
                            throw closedChannel(ch);
                        }
                        try {
                            ch.enter(); // its close waits for this wait, which it wakes first
                        } catch (IllegalStateException e) {
                            throw closedChannel(ch);
                        }
                    }
                    return awaitEntered(a, deadline);
                } finally {
                    for (int i = 0; i < entered; i++) {
                        a[i].leave();
                    }
                }
            } finally {
                leave();
            }
        }
    }

    /** Takes the current channels and fills the pollfds for them (native memory grows only with the set). */
    private void refill() {
        JnrCompletionChannel[] a;
        synchronized (lock) {
            a = channels;
            changed = false;
        }
        int need = a.length + 1;
        if (need > pollCapacity) {
            long grown = RawMemory.allocate((long) need * LibcLayout.POLLFD_SIZE);
            if (pollfds != 0) {
                RawMemory.free(pollfds);
            }
            pollfds = grown;
            pollCapacity = need;
        }
        LibC.watchFd(pollfds, 0, wakeFd);
        for (int i = 0; i < a.length; i++) {
            LibC.watchFd(pollfds, i + 1, a[i].fd());
        }
        polled = a;
    }

    private int awaitEntered(JnrCompletionChannel[] a, long deadline) {
        waiting = true;
        try {
            return pollEntered(a, deadline);
        } finally {
            waiting = false;
        }
    }

    /**
     * The eventfd is only a doorbell: why it rang is in the fields (the set or a channel closing, a change of the
     * channels, a {@link #wakeup}), looked at before every poll. So a ring that outlived its reason (a channel's
     * close that rang after its waiter had already thrown, an add or remove as a wait ended) only makes the waiter
     * look again, and a {@link #wakeup} when nobody waits ends the next wait without the eventfd.
     */
    private int pollEntered(JnrCompletionChannel[] a, long deadline) {
        while (true) {
            if (closing) {
                throw closedException();
            }
            for (JnrCompletionChannel ch : a) {
                if (ch.closing()) {
                    throw closedChannel(ch);
                }
            }
            if (changed) {
                return 0; // an add or remove since this wait began: the next wait polls the new channels
            }
            if (woken.getAndSet(false)) {
                return 0;
            }
            long left = deadline - System.nanoTime();
            int slice = left <= 0 ? 0
                    : (int) Math.min(SLICE_MILLIS, Math.max(1, TimeUnit.NANOSECONDS.toMillis(left + 999_999)));
            int ready = LibC.pollReadable(pollfds, a.length + 1, slice);
            int events = 0;
            if (ready > 0) {
                if (LibC.isReadable(pollfds, 0)) {
                    LibC.drain(wakeFd, scratch + DRAIN); // a ring: its reason is looked at above, next turn
                }
                for (int i = 0; i < a.length; i++) {
                    if (LibC.isReadable(pollfds, i + 1)) {
                        events += takeEvents(a[i]);
                    }
                }
            }
            if (events > 0 || left <= 0 || Thread.currentThread().isInterrupted()) {
                return events;
            }
        }
    }

    /** Takes and acknowledges every event pending on {@code ch} (its fd is non-blocking); {@return how many} */
    private int takeEvents(JnrCompletionChannel ch) {
        long out = scratch + OUT;
        int n = 0;
        while (true) {
            int rc = (int) JnrBackend.lib().getCqEvent.call(ch.nativeChannel(), out, out + RawMemory.ADDRESS_SIZE);
            if (rc != 0) {
                int errno = JnrBackend.lastErrno();
                if (errno == Errno.EAGAIN || errno == Errno.EINTR) {
                    return n; // none left (or an event went with its CQ's destruction)
                }
                throw new VerbsException("ibv_get_cq_event", errno, ch + " in " + this,
                        "the channel's file descriptor must stay open while it is in the set");
            }
            // ack at once: ibv_destroy_cq waits for every event to be acknowledged
            JnrBackend.lib().ackCqEvents.call(RawMemory.getAddress(out), 1);
            n++;
        }
    }

    private IllegalStateException closedChannel(CompletionChannel ch) {
        return new IllegalStateException(ch + " in " + this + " is closed: remove it from the set "
                + "(CompletionWaitSet.remove) before waiting again");
    }

    /** Wakes the waiter: it throws that the set is closed. */
    @Override
    protected void interruptWaits() {
        closing = true;
        LibC.signal(wakeFd, scratch + ONE);
    }

    /** The close failed after all: a fresh eventfd, so that waits block again. */
    @Override
    protected void resumeWaits() {
        int old = wakeFd;
        wakeFd = LibC.eventFd();
        LibC.close(old);
        changed = true;
        closing = false;
    }

    @Override
    protected String kind() {
        return "CompletionWaitSet";
    }

    @Override
    protected void destroy() {
        synchronized (lock) {
            for (JnrCompletionChannel ch : channels) {
                ch.left(this);
            }
            channels = new JnrCompletionChannel[0];
        }
        LibC.close(wakeFd);
        if (pollfds != 0) {
            RawMemory.free(pollfds);
            pollfds = 0;
        }
        RawMemory.free(scratch);
    }
}
