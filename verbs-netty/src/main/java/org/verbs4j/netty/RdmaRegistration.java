package org.verbs4j.netty;

import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoRegistration;

/**
 * A channel's registration with an {@link RdmaIoHandler} event loop, the part {@link RdmaChannel} and
 * {@link RdmaServerChannel} share: the compatibility check, the register that completes the channel's promise, and
 * the cancel. Used on the channel's event loop.
 */
final class RdmaRegistration {
    private IoRegistration registration;

    /** {@return whether {@code loop} is an {@link IoEventLoop} that can drive {@code handle}'s class} */
    static boolean isCompatible(EventLoop loop, Class<? extends RdmaIoHandle> handle) {
        return loop instanceof IoEventLoop && ((IoEventLoop) loop).isCompatible(handle);
    }

    /** Registers {@code handle} with {@code loop} and completes {@code promise} when that is done (or failed). */
    void register(EventLoop loop, RdmaIoHandle handle, ChannelPromise promise) {
        ((IoEventLoop) loop).register(handle).addListener(f -> {
            if (f.isSuccess()) {
                registration = (IoRegistration) f.getNow();
                promise.setSuccess();
            } else {
                promise.setFailure(f.cause());
            }
        });
    }

    /** Cancels the registration, if there is one. */
    void cancel() {
        IoRegistration r = registration;
        if (r != null) {
            registration = null;
            r.cancel();
        }
    }
}
