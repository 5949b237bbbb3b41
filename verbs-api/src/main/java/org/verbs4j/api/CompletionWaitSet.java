package org.verbs4j.api;

import java.util.concurrent.TimeUnit;

/**
 * Several {@link CompletionChannel}s one thread sleeps on at once, as {@code poll(2)} over their file
 * descriptors: {@link #await} returns when any of them has an event, when another thread calls {@link #wakeup},
 * or when the time runs out. An event loop that drives many connections sleeps here when none has work, and uses
 * no CPU while idle. Made by {@link DeviceContext#createCompletionWaitSet()}; it takes the channels of every
 * device context of the same backend.
 *
 * <pre>{@code
 * try (CompletionWaitSet set = ctx.createCompletionWaitSet()) {
 *     set.add(channelA);
 *     set.add(channelB);
 *     while (running) {
 *         cqA.requestNotify(false);               // arm every queue, then poll once more:
 *         cqB.requestNotify(false);               // a completion before the arm raises no event
 *         if (pollAll() == 0) {
 *             set.await(1, TimeUnit.SECONDS);     // an event of A or B, a wakeup(), or the time ran out
 *         }
 *     }
 * }
 * }</pre>
 *
 * <p>{@link #await} consumes and acknowledges the events of every channel that fired ({@code ibv_get_cq_event},
 * {@code ibv_ack_cq_events}); it does not say which queues fired: poll them all. A queue must be armed again
 * to fire again. One thread waits at a time (others queue behind it); {@link #add}, {@link #remove} and
 * {@link #wakeup} may be called from any thread. An {@code add} or {@code remove} while another thread waits
 * takes effect at its next {@code await}. The wait allocates nothing on JDK 17-21; on JDK 22 and later the
 * libibverbs backend's system calls allocate a few dozen bytes per wait and per wake-up (not per completion).
 *
 * <p>Closing a channel that is in the set is allowed: a wait in progress ends, and every {@code await} throws
 * {@link IllegalStateException} naming the channel until it is {@linkplain #remove removed}. Closing the set
 * while another thread waits ends that wait with {@link IllegalStateException}.
 */
public interface CompletionWaitSet extends AutoCloseable {

    /**
     * Adds {@code channel}; adding it again does nothing.
     *
     * @param channel an open channel of this set's backend
     * @throws IllegalArgumentException when the channel is of another backend (a set cannot wait on it)
     * @throws IllegalStateException when the set or the channel is closed
     */
    void add(CompletionChannel channel);

    /**
     * Removes {@code channel}, also when it is closed already; removing a channel not in the set does nothing.
     *
     * @param channel the channel to remove
     */
    void remove(CompletionChannel channel);

    /** {@return how many channels are in the set} */
    int size();

    /**
     * Waits until a channel of the set has an event, {@link #wakeup} is called, or {@code timeout} passes; then
     * consumes and acknowledges the pending events of every channel that fired.
     *
     * @param timeout the longest wait, in {@code unit}s; 0 looks without waiting
     * @param unit the unit of {@code timeout}
     * @return how many events were consumed; 0 when woken or when the time ran out
     * @throws IllegalStateException when the set, or a channel in it, is closed (or closes during the wait)
     */
    int await(long timeout, TimeUnit unit);

    /**
     * Makes an {@link #await} in progress on another thread return at once, or, when no thread waits, the next
     * one. Wake-ups do not add up beyond one. Any thread may call it (allocation as for {@link #await}). On a closed set it
     * does nothing.
     */
    void wakeup();

    /** {@return whether closed} */
    boolean isClosed();

    /** Frees the set (not its channels); a thread in {@link #await} throws {@link IllegalStateException}. */
    @Override
    void close();
}
