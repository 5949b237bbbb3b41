package org.verbs4j.bench.netty;

import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.verbs4j.netty.RdmaChannelOption;

/**
 * A netty-perf server: every transport's listener at once, on ports {@code PORT} to {@code PORT + 4}
 * ({@link Transport}): Netty over verbs4j, the endpoint API, Netty NIO, then gRPC over each Netty transport. Each
 * Netty transport has one event loop for its channels (and another for gRPC).
 */
final class PerfServers implements AutoCloseable {
    private final List<EventLoopGroup> groups = new ArrayList<>();
    private final List<Channel> channels = new ArrayList<>();
    private final List<Server> grpc = new ArrayList<>();
    private RawServer raw;
    private EventLoopGroup rdmaGroup;
    private EventLoopGroup nioGroup;

    private final long spinNanos;
    private final long maxParkNanos;

    PerfServers(NettyPerfOptions o, PrintStream err) throws InterruptedException {
        spinNanos = o.rdmaSpinNanos;
        maxParkNanos = o.rdmaMaxParkNanos;
        boolean ok = false;
        try {
            rdmaGroup = newGroup(Transport.NETTY_RDMA);
            channels.add(bind(o, Transport.NETTY_RDMA, rdmaGroup, err));
            raw = new RawServer(o.serverAddress(Transport.RAW.portOffset), o.endpointOptions(), err);
            nioGroup = newGroup(Transport.NETTY_NIO);
            channels.add(bind(o, Transport.NETTY_NIO, nioGroup, err));
            if (o.runs(Test.GRPC)) {
                grpc.add(grpc(o, Transport.NETTY_RDMA, Transport.GRPC_RDMA_PORT));
                grpc.add(grpc(o, Transport.NETTY_NIO, Transport.GRPC_NIO_PORT));
            }
            ok = true;
        } finally {
            if (!ok) {
                close();
            }
        }
    }

    /** {@return the event loop of the Netty server of {@code t} (one thread), for the allocation test} */
    EventLoopGroup group(Transport t) {
        return t == Transport.NETTY_RDMA ? rdmaGroup : nioGroup;
    }

    private EventLoopGroup newGroup(Transport t) {
        EventLoopGroup g = t.group(1, spinNanos, maxParkNanos);
        groups.add(g);
        return g;
    }

    private Channel bind(NettyPerfOptions o, Transport t, EventLoopGroup g, PrintStream err) throws InterruptedException {
        ServerBootstrap b = new ServerBootstrap().group(g).channel(t.serverChannel())
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new NettyServerHandler(t.label + " server", err));
                    }
                });
        if (t == Transport.NETTY_RDMA) {
            b.option(RdmaChannelOption.ENDPOINT_OPTIONS, o.nettyEndpointOptions())
                    .childOption(RdmaChannelOption.REGISTERED_ALLOCATOR, o.rdmaRegistered);
        } else {
            b.option(ChannelOption.SO_REUSEADDR, true).childOption(ChannelOption.TCP_NODELAY, true);
        }
        b.childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, NettyPerfOptions.WATER_MARK);
        if (o.byteBufAllocator() != null) {
            b.option(ChannelOption.ALLOCATOR, o.byteBufAllocator()).childOption(ChannelOption.ALLOCATOR, o.byteBufAllocator());
        }
        return b.bind(o.serverAddress(t.portOffset)).sync().channel();
    }

    private Server grpc(NettyPerfOptions o, Transport t, int portOffset) {
        EventLoopGroup g = newGroup(t);
        NettyServerBuilder b = NettyServerBuilder.forAddress(o.serverAddress(portOffset))
                .channelType(t.serverChannel()).bossEventLoopGroup(g).workerEventLoopGroup(g).directExecutor()
                .addService(GrpcEcho.service());
        if (t == Transport.NETTY_RDMA) {
            b.withOption(RdmaChannelOption.ENDPOINT_OPTIONS, o.nettyEndpointOptions());
        }
        try {
            return b.build().start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() throws InterruptedException {
        for (Server s : grpc) {
            s.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
        for (Channel c : channels) {
            c.close().await(5, TimeUnit.SECONDS);
        }
        if (raw != null) {
            raw.close();
        }
        for (EventLoopGroup g : groups) {
            g.shutdownGracefully(0, 2, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
        }
    }
}
