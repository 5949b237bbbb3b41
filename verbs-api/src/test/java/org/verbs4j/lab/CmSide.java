package org.verbs4j.lab;

import java.net.InetSocketAddress;
import java.time.Duration;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.QpInitAttributes;
import org.verbs4j.api.QpType;
import org.verbs4j.api.QueuePair;
import org.verbs4j.api.cm.CmId;
import org.verbs4j.api.cm.ConnectionManager;
import org.verbs4j.api.cm.PortSpace;

/**
 * Test fixture of the rdma_cm tests: one side's verbs objects on a {@link CmId}'s context (PD, CQ, MR and a
 * QP of 8 sends and 8 receives made on the id), {@link #close()}d in the right order; and the steps every
 * such test takes (a listener, a resolved id, closing what was made).
 */
public class CmSide implements AutoCloseable {
    public final CmId id;
    public final DeviceContext ctx;
    public final ProtectionDomain pd;
    public final CompletionQueue cq;
    public final MemoryRegion mr;
    public final QueuePair qp;

    public CmSide(CmId id, QpType type, int cqEntries, int mrBytes, int access) {
        this.id = id;
        ctx = id.context();
        pd = ctx.allocProtectionDomain();
        cq = ctx.createCompletionQueue(cqEntries);
        mr = pd.allocateMemory(mrBytes, access);
        qp = id.createQueuePair(pd, new QpInitAttributes(type, cq, cq).maxSendWr(8).maxRecvWr(8));
    }

    @Override
    public void close() {
        id.close(); // destroys the QP, then the id
        cq.close();
        mr.close();
        pd.close();
    }

    /** A new id of {@code portSpace}, bound to {@code address} and listening (backlog 4). */
    public static CmId listen(ConnectionManager cm, PortSpace portSpace, InetSocketAddress address) {
        CmId listener = cm.createId(portSpace);
        try {
            listener.bind(address);
            listener.listen(4);
            return listener;
        } catch (RuntimeException | Error e) {
            listener.close();
            throw e;
        }
    }

    /** A new id of {@code portSpace} with its address and route to {@code server} resolved. */
    public static CmId resolved(ConnectionManager cm, PortSpace portSpace, InetSocketAddress server, Duration timeout) {
        CmId id = cm.createId(portSpace);
        try {
            id.resolveAddress(server, timeout);
            id.resolveRoute(timeout);
            return id;
        } catch (RuntimeException | Error e) {
            id.close();
            throw e;
        }
    }

    /** Closes each of {@code resources} that is not null, in order; throws the first failure after trying all. */
    public static void closeAll(AutoCloseable... resources) throws Exception {
        Exception first = null;
        for (AutoCloseable r : resources) {
            try {
                if (r != null) {
                    r.close();
                }
            } catch (Exception e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
