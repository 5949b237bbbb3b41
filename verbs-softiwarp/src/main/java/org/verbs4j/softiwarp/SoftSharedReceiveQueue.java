package org.verbs4j.softiwarp;

import java.util.concurrent.atomic.AtomicInteger;
import org.verbs4j.api.AsyncEvent;
import org.verbs4j.api.AsyncEventType;
import org.verbs4j.api.Errno;
import org.verbs4j.api.PostException;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.ReceiveRequests;
import org.verbs4j.api.SharedReceiveQueue;
import org.verbs4j.api.SrqAttributes;
import org.verbs4j.api.VerbsException;
import org.verbs4j.api.internal.WrLayout.RecvWr;
import org.verbs4j.api.internal.WrLayout.Wr;
import org.verbs4j.api.spi.AbstractResource;

/**
 * A shared receive queue of a software iWARP device: one {@link WorkQueue} of receives that its QPs' incoming
 * Sends take from. Armed with a limit, it raises {@code SRQ_LIMIT_REACHED} once, when a receive taken leaves
 * fewer than the limit queued, and disarms (as {@code ibv_modify_srq} with {@code IBV_SRQ_LIMIT} specifies).
 */
final class SoftSharedReceiveQueue extends AbstractResource implements SharedReceiveQueue {
    private final SoftProtectionDomain pd;
    private final WorkQueue rq;
    private final int maxSge;
    private final AtomicInteger limit = new AtomicInteger();

    SoftSharedReceiveQueue(SoftProtectionDomain pd, int maxWr, int maxSge, int limit) {
        super(pd);
        this.pd = pd;
        try {
            check("ibv_create_srq", "max_wr", maxWr, 1, SiwAttributes.MAX_SRQ_WR);
            check("ibv_create_srq", "max_sge", maxSge, 0, SiwAttributes.MAX_SGE);
            check("ibv_create_srq", "srq_limit", limit, 0, maxWr);
        } catch (RuntimeException e) {
            abandon();
            throw e;
        }
        this.maxSge = maxSge;
        this.rq = new WorkQueue(maxWr, RecvWr.WR_SIZE + maxSge * Wr.SGE_SIZE);
        this.limit.set(limit);
        describeForLeakReport(pd.softContext().softDevice().name() + " srq of " + maxWr);
    }

    private static void check(String verb, String what, int value, int min, int max) {
        if (value < min || value > max) {
            throw new VerbsException(verb, Errno.EINVAL, what + " " + value + ": " + min + ".." + max);
        }
    }

    WorkQueue queue() {
        return rq;
    }

    /**
     * Frees the oldest receive after the data path used it (the holder of the queue's token), and raises the
     * limit event when that leaves fewer than the armed limit.
     */
    void pop() {
        rq.pop();
        int l = limit.get();
        if (l > 0 && rq.size() < l && limit.compareAndSet(l, 0)) {
            pd.softContext().raise(new AsyncEvent(AsyncEventType.SRQ_LIMIT_REACHED, this, 0));
        }
    }

    @Override
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    @Override
    public void postReceive(ReceiveRequests wrs) {
        enter();
        try {
            long list = wrs.enter();
            try {
                wrs.checkFits(rq.depth(), maxSge, this);
                if (!rq.offerReceives(list, wrs.count())) {
                    throw new PostException("ibv_post_srq_recv", Errno.ENOMEM, 0, this + ": " + wrs.count()
                            + " requests do not fit: " + rq.size() + " of " + rq.depth() + " are outstanding");
                }
            } finally {
                wrs.leave();
            }
        } finally {
            leave();
        }
    }

    @Override
    public void armLimit(int limit) {
        checkOpen();
        check("ibv_modify_srq", "srq_limit", limit, 0, rq.depth());
        this.limit.set(limit);
    }

    @Override
    public SrqAttributes query() {
        checkOpen();
        return new SrqAttributes(rq.depth(), maxSge, limit.get());
    }

    @Override
    protected String kind() {
        return "SharedReceiveQueue";
    }

    @Override
    protected void destroy() {
        rq.free();
    }
}
