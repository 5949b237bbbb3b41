package org.verbs4j.netty;

import io.netty.channel.IoEvent;
import io.netty.channel.IoHandle;
import io.netty.channel.IoRegistration;

/**
 * What {@link RdmaIoHandler} drives: a channel that polls its endpoint's completion queues (and credit word) when
 * asked. There is no readiness event to dispatch, so {@link #handle} only polls.
 */
interface RdmaIoHandle extends IoHandle {
    /**
     * Polls once, on the event loop: reaps send completions, sends what credits and slots allow, reads receives.
     *
     * @return how much work was found (0: nothing to do, the loop may back off)
     */
    int poll();

    /** Closes the channel (the loop shuts down); never throws. */
    @Override
    void close();

    @Override
    default void handle(IoRegistration registration, IoEvent ioEvent) {
        poll();
    }
}
