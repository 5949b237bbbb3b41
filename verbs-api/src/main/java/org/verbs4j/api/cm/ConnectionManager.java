package org.verbs4j.api.cm;

/**
 * librdmacm's connection manager: one {@code rdma_event_channel} and one daemon thread that reads its
 * events and hands each to the {@link CmId} it belongs to. Get one with
 * {@link org.verbs4j.api.Rdma#connectionManager()}.
 *
 * <p><b>Ownership</b> (the model of every verbs object, {@link org.verbs4j.api.spi.AbstractResource}): the
 * manager owns its {@link CmId}s and closes them with itself (it cascades), each with its queue pair. It
 * does not own what the application made on the device contexts librdmacm opened ({@link CmId#context()}):
 * while a protection domain, CQ or completion channel is open on one, {@link #close()} is refused with an
 * {@link IllegalStateException} naming them, before anything is closed. Otherwise {@link #close()} completes
 * every waiting call with a {@link CmException}, closes every id, stops the thread, rejects the connection
 * requests nobody took, destroys the channel and releases the contexts. Twice is harmless; {@link #createId}
 * after it throws {@link IllegalStateException}. A manager that becomes unreachable without being closed is
 * reported as a leak (SLF4J logger {@code org.verbs4j.leak}); its event thread does not keep it reachable.
 *
 * <p>Two port spaces: {@link PortSpace#TCP} (RC queue pairs, the default of {@link #createId()}) and
 * {@link PortSpace#UDP} (UD queue pairs, InfiniBand and RoCE only).
 */
public interface ConnectionManager extends AutoCloseable {

    /** {@return {@code rdma_create_id(channel, &id, ctx, RDMA_PS_TCP)}: a new id for an RC connection or a listener} */
    CmId createId();

    /**
     * {@code rdma_create_id(channel, &id, ctx, ps)}: a new id in this port space. A {@link PortSpace#UDP}
     * id makes UD queue pairs and is connected with {@link CmId#connectDatagram}.
     *
     * @param portSpace {@link PortSpace#TCP} for RC, {@link PortSpace#UDP} for UD
     * @return the new cm id, which the caller closes
     */
    default CmId createId(PortSpace portSpace) {
        if (portSpace == PortSpace.TCP) {
            return createId();
        }
        throw new UnsupportedOperationException(getClass().getName() + " offers only PortSpace.TCP");
    }

    /** {@return whether {@link #close()} succeeded} */
    boolean isClosed();

    /** Closes every id (cascade) and the channel; refused while a context librdmacm opened is in use (see above). */
    @Override
    void close();
}
