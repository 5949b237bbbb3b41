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

    DeviceContext context();

    /** The number of entries the device gave (at least what was asked). */
    int capacity();

    /** The channel its events go to, or {@code null}. */
    CompletionChannel channel();

    /**
     * {@code ibv_poll_cq}: moves up to {@code wc.capacity()} completions into {@code wc}, returns how many
     * (0 when none). No allocation, no lock.
     */
    int poll(WorkCompletions wc);

    /** {@code ibv_poll_cq} for at most {@code max} completions. */
    int poll(WorkCompletions wc, int max);

    /**
     * {@code ibv_req_notify_cq}: the next completion (or, with {@code solicitedOnly}, the next solicited or
     * failed one) raises an event on the channel. Poll once more after arming: a completion that arrived
     * before is not reported.
     */
    void requestNotify(boolean solicitedOnly);

    /** {@code ibv_resize_cq}; throws {@link VerbsException} (EOPNOTSUPP) where the device cannot. */
    void resize(int entries);

    boolean isClosed();

    /** {@code ibv_destroy_cq}; refused while queue pairs use it. */
    @Override
    void close();
}
