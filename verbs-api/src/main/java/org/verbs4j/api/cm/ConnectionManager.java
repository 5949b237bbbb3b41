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
 * <p>Two port spaces: {@link PortSpace#TCP} (RC queue pairs, the default of {@link #createId()}) and
 * {@link PortSpace#UDP} (UD queue pairs, InfiniBand and RoCE only).
 */
public interface ConnectionManager extends AutoCloseable {

    /** {@code rdma_create_id(channel, &id, ctx, RDMA_PS_TCP)}: a new id for an RC connection or a listener. */
    CmId createId();

    /**
     * {@code rdma_create_id(channel, &id, ctx, ps)}: a new id in this port space. A {@link PortSpace#UDP}
     * id makes UD queue pairs and is connected with {@link CmId#connectDatagram}.
     */
    default CmId createId(PortSpace portSpace) {
        if (portSpace == PortSpace.TCP) {
            return createId();
        }
        throw new UnsupportedOperationException(getClass().getName() + " offers only PortSpace.TCP");
    }

    /** Whether {@link #close()} was called. */
    boolean isClosed();

    @Override
    void close();
}
