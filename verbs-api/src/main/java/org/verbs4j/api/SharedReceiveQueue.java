package org.verbs4j.api;

/**
 * A shared receive queue ({@code struct ibv_srq}): one pool of receive buffers for many queue pairs.
 * When armed with a limit, the device raises {@link AsyncEventType#SRQ_LIMIT_REACHED} once the number of
 * posted receives falls below it.
 */
public interface SharedReceiveQueue extends AutoCloseable {

    /** {@return the protection domain} */
    ProtectionDomain protectionDomain();

    /**
     * {@code ibv_post_srq_recv}; no allocation, no lock.
     *
     * @param wrs the work requests
     */
    void postReceive(ReceiveRequests wrs);

    /**
     * Arms the limit event ({@code ibv_modify_srq} with {@code IBV_SRQ_LIMIT}).
     *
     * @param limit the SRQ limit; above 0 it arms the limit event
     */
    void armLimit(int limit);

    /** {@return {@code ibv_query_srq}: max WRs, max SGEs, current limit} */
    SrqAttributes query();

    /** {@return whether closed} */
    boolean isClosed();

    /** {@code ibv_destroy_srq}; refused while queue pairs use it. */
    @Override
    void close();
}
