package org.verbs4j.examples.netty;

import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.verbs4j.netty.RdmaIoHandler;

/** netty-echo's server and client in one JVM on the software iWARP device (127.0.0.1): every echo checked. */
@Timeout(60)
class NettyEchoTest {

    /** Clients of a server at {@code at}; {@link NettyEcho#client} throws when an echo differs. */
    interface Clients {
        void run(InetSocketAddress at) throws Exception;
    }

    /** A netty-echo server with an RDMA region of {@code region} bytes (and {@code -z}), then {@code clients}. */
    private static void serve(int region, boolean zeroCopy, Clients clients) throws Exception {
        InetSocketAddress at = new InetSocketAddress("127.0.0.1", org.verbs4j.lab.TestPorts.next());
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory());
        try {
            Channel server = NettyEcho.bind(group, at, region, zeroCopy);
            clients.run(at);
            server.close().sync();
        } finally {
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void echoesAreChecked() throws Exception {
        serve(0, false, at -> {
            NettyEcho.client(at, 100_000, 5, 0, false);
            NettyEcho.client(at, 1, 50, 0, false);
        });
    }

    /** With an RDMA region on both sides: 1 MiB echoes go by rendezvous, small ones as sends, all checked. */
    @Test
    void echoesByRendezvousAreChecked() throws Exception {
        serve(NettyEcho.bytes("4M"), false, at -> {
            NettyEcho.client(at, 1 << 20, 5, 4 << 20, false);
            NettyEcho.client(at, 100, 20, 4 << 20, false);
        });
    }

    /**
     * {@code -z} on both sides: each side writes buffers of its registered allocator, 1 MiB ones in the RDMA region
     * (announced without a copy), 100-byte ones in send slots; every echo checked.
     */
    @Test
    void echoesFromTheRegisteredAllocatorAreChecked() throws Exception {
        serve(4 << 20, true, at -> {
            NettyEcho.client(at, 1 << 20, 5, 4 << 20, true);
            NettyEcho.client(at, 100, 20, 4 << 20, true);
            NettyEcho.client(at, 300_000, 5, 0, true); // no region on the client: copied, slot by slot
        });
    }
}
