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
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The out-of-band TCP exchange of {@link ConnectionMode#MANUAL}, on Netty: a listener that hands each connection
 * to a {@link Gate} once its first message is complete, and connections whose bytes are read with a deadline.
 * Only the connection set-up uses it; the data path never touches TCP.
 *
 * <p>Every connection is bounded: its bytes go into a fixed buffer of the size of the message expected next
 * (a peer that sends more is dropped), a listener holds at most {@link Limits#maxPending} connections open (one
 * beyond is closed at once), and each listened connection has a deadline for its whole exchange. Nothing on the
 * event loop blocks, so a silent peer delays no other.
 */
final class TcpExchange implements AutoCloseable {
    /** A listener's bounds: the first message's size, the most connections open at once, each one's deadline. */
    record Limits(int firstMessage, int maxPending, Duration timeout) {
    }

    /** What a listener does with its connections; called on the event loop, so it must not block. */
    interface Gate {
        /** Checks a peer's complete first message; throws {@link EndpointException} saying what is wrong. */
        void check(byte[] first, String peer);

        /** Takes a peer whose first message ({@link Peer#first()}) passed {@link #check}. */
        void admit(Peer peer);

        /** Says that {@code peer} was dropped, and why (a log line). */
        void dropped(String peer, String reason);
    }

    private final EventLoopGroup group;
    private final Channel server;
    private final AtomicInteger open;

    private TcpExchange(EventLoopGroup group, Channel server, AtomicInteger open) {
        this.group = group;
        this.server = server;
        this.open = open;
    }

    private static EventLoopGroup newGroup(String name) {
        return new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory(name, true), NioIoHandler.newFactory());
    }

    /** Listens on {@code address} (port 0 picks one); every connection goes through {@code gate}. */
    static TcpExchange listen(InetSocketAddress address, int backlog, Limits limits, Gate gate) {
        EventLoopGroup group = newGroup("verbs4j-endpoint-listen");
        AtomicInteger open = new AtomicInteger();
        try {
            ChannelFuture f = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .option(ChannelOption.SO_BACKLOG, backlog).option(ChannelOption.SO_REUSEADDR, true)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            admit(ch, limits, gate, open);
                        }
                    }).bind(address);
            f.syncUninterruptibly();
            return new TcpExchange(group, f.channel(), open);
        } catch (RuntimeException e) {
            group.shutdownGracefully(0, 100, TimeUnit.MILLISECONDS);
            throw new EndpointException("cannot listen on " + address + " for the TCP exchange: " + e.getMessage()
                    + " (is the port in use, or the address not on this host?)", e);
        }
    }

    private static void admit(SocketChannel ch, Limits limits, Gate gate, AtomicInteger open) {
        String who = name(ch.remoteAddress());
        if (open.incrementAndGet() > limits.maxPending()) {
            open.decrementAndGet();
            gate.dropped(who, limits.maxPending() + " TCP exchanges are pending already "
                    + "(EndpointOptions.maxPendingHandshakes): closed at once");
            ch.close(); // after the log line, so that a peer that sees EOF finds it written
            return;
        }
        ch.closeFuture().addListener(f -> open.decrementAndGet());
        long deadline = System.nanoTime() + limits.timeout().toNanos();
        Peer p = new Peer(ch, null, new Inbox(limits.firstMessage()), who, deadline, gate);
        p.inbox.onFirst = first -> {
            p.first = first;
            try {
                gate.check(first, who);
            } catch (EndpointException e) {
                p.drop(e.getMessage());
                return;
            }
            p.admitted = true; // from here on the server works: its own time does not count against the peer
            gate.admit(p);
        };
        p.inbox.onOverflow = p::drop;
        var timer = ch.eventLoop().schedule(() -> {
            if (!p.finished.get() && !p.admitted) {
                p.drop("no complete TCP exchange within " + limits.timeout().toMillis() + " ms ("
                        + p.inbox.received() + " bytes received; EndpointOptions.handshakeTimeout)");
            }
        }, limits.timeout().toNanos(), TimeUnit.NANOSECONDS);
        ch.closeFuture().addListener(f -> timer.cancel(false));
        ch.pipeline().addLast(p.inbox);
    }

    /**
     * Connects to {@code address} from {@code local} (null: any); the connection owns its own event loop and reads at
     * most {@code capacity} bytes ahead.
     */
    static Peer connect(InetSocketAddress address, InetSocketAddress local, Duration timeout, int capacity) {
        EventLoopGroup group = newGroup("verbs4j-endpoint-connect");
        Inbox inbox = new Inbox(capacity);
        try {
            ChannelFuture f = new Bootstrap().group(group).channel(NioSocketChannel.class)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, timeout.toMillis()))
                    .handler(inbox).connect(address, local);
            if (!f.awaitUninterruptibly(timeout.toMillis() + 1000) || !f.isSuccess()) {
                Throwable cause = f.cause();
                f.channel().close();
                throw new EndpointException("cannot connect to " + address + " for the TCP exchange: "
                        + (cause == null ? "timed out after " + timeout.toMillis() + " ms" : cause.getMessage())
                        + " (is the server listening, and the port open in the firewall?)", cause);
            }
            return new Peer(f.channel(), group, inbox, name(f.channel().remoteAddress()), 0, null);
        } catch (RuntimeException e) {
            group.shutdownGracefully(0, 100, TimeUnit.MILLISECONDS);
            throw e;
        }
    }

    private static String name(SocketAddress a) {
        return a == null ? "?" : a.toString().replaceFirst("^/", "");
    }

    /** The address the listener is bound to. */
    InetSocketAddress localAddress() {
        return (InetSocketAddress) server.localAddress();
    }

    /** The listener's connections open now (each counts against {@link Limits#maxPending}). */
    int pending() {
        return open.get();
    }

    boolean isOpen() {
        return server.isOpen();
    }

    /** Stops listening and closes every connection still open. */
    @Override
    public void close() {
        server.close().awaitUninterruptibly(1000);
        group.shutdownGracefully(0, 100, TimeUnit.MILLISECONDS).awaitUninterruptibly(2000);
    }

    /** One TCP connection: blocking reads with a deadline, writes. */
    static final class Peer implements AutoCloseable {
        private final Channel channel;
        private final EventLoopGroup ownGroup;
        private final Inbox inbox;
        private final String remote;
        /** A listened connection's deadline for its first message ({@link System#nanoTime}); 0: none. */
        private final long deadline;
        private final Gate gate;
        private final AtomicBoolean finished = new AtomicBoolean();
        /** The first message passed the check: the deadline is over, each later read has its own time-out. */
        private volatile boolean admitted;
        private volatile byte[] first;

        private Peer(Channel channel, EventLoopGroup ownGroup, Inbox inbox, String remote, long deadline, Gate gate) {
            this.channel = channel;
            this.ownGroup = ownGroup;
            this.inbox = inbox;
            this.remote = remote;
            this.deadline = deadline;
            this.gate = gate;
        }

        String remote() {
            return remote;
        }

        /** A listened connection's first message, once complete. */
        byte[] first() {
            return first;
        }

        void write(byte[] data) {
            ChannelFuture f = channel.writeAndFlush(Unpooled.wrappedBuffer(data)).awaitUninterruptibly();
            if (!f.isSuccess()) {
                throw new EndpointException("TCP exchange with " + remote + ": write failed: "
                        + f.cause().getMessage(), f.cause());
            }
        }

        /**
         * Exactly {@code n} bytes, or an exception when the peer closed, sent more than expected, or
         * {@code timeout} (or a listened connection's deadline) passed.
         */
        byte[] read(int n, Duration timeout, String what) {
            long end = System.nanoTime() + timeout.toNanos();
            if (deadline != 0 && !admitted && deadline - end < 0) {
                end = deadline;
            }
            return inbox.take(n, end, what, remote);
        }

        /** Ends the exchange of a listened connection well: its deadline no longer drops it. Closes it. */
        void finish() {
            finished.set(true);
            close();
        }

        /** Drops the peer: one log line through the gate (the first reason only), and the connection closed. */
        void drop(String reason) {
            if (finished.compareAndSet(false, true) && gate != null) {
                gate.dropped(remote, reason);
            }
            channel.close();
        }

        @Override
        public void close() {
            channel.close().awaitUninterruptibly(1000);
            if (ownGroup != null) {
                ownGroup.shutdownGracefully(0, 100, TimeUnit.MILLISECONDS);
            }
        }
    }

    /**
     * Collects what arrives on a connection, into a fixed buffer, until a reader takes it. More unread bytes
     * than the buffer holds is a peer that does not follow the exchange: the connection is closed.
     */
    static final class Inbox extends ChannelInboundHandlerAdapter {
        private final byte[] buf;
        private int count;
        private long received;
        private boolean closed;
        private Throwable error;
        /** A listened connection: takes the first message when the buffer is full (event loop). */
        Consumer<byte[]> onFirst;
        /** A listened connection: drops the peer that overflowed the buffer (event loop). */
        Consumer<String> onOverflow;

        Inbox(int capacity) {
            this.buf = new byte[capacity];
        }

        @Override
        public boolean isSharable() {
            return false;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf b = (ByteBuf) msg;
            byte[] first = null;
            String overflow = null;
            try {
                int n = b.readableBytes();
                synchronized (this) {
                    received += n;
                    if (error != null) {
                        return;
                    }
                    if (n > buf.length - count) {
                        overflow = "sent more than the " + buf.length + " bytes expected (" + received
                                + " bytes received): not a verbs4j endpoint in manual mode";
                        error = new EndpointException(overflow);
                        notifyAll();
                    } else {
                        b.readBytes(buf, count, n);
                        count += n;
                        if (onFirst != null && count == buf.length) {
                            first = buf.clone();
                            count = 0;
                        } else {
                            notifyAll();
                        }
                    }
                }
            } finally {
                b.release();
            }
            if (overflow != null) {
                if (onOverflow != null) {
                    onOverflow.accept(overflow);
                }
                ctx.close();
            } else if (first != null) {
                Consumer<byte[]> f = onFirst;
                onFirst = null;
                f.accept(first);
            }
        }

        synchronized long received() {
            return received;
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
            if (n > buf.length) {
                throw new IllegalArgumentException(n + " bytes of " + what + " exceed the inbox (" + buf.length + ")");
            }
            while (count < n) {
                if (error != null) {
                    throw new EndpointException("TCP exchange with " + peer + " failed while reading " + what + ": "
                            + error.getMessage(), error);
                }
                if (closed) {
                    throw new EndpointException("the peer " + peer + " closed the TCP exchange after " + count
                            + " of the " + n + " bytes of " + what + " (is it a verbs4j endpoint in manual mode?)");
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new EndpointException("TCP exchange with " + peer + ": " + what + " did not arrive in time ("
                            + count + " of " + n + " bytes)");
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new EndpointException("interrupted during the TCP exchange", e);
                }
            }
            byte[] out = new byte[n];
            System.arraycopy(buf, 0, out, 0, n);
            System.arraycopy(buf, n, buf, 0, count - n);
            count -= n;
            return out;
        }
    }
}
