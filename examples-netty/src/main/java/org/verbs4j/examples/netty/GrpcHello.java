package org.verbs4j.examples.netty;

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
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.verbs4j.netty.RdmaChannel;
import org.verbs4j.netty.RdmaIoHandler;
import org.verbs4j.netty.RdmaServerChannel;

/**
 * gRPC's hello world over RDMA: gRPC-java's own Netty transport ({@code NettyServerBuilder},
 * {@code NettyChannelBuilder}) with verbs4j's channels and event loop group. One unary call ({@code SayHello})
 * and one server-streaming call ({@code SayHelloAgain}, {@value #REPEATS} greetings), each answer checked. The
 * service is declared without generated code: its messages are UTF-8 strings.
 *
 * <pre>
 * grpc-hello server [-p PORT] [ADDRESS]        (default 127.0.0.1: the software iWARP device jsiw_lo)
 * grpc-hello client [-p PORT] [-n NAME] [ADDRESS]
 * </pre>
 */
public final class GrpcHello {
    static final int REPEATS = 5;
    private static final String USAGE = "usage: grpc-hello server [-p PORT] [ADDRESS]\n"
            + "       grpc-hello client [-p PORT] [-n NAME] [ADDRESS]\n"
            + "ADDRESS: an IP address of an RDMA device's net device (default 127.0.0.1, the software device jsiw_lo);"
            + " PORT 50051, NAME world";

    /** UTF-8 strings as gRPC messages. */
    static final MethodDescriptor.Marshaller<String> TEXT = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(String value) {
            return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public String parse(InputStream stream) {
            try {
                return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };
    static final MethodDescriptor<String, String> SAY_HELLO = MethodDescriptor.<String, String>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName("helloworld.Greeter/SayHello")
            .setRequestMarshaller(TEXT).setResponseMarshaller(TEXT).build();
    static final MethodDescriptor<String, String> SAY_HELLO_AGAIN = MethodDescriptor.<String, String>newBuilder()
            .setType(MethodDescriptor.MethodType.SERVER_STREAMING).setFullMethodName("helloworld.Greeter/SayHelloAgain")
            .setRequestMarshaller(TEXT).setResponseMarshaller(TEXT).build();

    private GrpcHello() {
    }

    /**
     * Runs the server or the client.
     *
     * @param args {@code server} or {@code client}, then the options
     */
    public static void main(String[] args) {
        if (args.length > 0 && (args[0].equals("-h") || args[0].equals("--help"))) {
            System.out.println(USAGE);
            return;
        }
        int port = 50051;
        String name = "world";
        String address = "127.0.0.1";
        try {
            if (args.length == 0 || !(args[0].equals("server") || args[0].equals("client"))) {
                throw new IllegalArgumentException("say server or client");
            }
            for (int i = 1; i < args.length; i++) {
                switch (args[i]) {
                    case "-p" -> port = Integer.parseInt(args[++i]);
                    case "-n" -> name = args[++i];
                    default -> {
                        if (args[i].startsWith("-") || i != args.length - 1) {
                            throw new IllegalArgumentException("unknown argument " + args[i]);
                        }
                        address = args[i];
                    }
                }
            }
        } catch (RuntimeException e) {
            System.err.println("grpc-hello: " + e.getMessage() + "\n" + USAGE);
            System.exit(2);
        }
        InetSocketAddress at = new InetSocketAddress(address, port);
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, RdmaIoHandler.newFactory());
        try {
            if (args[0].equals("server")) {
                Server server = start(group, at);
                System.out.println("grpc-hello server: listening on " + at + ", waiting for a connection");
                server.awaitTermination();
            } else {
                call(group, at, name);
            }
        } catch (Exception e) {
            System.err.println("grpc-hello " + args[0] + ": " + e);
            System.exit(1);
        } finally {
            group.shutdownGracefully();
        }
    }

    /** The greeter: {@code SayHello} answers once, {@code SayHelloAgain} {@value #REPEATS} times. */
    static ServerServiceDefinition greeter() {
        return ServerServiceDefinition.builder("helloworld.Greeter")
                .addMethod(SAY_HELLO, ServerCalls.asyncUnaryCall((name, reply) -> {
                    reply.onNext("Hello " + name);
                    reply.onCompleted();
                }))
                .addMethod(SAY_HELLO_AGAIN, ServerCalls.asyncServerStreamingCall((name, reply) -> {
                    for (int i = 1; i <= REPEATS; i++) {
                        reply.onNext("Hello again " + name + " (" + i + ")");
                    }
                    reply.onCompleted();
                }))
                .build();
    }

    /** Starts the gRPC server on verbs4j's server channel and event loop group. */
    static Server start(EventLoopGroup group, InetSocketAddress at) throws IOException {
        return NettyServerBuilder.forAddress(at)
                .channelType(RdmaServerChannel.class).bossEventLoopGroup(group).workerEventLoopGroup(group)
                .addService(greeter()).build().start();
    }

    /** Both calls, each answer checked; throws when one differs. */
    static void call(EventLoopGroup group, InetSocketAddress at, String name) throws InterruptedException {
        ManagedChannel channel = NettyChannelBuilder.forAddress(at)
                .channelType(RdmaChannel.class).eventLoopGroup(group).usePlaintext().build();
        try {
            CallOptions deadline = CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS);
            String hello = ClientCalls.blockingUnaryCall(channel, SAY_HELLO, deadline, name);
            check("SayHello", "Hello " + name, hello);
            System.out.println("grpc-hello client: SayHello -> " + hello);
            List<String> again = new ArrayList<>();
            ClientCalls.blockingServerStreamingCall(channel, SAY_HELLO_AGAIN, deadline, name).forEachRemaining(again::add);
            if (again.size() != REPEATS) {
                throw new IllegalStateException("SayHelloAgain: " + again.size() + " answers, not " + REPEATS);
            }
            for (int i = 1; i <= REPEATS; i++) {
                check("SayHelloAgain", "Hello again " + name + " (" + i + ")", again.get(i - 1));
            }
            System.out.println("grpc-hello client: SayHelloAgain -> " + again.size() + " answers, all checked: "
                    + again.get(0) + " ... " + again.get(REPEATS - 1));
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    private static void check(String call, String expected, String got) {
        if (!expected.equals(got)) {
            throw new IllegalStateException(call + " answered \"" + got + "\", not \"" + expected + "\"");
        }
    }
}
