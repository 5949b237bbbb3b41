package org.verbs4j.endpoint;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The out-of-band TCP exchange of {@link ConnectionMode#MANUAL}, on Netty: a listener that queues accepted
 * connections, and connections whose bytes are read with a deadline. Only the connection set-up uses it; the
 * data path never touches TCP.
 */
final class TcpExchange implements AutoCloseable {
    private final EventLoopGroup group;
    private final Channel server;
    private final BlockingQueue<Peer> accepted;

    private TcpExchange(EventLoopGroup group, Channel server, BlockingQueue<Peer> accepted) {
        this.group = group;
        this.server = server;
        this.accepted = accepted;
    }

    private static EventLoopGroup newGroup(String name) {
        return new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory(name, true), NioIoHandler.newFactory());
    }

    /** Listens on {@code address} (port 0 picks one). */
    static TcpExchange listen(InetSocketAddress address, int backlog) {
        EventLoopGroup group = newGroup("verbs4j-endpoint-listen");
        BlockingQueue<Peer> accepted = new LinkedBlockingQueue<>();
        try {
            ChannelFuture f = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .option(ChannelOption.SO_BACKLOG, backlog).option(ChannelOption.SO_REUSEADDR, true)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            Peer p = new Peer(ch, null);
                            ch.pipeline().addLast(p.inbox);
                            accepted.add(p);
                        }
                    }).bind(address);
            f.syncUninterruptibly();
            return new TcpExchange(group, f.channel(), accepted);
        } catch (RuntimeException e) {
            group.shutdownGracefully(0, 100, TimeUnit.MILLISECONDS);
            throw new EndpointException("cannot listen on " + address + " for the TCP exchange: " + e.getMessage()
                    + " (is the port in use, or the address not on this host?)", e);
        }
    }

    /** Connects to {@code address}; the connection owns its own event loop. */
    static Peer connect(InetSocketAddress address, Duration timeout) {
        EventLoopGroup group = newGroup("verbs4j-endpoint-connect");
        Inbox inbox = new Inbox();
        try {
            ChannelFuture f = new Bootstrap().group(group).channel(NioSocketChannel.class)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, timeout.toMillis()))
                    .handler(inbox).connect(address);
            if (!f.awaitUninterruptibly(timeout.toMillis() + 1000) || !f.isSuccess()) {
                Throwable cause = f.cause();
                f.channel().close();
                throw new EndpointException("cannot connect to " + address + " for the TCP exchange: "
                        + (cause == null ? "timed out after " + timeout.toMillis() + " ms" : cause.getMessage())
                        + " (is the server listening, and the port open in the firewall?)", cause);
            }
            return new Peer(f.channel(), group, inbox);
        } catch (RuntimeException e) {
            group.shutdownGracefully(0, 100, TimeUnit.MILLISECONDS);
            throw e;
        }
    }

    /** The address the listener is bound to. */
    InetSocketAddress localAddress() {
        return (InetSocketAddress) server.localAddress();
    }

    /** The next accepted connection, or {@code null} after {@code timeout}. */
    Peer accept(Duration timeout) {
        try {
            return accepted.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EndpointException("interrupted while waiting for a connection", e);
        }
    }

    boolean isOpen() {
        return server.isOpen();
    }

    @Override
    public void close() {
        server.close().awaitUninterruptibly(1000);
        Peer p;
        while ((p = accepted.poll()) != null) {
            p.close();
        }
        group.shutdownGracefully(0, 100, TimeUnit.MILLISECONDS).awaitUninterruptibly(2000);
    }

    /** One TCP connection: blocking reads with a deadline, writes. */
    static final class Peer implements AutoCloseable {
        private final Channel channel;
        private final EventLoopGroup ownGroup;
        final Inbox inbox;

        Peer(Channel channel, EventLoopGroup ownGroup) {
            this(channel, ownGroup, new Inbox());
        }

        Peer(Channel channel, EventLoopGroup ownGroup, Inbox inbox) {
            this.channel = channel;
            this.ownGroup = ownGroup;
            this.inbox = inbox;
        }

        String remote() {
            SocketAddress a = channel.remoteAddress();
            return a == null ? "?" : a.toString().replaceFirst("^/", "");
        }

        void write(byte[] data) {
            ChannelFuture f = channel.writeAndFlush(Unpooled.wrappedBuffer(data)).awaitUninterruptibly();
            if (!f.isSuccess()) {
                throw new EndpointException("TCP exchange with " + remote() + ": write failed: "
                        + f.cause().getMessage(), f.cause());
            }
        }

        /** Exactly {@code n} bytes, or an exception when the peer closed or {@code timeout} passed. */
        byte[] read(int n, Duration timeout, String what) {
            return inbox.take(n, System.nanoTime() + timeout.toNanos(), what, remote());
        }

        @Override
        public void close() {
            channel.close().awaitUninterruptibly(1000);
            if (ownGroup != null) {
                ownGroup.shutdownGracefully(0, 100, TimeUnit.MILLISECONDS);
            }
        }
    }

    /** Collects what arrives on a connection until a reader takes it. */
    static final class Inbox extends ChannelInboundHandlerAdapter {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private boolean closed;
        private Throwable error;

        @Override
        public boolean isSharable() {
            return false;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf b = (ByteBuf) msg;
            try {
                byte[] a = new byte[b.readableBytes()];
                b.readBytes(a);
                synchronized (this) {
                    bytes.write(a, 0, a.length);
                    notifyAll();
                }
            } finally {
                b.release();
            }
        }

        @Override
        public synchronized void channelInactive(ChannelHandlerContext ctx) {
            closed = true;
            notifyAll();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            synchronized (this) {
                error = cause;
                notifyAll();
            }
            ctx.close();
        }

        synchronized byte[] take(int n, long deadline, String what, String peer) {
            while (bytes.size() < n) {
                if (error != null) {
                    throw new EndpointException("TCP exchange with " + peer + " failed while reading " + what + ": "
                            + error.getMessage(), error);
                }
                if (closed) {
                    throw new EndpointException("the peer " + peer + " closed the TCP exchange after " + bytes.size()
                            + " of the " + n + " bytes of " + what + " (is it a verbs4j endpoint in manual mode?)");
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new EndpointException("TCP exchange with " + peer + ": " + what + " did not arrive in time ("
                            + bytes.size() + " of " + n + " bytes)");
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new EndpointException("interrupted during the TCP exchange", e);
                }
            }
            byte[] all = bytes.toByteArray();
            byte[] out = new byte[n];
            System.arraycopy(all, 0, out, 0, n);
            bytes.reset();
            bytes.write(all, n, all.length - n);
            return out;
        }
    }
}
