package org.verbs4j.api.cm;

/**
 * librdmacm's connection manager: one {@code rdma_event_channel} and one daemon thread that reads its
 * events and hands each to the {@link CmId} it belongs to. Get one with
 * {@link org.verbs4j.api.Rdma#connectionManager()}.
 *
 * <p>{@link #close()} closes every id it created (their queue pairs first), completes every waiting
 * call with a {@link CmException}, stops the thread, destroys the channel and releases the device
 * contexts librdmacm opened (close your protection domains, CQs and MRs on them first).
 *
 * <p>Only the TCP port space (RDMA_PS_TCP, reliable-connected QPs) is offered; UDP/UD is not.
 */
public interface ConnectionManager extends AutoCloseable {

    /** {@code rdma_create_id(channel, &id, ctx, RDMA_PS_TCP)}: a new id for an RC connection or a listener. */
    CmId createId();

    /** Whether {@link #close()} was called. */
    boolean isClosed();

    @Override
    void close();
}
