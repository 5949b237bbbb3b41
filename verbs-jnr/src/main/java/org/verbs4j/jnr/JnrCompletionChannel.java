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
    /** A pollfd, then ibv_get_cq_event's two out-pointers: the event path allocates nothing. */
    private final long scratch = RawMemory.allocate(LibcLayout.POLLFD_SIZE + 2L * RawMemory.ADDRESS_SIZE);
    /** The CQs that report to this channel (few; copied on change, scanned per event without boxing). */
    private volatile JnrCompletionQueue[] attached = new JnrCompletionQueue[0];

    JnrCompletionChannel(JnrDeviceContext context, long channel) {
        super(context);
        this.context = context;
        this.channel = channel;
        this.fd = RawMemory.getInt(channel + Layout.COMP_CHANNEL_FD);
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
        RawMemory.free(scratch);
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

    /** One waiter at a time per channel (they share the native scratch memory); others queue behind it. */
    @Override
    public synchronized CompletionQueue awaitEvent(long timeout, TimeUnit unit) {
        checkOpen();
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || Thread.currentThread().isInterrupted()) {
                return null;
            }
            int slice = (int) Math.min(SLICE_MILLIS, Math.max(1, TimeUnit.NANOSECONDS.toMillis(left + 999_999)));
            if (LibC.awaitReadable(scratch, fd, slice)) {
                break;
            }
            checkOpen();
        }
        long out = scratch + LibcLayout.POLLFD_SIZE;
        int rc = (int) JnrBackend.lib().getCqEvent.call(channel, out, out + RawMemory.ADDRESS_SIZE);
        if (rc != 0) {
            throw new VerbsException("ibv_get_cq_event", JnrBackend.lastErrno(), toString());
        }
        long cq = RawMemory.getAddress(out);
        // ack at once: ibv_destroy_cq waits for every event to be acknowledged
        JnrBackend.lib().ackCqEvents.call(cq, 1);
        for (JnrCompletionQueue q : attached) {
            if (q.nativeAddress() == cq) {
                return q;
            }
        }
        throw new IllegalStateException("completion event for an unknown CQ 0x" + Long.toHexString(cq));
    }

    @Override
    public int fd() {
        return fd;
    }
}
