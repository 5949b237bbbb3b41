package org.verbs4j.bench.perf;

import org.verbs4j.lab.Lab;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.verbs4j.lab.Async;

/**
 * verbs4j-perf in the fabric lab: each of the six tests, server and client, on rxe0 with the TCP exchange and
 * with rdma_cm ({@code -R}), and on siw0 with rdma_cm, with small iteration counts; the report lines must
 * parse and hold sane numbers (the iterations asked for, {@code t_min <= t_typical <= t_max}, bandwidth and
 * message rate above 0 and consistent with each other). The two sides run as two threads of this JVM
 * through {@link VerbsPerf#run} (a JVM start in the lab costs seconds); one test runs the real launcher,
 * {@code benchmarks/bin/verbs4j-perf}, as two processes and checks that its measured loops allocate nothing.
 * Where the run has only an iWARP device (the README's test command's host run on verbs4j's software device
 * jsiw_lo), the iWARP tests run and the launcher's test runs there, with rdma_cm.
 */
class VerbsPerfIT {
    static final int LAT_ITERS = 20;
    static final int BW_ITERS = 60;
    static final long SIZE = 64;
    static final long RUN_TIMEOUT_SECONDS = 240;
    private static final AtomicInteger NEXT_PORT = new AtomicInteger(19600);

    /** Where one test runs: device, the server address the client uses, and how the QPs connect. */
    enum Fabric {
        RXE_TCP, RXE_CM, SIW_CM;

        List<String> args() {
            return switch (this) {
                case RXE_TCP -> List.of("-d", Lab.env("FABRIC_LAB_RXE_DEV"), "-x", Lab.env("FABRIC_LAB_RXE_GID_INDEX"));
                case RXE_CM -> List.of("-d", Lab.env("FABRIC_LAB_RXE_DEV"), "-R");
                case SIW_CM -> List.of("-d", Lab.env("FABRIC_LAB_SIW_DEV"), "-R");
            };
        }

        String host() {
            return this == SIW_CM ? Lab.env("FABRIC_LAB_SIW_IP") : Lab.env("FABRIC_LAB_RXE_IP");
        }

        /** Whether this run has the device ({@code FABRIC_LAB_FABRICS}: the host run has the software iWARP one only). */
        boolean inThisRun() {
            return Lab.hasFabric(this == SIW_CM ? "iwarp" : "roce");
        }

        /** The fabric of the launcher's test: RoCE over TCP in the lab, the iWARP device where it is the only one. */
        static Fabric forTheLauncher() {
            return RXE_TCP.inThisRun() ? RXE_TCP : SIW_CM;
        }
    }

    static void assumeRoce() {
        Assumptions.assumeTrue(Lab.hasFabric("roce"), "a RoCE device (rxe0 in the lab)");
    }

    static Stream<Arguments> everyTestOnEveryFabric() {
        List<Arguments> a = new ArrayList<>();
        for (Fabric f : Fabric.values()) {
            if (!f.inThisRun()) {
                continue;
            }
            for (PerfTest t : PerfTest.values()) {
                a.add(Arguments.of(f, t));
            }
        }
        return a.stream();
    }

    record Pair(PerfSide server, PerfSide client) {
        String describe() {
            return server.describe("server") + "\n" + client.describe("client");
        }
    }

    /** Runs server and client of {@code args} as two threads of this JVM (the client gets the host appended). */
    static Pair runPair(List<String> serverArgs, List<String> clientArgs) throws Exception {
        // both sides in this JVM at once: their local warm-ups would run at the same time (4 busy threads on the
        // VM's 2 vCPUs), and they are not what these tests check (LocalWarmUpTest and PerftestInteropIT do)
        List<String> sa = noWarmup(serverArgs);
        List<String> ca = noWarmup(clientArgs);
        CompletableFuture<PerfSide> server = Async.supply(() -> PerfSide.run(sa));
        // the client's channel retries a refused connection for 10 s while the server starts listening
        PerfSide client = PerfSide.run(ca);
        PerfSide s = server.get(RUN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        return new Pair(s, client);
    }


    /** {@code args} with {@code --no-warmup} unless they say something of the warm-up. */
    static List<String> noWarmup(List<String> args) {
        if (args.stream().anyMatch(x -> x.startsWith("--warmup") || x.equals("--no-warmup"))) {
            return args;
        }
        List<String> a = new ArrayList<>(args);
        a.add("--no-warmup");
        return a;
    }

    static List<String> args(PerfTest t, Fabric f, int port, String... more) {
        List<String> a = new ArrayList<>();
        a.add(t.command());
        a.addAll(f.args());
        a.addAll(List.of("-p", Integer.toString(port), "-s", Long.toString(SIZE), "-n",
                Integer.toString(t.isBandwidth() ? BW_ITERS : LAT_ITERS)));
        a.addAll(List.of(more));
        return a;
    }

    static List<String> withHost(List<String> args, String host) {
        List<String> a = new ArrayList<>(args);
        a.add(host);
        return a;
    }

    // ---- the report ----

    static final Pattern NUMBER = Pattern.compile("-?\\d+(\\.\\d+)?");

    /** The numbers of the result line that follows {@code columns} in {@code out}, or null when there is none. */
    static double[] resultLine(String out, String columns, String describe) {
        List<String> lines = out.lines().toList();
        int i = lines.indexOf(columns);
        if (i < 0) {
            return null;
        }
        assertTrue(i + 2 < lines.size(), "no result line after the columns\n" + describe);
        String line = lines.get(i + 1);
        assertEquals(PerfFormat.RESULT_LINE, lines.get(i + 2), "one result line, then the separator\n" + describe);
        String[] cols = line.trim().split("\\s+");
        double[] v = new double[cols.length];
        for (int k = 0; k < cols.length; k++) {
            Matcher m = NUMBER.matcher(cols[k]);
            assertTrue(m.matches(), "'" + cols[k] + "' in '" + line + "' is not a number\n" + describe);
            v[k] = Double.parseDouble(cols[k]);
        }
        return v;
    }

    static void assertLatency(double[] v, int iters, String describe) {
        assertLatency(v, SIZE, iters, describe);
    }

    static void assertLatency(double[] v, long size, int iters, String describe) {
        assertEquals(9, v.length, "nine latency columns\n" + describe);
        assertEquals(size, (long) v[0], "#bytes\n" + describe);
        assertEquals(iters, (long) v[1], "#iterations\n" + describe);
        double min = v[2];
        double max = v[3];
        double typical = v[4];
        double avg = v[5];
        assertTrue(min > 0, "t_min > 0\n" + describe);
        assertTrue(min <= typical && typical <= max, "t_min <= t_typical <= t_max\n" + describe);
        assertTrue(min <= avg && avg <= max, "t_min <= t_avg <= t_max\n" + describe);
        assertTrue(v[6] >= 0, "t_stdev >= 0\n" + describe);
        // the percentiles are HdrHistogram's (within 0.1%); t_max is perftest's second largest sample
        assertTrue(v[7] >= typical * 0.999 && v[8] >= v[7] * 0.999, "median <= 99% <= 99.9%\n" + describe);
        assertTrue(max < 10_000_000, "a latency under 10 s\n" + describe);
    }

    static void assertBandwidth(double[] v, int iters, boolean peak, String describe) {
        assertBandwidth(v, SIZE, iters, peak, describe);
    }

    static void assertBandwidth(double[] v, long size, int iters, boolean peak, String describe) {
        assertEquals(5, v.length, "five bandwidth columns\n" + describe);
        assertEquals(size, (long) v[0], "#bytes\n" + describe);
        assertEquals(iters, (long) v[1], "#iterations\n" + describe);
        // a 2-byte run under emulation can print a BW average of 0.00 MB/sec: the check against MsgRate holds it
        assertTrue(v[3] >= 0 && v[4] > 0, "BW average >= 0 and MsgRate > 0\n" + describe);
        if (peak) {
            assertTrue(v[2] >= v[3] * 0.99, "BW peak >= BW average\n" + describe);
        } else {
            assertEquals(0, v[2], "no peak\n" + describe);
        }
        // MB/sec = bytes * Mpps * 10^6 / 2^20, to the rounding of the printed columns
        double expected = size * v[4] * 1e6 / 0x100000;
        assertTrue(Math.abs(v[3] - expected) <= 0.006 + expected * 0.01, "BW average agrees with MsgRate\n" + describe);
    }

    @ParameterizedTest(name = "{1} on {0}")
    @MethodSource("everyTestOnEveryFabric")
    void serverAndClientReport(Fabric f, PerfTest t) throws Exception {
        int port = NEXT_PORT.getAndAdd(2);
        List<String> a = args(t, f, port);
        Pair p = runPair(a, withHost(a, f.host()));
        String d = String.join(" ", a) + "\n" + p.describe();
        assertEquals(0, p.server().exit(), "server exit status\n" + d);
        assertEquals(0, p.client().exit(), "client exit status\n" + d);
        for (PerfSide s : List.of(p.server(), p.client())) {
            assertTrue(s.out().contains("                    " + t.title()), "the header's title\n" + d);
            assertTrue(s.out().contains(" rdma_cm QPs\t : " + (f == Fabric.RXE_TCP ? "OFF" : "ON")), "rdma_cm line\n" + d);
            assertTrue(s.out().contains(" remote address: LID "), "the peer's address line\n" + d);
        }
        if (!t.isBandwidth()) {
            assertLatency(resultLine(p.client().out(), PerfFormat.LAT_COLUMNS, d), LAT_ITERS, d);
            double[] server = resultLine(p.server().out(), PerfFormat.LAT_COLUMNS, d);
            if (t == PerfTest.READ_LAT) {
                assertEquals(null, server, "perftest's read_lat server prints no result\n" + d);
            } else {
                assertLatency(server, LAT_ITERS, d);
            }
            return;
        }
        double[] client = resultLine(p.client().out(), PerfFormat.BW_COLUMNS, d);
        double[] server = resultLine(p.server().out(), PerfFormat.BW_COLUMNS, d);
        assertBandwidth(client, BW_ITERS, true, d);
        if (t == PerfTest.SEND_BW) {
            assertBandwidth(server, BW_ITERS, false, d);
        } else {
            // the RDMA bandwidth server prints what the client measured
            assertEquals(p.client().out().lines().filter(l -> l.startsWith(" " + SIZE + " ")).toList(),
                    p.server().out().lines().filter(l -> l.startsWith(" " + SIZE + " ")).toList(), d);
        }
    }

    /**
     * send_bw on iWARP, where a send that finds no posted receive breaks the connection (no RNR retry): with
     * rx depth 16 and tx depth 8 and 400 messages the client must stop at 15 messages past the server's last
     * credit over and over, and the server must write 100 credits through a send queue of 8, reaping their
     * completions whenever 8 are outstanding. A credit too few hangs the run, one too many fails a send.
     */
    @Test
    void iwarpSendBandwidthRunsOnReceiveCredits() throws Exception {
        int port = NEXT_PORT.getAndAdd(2);
        int iters = 400;
        List<String> a = List.of("send_bw", "-d", Lab.env("FABRIC_LAB_SIW_DEV"), "-R", "-p", Integer.toString(port),
                "-s", Long.toString(SIZE), "-n", Integer.toString(iters), "-r", "16", "-t", "8");
        Pair p = runPair(a, withHost(a, Lab.env("FABRIC_LAB_SIW_IP")));
        String d = String.join(" ", a) + "\n" + p.describe();
        assertEquals(0, p.server().exit(), "server exit status\n" + d);
        assertEquals(0, p.client().exit(), "client exit status\n" + d);
        assertTrue(p.server().out().contains(" RX depth        : 16"), "the server's rx depth\n" + d);
        assertTrue(p.client().out().contains(" TX depth        : 8"), "the client's tx depth\n" + d);
        assertBandwidth(resultLine(p.client().out(), PerfFormat.BW_COLUMNS, d), iters, true, d);
        assertBandwidth(resultLine(p.server().out(), PerfFormat.BW_COLUMNS, d), iters, false, d);
    }

    @Test
    void iwarpWithoutRdmaCmSaysToUseIt() throws Exception {
        int port = NEXT_PORT.getAndAdd(2);
        List<String> a = List.of("write_lat", "-d", Lab.env("FABRIC_LAB_SIW_DEV"), "-p", Integer.toString(port), "-n", "5");
        Pair p = runPair(a, withHost(a, Lab.env("FABRIC_LAB_SIW_IP")));
        String d = p.describe();
        assertEquals(1, p.server().exit(), d);
        assertEquals(1, p.client().exit(), d);
        assertTrue(p.server().err().contains("iWARP device: its queue pairs connect through rdma_cm only"), d);
        assertTrue(p.server().err().contains("with -R"), d);
        // each side finds out for itself, before the exchange starts
        assertTrue(p.client().err().contains("iWARP device: its queue pairs connect through rdma_cm only"), d);
    }

    /** perftest's ctx_check_gid_compatibility: an IPv6 GID on one side and an IPv4-mapped one on the other. */
    @Test
    void gidsOfDifferentIpVersionsAreRefused() throws Exception {
        assumeRoce();
        int port = NEXT_PORT.getAndAdd(2);
        List<String> s = new ArrayList<>(args(PerfTest.SEND_LAT, Fabric.RXE_TCP, port));
        // the netdev's IPv6 link-local GID on the client; the lab's index is the IPv4-mapped one
        List<String> c = new ArrayList<>(List.of("send_lat", "-d", Lab.env("FABRIC_LAB_RXE_DEV"), "-x", ipv6GidIndex(), "-p",
                Integer.toString(port), "-s", Long.toString(SIZE), "-n", Integer.toString(LAT_ITERS)));
        Pair p = runPair(s, withHost(c, Fabric.RXE_TCP.host()));
        String d = p.describe();
        assertEquals(1, p.server().exit(), d);
        assertEquals(1, p.client().exit(), d);
        for (PerfSide side : List.of(p.server(), p.client())) {
            assertTrue(side.err().contains("Found Incompatibility issue with GID types"), d);
        }
    }

    /** The index of rxe's RoCE v2 GID of the fe80:: link-local address. */
    static String ipv6GidIndex() throws IOException {
        Path port = Path.of("/sys/class/infiniband", Lab.env("FABRIC_LAB_RXE_DEV"), "ports/1");
        for (int i = 0; i < 16; i++) {
            Path g = port.resolve("gids/" + i);
            Path t = port.resolve("gid_attrs/types/" + i);
            if (Files.exists(g) && Files.readString(g).startsWith("fe80") && Files.exists(t)
                    && Files.readString(t).trim().equals("RoCE v2")) {
                return Integer.toString(i);
            }
        }
        return fail("rxe has no RoCE v2 GID of an IPv6 link-local address");
    }

    @Test
    void allSizesUpToALimit() throws Exception {
        assumeRoce();
        int port = NEXT_PORT.getAndAdd(2);
        List<String> a = List.of("write_lat", "-d", Lab.env("FABRIC_LAB_RXE_DEV"), "-x", Lab.env("FABRIC_LAB_RXE_GID_INDEX"),
                "-p", Integer.toString(port), "-n", "10", "-a", "--max_size=16");
        Pair p = runPair(a, withHost(a, Lab.env("FABRIC_LAB_RXE_IP")));
        String d = p.describe();
        assertEquals(0, p.server().exit(), d);
        assertEquals(0, p.client().exit(), d);
        for (PerfSide s : List.of(p.server(), p.client())) {
            List<Long> sizes = s.out().lines().filter(l -> l.matches(" \\d+ +10 .*"))
                    .map(l -> Long.parseLong(l.trim().split("\\s+")[0])).toList();
            assertEquals(List.of(2L, 4L, 8L, 16L), sizes, d);
        }
    }

    @Test
    void durationModeCountsTheSamplePeriod() throws Exception {
        assumeRoce();
        for (PerfTest t : List.of(PerfTest.WRITE_LAT, PerfTest.WRITE_BW)) {
            int port = NEXT_PORT.getAndAdd(2);
            List<String> a = List.of(t.command(), "-d", Lab.env("FABRIC_LAB_RXE_DEV"), "-x", Lab.env("FABRIC_LAB_RXE_GID_INDEX"),
                    "-p", Integer.toString(port), "-s", Long.toString(SIZE), "-D", "4");
            Pair p = runPair(a, withHost(a, Lab.env("FABRIC_LAB_RXE_IP")));
            String d = String.join(" ", a) + "\n" + p.describe();
            assertEquals(0, p.server().exit(), d);
            assertEquals(0, p.client().exit(), d);
            if (t == PerfTest.WRITE_LAT) {
                // -D: " #bytes #iterations t_avg[usec] tps average", on both sides
                for (PerfSide side : List.of(p.server(), p.client())) {
                    double[] v = resultLine(side.out(), PerfFormat.LAT_DURATION_COLUMNS, d);
                    assertEquals(4, v.length, d);
                    assertEquals(SIZE, (long) v[0], d);
                    assertTrue(v[1] > 0 && v[2] > 0 && v[3] > 0, "iterations, t_avg and tps > 0\n" + d);
                    // 2 s of sample: iterations ~ 2 s * tps; one-way latency = half the period of a round trip
                    assertEquals(1e6 / v[3] / 2, v[2], v[2] * 0.02 + 0.02, "t_avg = 10^6 / tps / 2\n" + d);
                    assertEquals(2.0, v[1] / v[3], 0.5, "the sample period is 4 - 2 * 1 s\n" + d);
                }
            } else {
                double[] v = resultLine(p.client().out(), PerfFormat.BW_COLUMNS, d);
                assertTrue(v[1] > 0, "messages counted in the sample period\n" + d);
                assertBandwidth(v, (int) v[1], false, d);
            }
        }
    }

    // ---- the launcher, as processes ----

    static Path moduleDir() {
        Path here = Path.of("").toAbsolutePath();
        return Files.isDirectory(here.resolve("bin")) ? here : here.resolve("benchmarks");
    }

    /**
     * send_lat, and write_lat, whose wait for the peer's write also polls the send CQ on the software device
     * (that poll reads the write off the socket): neither measured loop allocates.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = PerfTest.class, names = {"SEND_LAT", "WRITE_LAT"})
    void theLauncherRunsBothRolesAndItsLoopsAllocateNothing(PerfTest t) throws Exception {
        Path dir = moduleDir();
        Path launcher = dir.resolve("bin/verbs4j-perf");
        if (!Files.isRegularFile(dir.resolve("target/benchmarks.jar"))) {
            fail(dir.resolve("target/benchmarks.jar") + " is missing: build on the host first (mvn -B -DskipTests install)");
        }
        int port = NEXT_PORT.getAndAdd(2);
        List<String> a = new ArrayList<>(List.of(launcher.toString()));
        Fabric f = Fabric.forTheLauncher();
        // two unmeasured iterations with the peer first: the first call of a jffi entry point in the process links
        // its JNI method, which allocates (88 B for invokeL3NoErrno); write_lat posts nothing before its loop
        a.addAll(args(t, f, port, "--warmup=2"));
        Path logs = Files.createDirectories(dir.resolve("target/verbs4j-perf-it/" + t.name().toLowerCase(java.util.Locale.ROOT)));
        // C1 only: before a C2 compilation HotSpot resolves string constants in the thread that asked for it,
        // a one-time allocation that is not the loop's (see examples' RcPingPongIT)
        String opts = "-XX:TieredStopAtLevel=1 -D" + PerfRunner.MEASURE_ALLOCATION + "=true";
        Process server = start(a, logs.resolve("server"), opts);
        Process client;
        try {
            List<String> c = new ArrayList<>(a);
            c.add(f.host());
            client = start(c, logs.resolve("client"), opts);
            assertTrue(client.waitFor(RUN_TIMEOUT_SECONDS, TimeUnit.SECONDS), "client finished");
            assertTrue(server.waitFor(RUN_TIMEOUT_SECONDS, TimeUnit.SECONDS), "server finished");
        } finally {
            server.destroyForcibly();
        }
        PerfSide s = new PerfSide(server.exitValue(), read(logs.resolve("server.out")), read(logs.resolve("server.err")));
        PerfSide cl = new PerfSide(client.exitValue(), read(logs.resolve("client.out")), read(logs.resolve("client.err")));
        String d = new Pair(s, cl).describe();
        assertEquals(0, s.exit(), d);
        assertEquals(0, cl.exit(), d);
        assertLatency(resultLine(s.out(), PerfFormat.LAT_COLUMNS, d), LAT_ITERS, d);
        assertLatency(resultLine(cl.out(), PerfFormat.LAT_COLUMNS, d), LAT_ITERS, d);
        for (PerfSide side : List.of(s, cl)) {
            Matcher m = Pattern.compile("the measured loop allocated (\\d+) bytes").matcher(side.err());
            assertTrue(m.find(), "the allocation line\n" + d);
            assertEquals(0, Long.parseLong(m.group(1)), "bytes the " + t + " loop allocated\n" + d);
        }
    }

    static Process start(List<String> cmd, Path base, String javaOpts) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(base.resolveSibling(base.getFileName() + ".out").toFile())
                .redirectError(base.resolveSibling(base.getFileName() + ".err").toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.environment().put("VERBS4J_JAVA_OPTS", javaOpts);
        return pb.start();
    }

    static String read(Path p) throws IOException {
        return Files.exists(p) ? Files.readString(p, StandardCharsets.UTF_8) : "";
    }
}
