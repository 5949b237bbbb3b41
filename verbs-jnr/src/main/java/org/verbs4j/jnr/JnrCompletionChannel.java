package org.verbs4j.jnr;

import java.util.concurrent.TimeUnit;
import org.verbs4j.api.CompletionChannel;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.VerbsException;
import org.verbs4j.api.internal.RawMemory;
import org.verbs4j.api.spi.AbstractResource;

/**
 * {@code struct ibv_comp_channel}. A wait polls the channel's fd and an eventfd ({@link #wakeFd}): a close makes
 * the eventfd readable for good (the waiters throw), a {@link #wakeup} until the waiter drains it (it returns null).
 */
final class JnrCompletionChannel extends AbstractResource implements CompletionChannel {
    /** Wait in slices, so that an interrupt or a close is noticed. */
    private static final int SLICE_MILLIS = 100;

    private final JnrDeviceContext context;
    private final long channel;
    private final int fd;
    /**
     * Made readable by {@link #interruptWaits()}, which wakes the event waits when the channel closes, and by
     * {@link #wakeup()}, whose wait drains it again.
     */
    private volatile int wakeFd;
    /** Offsets in {@link #scratch}: 8 bytes holding 1 (for the eventfd's write), 8 for its read. */
    private static final long ONE = 2L * LibcLayout.POLLFD_SIZE + 2L * RawMemory.ADDRESS_SIZE;
    private static final long DRAIN = ONE + 8;
    /**
     * Two pollfds, then ibv_get_cq_event's two out-pointers, then the eventfd's write and read words: the event
     * path allocates nothing.
     */
    private final long scratch = RawMemory.allocate(DRAIN + 8);
    /** Set by {@link #interruptWaits()}: a wait set that holds this channel throws that it closes. */
    private volatile boolean closing;
    /** The wait sets this channel is in (few; copied on change, read without allocation when it closes). */
    private volatile JnrCompletionWaitSet[] sets = new JnrCompletionWaitSet[0];
    private final Object setsLock = new Object();
    /** One waiter at a time (they share {@link #scratch}); not this object's monitor, which close takes. */
    private final Object waitLock = new Object();
    /** The CQs that report to this channel (few; copied on change, scanned per event without boxing). */
    private volatile JnrCompletionQueue[] attached = new JnrCompletionQueue[0];

    JnrCompletionChannel(JnrDeviceContext context, long channel) {
        super(context);
        this.context = context;
        this.channel = channel;
        this.fd = RawMemory.getInt(channel + Layout.COMP_CHANNEL_FD);
        this.wakeFd = LibC.eventFd();
        RawMemory.putLong(scratch + ONE, 1L);
        describeForLeakReport(context.device().name() + " channel fd " + fd);
    }

    long address() {
        checkOpen();
        return channel;
    }

    @Override
    protected String kind() {
        return "CompletionChannel";
    }

    @Override
    protected void destroy() {
        int rc = (int) JnrBackend.lib().destroyCompChannel.call(channel);
        if (rc != 0) {
            throw new VerbsException("ibv_destroy_comp_channel", rc, toString());
        }
        LibC.close(wakeFd);
        RawMemory.free(scratch);
    }

    /**
     * Wakes every thread in {@link #awaitEvent}, and the wait sets this channel is in: they throw that the
     * channel is closed.
     */
    @Override
    protected void interruptWaits() {
        closing = true;
        LibC.signal(wakeFd);
        for (JnrCompletionWaitSet s : sets) {
            s.signal();
        }
    }

    /** The close failed after all: a fresh wake-up descriptor, so that waits block again. */
    @Override
    protected void resumeWaits() {
        int old = wakeFd;
        wakeFd = LibC.eventFd();
        LibC.close(old);
        closing = false;
    }

    /** {@return whether closed or being closed} For a wait set, which then refuses to wait on it. */
    boolean closing() {
        return closing || isClosed();
    }

    /** {@return the {@code struct ibv_comp_channel *}} For a wait set, between its enter and leave of this channel. */
    long nativeChannel() {
        return channel;
    }

    void joined(JnrCompletionWaitSet set) {
        synchronized (setsLock) {
            JnrCompletionWaitSet[] a = java.util.Arrays.copyOf(sets, sets.length + 1);
            a[a.length - 1] = set;
            sets = a;
        }
    }

    void left(JnrCompletionWaitSet set) {
        synchronized (setsLock) {
            sets = java.util.Arrays.stream(sets).filter(x -> x != set).toArray(JnrCompletionWaitSet[]::new);
        }
    }

    /**
     * Makes the eventfd readable, from the 8 bytes that hold 1 (shared by every caller, never written again):
     * allocates nothing. On a channel being closed it does nothing: the close wakes the waiters already.
     */
    @Override
    public void wakeup() {
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

    synchronized void attach(JnrCompletionQueue cq) {
        JnrCompletionQueue[] a = java.util.Arrays.copyOf(attached, attached.length + 1);
        a[a.length - 1] = cq;
        attached = a;
    }

    synchronized void detach(JnrCompletionQueue cq) {
        attached = java.util.Arrays.stream(attached).filter(c -> c != cq).toArray(JnrCompletionQueue[]::new);
    }

    @Override
    public DeviceContext context() {
        return context;
    }

    /**
     * One waiter at a time per channel (they share the native scratch memory); others queue behind it. A
     * close of the channel on another thread wakes the waiters at once: they throw
     * {@link IllegalStateException}. A {@link #wakeup} ends the wait with null. Closing a CQ of the channel does
     * not wait for them.
     */
    @Override
    public CompletionQueue awaitEvent(long timeout, TimeUnit unit) {
        synchronized (waitLock) {
            enter();
            try {
                return awaitEntered(System.nanoTime() + unit.toNanos(timeout));
            } finally {
                leave();
            }
        }
    }

    private CompletionQueue awaitEntered(long deadline) {
        while (true) {
            long out = scratch + 2L * LibcLayout.POLLFD_SIZE;
            while (true) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || Thread.currentThread().isInterrupted()) {
                    return null;
                }
                int slice = (int) Math.min(SLICE_MILLIS, Math.max(1, TimeUnit.NANOSECONDS.toMillis(left + 999_999)));
                int r = LibC.awaitEither(scratch, fd, wakeFd, slice);
                checkOpen(); // woken by a close: the channel is being closed
                if (r == 1) {
                    break; // an event (a wakeup pending too stays pending: the next wait returns null at once)
                }
                if (r == 2) {
                    LibC.drain(wakeFd, scratch + DRAIN); // a wakeup(): taken, so that the next wait blocks again
                    return null;
                }
            }
            int rc = (int) JnrBackend.lib().getCqEvent.call(channel, out, out + RawMemory.ADDRESS_SIZE);
            if (rc != 0) {
                int errno = JnrBackend.lastErrno();
                if (errno == org.verbs4j.api.Errno.EAGAIN || errno == org.verbs4j.api.Errno.EINTR) {
                    continue; // the event went with its CQ's destruction (the fd is non-blocking): wait again
                }
                throw new VerbsException("ibv_get_cq_event", errno, toString());
            }
            long cq = RawMemory.getAddress(out);
            // ack at once: ibv_destroy_cq waits for every event to be acknowledged
            JnrBackend.lib().ackCqEvents.call(cq, 1);
            for (JnrCompletionQueue q : attached) {
                if (q.nativeAddress() == cq) {
                    return q;
                }
            }
            // the CQ closed between its event and now: nobody waits for that event any more
        }
    }

    @Override
    public int fd() {
        return fd;
    }
}
