package org.verbs4j.netty;

import io.netty.channel.AbstractServerChannel;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.verbs4j.endpoint.EndpointException;
import org.verbs4j.endpoint.EndpointServer;
import org.verbs4j.endpoint.Endpoints;
import org.verbs4j.endpoint.RdmaEndpoint;

/**
 * A server channel over a verbs4j {@link EndpointServer}: what {@code NioServerSocketChannel} is over a TCP
 * listener. It binds an rdma_cm address (an IP address of an RDMA device's net device, or {@code 0.0.0.0}) and
 * turns each connected peer into an {@link RdmaChannel}.
 *
 * <pre>{@code
 * EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, RdmaIoHandler.newFactory());
 * Channel server = new ServerBootstrap().group(group).channel(RdmaServerChannel.class)
 *         .option(RdmaChannelOption.MESSAGE_SIZE, 16384)         // the accepted endpoints' shape
 *         .childHandler(new EchoHandler())
 *         .bind(new InetSocketAddress("10.0.0.1", 7471)).sync().channel();
 * }</pre>
 *
 * <p>The endpoint server connects peers on threads of its own; a thread of this channel waits for them and hands
 * each to the event loop, which fires it when the channel reads (auto-read, or a {@code read()}). The accepted
 * endpoints have the server channel's {@link RdmaChannelOption}s. The accepted channels' connections belong to
 * the endpoint server: closing the server channel stops accepting at once, and frees the endpoint server when its
 * last accepted channel has closed (peers that connect meanwhile are disconnected).
 */
public final class RdmaServerChannel extends AbstractServerChannel {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaServerChannel.class);
    /** How often the accepting thread looks whether the channel closed. */
    private static final Duration ACCEPT_WAIT = Duration.ofMillis(250);

    private final RdmaChannelConfig config;
    private final AtomicInteger children = new AtomicInteger();
    private volatile boolean open = true;
    private volatile EndpointServer server;
    private volatile InetSocketAddress local;
    private boolean serverClosed;

    // the event loop's
    private final ArrayDeque<RdmaEndpoint> accepted = new ArrayDeque<>();
    private final RdmaRegistration registration = new RdmaRegistration();
    private boolean readPending;

    /** {@code ServerBootstrap.channel(RdmaServerChannel.class)} makes it. */
    public RdmaServerChannel() {
        this.config = new RdmaChannelConfig(this);
    }

    @Override
    public RdmaChannelConfig config() {
        return config;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public boolean isActive() {
        return open && server != null;
    }

    @Override
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) super.localAddress();
    }

    @Override
    protected SocketAddress localAddress0() {
        return local;
    }

    @Override
    protected boolean isCompatible(EventLoop loop) {
        return RdmaRegistration.isCompatible(loop, ServerUnsafe.class);
    }

    @Override
    protected AbstractUnsafe newUnsafe() {
        return new ServerUnsafe();
    }

    @Override
    protected void doRegister(ChannelPromise promise) {
        registration.register(eventLoop(), (ServerUnsafe) unsafe(), promise);
    }

    @Override
    protected void doDeregister() {
        registration.cancel();
    }

    @Override
    protected void doBind(SocketAddress localAddress) {
        if (!(localAddress instanceof InetSocketAddress)) {
            throw new UnsupportedOperationException("an RdmaServerChannel binds an InetSocketAddress, not " + localAddress);
        }
        // the accepted endpoints get a completion channel: their event loop sleeps on it
        EndpointServer s = Endpoints.listen((InetSocketAddress) localAddress,
                config.getEndpointOptions().completionChannel(true));
        local = s.address();
        server = s;
        Thread acceptor = new Thread(() -> acceptLoop(s), "verbs4j-netty-accept-" + local);
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** The accepting thread: waits for connected peers and hands them to the event loop, until the server closes. */
    private void acceptLoop(EndpointServer s) {
        while (!s.isClosed()) {
            RdmaEndpoint ep;
            try {
                ep = s.accept(ACCEPT_WAIT);
            } catch (EndpointException e) {
                if (e.getMessage() == null || !e.getMessage().startsWith("no peer")) {
                    // this side failed to make a peer's endpoint (its device, its resources): say so, do not spin
                    LOG.warn("{}: a connection could not be accepted: {}", this, e.getMessage());
                    pause();
                }
                continue; // otherwise none came in time
            } catch (IllegalStateException e) {
                return; // closed
            }
            if (!open) {
                ep.close(); // after the channel closed: disconnected
                continue;
            }
            try {
                eventLoop().execute(() -> arrived(ep));
            } catch (RejectedExecutionException e) {
                ep.close();
            }
        }
    }

    private static void pause() {
        try {
            Thread.sleep(ACCEPT_WAIT.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void arrived(RdmaEndpoint ep) {
        if (!open) {
            ep.close();
            return;
        }
        if (Math.min(ep.options().messageSize(), ep.peerMessageSize()) < RdmaChannel.MIN_SLOT_BYTES) {
            LOG.warn("{}: a connection from {} closed: {}", this, ep.remoteAddress(),
                    RdmaChannel.tooSmall(ep.options().messageSize(), ep.peerMessageSize()));
            ep.close();
            return;
        }
        accepted.add(ep);
        if (readPending || config.isAutoRead()) {
            deliver();
        }
    }

    private int deliver() {
        readPending = false;
        ChannelPipeline p = pipeline();
        int n = 0;
        RdmaEndpoint ep;
        while ((ep = accepted.poll()) != null) {
            children.incrementAndGet();
            p.fireChannelRead(new RdmaChannel(this, ep, local));
            n++;
        }
        if (n > 0) {
            p.fireChannelReadComplete();
        }
        return n;
    }

    /** An accepted channel closed (on its own event loop). */
    void childClosed() {
        if (children.decrementAndGet() == 0 && !open) {
            closeServer();
        }
    }

    private void closeServer() {
        EndpointServer s = server;
        synchronized (this) {
            if (s == null || serverClosed) {
                return;
            }
            serverClosed = true;
        }
        try {
            s.close();
        } catch (RuntimeException e) {
            LOG.debug("{}: closing the endpoint server", this, e);
        }
    }

    @Override
    protected void doBeginRead() {
        readPending = true;
    }

    @Override
    protected void doClose() {
        open = false;
        RdmaEndpoint ep;
        while ((ep = accepted.poll()) != null) {
            ep.close();
        }
        if (children.get() == 0) {
            closeServer();
        }
    }

    private final class ServerUnsafe extends AbstractUnsafe implements RdmaIoHandle {
        @Override
        public void connect(SocketAddress remoteAddress, SocketAddress localAddress, ChannelPromise promise) {
            safeSetFailure(promise, new UnsupportedOperationException("a server channel does not connect"));
        }

        @Override
        public int poll() {
            if (open && !accepted.isEmpty() && (readPending || config.isAutoRead())) {
                return deliver();
            }
            return 0;
        }

        @Override
        public void close() {
            close(voidPromise());
        }
    }
}
