package org.verbs4j.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import java.net.InetSocketAddress;

/**
 * A client in a JVM of its own, for {@link PeerProcessKilledTest}: connects to {@code host port}, prints
 * {@code connected}, then writes without end (while writable) until its process is killed.
 */
public final class StreamingPeer {
    private StreamingPeer() {
    }

    /**
     * Runs the peer.
     *
     * @param args host and port of the server
     * @throws Exception when it cannot connect
     */
    public static void main(String[] args) throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory());
        byte[] chunk = new byte[16384];
        Channel ch = new Bootstrap().group(group).channel(RdmaChannel.class)
                .option(RdmaChannelOption.MESSAGE_SIZE, Loopback.MESSAGE_SIZE)
                .handler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelActive(ChannelHandlerContext ctx) {
                        write(ctx);
                    }

                    @Override
                    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
                        write(ctx);
                    }

                    private void write(ChannelHandlerContext ctx) {
                        while (ctx.channel().isWritable()) {
                            ctx.writeAndFlush(Unpooled.wrappedBuffer(chunk));
                        }
                    }
                })
                .connect(new InetSocketAddress(args[0], Integer.parseInt(args[1]))).sync().channel();
        System.out.println("connected");
        System.out.flush();
        ch.closeFuture().sync();
    }
}
