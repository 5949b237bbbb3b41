package org.verbs4j.jnr;

import java.util.concurrent.TimeUnit;
import org.verbs4j.api.CompletionChannel;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.VerbsException;
import org.verbs4j.api.internal.RawMemory;
import org.verbs4j.api.spi.AbstractResource;

/** {@code struct ibv_comp_channel}. */
final class JnrCompletionChannel extends AbstractResource implements CompletionChannel {
    /** Wait in slices, so that an interrupt or a close is noticed. */
    private static final int SLICE_MILLIS = 100;

    private final JnrDeviceContext context;
    private final long channel;
    private final int fd;
    /** Made readable by {@link #interruptWaits()}: wakes the event waits when the channel closes. */
    private volatile int wakeFd;
    /** Two pollfds, then ibv_get_cq_event's two out-pointers: the event path allocates nothing. */
    private final long scratch = RawMemory.allocate(2L * LibcLayout.POLLFD_SIZE + 2L * RawMemory.ADDRESS_SIZE);
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

    /** Wakes every thread in {@link #awaitEvent}: it throws that the channel is closed. */
    @Override
    protected void interruptWaits() {
        LibC.signal(wakeFd);
    }

    /** The close failed after all: a fresh wake-up descriptor, so that waits block again. */
    @Override
    protected void resumeWaits() {
        int old = wakeFd;
        wakeFd = LibC.eventFd();
        LibC.close(old);
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
     * {@link IllegalStateException}. Closing a CQ of the channel does not wait for them.
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
                    break;
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
