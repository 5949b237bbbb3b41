package org.verbs4j.examples.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.verbs4j.netty.RdmaChannel;
import org.verbs4j.netty.RdmaChannelOption;
import org.verbs4j.netty.RdmaIoHandler;
import org.verbs4j.netty.RdmaServerChannel;

/**
 * Netty's echo over RDMA, with verbs4j's transport ({@code org.verbs4j.netty}): the server writes back what it
 * reads; the client sends {@code COUNT} messages of {@code SIZE} random bytes one after the other, checks each echo
 * byte for byte and prints the round-trip times. With {@code -r BYTES} on both sides, each side's channel has an RDMA
 * region of that many bytes and writes of 64 KiB and more go by rendezvous (one RDMA READ by the receiver). With
 * {@code -z}, each side writes buffers of its channel's registered allocator
 * ({@link RdmaChannelOption#REGISTERED_ALLOCATOR}): with a region, large ones live in it and go without a copy.
 *
 * <pre>
 * netty-echo server [-p PORT] [-r BYTES] [-z] [ADDRESS]      (default 127.0.0.1: the software iWARP device jsiw_lo)
 * netty-echo client [-p PORT] [-r BYTES] [-z] [-s SIZE] [-n COUNT] [ADDRESS]
 * </pre>
 */
public final class NettyEcho {
    private static final String USAGE = "usage: netty-echo server [-p PORT] [-r BYTES] [-z] [ADDRESS]\n"
            + "       netty-echo client [-p PORT] [-r BYTES] [-z] [-s SIZE] [-n COUNT] [ADDRESS]\n"
            + "ADDRESS: an IP address of an RDMA device's net device (default 127.0.0.1, the software device jsiw_lo);"
            + " PORT 7480, SIZE 65536 (K, M allowed), COUNT 100; -r: the RDMA region (K, M allowed; both sides; 0 default): writes"
            + " of 64 KiB and more go by rendezvous; -z: write buffers of the channel's registered allocator (with -r,"
            + " large ones live in the region and go without a copy)";

    private NettyEcho() {
    }

    /**
     * Runs the server or the client.
     *
     * @param args {@code server} or {@code client}, then the options
     */
    public static void main(String[] args) {
        if (args.length > 0 && (args[0].equals("-h") || args[0].equals("--help"))) {
            System.out.println(USAGE);
            return;
        }
        int port = 7480;
        int size = 65536;
        int count = 100;
        int region = 0;
        boolean zeroCopy = false;
        String address = "127.0.0.1";
        try {
            if (args.length == 0 || !(args[0].equals("server") || args[0].equals("client"))) {
                throw new IllegalArgumentException("say server or client");
            }
            for (int i = 1; i < args.length; i++) {
                switch (args[i]) {
                    case "-p" -> port = Integer.parseInt(args[++i]);
                    case "-s" -> size = bytes(args[++i]);
                    case "-n" -> count = Integer.parseInt(args[++i]);
                    case "-r" -> region = bytes(args[++i]);
                    case "-z" -> zeroCopy = true;
                    default -> {
                        if (args[i].startsWith("-") || i != args.length - 1) {
                            throw new IllegalArgumentException("unknown argument " + args[i]);
                        }
                        address = args[i];
                    }
                }
            }
            if (size < 1 || count < 1) {
                throw new IllegalArgumentException("SIZE and COUNT must be at least 1");
            }
            if (region < 0) {
                throw new IllegalArgumentException("-r BYTES must be 0 or more");
            }
        } catch (RuntimeException e) {
            System.err.println("netty-echo: " + e.getMessage() + "\n" + USAGE);
            System.exit(2);
        }
        InetSocketAddress at = new InetSocketAddress(address, port);
        try {
            if (args[0].equals("server")) {
                server(at, region, zeroCopy);
            } else {
                client(at, size, count, region, zeroCopy);
            }
        } catch (Exception e) {
            System.err.println("netty-echo " + args[0] + ": " + e);
            System.exit(1);
        }
    }

    /**
     * Writes back what it reads, or with {@code fromAllocator} a copy in a buffer of the channel's allocator (the
     * registered one: no further copy on the way out); one flush per read batch.
     */
    @ChannelHandler.Sharable
    static final class EchoHandler extends ChannelInboundHandlerAdapter {
        private final boolean fromAllocator;

        EchoHandler(boolean fromAllocator) {
            this.fromAllocator = fromAllocator;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!fromAllocator) {
                ctx.write(msg);
                return;
            }
            ByteBuf in = (ByteBuf) msg;
            try {
                ctx.write(ctx.alloc().directBuffer(in.readableBytes()).writeBytes(in));
            } finally {
                in.release();
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            System.err.println("netty-echo server: " + ctx.channel() + ": " + cause.getMessage());
            ctx.close();
        }
    }

    /** {@return {@code text} as bytes: a number, with K or M for KiB or MiB} */
    static int bytes(String text) {
        String t = text.trim().toUpperCase(java.util.Locale.ROOT);
        int shift = t.endsWith("K") ? 10 : t.endsWith("M") ? 20 : 0;
        long n = Long.parseLong(shift == 0 ? t : t.substring(0, t.length() - 1)) << shift;
        if (n > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(text + ": at most " + Integer.MAX_VALUE + " bytes");
        }
        return (int) n;
    }

    static void server(InetSocketAddress at, int region, boolean zeroCopy) throws InterruptedException {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory());
        try {
            Channel server = bind(group, at, region, zeroCopy);
            System.out.println("netty-echo server: listening on " + server.localAddress() + ", waiting for a connection");
            server.closeFuture().sync();
        } finally {
            group.shutdownGracefully();
        }
    }

    /**
     * The echo server's channel, bound to {@code at}: 16 KiB slots, an RDMA region of {@code region} bytes per
     * connection (0: none), an {@link EchoHandler} per connection; with {@code zeroCopy} the registered allocator,
     * which the echo writes from.
     */
    static Channel bind(EventLoopGroup group, InetSocketAddress at, int region, boolean zeroCopy)
            throws InterruptedException {
        return new ServerBootstrap().group(group).channel(RdmaServerChannel.class)
                .option(RdmaChannelOption.MESSAGE_SIZE, 16384)
                .option(RdmaChannelOption.RDMA_REGION_SIZE, region)
                .childOption(RdmaChannelOption.REGISTERED_ALLOCATOR, zeroCopy)
                .childHandler(new EchoHandler(zeroCopy))
                .bind(at).sync().channel();
    }

    /** Sends one message at a time and completes {@link #echoed} when its bytes all came back. */
    static final class Client extends ChannelInboundHandlerAdapter {
        final byte[] received;
        int filled;
        CompletableFuture<byte[]> echoed = new CompletableFuture<>();

        Client(int size) {
            received = new byte[size];
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf b = (ByteBuf) msg;
            int n = Math.min(b.readableBytes(), received.length - filled);
            b.readBytes(received, filled, n);
            filled += n;
            b.release();
            if (filled == received.length) {
                filled = 0;
                echoed.complete(received.clone());
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            echoed.completeExceptionally(cause);
            ctx.close();
        }
    }

    /**
     * Sends {@code count} echoes of {@code size} bytes and checks them; with {@code zeroCopy} each from a buffer of
     * the channel's registered allocator.
     */
    static void client(InetSocketAddress at, int size, int count, int region, boolean zeroCopy) throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory());
        try {
            Client handler = new Client(size);
            Channel ch = new Bootstrap().group(group).channel(RdmaChannel.class)
                    .option(RdmaChannelOption.MESSAGE_SIZE, 16384)
                    .option(RdmaChannelOption.RDMA_REGION_SIZE, region)
                    .option(RdmaChannelOption.REGISTERED_ALLOCATOR, zeroCopy)
                    .handler(handler)
                    .connect(at).sync().channel();
            System.out.println("netty-echo client: connected to " + ch.remoteAddress() + " over RDMA" + (region == 0 ? ""
                    : ", an RDMA region of " + region + " bytes: writes of 64 KiB and more by rendezvous")
                    + (zeroCopy ? "; writing from the channel's registered allocator" : ""));
            Random random = new Random(size);
            long[] rtt = new long[count];
            for (int i = 0; i < count; i++) {
                byte[] sent = new byte[size];
                random.nextBytes(sent);
                long t0 = System.nanoTime();
                // the registered allocator's buffer: a send slot, or with a region a large buffer in it, not copied
                ch.writeAndFlush(zeroCopy ? ch.alloc().directBuffer(size).writeBytes(sent) : Unpooled.wrappedBuffer(sent));
                byte[] got = handler.echoed.get(30, TimeUnit.SECONDS);
                rtt[i] = System.nanoTime() - t0;
                handler.echoed = new CompletableFuture<>();
                if (!Arrays.equals(sent, got)) {
                    throw new IllegalStateException("echo " + i + " differs from what was sent");
                }
            }
            ch.close().sync();
            Arrays.sort(rtt);
            System.out.printf("netty-echo client: %d echoes of %d bytes, every byte checked; round trip min %.1f us, "
                    + "median %.1f us, max %.1f us%n", count, size, rtt[0] / 1e3, rtt[count / 2] / 1e3,
                    rtt[count - 1] / 1e3);
        } finally {
            group.shutdownGracefully();
        }
    }
}
