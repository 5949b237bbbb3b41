package org.verbs4j.bench.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.verbs4j.api.Rdma;
import org.verbs4j.api.RdmaDevice;
import org.verbs4j.lab.TestPorts;
import org.verbs4j.lab.Async;

/**
 * The default local warm-up on the host, on verbs4j's pure-Java iWARP device jsiw_lo (rdma_cm, {@code -R}):
 * verbs4j-perf against verbs4j-perf as two threads of this JVM, each side with stdout and stderr in one stream
 * (so the order of the lines is the order of events). The warm-up's line must come before the server's
 * "Waiting for client" banner (printed just before it listens) and before the client opens its exchange, and
 * its iterations must not be in the report.
 */
class LocalWarmUpTest {
    static final String DEVICE = "jsiw_lo";
    static final Pattern WARMED = Pattern.compile("verbs4j-perf: warm-up: (.*) on a local loopback pair \\((.*)\\),"
            + " not counted; ([0-9.]+) s \\(([0-9.]+) s of it waiting for the JIT compiler\\)");

    @BeforeAll
    static void softwareDevice() {
        Assumptions.assumeTrue(Rdma.devices().stream().map(RdmaDevice::name).anyMatch(DEVICE::equals),
                "verbs4j's software device " + DEVICE);
    }

    /** One side's exit status and its stdout and stderr in one stream, in order. */
    record Side(int exit, String output) {
        static Side run(List<String> args, ByteArrayOutputStream sink, PrintStream both) {
            int rc = VerbsPerf.run(args.toArray(new String[0]), both, both);
            both.flush();
            return new Side(rc, sink.toString(StandardCharsets.UTF_8));
        }
    }

    static List<String> args(String test, int port, String... more) {
        List<String> a = new ArrayList<>(List.of(test, "-d", DEVICE, "-R", "-p", Integer.toString(port)));
        a.addAll(List.of(more));
        return a;
    }

    static List<String> client(List<String> server) {
        List<String> a = new ArrayList<>(server);
        a.add("127.0.0.1");
        return a;
    }

    /** The warm-up line of {@code output}: asserts there is exactly one and that it is the first line. */
    static Matcher warmUpLine(String output, String role) {
        List<String> lines = output.lines().toList();
        assertTrue(!lines.isEmpty() && lines.get(0).startsWith("verbs4j-perf: warm-up: "),
                role + ": the warm-up's line comes first\n" + output);
        assertEquals(1, lines.stream().filter(l -> l.contains("warm-up")).count(), role + ": one warm-up line\n" + output);
        Matcher m = WARMED.matcher(lines.get(0));
        assertTrue(m.matches(), role + ": the warm-up ran\n" + output);
        // it ended within LocalWarmUp.LIMIT_SECONDS, else the line says "not possible" (the time is for the report)
        System.out.println("LocalWarmUpTest " + role + ": " + lines.get(0));
        return m;
    }

    record Pair(Side server, Side client) {
        String describe() {
            return "--- server: exit " + server.exit + "\n" + server.output + "--- client: exit " + client.exit + "\n"
                    + client.output;
        }
    }

    /**
     * Runs the server, and the client once the server says it waits for one (after its warm-up), as a user or
     * {@code perf-compare} does: the two warm-ups do not overlap.
     */
    static Pair runPair(List<String> serverArgs) throws Exception {
        ByteArrayOutputStream serverSink = new ByteArrayOutputStream();
        PrintStream serverBoth = new PrintStream(serverSink, true, StandardCharsets.UTF_8);
        CompletableFuture<Side> server = Async.supply(() -> Side.run(serverArgs, serverSink, serverBoth));
        String banner = PerfFormat.waitingBanner().get(2);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LocalWarmUp.LIMIT_SECONDS + 30);
        while (!serverSink.toString(StandardCharsets.UTF_8).contains(banner) && !server.isDone()
                && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        ByteArrayOutputStream clientSink = new ByteArrayOutputStream();
        try (PrintStream clientBoth = new PrintStream(clientSink, true, StandardCharsets.UTF_8)) {
            Side client = Side.run(client(serverArgs), clientSink, clientBoth);
            return new Pair(server.get(240, TimeUnit.SECONDS), client);
        }
    }

    @Test
    void sendLatencyWarmsUpLocallyAndReportsOnlyTheMeasuredIterations() throws Exception {
        List<String> a = args("send_lat", TestPorts.next(), "-s", "64", "-n", "200");
        Pair p = runPair(a);
        String d = p.describe();
        assertEquals(0, p.server().exit(), d);
        assertEquals(0, p.client().exit(), d);
        for (Side s : List.of(p.server(), p.client())) {
            Matcher m = warmUpLine(s.output(), s == p.server() ? "server" : "client");
            assertTrue(m.group(1).matches("\\d+ iterations in [2-6] runs of send_lat \\(64 B\\)"), d);
            assertTrue(Long.parseLong(m.group(1).split(" ")[0]) <= LocalWarmUp.ITERS, d);
            assertEquals(DEVICE + ", rdma_cm to 127.0.0.1", m.group(2), d);
            // the warm-up's 20,000 iterations are not in the report: #iterations is -n
            VerbsPerfIT.assertLatency(VerbsPerfIT.resultLine(s.output(), PerfFormat.LAT_COLUMNS, d), 64, 200, d);
        }
        List<String> server = p.server().output().lines().toList();
        int banner = server.indexOf(PerfFormat.waitingBanner().get(1));
        assertTrue(banner > 0, "the server's banner, after the warm-up: it listens only then\n" + d);
    }

    @Test
    void writeBandwidthWarmsUpBothRoles() throws Exception {
        List<String> a = args("write_bw", TestPorts.next(), "-s", "4096", "-n", "300");
        Pair p = runPair(a);
        String d = p.describe();
        assertEquals(0, p.server().exit(), d);
        assertEquals(0, p.client().exit(), d);
        warmUpLine(p.server().output(), "server");
        assertTrue(warmUpLine(p.client().output(), "client").group(1).matches("\\d+ iterations in [2-6] runs of write_bw "
                + "\\(4096 B\\)"), d);
        VerbsPerfIT.assertBandwidth(VerbsPerfIT.resultLine(p.client().output(), PerfFormat.BW_COLUMNS, d), 4096, 300,
                true, d);
        VerbsPerfIT.assertBandwidth(VerbsPerfIT.resultLine(p.server().output(), PerfFormat.BW_COLUMNS, d), 4096, 300,
                true, d);
    }

    @Test
    void durationRunsWarmUpWithTheDurationLoop() throws Exception {
        // send_lat: its closing handshake makes both sides end together (write_lat -D has none: on a busy host the
        // side that ends first can close while the other's last write is in flight, a flush error there)
        List<String> a = args("send_lat", TestPorts.next(), "-s", "64", "-D", "2");
        Pair p = runPair(a);
        String d = p.describe();
        assertEquals(0, p.server().exit(), d);
        assertEquals(0, p.client().exit(), d);
        for (Side s : List.of(p.server(), p.client())) {
            assertEquals(LocalWarmUp.DURATION_SECONDS + " s of the duration loop of send_lat (64 B)",
                    warmUpLine(s.output(), s == p.server() ? "server" : "client").group(1), d);
            double[] v = VerbsPerfIT.resultLine(s.output(), PerfFormat.LAT_DURATION_COLUMNS, d);
            assertTrue(v != null && v[1] > 0 && v[2] > 0, "a -D result line\n" + d);
        }
    }

    @Test
    void noWarmupPrintsNothingOfIt() throws Exception {
        List<String> a = args("send_lat", TestPorts.next(), "-s", "64", "-n", "100", "--no-warmup");
        Pair p = runPair(a);
        String d = p.describe();
        assertEquals(0, p.server().exit(), d);
        assertEquals(0, p.client().exit(), d);
        assertTrue(!p.server().output().contains("warm-up") && !p.client().output().contains("warm-up"), d);
        assertEquals(PerfFormat.waitingBanner().get(1), p.server().output().lines().toList().get(1), "the banner first\n" + d);
    }

    /**
     * The client's warm-up is over before it opens the exchange with the peer: here a plain TCP listener that
     * notes, in the client's own stream, when the client's connection arrives. Without {@code -R} the warm-up
     * is not possible on an iWARP device, and says so, with the reason, still before the exchange.
     */
    @Test
    void theClientWarmsUpBeforeItConnectsToThePeer() throws Exception {
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        try (PrintStream both = new PrintStream(sink, true, StandardCharsets.UTF_8);
             ServerSocket peer = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Void> accepted = Async.run(() -> {
                try (Socket s = peer.accept()) {
                    both.println("PEER: the client connected");
                } catch (java.io.IOException e) {
                    both.println("PEER: " + e);
                }
            });
            Side c = Side.run(List.of("send_lat", "-d", DEVICE, "-p", Integer.toString(peer.getLocalPort()), "-n", "100",
                    "127.0.0.1"), sink, both);
            accepted.get(30, TimeUnit.SECONDS);
            String out = sink.toString(StandardCharsets.UTF_8);
            List<String> lines = out.lines().toList();
            assertEquals(1, c.exit(), "the peer closed: the exchange fails\n" + out);
            assertTrue(lines.get(0).startsWith("verbs4j-perf: warm-up: not possible (the loopback "), out);
            assertTrue(lines.get(0).contains("iWARP") && lines.get(0).contains("-R"), "says why\n" + out);
            assertTrue(lines.indexOf("PEER: the client connected") > 0, "after the warm-up\n" + out);
        }
    }

    /**
     * A port found free can be taken before the loopback server listens on it (the CI's ITs pick their ports from
     * the same range): the pair starts again on another port, and the warm-up runs. Its client connects only once
     * its server listens, so never to the program that holds the port.
     */
    @Test
    void aPortTakenBeforeTheServerListensIsLeftForAnother() throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new java.net.InetSocketAddress(TestPorts.next()));
            int free = TestPorts.next();
            List<Integer> given = new ArrayList<>();
            PerfOptions o = PerfOptions.parse(PerfTest.SEND_LAT, "-d", DEVICE, "-R", "-p",
                    Integer.toString(TestPorts.next()), "-s", "64", "-n", "100");
            LocalWarmUp.Outcome out = LocalWarmUp.run(o, () -> {
                given.add(given.isEmpty() ? taken.getLocalPort() : free);
                return given.get(given.size() - 1);
            });
            assertTrue(out.warmed(), out.line());
            assertEquals(List.of(taken.getLocalPort(), free), given, "a second port, after the taken one: " + out.line());
            assertTrue(WARMED.matcher("verbs4j-perf: " + out.line()).matches(), out.line());
            // the client starts once its server listens: it never knocked at the other program's port
            taken.setSoTimeout(200);
            assertThrows(java.net.SocketTimeoutException.class, () -> taken.accept().close(),
                    "no connection to the taken port");
        }
    }
}
