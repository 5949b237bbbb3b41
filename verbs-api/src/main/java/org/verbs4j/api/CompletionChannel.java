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
 *
 * <p>Another thread ends a wait with {@link #wakeup()}; a thread that sleeps on several channels at once uses a
 * {@link CompletionWaitSet} ({@link DeviceContext#createCompletionWaitSet()}).
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
     * Makes an {@link #awaitEvent} in progress on another thread return {@code null} at once, or, when no thread
     * waits, the next one. Wake-ups do not add up: several before a wait end that one wait only. Any thread may
     * call it; it allocates nothing on JDK 17-21 (a few dozen bytes on JDK 22+ with libibverbs). On a closed channel it does nothing (its close ends the waits already).
     *
     * <pre>{@code
     * tasks.add(task);                    // another thread: hand the waiter a task, then wake it
     * channel.wakeup();
     *
     * CompletionQueue cq = channel.awaitEvent(1, TimeUnit.SECONDS);   // the waiter
     * if (cq == null) {
     *     runTasks();                     // woken (or the time ran out)
     * }
     * }</pre>
     *
     * @throws UnsupportedOperationException when the backend's channels cannot be woken
     */
    default void wakeup() {
        throw new UnsupportedOperationException(getClass().getName() + " cannot be woken");
    }

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
