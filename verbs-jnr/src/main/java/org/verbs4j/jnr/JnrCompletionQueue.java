package org.verbs4j.jnr;

import org.verbs4j.api.CompletionChannel;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.VerbsException;
import org.verbs4j.api.WorkCompletions;
import org.verbs4j.api.internal.RawMemory;
import org.verbs4j.api.spi.AbstractResource;

/**
 * {@code struct ibv_cq}. {@link #poll} and {@link #requestNotify} call the provider's {@code poll_cq} and
 * {@code req_notify_cq} straight from the context's ops table (they are inline in verbs.h, with no symbol):
 * resolved once here, called through jffi with no allocation and no lock.
 */
final class JnrCompletionQueue extends AbstractResource implements CompletionQueue {
    private final JnrDeviceContext context;
    private final JnrCompletionChannel channel;
    private final long cq;
    private final NativeCalls.Target pollFn;
    private final NativeCalls.Target notifyFn;
    private volatile int capacity;

    JnrCompletionQueue(JnrDeviceContext context, JnrCompletionChannel channel, long cq) {
        super(context);
        dependOn(channel);
        this.context = context;
        this.channel = channel;
        this.cq = cq;
        long ops = RawMemory.getAddress(cq + Layout.CQ_CONTEXT) + Layout.CONTEXT_OPS;
        this.pollFn = NativeCalls.target(RawMemory.getAddress(ops + Layout.OPS_POLL_CQ));
        this.notifyFn = NativeCalls.target(RawMemory.getAddress(ops + Layout.OPS_REQ_NOTIFY_CQ));
        this.capacity = RawMemory.getInt(cq + Layout.CQ_CQE);
        describeForLeakReport(context.device().name() + " cq 0x" + Long.toHexString(cq) + " (" + capacity + " entries)");
        context.register(cq, this);
        if (channel != null) {
            channel.attach(this);
        }
    }

    /** The native address, without the open check (for event dispatch). */
    long nativeAddress() {
        return cq;
    }

    long address() {
        checkOpen();
        return cq;
    }

    @Override
    protected String kind() {
        return "CompletionQueue";
    }

    @Override
    protected void destroy() {
        int rc = (int) JnrBackend.lib().destroyCq.call(cq);
        if (rc != 0) {
            throw new VerbsException("ibv_destroy_cq", rc, toString());
        }
        context.unregister(cq);
        if (channel != null) {
            channel.detach(this);
        }
    }

    @Override
    public DeviceContext context() {
        return context;
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public CompletionChannel channel() {
        return channel;
    }

    @Override
    public int poll(WorkCompletions wc) {
        return poll(wc, wc.capacity());
    }

    @Override
    public int poll(WorkCompletions wc, int max) {
        if (max < 0 || max > wc.capacity()) {
            throw new IllegalArgumentException("max " + max + " outside 0.." + wc.capacity());
        }
        enter();
        try {
            long out = wc.enter();
            try {
                int n = NativeCalls.pollCq(pollFn, cq, max, out);
                if (n < 0) {
                    throw pollFailure(n);
                }
                return n;
            } finally {
                wc.leave();
            }
        } finally {
            leave();
        }
    }

    private VerbsException pollFailure(int rc) {
        return new VerbsException("ibv_poll_cq", -rc, toString(),
                "The CQ is broken (overrun or device error): check for a CQ_ERR async event, and size the CQ for "
                        + "every outstanding work request");
    }

    @Override
    public void requestNotify(boolean solicitedOnly) {
        enter();
        try {
            int rc = NativeCalls.reqNotifyCq(notifyFn, cq, solicitedOnly ? 1 : 0);
            if (rc != 0) {
                throw new VerbsException("ibv_req_notify_cq", rc, toString());
            }
        } finally {
            leave();
        }
    }

    @Override
    public void resize(int entries) {
        enter();
        try {
            if (entries < 1) {
                throw new IllegalArgumentException("a CQ needs at least one entry, got " + entries);
            }
            int rc = (int) JnrBackend.lib().resizeCq.call(cq, entries);
            if (rc != 0) {
                throw new VerbsException("ibv_resize_cq", rc, toString() + " to " + entries + " entries");
            }
            capacity = RawMemory.getInt(cq + Layout.CQ_CQE);
        } finally {
            leave();
        }
    }
}
