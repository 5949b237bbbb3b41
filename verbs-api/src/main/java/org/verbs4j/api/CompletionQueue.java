package org.verbs4j.api;

/**
 * A completion queue ({@code struct ibv_cq}). Poll it without blocking, or arm it with
 * {@link #requestNotify} and wait on its {@link CompletionChannel}; {@link WaitStrategy} wraps both.
 *
 * <pre>{@code
 * int n;
 * while ((n = cq.poll(wc)) == 0) {
 *     Thread.onSpinWait();
 * }
 * }</pre>
 */
public interface CompletionQueue extends AutoCloseable {

    /** {@return the context} */
    DeviceContext context();

    /** {@return the number of entries the device gave (at least what was asked)} */
    int capacity();

    /** {@return the channel its events go to, or {@code null}} */
    CompletionChannel channel();

    /**
     * {@code ibv_poll_cq}: moves up to {@code wc.capacity()} completions into {@code wc}, returns how many
     * (0 when none). No allocation, no lock.
     *
     * @param wc the completions to fill, from index 0
     * @return how many completions were written to {@code wc}, 0 when none
     */
    int poll(WorkCompletions wc);

    /**
     * {@code ibv_poll_cq} for at most {@code max} completions.
     *
     * @param wc the completions to fill, from index 0
     * @param max the most to take
     * @return how many completions were written to {@code wc}, 0 when none
     */
    int poll(WorkCompletions wc, int max);

    /**
     * {@code ibv_req_notify_cq}: the next completion (or, with {@code solicitedOnly}, the next solicited or
     * failed one) raises an event on the channel. Poll once more after arming: a completion that arrived
     * before is not reported.
     *
     * @param solicitedOnly true: only solicited completions (and errors) raise the event
     */
    void requestNotify(boolean solicitedOnly);

    /**
     * {@code ibv_resize_cq}; throws {@link VerbsException} (EOPNOTSUPP) where the device cannot.
     *
     * @param entries the new minimum number of entries
     */
    void resize(int entries);

    /** {@return whether closed} */
    boolean isClosed();

    /** {@code ibv_destroy_cq}; refused while queue pairs use it. */
    @Override
    void close();
}
