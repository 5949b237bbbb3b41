package org.verbs4j.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import java.util.concurrent.CompletableFuture;

/**
 * An echo that answers each message with a copy in a buffer of its channel's allocator (the registered allocator
 * when the channel has it on: a send slot, or a region buffer), keeping the accepted channel and the exceptions its
 * channel saw. For one connection.
 */
class AllocatorEcho extends RendezvousTest.EchoWatch {
    final CompletableFuture<RdmaChannel> accepted = new CompletableFuture<>();

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        accepted.complete((RdmaChannel) ctx.channel());
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf in = (ByteBuf) msg;
        ByteBuf out = ctx.alloc().directBuffer(in.readableBytes()).writeBytes(in);
        in.release();
        ctx.write(out);
    }
}
