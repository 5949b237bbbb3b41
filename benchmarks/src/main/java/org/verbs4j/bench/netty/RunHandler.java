package org.verbs4j.bench.netty;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.concurrent.CompletableFuture;

/**
 * A client handler that runs one measured round at a time on its channel's event loop ({@link PingPongHandler},
 * {@link StreamHandler}): its context, the round's future, and the round's end by an exception or a closed
 * connection.
 *
 * @param <T> what a round's future carries
 */
abstract class RunHandler<T> extends ChannelInboundHandlerAdapter {
    /** The handler's context, from {@link #handlerAdded}. */
    ChannelHandlerContext ctx;
    /** The running round's future; null before the first. */
    CompletableFuture<T> finished;

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    /** Ends the round with {@code t} and closes the channel. */
    final void fail(Throwable t) {
        if (finished != null) {
            finished.completeExceptionally(t);
        }
        ctx.close();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        fail(cause);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (finished != null && !finished.isDone()) {
            finished.completeExceptionally(new IllegalStateException("the server closed the connection"));
        }
    }
}
