package org.verbs4j.api;

/**
 * A shared receive queue ({@code struct ibv_srq}): one pool of receive buffers for many queue pairs.
 * When armed with a limit, the device raises {@link AsyncEventType#SRQ_LIMIT_REACHED} once the number of
 * posted receives falls below it.
 */
public interface SharedReceiveQueue extends AutoCloseable {

    ProtectionDomain protectionDomain();

    /** {@code ibv_post_srq_recv}; no allocation, no lock. */
    void postReceive(ReceiveRequests wrs);

    /** Arms the limit event ({@code ibv_modify_srq} with {@code IBV_SRQ_LIMIT}). */
    void armLimit(int limit);

    /** {@code ibv_query_srq}: max WRs, max SGEs, current limit. */
    SrqAttributes query();

    boolean isClosed();

    /** {@code ibv_destroy_srq}; refused while queue pairs use it. */
    @Override
    void close();
}
