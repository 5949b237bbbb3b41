package org.verbs4j.bench.netty;

import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import org.verbs4j.netty.RdmaChannel;
import org.verbs4j.netty.RdmaIoHandler;
import org.verbs4j.netty.RdmaServerChannel;

/** The three transports netty-perf compares, each with its port offset from {@code -p}. */
enum Transport {
    /** Netty over verbs4j: {@code RdmaChannel} on {@code RdmaIoHandler}'s loop. */
    NETTY_RDMA("netty-rdma", 0),
    /** verbs4j's endpoint API by hand: send and poll on one thread per side, no Netty. */
    RAW("raw-endpoint", 1),
    /** Netty's NIO TCP transport over the same IP address. */
    NETTY_NIO("netty-nio", 2);

    /** gRPC over {@code RdmaChannel}: port offset. */
    static final int GRPC_RDMA_PORT = 3;
    /** gRPC over {@code NioSocketChannel}: port offset. */
    static final int GRPC_NIO_PORT = 4;
    /** Ports a server takes from {@code -p} on. */
    static final int PORTS = 5;

    final String label;
    final int portOffset;

    Transport(String label, int portOffset) {
        this.label = label;
        this.portOffset = portOffset;
    }

    /**
     * {@return a new group of {@code threads} event loops of this Netty transport; verbs4j's poll {@code spinNanos}
     * without work, then nap up to {@code maxParkNanos} at a time, before they sleep}
     */
    EventLoopGroup group(int threads, long spinNanos, long maxParkNanos) {
        return new MultiThreadIoEventLoopGroup(threads, factory(spinNanos, maxParkNanos));
    }

    IoHandlerFactory factory(long spinNanos, long maxParkNanos) {
        return switch (this) {
            case NETTY_RDMA -> RdmaIoHandler.newFactory(spinNanos, maxParkNanos);
            case NETTY_NIO -> NioIoHandler.newFactory();
            case RAW -> throw new IllegalStateException("the endpoint API has no event loop");
        };
    }

    Class<? extends Channel> channel() {
        return this == NETTY_RDMA ? RdmaChannel.class : NioSocketChannel.class;
    }

    Class<? extends ServerChannel> serverChannel() {
        return this == NETTY_RDMA ? RdmaServerChannel.class : NioServerSocketChannel.class;
    }
}
