package org.verbs4j.examples.netty;

import io.grpc.Server;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.verbs4j.netty.RdmaIoHandler;

/** grpc-hello's server and client in one JVM on the software iWARP device (127.0.0.1): both calls checked. */
@Timeout(60)
class GrpcHelloTest {

    @Test
    void unaryAndStreamingCallsAreAnswered() throws Exception {
        InetSocketAddress at = new InetSocketAddress("127.0.0.1", org.verbs4j.lab.TestPorts.next());
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, RdmaIoHandler.newFactory());
        Server server = GrpcHello.start(group, at);
        try {
            GrpcHello.call(group, at, "test");   // throws when an answer differs
        } finally {
            server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
        }
    }
}
