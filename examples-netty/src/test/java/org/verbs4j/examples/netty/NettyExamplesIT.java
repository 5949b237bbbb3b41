package org.verbs4j.examples.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

/**
 * The one-command launchers as a user runs them, server and client in two JVMs: {@code bin/grpc-hello} on each
 * device of the run (rxe0 and siw0 in the lab, jsiw_lo on the host), {@code bin/netty-echo} on the first. The
 * programs check every answer and echo themselves and exit non-zero when one differs; this test checks their exit
 * status and that their reports say what was checked.
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
        String out = run("grpc-hello", "-n", "verbs4j", "-p", Integer.toString(port), ip);
        assertTrue(out.contains("grpc-hello client: SayHello -> Hello verbs4j"), out);
        assertTrue(out.contains("grpc-hello client: SayHelloAgain -> 5 answers, all checked: Hello again verbs4j (1)"
                + " ... Hello again verbs4j (5)"), out);
        assertTrue(out.contains("grpc-hello server: listening on"), out);
    }

    @Test
    void nettyEchoChecksEveryEcho() throws Exception {
        String ip = ips().findFirst().orElseThrow();
        String out = run("netty-echo", "-s", "100000", "-n", "20", "-p", "21480", ip);
        assertTrue(out.contains("netty-echo client: 20 echoes of 100000 bytes, every byte checked; round trip min"),
                out);
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
