package org.verbs4j.api;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * How a thread waits for completions: spin (lowest latency, burns a core), back off (spin, then yield,
 * then park), or block on the queue's {@link CompletionChannel} (no CPU while idle, a system call and a
 * wake-up per event). Same call, so the choice is one line:
 *
 * <pre>{@code
 * WaitStrategy wait = latencyMatters ? WaitStrategy.busySpin() : WaitStrategy.blocking();
 * int n = wait.await(cq, wc, TimeUnit.SECONDS.toNanos(5));   // 0 = timed out
 * }</pre>
 */
public interface WaitStrategy {

    /**
     * Polls {@code cq} into {@code wc} until at least one completion arrives, or {@code timeoutNanos}
     * passes (then returns 0). A negative timeout waits forever.
     *
     * @param cq the completion queue
     * @param wc the completions to fill, from index 0
     * @param timeoutNanos the longest wait, in nanoseconds
     * @return how many completions were written to {@code wc}; 0 when the time ran out
     */
    int await(CompletionQueue cq, WorkCompletions wc, long timeoutNanos);

    /** {@return a strategy that polls in a tight loop with {@link Thread#onSpinWait()}} No allocation. */
    static WaitStrategy busySpin() {
        return (cq, wc, timeoutNanos) -> {
            boolean forever = timeoutNanos < 0;
            long deadline = System.nanoTime() + (forever ? 0 : timeoutNanos);
            int spins = 0;
            while (true) {
                int n = cq.poll(wc);
                if (n > 0) {
                    return n;
                }
                if ((++spins & 0x3ff) == 0 && !forever && System.nanoTime() - deadline > 0) {
                    return 0;
                }
                Thread.onSpinWait();
            }
        };
    }

    /**
     * Spin {@code spins} times, yield {@code yields} times, then park from 1 us doubling to {@code maxParkNanos}.
     *
     * @param spins busy polls before yielding
     * @param yields {@code Thread.yield()} polls before parking
     * @param maxParkNanos the longest park between polls, in nanoseconds
     * @return the strategy
     */
    static WaitStrategy backoff(int spins, int yields, long maxParkNanos) {
        return (cq, wc, timeoutNanos) -> {
            boolean forever = timeoutNanos < 0;
            long deadline = System.nanoTime() + (forever ? 0 : timeoutNanos);
            long park = 1000;
            for (int round = 0; ; round++) {
                int n = cq.poll(wc);
                if (n > 0) {
                    return n;
                }
                if (round < spins) {
                    Thread.onSpinWait();
                    continue;
                }
                if (!forever && System.nanoTime() - deadline > 0) {
                    return 0;
                }
                if (round < spins + yields) {
                    Thread.yield();
                } else {
                    LockSupport.parkNanos(park);
                    park = Math.min(park * 2, maxParkNanos);
                }
            }
        };
    }

    /** {@return {@link #backoff(int, int, long)} with 1000 spins, 100 yields and at most 1 ms parks} */
    static WaitStrategy backoff() {
        return backoff(1000, 100, TimeUnit.MILLISECONDS.toNanos(1));
    }

    /**
     * Block on the queue's completion channel: arm, poll once more (a completion may have come in between),
     * then sleep in {@code ibv_get_cq_event}. The queue must have a channel, and the channel should serve
     * only queues waited on this way.
     *
     * @return the strategy
     */
    static WaitStrategy blocking() {
        return blocking(false);
    }

    /**
     * Like {@link #blocking()}; with {@code solicitedOnly}, wake only for solicited or failed completions.
     *
     * @param solicitedOnly true: wake only for solicited completions (and errors)
     * @return the strategy
     */
    static WaitStrategy blocking(boolean solicitedOnly) {
        return (cq, wc, timeoutNanos) -> {
            CompletionChannel channel = cq.channel();
            if (channel == null) {
                throw new IllegalStateException(cq + " has no completion channel; create it with one to block");
            }
            boolean forever = timeoutNanos < 0;
            long deadline = System.nanoTime() + (forever ? 0 : timeoutNanos);
            while (true) {
                int n = cq.poll(wc);
                if (n > 0) {
                    return n;
                }
                cq.requestNotify(solicitedOnly);
                n = cq.poll(wc);
                if (n > 0) {
                    return n;
                }
                long left = forever ? TimeUnit.DAYS.toNanos(365) : deadline - System.nanoTime();
                if (left <= 0) {
                    return 0;
                }
                CompletionQueue fired = channel.awaitEvent(left, TimeUnit.NANOSECONDS);
                if (fired == null) {
                    return cq.poll(wc);
                }
            }
        };
    }
}
