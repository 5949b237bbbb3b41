package org.verbs4j.bench.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.io.PrintStream;
import java.nio.ByteBuffer;

/**
 * A netty-perf server's connection on a Netty transport ({@link ServerStream}): echoes, or checks and counts. The
 * echo writes the received buffer itself (no copy, no allocation: {@code voidPromise}) and flushes once per read
 * batch.
 */
final class NettyServerHandler extends ChannelInboundHandlerAdapter {
    private final ServerStream stream;
    private final PrintStream err;

    NettyServerHandler(String what, PrintStream err) {
        this.stream = new ServerStream(what);
        this.err = err;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf buf = (ByteBuf) msg;
        try {
            while (buf.isReadable()) {
                if (stream.echoing()) {
                    ctx.write(buf, ctx.voidPromise());
                    buf = null;
                    return;
                }
                int n = buf.readableBytes();
                ByteBuffer view = buf.nioBufferCount() == 1 ? buf.internalNioBuffer(buf.readerIndex(), n) : buf.nioBuffer();
                buf.skipBytes(stream.feed(view, view.position(), n));
                if (stream.takeAck()) {
                    ctx.writeAndFlush(ctx.alloc().ioBuffer(ServerStream.ACK_BYTES).writeLong(stream.roundBytes()),
                            ctx.voidPromise());
                }
            }
        } finally {
            if (buf != null) {
                buf.release();
            }
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        ctx.flush();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (!(cause instanceof java.io.IOException)) { // an IOException: the client went away, which ends its test
            err.println("netty-perf server: " + ctx.channel() + ": " + cause.getMessage());
        }
        ctx.close();
    }
}
