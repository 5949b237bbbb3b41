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
        int rc = JnrBackend.lib().ibv_destroy_comp_channel(channel);
        if (rc != 0) {
            throw new VerbsException("ibv_destroy_comp_channel", rc, toString());
        }
    }

    @Override
    public DeviceContext context() {
        return context;
    }

    @Override
    public CompletionQueue awaitEvent(long timeout, TimeUnit unit) {
        checkOpen();
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || Thread.currentThread().isInterrupted()) {
                return null;
            }
            int slice = (int) Math.min(SLICE_MILLIS, Math.max(1, TimeUnit.NANOSECONDS.toMillis(left + 999_999)));
            if (LibC.awaitReadable(fd, slice)) {
                break;
            }
            checkOpen();
        }
        long out = RawMemory.allocate(16);
        try {
            int rc = JnrBackend.lib().ibv_get_cq_event(channel, out, out + 8);
            if (rc != 0) {
                throw new VerbsException("ibv_get_cq_event", JnrBackend.lastErrno(), toString());
            }
            long cq = RawMemory.getAddress(out);
            // ack at once: ibv_destroy_cq waits for every event to be acknowledged
            JnrBackend.lib().ibv_ack_cq_events(cq, 1);
            Object o = context.lookup(cq);
            if (o instanceof JnrCompletionQueue) {
                return (JnrCompletionQueue) o;
            }
            throw new IllegalStateException("completion event for an unknown CQ 0x" + Long.toHexString(cq));
        } finally {
            RawMemory.free(out);
        }
    }

    @Override
    public int fd() {
        return fd;
    }
}
