package org.verbs4j.jnr;

import org.verbs4j.api.PostException;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.ReceiveRequests;
import org.verbs4j.api.SharedReceiveQueue;
import org.verbs4j.api.SrqAttributes;
import org.verbs4j.api.VerbsException;
import org.verbs4j.api.internal.RawMemory;
import org.verbs4j.api.spi.AbstractResource;

/** {@code struct ibv_srq}; posting goes through the ops table's {@code post_srq_recv}. */
final class JnrSharedReceiveQueue extends AbstractResource implements SharedReceiveQueue {
    private static final int IBV_SRQ_LIMIT = 2;

    private final JnrProtectionDomain pd;
    private final long srq;
    private final NativeCalls.Target postFn;
    private final long badWr;
    /** The depth and entries per request the device gave (ibv_create_srq writes them back). */
    private final int maxWr;
    private final int maxSge;

    private JnrSharedReceiveQueue(JnrProtectionDomain pd, long srq, int maxWr, int maxSge) {
        super(pd);
        this.pd = pd;
        this.srq = srq;
        this.maxWr = maxWr;
        this.maxSge = maxSge;
        long ops = RawMemory.getAddress(srq + Layout.SRQ_CONTEXT) + Layout.CONTEXT_OPS;
        this.postFn = NativeCalls.target(RawMemory.getAddress(ops + Layout.OPS_POST_SRQ_RECV));
        this.badWr = RawMemory.allocate(8);
        describeForLeakReport(pd.jnrContext().device().name() + " srq 0x" + Long.toHexString(srq));
        pd.jnrContext().register(srq, this);
    }

    static JnrSharedReceiveQueue create(JnrProtectionDomain pd, int maxWr, int maxSge, int limit) {
        long attr = RawMemory.allocate(Layout.SRQ_INIT_ATTR_SIZE);
        try {
            long a = attr + Layout.SIA_ATTR;
            RawMemory.putInt(a + Layout.SA_MAX_WR, maxWr);
            RawMemory.putInt(a + Layout.SA_MAX_SGE, maxSge);
            RawMemory.putInt(a + Layout.SA_SRQ_LIMIT, limit);
            long srq = JnrBackend.lib().createSrq.call(pd.address(), attr);
            if (srq == 0) {
                throw new VerbsException("ibv_create_srq", JnrBackend.lastErrno(),
                        "max_wr " + maxWr + ", max_sge " + maxSge + ", limit " + limit + " on "
                                + pd.jnrContext().device().name());
            }
            return new JnrSharedReceiveQueue(pd, srq, RawMemory.getInt(a + Layout.SA_MAX_WR),
                    RawMemory.getInt(a + Layout.SA_MAX_SGE));
        } finally {
            RawMemory.free(attr);
        }
    }

    long address() {
        checkOpen();
        return srq;
    }

    @Override
    protected String kind() {
        return "SharedReceiveQueue";
    }

    @Override
    protected void destroy() {
        int rc = (int) JnrBackend.lib().destroySrq.call(srq);
        if (rc != 0) {
            throw new VerbsException("ibv_destroy_srq", rc, toString());
        }
        pd.jnrContext().unregister(srq);
        RawMemory.free(badWr);
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
                wrs.checkFits(maxWr, maxSge, this);
                RawMemory.putAddress(badWr, 0L);
                int rc = NativeCalls.post(postFn, srq, list, badWr);
                if (rc != 0) {
                    throw new PostException("ibv_post_srq_recv", JnrQueuePair.errnoOf(rc),
                            wrs.indexOf(RawMemory.getAddress(badWr)), toString());
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
        enter();
        try {
            long attr = RawMemory.allocate(Layout.SRQ_ATTR_SIZE);
            try {
                RawMemory.putInt(attr + Layout.SA_SRQ_LIMIT, limit);
                int rc = (int) JnrBackend.lib().modifySrq.call(srq, attr, IBV_SRQ_LIMIT);
                if (rc != 0) {
                    throw new VerbsException("ibv_modify_srq", rc, toString() + " limit " + limit);
                }
            } finally {
                RawMemory.free(attr);
            }
        } finally {
            leave();
        }
    }

    @Override
    public SrqAttributes query() {
        enter();
        try {
            long attr = RawMemory.allocate(Layout.SRQ_ATTR_SIZE);
            try {
                int rc = (int) JnrBackend.lib().querySrq.call(srq, attr);
                if (rc != 0) {
                    throw new VerbsException("ibv_query_srq", rc, toString());
                }
                return new SrqAttributes(RawMemory.getInt(attr + Layout.SA_MAX_WR), RawMemory.getInt(attr + Layout.SA_MAX_SGE),
                        RawMemory.getInt(attr + Layout.SA_SRQ_LIMIT));
            } finally {
                RawMemory.free(attr);
            }
        } finally {
            leave();
        }
    }
}
