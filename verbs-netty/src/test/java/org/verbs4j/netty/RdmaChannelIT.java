package org.verbs4j.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.verbs4j.lab.Lab;

/**
 * The channels on the lab's devices, rxe0 (RoCE) and siw0 (iWARP) through libibverbs, or on jsiw_lo on the host
 * ({@code FABRIC_LAB_FABRICS=iwarp FABRIC_LAB_SIW_DEV=jsiw_lo FABRIC_LAB_SIW_IP=127.0.0.1},
 * {@code -Dverbs4j.backend=softiwarp}): the same tests as {@link RdmaChannelTest} and {@link GrpcOverRdmaTest} on
 * the unit-test run's software device, here on each device of the run.
 */
@Timeout(120)
class RdmaChannelIT {

    /** The run's devices' IP addresses: rxe0's and siw0's in the lab, jsiw_lo's (127.0.0.1) on the host. */
    static Stream<String> ips() {
        return Lab.hasFabric("roce") ? Stream.of(Lab.env("FABRIC_LAB_RXE_IP"), Lab.env("FABRIC_LAB_SIW_IP"))
                : Stream.of(Lab.env("FABRIC_LAB_SIW_IP"));
    }

    static Stream<Arguments> ipsAndSizes() {
        return ips().flatMap(ip -> Stream.of(1, 1024, Loopback.PAYLOAD - 1, Loopback.PAYLOAD,
                Loopback.PAYLOAD + 1, Loopback.MESSAGE_SIZE,
                Loopback.MESSAGE_SIZE + 1, 65536, 1 << 20, 4 << 20).map(n -> Arguments.of(ip, n)));
    }

    @ParameterizedTest(name = "{0}: {1} bytes")
    @MethodSource("ipsAndSizes")
    void echoChecksEveryByte(String ip, int size) throws Exception {
        try (Loopback lo = new Loopback(ip).serve(new RdmaChannelTest.Echo(), false)) {
            RdmaChannelTest.Collect c = new RdmaChannelTest.Collect(size);
            Channel ch = lo.connect(c);
            byte[] sent = RdmaChannelTest.random(size, size);
            int piece = Math.max(1, size / 7);
            for (int off = 0; off < size; off += piece) {
                ch.write(Unpooled.wrappedBuffer(sent, off, Math.min(piece, size - off)));
            }
            ch.flush();
            assertArrayEquals(sent, c.done.get(90, TimeUnit.SECONDS));
            ch.close().sync();
        }
    }

    static Stream<Arguments> ipsAndLargeSizes() {
        return ips().flatMap(ip -> Stream.of(65536, 1 << 20, 5 << 20).map(n -> Arguments.of(ip, n)));
    }

    /**
     * With a 4 MiB RDMA region on both sides, writes of 64 KiB and more go by rendezvous (an RDMA READ by the
     * receiver of the sender's region, in pieces of at most 2 MiB) both ways, every byte checked.
     */
    @ParameterizedTest(name = "{0}: {1} bytes")
    @MethodSource("ipsAndLargeSizes")
    void rendezvousEchoChecksEveryByte(String ip, int size) throws Exception {
        int region = RendezvousTest.REGION;
        RendezvousTest.EchoWatch echo = new RendezvousTest.EchoWatch();
        try (Loopback lo = new Loopback(ip).region(region).serve(echo, false)) {
            RdmaChannelTest.Collect c = new RdmaChannelTest.Collect(size);
            RdmaChannel ch = (RdmaChannel) lo.connect(c);
            byte[] sent = RdmaChannelTest.random(size, size);
            ch.writeAndFlush(Unpooled.wrappedBuffer(sent)).sync();
            assertArrayEquals(sent, c.done.get(90, TimeUnit.SECONDS));
            assertNull(echo.failure.get());
            int half = region / 2;
            assertEquals(size / half + (size % half >= 65536 ? 1 : 0), ch.rendezvousWrites(), "rendezvous writes");
            ch.close().sync();
        }
    }

    /**
     * Rendezvous without a copy both ways: the client writes 24 region buffers of its registered allocator, 64 KiB
     * to 1 MiB (the largest lent with a 4 MiB region), between heap buffers; the server's channel answers each
     * message with a buffer of its own allocator (from its region when the answer is large and the region has
     * room). The stream comes back whole, the region buffers announced where they were and every lent block back at
     * the end.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("ips")
    void zeroCopyRendezvousEchoChecksEveryByte(String ip) throws Exception {
        AllocatorEcho answer = new AllocatorEcho();
        java.util.Random r = new java.util.Random(12);
        try (Loopback lo = new Loopback(ip).region(RendezvousTest.REGION).registered().serve(answer, false)) {
            ByteArrayOutputStream expect = new ByteArrayOutputStream();
            byte[][] parts = new byte[48][];
            for (int i = 0; i < parts.length; i++) {
                int size = i % 2 == 0 ? 65536 + r.nextInt(RegionZeroCopyTest.LENT - 65536 + 1) : 1 + r.nextInt(20_000);
                parts[i] = RdmaChannelTest.random(size, i);
                expect.write(parts[i]);
            }
            RdmaChannelTest.Collect c = new RdmaChannelTest.Collect(expect.size());
            RdmaChannel ch = (RdmaChannel) lo.connect(c);
            for (int i = 0; i < parts.length; i++) {
                ch.writeAndFlush(i % 2 == 0 ? RegionZeroCopyTest.regionBuffer(ch, parts[i].length).writeBytes(parts[i])
                        : Unpooled.wrappedBuffer(parts[i]));
            }
            assertArrayEquals(expect.toByteArray(), c.done.get(90, TimeUnit.SECONDS));
            assertNull(answer.failure.get());
            assertEquals(parts.length / 2, ch.zeroCopyRendezvous(), "region buffers announced where they were");
            RdmaChannel child = answer.accepted.get(10, TimeUnit.SECONDS);
            assertTrue(child.zeroCopyRendezvous() > 0, "the server's answers from its region too");
            RegionZeroCopyTest.awaitAllBlocksFree(ch);
            ch.close().sync();
        }
    }

    /** Either side closes while rendezvous writes, reads and releases are in flight both ways: 10 rounds a device. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("ips")
    void closesInTheMiddleOfRendezvousEndCleanly(String ip) throws Exception {
        RendezvousTest.closeRaces(new Loopback(ip), 10);
    }

    /**
     * Both channels know both ends' addresses, read from the connection's rdma_cm id: on rxe0 and siw0 from
     * librdmacm's {@code struct rdma_cm_id} (its route's source and destination), on jsiw_lo from the TCP socket.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("ips")
    void bothChannelsKnowBothAddresses(String ip) throws Exception {
        RdmaChannelTest.Watch serverSide = new RdmaChannelTest.Watch();
        try (Loopback lo = new Loopback(ip).serve(serverSide, false)) {
            RdmaChannel ch = (RdmaChannel) lo.connect(new RdmaChannelTest.Watch());
            RdmaChannel child = (RdmaChannel) serverSide.active.get(30, TimeUnit.SECONDS);
            assertEquals(lo.address, ch.remoteAddress());
            assertNotNull(ch.localAddress(), "the client's local address");
            assertEquals(lo.address.getAddress(), ch.localAddress().getAddress());
            assertTrue(ch.localAddress().getPort() > 0, "the client's port: " + ch.localAddress());
            // the IP address, not the port: an iWARP connection manager may map rdma_cm's port to another TCP port
            assertNotNull(child.remoteAddress(), "the accepted channel's peer");
            assertEquals(ch.localAddress().getAddress(), child.remoteAddress().getAddress(), "the accepted channel's peer");
            assertTrue(child.remoteAddress().getPort() > 0, "the peer's port: " + child.remoteAddress());
            assertEquals(lo.address, child.localAddress());
            ch.close().sync();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("ips")
    void bothCloseOrdersEndTheOtherSide(String ip) throws Exception {
        RdmaChannelTest.Watch serverSide = new RdmaChannelTest.Watch();
        try (Loopback lo = new Loopback(ip).serve(serverSide, false)) {
            RdmaChannelTest.Watch clientSide = new RdmaChannelTest.Watch();
            Channel ch = lo.connect(clientSide);
            serverSide.active.get(30, TimeUnit.SECONDS);
            ch.close().sync();
            assertTrue(serverSide.inactive.await(30, TimeUnit.SECONDS), "client closed first: no channelInactive");
            assertNull(serverSide.exception.get());
        }
        RdmaChannelTest.Watch serverSide2 = new RdmaChannelTest.Watch();
        try (Loopback lo = new Loopback(ip).serve(serverSide2, false)) {
            RdmaChannelTest.Watch clientSide = new RdmaChannelTest.Watch();
            lo.connect(clientSide);
            serverSide2.active.get(30, TimeUnit.SECONDS).close().sync();
            assertTrue(clientSide.inactive.await(30, TimeUnit.SECONDS), "server closed first: no channelInactive");
            assertNull(clientSide.exception.get());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("ips")
    void aPeerLostMidStreamIsAnException(String ip) throws Exception {
        RdmaChannelTest.Watch serverSide = new RdmaChannelTest.Watch();
        try (Loopback lo = new Loopback(ip).serve(serverSide, false)) {
            RdmaChannelTest.Watch clientSide = new RdmaChannelTest.Watch();
            Channel ch = lo.connect(clientSide);
            RdmaChannel child = (RdmaChannel) serverSide.active.get(30, TimeUnit.SECONDS);
            ch.writeAndFlush(Unpooled.wrappedBuffer(RdmaChannelTest.random(100_000, 1)));
            child.eventLoop().submit(() -> child.endpoint().close()).sync();
            assertTrue(clientSide.inactive.await(30, TimeUnit.SECONDS), "the client saw no channelInactive");
            assertNotNull(clientSide.exception.get(), "the client saw no exception");
            assertInstanceOf(IOException.class, clientSide.exception.get());
        }
    }

    /**
     * 1000 writes of 4 KiB, each only while the channel is writable, to a reader that starts only once the writer
     * is held back, then pauses after each read batch: nothing lost, the outbound buffer bounded by the high water
     * mark, writability turned off and on again.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("ips")
    void pipelinedWritesToASlowReaderAreBoundedAndLossless(String ip) throws Exception {
        RdmaChannelTest.pipelinedWritesToASlowReader(new Loopback(ip));
    }

    /**
     * A peer in a JVM of its own, streaming to this JVM's server channel, is killed (SIGKILL): the accepted
     * channel's pipeline gets an exception, then {@code channelInactive}, within 20 s.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("ips")
    void aKilledPeerProcessIsAnExceptionThenInactive(String ip) throws Exception {
        PeerProcessKilledTest.killPeerProcessWhileItStreams(new Loopback(ip));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("ips")
    void grpcUnaryAndStreamingCalls(String ip) throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, RdmaIoHandler.newFactory());
        InetSocketAddress at = new InetSocketAddress(ip, Loopback.nextPort());
        Server server = NettyServerBuilder.forAddress(at)
                .channelType(RdmaServerChannel.class).bossEventLoopGroup(group).workerEventLoopGroup(group)
                .addService(GrpcOverRdmaTest.service()).build().start();
        ManagedChannel channel = NettyChannelBuilder.forAddress(at)
                .channelType(RdmaChannel.class).eventLoopGroup(group).usePlaintext().build();
        try {
            byte[] request = RdmaChannelTest.random(100_000, 3);
            CallOptions deadline = CallOptions.DEFAULT.withDeadlineAfter(60, TimeUnit.SECONDS);
            byte[] reply = ClientCalls.blockingUnaryCall(channel, GrpcOverRdmaTest.ECHO, deadline, request);
            assertEquals(request.length, reply.length);
            for (int i = 0; i < request.length; i++) {
                assertEquals(request[i], reply[reply.length - 1 - i], "byte " + i);
            }
            Iterator<byte[]> parts = ClientCalls.blockingServerStreamingCall(channel, GrpcOverRdmaTest.PIECES, deadline,
                    request);
            ByteArrayOutputStream joined = new ByteArrayOutputStream();
            int n = 0;
            while (parts.hasNext()) {
                joined.write(parts.next());
                n++;
            }
            assertEquals(10, n);
            assertArrayEquals(request, joined.toByteArray());
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
        }
    }
}
