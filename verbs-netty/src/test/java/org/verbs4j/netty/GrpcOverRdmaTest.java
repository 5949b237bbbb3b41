package org.verbs4j.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;

/**
 * gRPC-java's own Netty transport ({@code NettyServerBuilder}, {@code NettyChannelBuilder}) on these channels and
 * this event loop group, on the software iWARP device: one unary call and one server-streaming call, payloads
 * checked. No generated code: the methods carry raw bytes.
 */
@Timeout(60)
class GrpcOverRdmaTest {
    /** Bytes in, bytes out. */
    static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
            return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };
    static final MethodDescriptor<byte[], byte[]> ECHO = MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName("verbs4j.Test/Echo")
            .setRequestMarshaller(BYTES).setResponseMarshaller(BYTES).build();
    static final MethodDescriptor<byte[], byte[]> PIECES = MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.SERVER_STREAMING).setFullMethodName("verbs4j.Test/Pieces")
            .setRequestMarshaller(BYTES).setResponseMarshaller(BYTES).build();

    /** Echo returns the request reversed; Pieces streams the request back in 10 parts. */
    static ServerServiceDefinition service() {
        return ServerServiceDefinition.builder("verbs4j.Test")
                .addMethod(ECHO, ServerCalls.asyncUnaryCall((req, out) -> {
                    byte[] r = new byte[req.length];
                    for (int i = 0; i < r.length; i++) {
                        r[i] = req[req.length - 1 - i];
                    }
                    out.onNext(r);
                    out.onCompleted();
                }))
                .addMethod(PIECES, ServerCalls.asyncServerStreamingCall((req, out) -> {
                    int part = (req.length + 9) / 10;
                    for (int off = 0; off < req.length; off += part) {
                        out.onNext(java.util.Arrays.copyOfRange(req, off, Math.min(req.length, off + part)));
                    }
                    out.onCompleted();
                }))
                .build();
    }

    /** With the registered allocator on both sides too: gRPC's buffers (retained, sliced, composite) in send slots. */
    @org.junit.jupiter.params.ParameterizedTest(name = "registered allocator {0}")
    @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
    void unaryAndStreamingCallsOverRdma(boolean registeredAllocator) throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, RdmaIoHandler.newFactory());
        InetSocketAddress at = new InetSocketAddress("127.0.0.1", org.verbs4j.lab.TestPorts.next());
        Server server = NettyServerBuilder.forAddress(at)
                .channelType(RdmaServerChannel.class).bossEventLoopGroup(group).workerEventLoopGroup(group)
                .withChildOption(RdmaChannelOption.REGISTERED_ALLOCATOR, registeredAllocator)
                .addService(service()).build().start();
        ManagedChannel channel = NettyChannelBuilder.forAddress(at)
                .channelType(RdmaChannel.class).eventLoopGroup(group)
                .withOption(RdmaChannelOption.REGISTERED_ALLOCATOR, registeredAllocator).usePlaintext().build();
        try {
            byte[] request = RdmaChannelTest.random(100_000, 3); // larger than a slot and than an HTTP/2 frame
            byte[] reply = ClientCalls.blockingUnaryCall(channel, ECHO, CallOptions.DEFAULT.withDeadlineAfter(20,
                    TimeUnit.SECONDS), request);
            assertEquals(request.length, reply.length);
            for (int i = 0; i < request.length; i++) {
                assertEquals(request[i], reply[reply.length - 1 - i], "byte " + i);
            }

            Iterator<byte[]> parts = ClientCalls.blockingServerStreamingCall(channel, PIECES,
                    CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS), request);
            List<byte[]> got = new ArrayList<>();
            parts.forEachRemaining(got::add);
            assertEquals(10, got.size());
            java.io.ByteArrayOutputStream joined = new java.io.ByteArrayOutputStream();
            for (byte[] p : got) {
                joined.write(p);
            }
            assertArrayEquals(request, joined.toByteArray());
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
        }
    }
}
