package org.verbs4j.examples;

import org.verbs4j.lab.Lab;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/**
 * {@code examples/bin/cm-pingpong}, the same class unchanged, on rxe0 (RoCE) and siw0 (iWARP): rdma_cm picks the
 * device from the address, the echoes are checked byte for byte ({@code -c}), and both sides print their
 * throughput and latency lines.
 */
class CmPingPongIT {
    private static final Pattern DESCRIBE = Pattern.compile(
            "  (server|client): device (\\S+) port 1, fabric (\\S+), (rdma_cm|TCP exchange), message (\\d+) bytes");
    static final Pattern CLIENT_WARMUP = Pattern.compile("  warm-up: (\\d+) round trips in \\S+ seconds, not counted");
    static final Pattern SERVER_WARMUP = Pattern.compile("  warm-up: (\\d+) echoes, not counted");
    private static final Pattern RTT = Pattern.compile(
            "round trip \\[usec\\]: min (\\S+)  median (\\S+)  avg (\\S+)  p99 (\\S+)  max (\\S+)");

    static String ip(String fabric) {
        return Lab.env(fabric.equals("roce") ? "FABRIC_LAB_RXE_IP" : "FABRIC_LAB_SIW_IP");
    }

    static String device(String fabric) {
        return Lab.env(fabric.equals("roce") ? "FABRIC_LAB_RXE_DEV" : "FABRIC_LAB_SIW_DEV");
    }

    static String launcher() {
        return PingPongLab.launcher(PingPongLab.Tool.RC).replaceFirst("rc-pingpong$", "cm-pingpong");
    }

    /** Server in the background; once it says it waits, the client; both to their end. */
    static PingPongLab.PairRun pair(String name, List<String> serverArgs, List<String> clientArgs)
            throws IOException, InterruptedException {
        Path dir = Files.createDirectories(PingPongLab.moduleDir().resolve("target/pingpong-it"));
        Path sOut = dir.resolve(name + "-server.out");
        Path sErr = dir.resolve(name + "-server.err");
        Path cOut = dir.resolve(name + "-client.out");
        Path cErr = dir.resolve(name + "-client.err");
        List<String> s = new ArrayList<>(List.of(launcher()));
        s.addAll(serverArgs);
        List<String> c = new ArrayList<>(List.of(launcher()));
        c.addAll(clientArgs);
        Process server = PingPongLab.startSide(s, sOut, sErr, Map.of());
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(PingPongLab.PROCESS_TIMEOUT_SECONDS);
            while (!Files.exists(sOut) || !Files.readString(sOut, StandardCharsets.UTF_8).contains("waiting for a connection")) {
                if (!server.isAlive()) {
                    fail("the server exited before it listened:\n" + PingPongLab.finish(s, server, sOut, sErr).describe());
                }
                if (System.nanoTime() > deadline) {
                    fail("the server did not listen in time");
                }
                Thread.sleep(100);
            }
            PingPongLab.Run client = PingPongLab.finish(c, PingPongLab.startSide(c, cOut, cErr, Map.of()), cOut, cErr);
            return new PingPongLab.PairRun(PingPongLab.finish(s, server, sOut, sErr), client);
        } finally {
            if (server.isAlive()) {
                server.destroyForcibly();
            }
        }
    }

    static Matcher find(Pattern p, String text, PingPongLab.PairRun pr) {
        Matcher m = p.matcher(text);
        if (!m.find()) {
            fail("no line matching " + p + ":\n" + pr.describe());
        }
        return m;
    }

    static void assertRan(PingPongLab.PairRun pr, String fabric, String mode, int size, int iters) {
        assertEquals(0, pr.server().exit(), pr.describe());
        assertEquals(0, pr.client().exit(), pr.describe());
        for (PingPongLab.Run r : List.of(pr.server(), pr.client())) {
            Matcher d = find(DESCRIBE, r.stdout(), pr);
            assertEquals(device(fabric), d.group(2), pr.describe());
            assertEquals(fabric, d.group(3), pr.describe());
            assertEquals(mode, d.group(4), pr.describe());
            assertEquals(size, Integer.parseInt(d.group(5)));
            Matcher b = find(PingPongLab.BYTES, r.stdout(), pr);
            assertEquals(2L * size * iters, Long.parseLong(b.group(1)), pr.describe());
            Matcher it = find(PingPongLab.ITERS, r.stdout(), pr);
            assertEquals(iters, Integer.parseInt(it.group(1)), pr.describe());
        }
        Matcher rtt = find(RTT, pr.client().stdout(), pr);
        double min = Double.parseDouble(rtt.group(1));
        double median = Double.parseDouble(rtt.group(2));
        double max = Double.parseDouble(rtt.group(5));
        assertTrue(min > 0 && min <= median && median <= max, pr.describe());
        assertTrue(pr.client().stdout().contains("data check: " + iters + " echoes of " + size + " bytes matched"),
                pr.describe());
        // the client's warm-up (a second by default), not counted: the server echoed exactly as many more
        assertEquals(find(CLIENT_WARMUP, pr.client().stdout(), pr).group(1),
                find(SERVER_WARMUP, pr.server().stdout(), pr).group(1), pr.describe());
    }

    /** The same class on both fabrics, several sizes (1 byte, not a power of two, above the MTU, 64 KiB). */
    @ParameterizedTest
    @CsvSource({"roce, 1", "roce, 4097", "roce, 65536", "iwarp, 1", "iwarp, 4097", "iwarp, 65536"})
    void sameClassOnEveryFabric(String fabric, int size) throws Exception {
        int port = PingPongLab.nextPort();
        int iters = 100;
        PingPongLab.PairRun pr = pair("cm-" + fabric + "-" + size,
                List.of("-b", ip(fabric), "-p", "" + port, "-s", "" + size, "-n", "" + iters, "-r", "4", "-c"),
                List.of("-p", "" + port, "-s", "" + size, "-n", "" + iters, "-r", "4", "-c", ip(fabric)));
        assertRan(pr, fabric, "rdma_cm", size, iters);
    }

    /** A server on 0.0.0.0 serves every device: the client's address picks siw0 here. */
    @Test
    void serverOnAnyAddressFollowsTheClientsDevice() throws Exception {
        int port = PingPongLab.nextPort();
        PingPongLab.PairRun pr = pair("cm-any", List.of("-p", "" + port, "-s", "100", "-n", "50", "-c"),
                List.of("-p", "" + port, "-s", "100", "-n", "50", "-c", ip("iwarp")));
        assertRan(pr, "iwarp", "rdma_cm", 100, 50);
    }

    /** The TCP exchange (Netty) instead of rdma_cm, where the fabric allows it. */
    @Test
    void manualConnectionOnRoce() throws Exception {
        int port = PingPongLab.nextPort();
        String dev = device("roce");
        PingPongLab.PairRun pr = pair("cm-manual",
                List.of("-M", "-d", dev, "-p", "" + port, "-s", "2048", "-n", "100", "-c"),
                List.of("-M", "-d", dev, "-p", "" + port, "-s", "2048", "-n", "100", "-c", "127.0.0.1"));
        assertRan(pr, "roce", "TCP exchange", 2048, 100);
    }

    @Test
    void manualConnectionOnIwarpIsRefusedWithTheReason() throws Exception {
        List<String> cmd = List.of(launcher(), "-M", "-d", device("iwarp"), "-p", "" + PingPongLab.nextPort(), "127.0.0.1");
        PingPongLab.Run r = PingPongLab.run(cmd, Map.of());
        assertEquals(1, r.exit(), r.describe());
        assertTrue(r.stderr().contains("rdma_cm only"), r.describe());
    }

    @Test
    void clientWithoutServerFailsClearly() throws Exception {
        List<String> cmd = List.of(launcher(), "-p", "" + PingPongLab.nextPort(), "-t", "20", ip("roce"));
        PingPongLab.Run r = PingPongLab.run(cmd, Map.of());
        assertEquals(1, r.exit(), r.describe());
        assertTrue(r.stderr().startsWith("cm-pingpong: "), r.describe());
    }

    /** The README's main job: examples/bin/pingpong runs the ping-pong on both lab devices and prints latency. */
    @Test
    void mainJobRunsOnBothLabDevices() throws Exception {
        launcher(); // fails clearly when the module is not built
        String script = PingPongLab.moduleDir().resolve("bin/pingpong").toString();
        PingPongLab.Run r = PingPongLab.run(List.of(script, "-n", "30", "-s", "1024", "-p", "" + PingPongLab.nextPort()),
                Map.of());
        assertEquals(0, r.exit(), r.describe());
        String summary = r.stdout().substring(r.stdout().indexOf("=== ping-pong summary"));
        for (String fabric : List.of("roce", "iwarp")) {
            Pattern line = Pattern.compile(Pattern.quote(device(fabric) + " (" + fabric + ")")
                    + " +round trip \\[usec\\]: min \\S+  median \\S+");
            assertTrue(line.matcher(summary).find(), "no latency line for " + fabric + ":\n" + r.describe());
        }
    }
}
