package org.verbs4j.api;

import java.util.concurrent.TimeUnit;

/**
 * A completion event channel ({@code struct ibv_comp_channel}): a file descriptor that becomes readable
 * when an armed completion queue gets a completion.
 *
 * <pre>{@code
 * cq.requestNotify(false);
 * if (cq.poll(wc) == 0) {                       // nothing yet: sleep until there is
 *     CompletionQueue ready = channel.awaitEvent(1, TimeUnit.SECONDS);
 *     ready.requestNotify(false);
 * }
 * }</pre>
 */
public interface CompletionChannel extends AutoCloseable {

    /** {@return the context} */
    DeviceContext context();

    /**
     * Waits for an event ({@code ibv_get_cq_event}) and acknowledges it ({@code ibv_ack_cq_events}).
     * Returns the queue that fired, or {@code null} on timeout. The queue must be armed again to fire again.
     *
     * @param timeout the longest wait, in {@code unit}s
     * @param unit the unit of {@code timeout}
     * @return the completion queue the event is for, or null when the time ran out
     */
    CompletionQueue awaitEvent(long timeout, TimeUnit unit);

    /**
     * {@return the file descriptor, for an event loop; -1 when the channel has none (a device no kernel serves, as
     * the pure-Java software iWARP device: wait with {@link #awaitEvent})}
     */
    int fd();

    /** {@return whether closed} */
    boolean isClosed();

    /** {@code ibv_destroy_comp_channel}; refused while completion queues use it. */
    @Override
    void close();
}
