package org.verbs4j.netty;

import io.netty.channel.IoEvent;
import io.netty.channel.IoHandle;
import io.netty.channel.IoRegistration;
import org.verbs4j.api.CompletionChannel;

/**
 * What {@link RdmaIoHandler} drives: a channel that polls its endpoint's completion queues (and credit word) when
 * asked. There is no readiness event to dispatch, so {@link #handle} only polls. Between polls the loop may sleep
 * on the handles' completion channels: {@link #canSleep}, {@link #completionChannel} and {@link #arm} say whether
 * and on what, all called on the event loop.
 */
interface RdmaIoHandle extends IoHandle {
    /**
     * Polls once, on the event loop: reaps send completions, sends what credits and slots allow, reads receives.
     *
     * @return how much work was found (0: nothing to do, the loop may back off)
     */
    int poll();

    /**
     * {@return whether everything this handle waits for now raises a completion on {@link #completionChannel} or
     * comes as a task (which wakes the loop)} False while a write waits for a send credit with no send in flight:
     * a credit update is an RDMA WRITE into the endpoint's memory, which raises no completion, so the loop must
     * keep looking (bounded parks).
     */
    default boolean canSleep() {
        return true;
    }

    /** {@return the completion channel of the handle's completion queues, or null when it has none (yet)} */
    default CompletionChannel completionChannel() {
        return null;
    }

    /**
     * Arms the handle's completion queues before the loop sleeps (it polls once more after). {@return false when
     * that failed: the loop does not sleep this turn, and the next poll reports the failure}
     */
    default boolean arm() {
        return true;
    }

    /**
     * On the loop while its group shuts down, after {@link #close}: waits, bounded, for a close of this handle that
     * runs off the loop to hand its last step back to the loop, so that the loop does not end first.
     */
    default void awaitOffLoopClose() {
    }

    /** Closes the channel (the loop shuts down); never throws. */
    @Override
    void close();

    @Override
    default void handle(IoRegistration registration, IoEvent ioEvent) {
        poll();
    }
}
