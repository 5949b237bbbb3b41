package org.verbs4j.examples.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Server;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.verbs4j.lab.Lab;
import org.verbs4j.netty.RdmaIoHandler;

/**
 * The examples on each device of the run: {@code grpc-hello} on every device (rxe0 and siw0 in the lab, jsiw_lo on
 * the host), {@code netty-echo} on the first. On the host, the one-command launchers as a user runs them, server and
 * client in two JVMs: the programs check every answer and echo themselves and exit non-zero when one differs; this
 * test checks their exit status and that their reports say what was checked. In the lab, the examples' own server
 * and client code runs in this JVM instead (four Netty and gRPC JVM starts cost minutes under emulation; the
 * launchers are the host's part), and throws when an answer or an echo differs.
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class NettyExamplesIT {
    /** What the example ITs give every JVM they start in the lab (C1 only, the serial collector: faster starts). */
    static final String JVM_OPTS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC";

    /** The run's devices' IP addresses: rxe0's and siw0's in the lab, jsiw_lo's (127.0.0.1) on the host. */
    static Stream<String> ips() {
        return Lab.hasFabric("roce") ? Stream.of(Lab.env("FABRIC_LAB_RXE_IP"), Lab.env("FABRIC_LAB_SIW_IP"))
                : Stream.of(Lab.env("FABRIC_LAB_SIW_IP"));
    }

    @ParameterizedTest(name = "grpc-hello on {0}")
    @MethodSource("ips")
    void grpcHelloAnswersBothCalls(String ip) throws Exception {
        // below Linux's ephemeral range (32768-60999): there the many loopback connections of the host phase's
        // tests may hold the launcher's default port 50051 as a local port when the server binds
        int port = 21051 + ips().toList().indexOf(ip);
        if (inJvm()) {
            EventLoopGroup servers = new MultiThreadIoEventLoopGroup(2, RdmaIoHandler.newFactory());
            EventLoopGroup clients = new MultiThreadIoEventLoopGroup(2, RdmaIoHandler.newFactory());
            InetSocketAddress at = new InetSocketAddress(ip, port);
            Server server = GrpcHello.start(servers, at);
            try {
                GrpcHello.call(clients, at, "verbs4j");   // throws when an answer differs
            } finally {
                server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
                clients.shutdownGracefully(0, 2, TimeUnit.SECONDS).await(30, TimeUnit.SECONDS);
                servers.shutdownGracefully(0, 2, TimeUnit.SECONDS).await(30, TimeUnit.SECONDS);
            }
            return;
        }
        String out = run("grpc-hello", "-n", "verbs4j", "-p", Integer.toString(port), ip);
        assertTrue(out.contains("grpc-hello client: SayHello -> Hello verbs4j"), out);
        assertTrue(out.contains("grpc-hello client: SayHelloAgain -> 5 answers, all checked: Hello again verbs4j (1)"
                + " ... Hello again verbs4j (5)"), out);
        assertTrue(out.contains("grpc-hello server: listening on"), out);
    }

    @Test
    void nettyEchoChecksEveryEcho() throws Exception {
        String ip = ips().findFirst().orElseThrow();
        if (inJvm()) {
            EventLoopGroup servers = new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory());
            try {
                NettyEcho.bind(servers, new InetSocketAddress(ip, 21480), 4 << 20, true);
                NettyEcho.client(new InetSocketAddress(ip, 21480), 100000, 20, 0, false);   // throws when an echo differs
                NettyEcho.client(new InetSocketAddress(ip, 21480), 1 << 20, 3, 4 << 20, false); // by rendezvous
                NettyEcho.client(new InetSocketAddress(ip, 21480), 1 << 20, 3, 4 << 20, true); // without a copy
            } finally {
                servers.shutdownGracefully(0, 2, TimeUnit.SECONDS).await(30, TimeUnit.SECONDS);
            }
            return;
        }
        String out = run("netty-echo", "-s", "100000", "-n", "20", "-p", "21480", "-r", "4M", "-z", ip);
        assertTrue(out.contains("netty-echo client: 20 echoes of 100000 bytes, every byte checked; round trip min"),
                out);
        assertTrue(out.contains("an RDMA region of 4194304 bytes: writes of 64 KiB and more by rendezvous; writing from "
                + "the channel's registered allocator"), out);
    }

    /** In the lab (the RoCE device is there): the examples' code in this JVM, not their launchers. */
    static boolean inJvm() {
        return Lab.hasFabric("roce");
    }

    /** Runs {@code bin/NAME ARGS}, waits for it and returns its output; fails on a non-zero exit status. */
    static String run(String name, String... args) throws Exception {
        Path bin = moduleDir().resolve("bin").resolve(name);
        List<String> cmd = new java.util.ArrayList<>(List.of(bin.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("VERBS4J_JAVA_OPTS", JVM_OPTS);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(300, TimeUnit.SECONDS), out);
        assertEquals(0, p.exitValue(), name + " failed:\n" + out);
        return out;
    }

    /** This module's directory (the tests run in it, or in the reactor's root). */
    static Path moduleDir() {
        Path here = Paths.get("").toAbsolutePath();
        return here.resolve("bin").toFile().isDirectory() ? here : here.resolve("examples-netty");
    }
}
