package org.verbs4j.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.verbs4j.lab.TestPorts;

/**
 * Server and client channels on the pure-Java software iWARP device {@code jsiw_lo} (127.0.0.1): the only backend
 * on this module's test class path, so the tests need no lab, no system property and no root.
 */
final class Loopback implements AutoCloseable {
    static final int MESSAGE_SIZE = 8192;
    /** The data bytes of one message: a slot less the transport's header. */
    static final int PAYLOAD = MESSAGE_SIZE - RdmaChannel.HEADER;

    final EventLoopGroup serverGroup = new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory());
    final EventLoopGroup clientGroup = new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory());
    final InetSocketAddress address;
    Channel server;
    /** Both sides' RDMA region (rendezvous on when not 0). */
    int regionSize;
    /** Both sides' REGISTERED_ALLOCATOR. */
    boolean registered;

    /** On the software device, 127.0.0.1. */
    Loopback() {
        this("127.0.0.1");
    }

    /** On the RDMA device whose net device has address {@code ip} (server and client both). */
    Loopback(String ip) {
        address = new InetSocketAddress(ip, nextPort());
    }

    /** Both sides get an RDMA region of {@code bytes}: large writes go by rendezvous. */
    Loopback region(int bytes) {
        regionSize = bytes;
        return this;
    }

    /** Both sides (the client, the server's accepted channels) get the registered allocator. */
    Loopback registered() {
        registered = true;
        return this;
    }

    static int nextPort() {
        return TestPorts.next();
    }

    /** Binds a server whose accepted channels get {@code child}. */
    Loopback serve(ChannelHandler child, boolean halfClosure) throws InterruptedException {
        server = new ServerBootstrap().group(serverGroup).channel(RdmaServerChannel.class)
                .option(RdmaChannelOption.MESSAGE_SIZE, MESSAGE_SIZE)
                .option(RdmaChannelOption.RDMA_REGION_SIZE, regionSize)
                .childOption(io.netty.channel.ChannelOption.ALLOW_HALF_CLOSURE, halfClosure)
                .childOption(RdmaChannelOption.REGISTERED_ALLOCATOR, registered)
                .childHandler(child)
                .bind(address).sync().channel();
        return this;
    }

    Bootstrap client(ChannelHandler handler) {
        return new Bootstrap().group(clientGroup).channel(RdmaChannel.class)
                .option(RdmaChannelOption.MESSAGE_SIZE, MESSAGE_SIZE)
                .option(RdmaChannelOption.RDMA_REGION_SIZE, regionSize)
                .option(RdmaChannelOption.REGISTERED_ALLOCATOR, registered)
                .handler(handler);
    }

    Channel connect(ChannelHandler handler) throws InterruptedException {
        return client(handler).connect(address).sync().channel();
    }

    @Override
    public void close() throws InterruptedException {
        clientGroup.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
        serverGroup.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
    }
}
