package org.verbs4j.bench.perf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.verbs4j.lab.Lab;
import org.verbs4j.lab.Async;

/**
 * verbs4j-perf against C perftest (the lab's Debian perftest 4.5-0.17: {@code ib_send_lat} ... {@code ib_read_bw}):
 * each of the six tests with a C server and a verbs4j-perf client, and with a verbs4j-perf server and a C
 * client, at 2 B and 4 KiB (and 64 KiB for the bandwidth tests), on rxe0 over perftest's TCP exchange, and with
 * {@code -R} (perftest's rdma_cm exchange) on rxe0 and on siw0. Both
 * sides must exit 0 and print result lines that parse and hold sane numbers. verbs4j-perf runs in this JVM
 * ({@link VerbsPerf#run}); the C tool as a process.
 */
class PerftestInteropIT {
    static final int ITERS = 100;
    /** verbs4j-perf warms up locally first (docs/perftest.md#the-local-warm-up): a few seconds, more under TCG. */
    static final long RUN_TIMEOUT_SECONDS = 90;
    private static final AtomicInteger NEXT_PORT = new AtomicInteger(19800);

    enum Role {
        C_SERVER, JAVA_SERVER
    }

    static Stream<Arguments> everyTestBothWays() {
        List<Arguments> a = new ArrayList<>();
        for (PerfTest t : PerfTest.values()) {
            for (Role r : Role.values()) {
                a.add(Arguments.of(t, r));
            }
        }
        return a.stream();
    }

    static List<Long> sizes(PerfTest t) {
        return t.isBandwidth() ? List.of(2L, 4096L, 65536L) : List.of(2L, 4096L);
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("everyTestBothWays")
    void cPerftestAndVerbs4jPerfPassEachOthersTest(PerfTest t, Role role) throws Exception {
        for (long size : sizes(t)) {
            int port = NEXT_PORT.getAndIncrement();
            List<String> common = List.of("-d", Lab.env("FABRIC_LAB_RXE_DEV"), "-x", Lab.env("FABRIC_LAB_RXE_GID_INDEX"),
                    "-p", Integer.toString(port), "-s", Long.toString(size), "-n", Integer.toString(ITERS));
            runPair(t, role, size, common, Lab.env("FABRIC_LAB_RXE_IP"), PerftestInteropIT::awaitListening);
        }
    }

    enum Fabric {
        RXE, SIW;

        String device() {
            return Lab.env(this == RXE ? "FABRIC_LAB_RXE_DEV" : "FABRIC_LAB_SIW_DEV");
        }

        String ip() {
            return Lab.env(this == RXE ? "FABRIC_LAB_RXE_IP" : "FABRIC_LAB_SIW_IP");
        }
    }

    static Stream<Arguments> everyTestBothWaysOnBothFabrics() {
        return matrix((f, t) -> true);
    }

    /** (fabric, test, role) for every fabric and test {@code which} takes, both roles. */
    static Stream<Arguments> matrix(java.util.function.BiPredicate<Fabric, PerfTest> which) {
        List<Arguments> a = new ArrayList<>();
        for (Fabric f : Fabric.values()) {
            for (PerfTest t : PerfTest.values()) {
                if (which.test(f, t)) {
                    for (Role r : Role.values()) {
                        a.add(Arguments.of(f, t, r));
                    }
                }
            }
        }
        return a.stream();
    }

    /**
     * {@code -R}: perftest's exchange over its own rdma_cm connection and the test's queue pair through rdma_cm,
     * both on port {@code -p}, on rxe0 and on siw0 (where rdma_cm is the only way to connect).
     */
    @ParameterizedTest(name = "-R on {0}, {1}, {2}")
    @MethodSource("everyTestBothWaysOnBothFabrics")
    void withRdmaCmTooOnRxeAndSiw(Fabric f, PerfTest t, Role role) throws Exception {
        for (long size : cmSizes(f, t)) {
            int port = NEXT_PORT.getAndIncrement();
            List<String> common = List.of("-d", f.device(), "-R", "-p", Integer.toString(port), "-s", Long.toString(size),
                    "-n", Integer.toString(ITERS));
            runPair(t, role, size, common, f.ip(), null);
        }
    }

    /**
     * The sizes of the {@code -R} runs, fewer than over TCP to keep the lab suite short: -R changes the exchange
     * and the connection, not the loops, which the TCP runs cover at every size. siw0 (another device, and the
     * credits of send_bw) at 2 B and 4 KiB, bandwidth at 2 B and 64 KiB; rxe0 at one size.
     */
    static List<Long> cmSizes(Fabric f, PerfTest t) {
        if (f == Fabric.RXE) {
            return List.of(t.isBandwidth() ? 65536L : 2L);
        }
        return t.isBandwidth() ? List.of(2L, 65536L) : List.of(2L, 4096L);
    }

    /** The tests with a completion queue to sleep on (perftest refuses -e for the write tests): on rxe0 and siw0. */
    static Stream<Arguments> eventTests() {
        return matrix((f, t) -> t.verb() != PerfTest.Verb.WRITE && (f == Fabric.RXE || t.verb() == PerfTest.Verb.SEND));
    }

    /**
     * {@code -e} on both sides: each sleeps on its completion channels instead of polling its queues. rxe0 over
     * perftest's TCP exchange (send and read tests, at 2 B and 64 KiB for bandwidth), siw0 with {@code -R} (the send
     * tests: siw0's send_bw runs on receive credits, where a sender must not sleep with no signaled request out).
     */
    @ParameterizedTest(name = "-e on {0}, {1}, {2}")
    @MethodSource("eventTests")
    void withEventsOnBothSides(Fabric f, PerfTest t, Role role) throws Exception {
        long size = t.isBandwidth() ? 65536 : 2;
        int port = NEXT_PORT.getAndIncrement();
        List<String> common = f == Fabric.RXE
                ? List.of("-d", f.device(), "-x", Lab.env("FABRIC_LAB_RXE_GID_INDEX"), "-e", "-p", Integer.toString(port),
                        "-s", Long.toString(size), "-n", Integer.toString(ITERS))
                : List.of("-d", f.device(), "-R", "-e", "-p", Integer.toString(port), "-s", Long.toString(size), "-n",
                        Integer.toString(ITERS));
        runPair(t, role, size, common, f.ip(), f == Fabric.RXE ? PerftestInteropIT::awaitListening : null);
    }

    static Stream<Arguments> bandwidthTests() {
        return matrix((f, t) -> t.isBandwidth());
    }

    /** A pair with {@code flags} on both sides at 64 KiB: rxe0 over perftest's TCP exchange, siw0 with {@code -R}. */
    static void bothSidesAt64K(Fabric f, PerfTest t, Role role, String... flags) throws Exception {
        List<String> common = new ArrayList<>(List.of("-d", f.device()));
        common.addAll(f == Fabric.RXE ? List.of("-x", Lab.env("FABRIC_LAB_RXE_GID_INDEX")) : List.of("-R"));
        common.addAll(List.of(flags));
        common.addAll(List.of("-p", Integer.toString(NEXT_PORT.getAndIncrement()), "-s", "65536", "-n",
                Integer.toString(ITERS)));
        runPair(t, role, 65536, List.copyOf(common), f.ip(), f == Fabric.RXE ? PerftestInteropIT::awaitListening : null);
    }

    /**
     * {@code -b} on both sides (write_bw and read_bw): both stream at once, and each prints the sum of both
     * directions, the same line on both sides (checked as the RDMA bandwidth tests' lines are). rxe0 over perftest's
     * TCP exchange, siw0 with {@code -R}, at 64 KiB.
     */
    @ParameterizedTest(name = "-b on {0}, {1}, {2}")
    @MethodSource("bandwidthTests")
    void bidirectionalOnBothSides(Fabric f, PerfTest t, Role role) throws Exception {
        bothSidesAt64K(f, t, role, "-b");
    }

    /**
     * {@code -l 4} on both sides: the sender posts lists of four requests (the CQ moderation becomes 4), all three
     * bandwidth tests in both roles, rxe0 over perftest's TCP exchange and siw0 with {@code -R}, at 64 KiB; both
     * titles and headers say post list.
     */
    @ParameterizedTest(name = "-l on {0}, {1}, {2}")
    @MethodSource("bandwidthTests")
    void postListsOnBothSides(Fabric f, PerfTest t, Role role) throws Exception {
        bothSidesAt64K(f, t, role, "-l", "4");
    }

    static Stream<Arguments> ucTests() {
        return matrix((f, t) -> f == Fabric.RXE && t.verb() != PerfTest.Verb.READ);
    }

    /**
     * {@code -c UC} on both sides: unreliable connected queue pairs (no acknowledgements; perftest refuses UC for
     * reads and with rdma_cm), the send and write tests in both roles on rxe0 over perftest's TCP exchange, at 2 B
     * (latency) and 64 KiB (bandwidth); both headers say UC.
     */
    @ParameterizedTest(name = "-c UC on {0}, {1}, {2}")
    @MethodSource("ucTests")
    void unreliableConnectedOnRxe(Fabric f, PerfTest t, Role role) throws Exception {
        long size = t.isBandwidth() ? 65536 : 2;
        int port = NEXT_PORT.getAndIncrement();
        List<String> common = List.of("-d", Fabric.RXE.device(), "-x", Lab.env("FABRIC_LAB_RXE_GID_INDEX"), "-c", "UC",
                "-p", Integer.toString(port), "-s", Long.toString(size), "-n", Integer.toString(ITERS));
        runPair(t, role, size, common, Fabric.RXE.ip(), PerftestInteropIT::awaitListening);
    }

    /**
     * A peer that is not perftest on the rdma_cm exchange: rdma-core's {@code rping} client, whose first SEND (16
     * bytes: its buffer's address, rkey and size) arrives where perftest's version is. The verbs4j-perf server
     * must stop at once with exit status 1, naming the version exchange, without a stack trace.
     */
    @org.junit.jupiter.api.Test
    void anRpingClientIsRefusedAtTheVersionExchange() throws Exception {
        int port = NEXT_PORT.getAndIncrement();
        List<String> java = List.of("send_lat", "-d", Fabric.RXE.device(), "-R", "-p", Integer.toString(port), "-n",
                Integer.toString(ITERS), "--no-warmup");
        long started = System.nanoTime();
        CompletableFuture<PerfSide> s = Async.supply(() -> PerfSide.run(java));
        List<String> rping = List.of("rping", "-c", "-a", Fabric.RXE.ip(), "-p", Integer.toString(port), "-C", "1", "-v");
        PerfSide client = runC(rping);
        for (int i = 0; i < 50 && !s.isDone() && !client.out().contains("ping data") && !client.err().isEmpty()
                && System.nanoTime() - started < 20_000_000_000L; i++) {
            Thread.sleep(100);
            client = runC(rping);
        }
        PerfSide server = s.get(RUN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        String d = server.describe("server") + "\n" + client.describe("rping client");
        assertEquals(1, server.exit(), "exit status 1\n" + d);
        assertTrue(server.err().contains("as its version") && server.err().contains("version"), "names the step\n" + d);
        assertTrue(!server.err().contains("Exception") && !server.err().contains("\tat "), "no stack trace\n" + d);
        assertTrue(System.nanoTime() - started < 25_000_000_000L, "no wait for a time-out\n" + d);
        System.err.println("PerftestInteropIT: an rping client against verbs4j-perf -R: " + server.err().trim());
    }

    interface Wait {
        void await(int port) throws Exception;
    }

    /**
     * One C/Java pair to its end, then the checks. {@code listening} (null with {@code -R}: an rdma_cm listener
     * on RoCE is no socket) waits until the verbs4j-perf server listens before the C client starts; without it,
     * a C client whose connection is refused (it does not retry) is started again while the server runs.
     */
    static void runPair(PerfTest t, Role role, long size, List<String> common, String host, Wait listening)
            throws Exception {
        List<String> run = common;
        for (int attempt = 1; ; attempt++) {
            PerfSide cSide = runPairOnce(t, role, size, run, host, listening, attempt == MAX_ATTEMPTS);
            if (cSide == null) {
                return;
            }
            // C perftest could not calibrate its own clock (its linear fit of cycles against time, r^2 < 0.9, under
            // the emulated VM's load) and so printed no report, or printed an infinite latency: the pair is run
            // again on a new port
            System.err.println("PerftestInteropIT: " + t.cTool() + " could not measure its CPU clock ("
                    + (cMeasuredInfinity(cSide) ? "a latency of inf" : cSide.err().lines()
                            .filter(l -> l.contains("Correlation")).findFirst().orElse("").trim())
                    + "), attempt " + attempt + " of " + MAX_ATTEMPTS + "; running the pair again");
            run = withPort(run, NEXT_PORT.getAndIncrement());
        }
    }

    /**
     * How often a pair runs when C perftest fails to measure its own clock (and only then). On a loaded host, in one
     * full run, 48 pairs needed a second or third attempt; after the last, the case is skipped with the reason.
     */
    static final int MAX_ATTEMPTS = 5;

    /** What C perftest prints when its clock calibration fails; it then exits 1 without a result. */
    static final String C_NO_CLOCK = "Can't produce a report";

    /** Whether C perftest failed to measure its own clock: no report ({@link #C_NO_CLOCK}), or an infinite latency. */
    static boolean cMeasuredNoClock(PerfSide c) {
        return c.exit() != 0 && c.err().contains(C_NO_CLOCK) || cMeasuredInfinity(c);
    }

    /**
     * The Java side of a pair whose C side measured no clock: perftest exits at its report, before the closing
     * handshakes, so the Java side may end 1 with a failed handshake after its result; with nothing else. It must
     * not have crashed, been killed or printed a stack trace, and its own result line (where it prints one) passes
     * the checks of a good run.
     */
    static void assertJavaSideSound(PerfTest t, Role role, long size, PerfSide java, boolean duplex, String d) {
        String why = "the Java side, with a C peer that measured no clock\n" + d;
        assertTrue(!java.err().contains("\tat ") && !java.err().contains("Exception in thread")
                && !java.err().contains("unexpected failure"), "no stack trace: " + why);
        boolean server = role == Role.JAVA_SERVER;
        // a bandwidth server that prints a sum or the client's result (-b, the RDMA tests) prints it only after the
        // report exchange, which a C client that measured no clock never reaches: that exchange may fail too
        boolean resultAfterReport = server && t.isBandwidth() && (duplex || t != PerfTest.SEND_BW);
        Pattern handshake = resultAfterReport ? AFTER_REPORT : AFTER_RESULT;
        if (java.exit() == 1) {
            assertTrue(handshake.matcher(java.err()).find(), "ended 1 only at a handshake after its result: " + why);
        } else {
            assertEquals(0, java.exit(), "exit status 0, or 1 at a handshake after its result: " + why);
        }
        // its own result line comes before those handshakes (the RDMA bandwidth server prints the client's, after)
        if (!t.isBandwidth()) {
            if (!(server && t == PerfTest.READ_LAT)) {
                double[] v = VerbsPerfIT.resultLine(java.out(), PerfFormat.LAT_COLUMNS, why);
                assertNotNull(v, "its result line: " + why);
                VerbsPerfIT.assertLatency(v, size, ITERS, why);
            }
        } else if (!server || t == PerfTest.SEND_BW && !duplex) {
            double[] v = VerbsPerfIT.resultLine(java.out(), PerfFormat.BW_COLUMNS, why);
            assertNotNull(v, "its result line: " + why);
            VerbsPerfIT.assertBandwidth(v, size, ITERS, !server, why);
        }
    }

    /**
     * What verbs4j-perf says when an exchange step after its result failed (the handshakes that perftest's
     * {@code exit} skips): "the peer at ... disconnected at the close", "the close with ... failed: ...".
     */
    static final Pattern AFTER_RESULT = Pattern.compile("\\bthe (close|end of test)\\b");
    /** As {@link #AFTER_RESULT}, and the report exchange before a result that needs the peer's numbers. */
    static final Pattern AFTER_REPORT = Pattern.compile("\\bthe (close|end of test|report exchange)\\b");

    /**
     * Whether C perftest's latency row holds {@code inf}: its conversion of a sample's cycles to microseconds
     * overflowed (a clock it measured wrong under the emulated VM's load). Its report then measures nothing.
     */
    static boolean cMeasuredInfinity(PerfSide c) {
        List<String> lines = c.out().lines().toList();
        int i = lines.indexOf(PerfFormat.LAT_COLUMNS);
        return i >= 0 && i + 1 < lines.size()
                && java.util.Arrays.stream(lines.get(i + 1).trim().split("\\s+")).anyMatch(v -> v.matches("-?inf"));
    }

    static List<String> withPort(List<String> common, int port) {
        List<String> l = new ArrayList<>(common);
        l.set(l.indexOf("-p") + 1, Integer.toString(port));
        return l;
    }

    /**
     * Whether verbs4j-perf runs with its default local warm-up, not {@code --no-warmup}: in four runs at 2 B, the
     * TCP exchange on rxe0 (send_lat as the server, write_bw as the client) and {@code -R} on siw0 (read_lat, both
     * roles). Under emulation a warm-up takes tens of seconds; the other runs check the exchange, which the warm-up
     * does not touch.
     */
    static boolean warmsUp(PerfTest t, Role role, List<String> common) {
        String device = common.get(common.indexOf("-d") + 1);
        if (Long.parseLong(common.get(common.indexOf("-s") + 1)) != 2) {
            return false;
        }
        if (!common.contains("-R")) {
            return device.equals(Fabric.RXE.device())
                    && (t == PerfTest.SEND_LAT && role == Role.JAVA_SERVER || t == PerfTest.WRITE_BW && role == Role.C_SERVER);
        }
        return device.equals(Fabric.SIW.device()) && t == PerfTest.READ_LAT;
    }

    /**
     * One run of the pair; null when it passed its checks, or the C side when C perftest failed to measure its own
     * clock and {@code last} is false (the caller runs the pair again).
     */
    static PerfSide runPairOnce(PerfTest t, Role role, long size, List<String> common, String host, Wait listening,
            boolean last) throws Exception {
        int port = Integer.parseInt(common.get(common.indexOf("-p") + 1));
        List<String> c = new ArrayList<>(List.of(t.cTool()));
        c.addAll(common);
        List<String> java = new ArrayList<>(List.of(t.command()));
        java.addAll(common);
        boolean warmUp = warmsUp(t, role, common);
        if (!warmUp) {
            java.add("--no-warmup");
        }
        PerfSide server;
        PerfSide client;
        long started = System.nanoTime();
        if (role == Role.C_SERVER) {
            CompletableFuture<PerfSide> s = Async.supply(() -> runC(c));
            // verbs4j-perf's client retries a refused connection for 10 s while the server starts
            java.add(host);
            client = PerfSide.run(java);
            server = s.get(RUN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } else {
            CompletableFuture<PerfSide> s = Async.supply(() -> PerfSide.run(java));
            c.add(host);
            if (listening != null) {
                // C perftest's client does not retry: start it once the server listens
                listening.await(port);
                client = runC(c);
            } else {
                client = runC(c);
                for (int i = 0; i < 400 && !s.isDone() && client.exit() != 0 && client.err().contains(C_NOT_CONNECTED); i++) {
                    Thread.sleep(100);
                    client = runC(c);
                }
            }
            server = s.get(RUN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        }
        String d = t.command() + " " + String.join(" ", common) + ", " + role + " ("
                + (System.nanoTime() - started) / 1_000_000 + " ms)\n" + server.describe("server") + "\n"
                + client.describe("client");
        PerfSide cSide = role == Role.C_SERVER ? server : client;
        if (cMeasuredNoClock(cSide)) {
            // the C report measures nothing, but the Java side ran the whole test: it is checked before a retry or
            // a skip, so that such an attempt cannot hide a Java failure
            assertJavaSideSound(t, role, size, role == Role.C_SERVER ? client : server, common.contains("-b"), d);
            if (!last) {
                return cSide;
            }
            // the C tool measured no clock in any attempt (the emulated VM under load): its report measures
            // nothing to compare with, and that case alone is skipped, by name
            Assumptions.abort(t.cTool() + " could not measure its CPU clock in " + MAX_ATTEMPTS + " attempts as "
                    + (role == Role.C_SERVER ? "server" : "client") + " at -s " + size + "\n" + d);
        }
        if (cSide.exit() == 139) {
            // the C tool died of SIGSEGV: that case alone is skipped, by name
            Assumptions.abort(t.cTool() + " crashed (SIGSEGV) as " + (role == Role.C_SERVER ? "server" : "client")
                    + " at -s " + size + "\n" + d);
        }
        assertEquals(0, server.exit(), "server exit status\n" + d);
        assertEquals(0, client.exit(), "client exit status\n" + d);
        assertReports(t, size, role == Role.C_SERVER ? withCStdev(server, d) : server,
                role == Role.C_SERVER ? client : withCStdev(client, d), d, common.contains("-b"));
        if (common.contains("-R")) {
            // both sides said that the exchange itself ran over rdma_cm
            assertTrue(server.out().contains(" Data ex. method : rdma_cm") && client.out().contains(" Data ex. method : rdma_cm"),
                    "both headers say rdma_cm\n" + d);
        }
        // verbs4j-perf's default local warm-up ran before the exchange, with a C peer, and was not counted
        PerfSide jSide = role == Role.C_SERVER ? client : server;
        if (common.contains("UC")) {
            String uc = " Connection type : UC";
            assertTrue(server.out().contains(uc) && client.out().contains(uc), "both headers say UC\n" + d);
        }
        if (common.contains("-b")) {
            String title = t.title().replace(" BW ", " Bidirectional BW ");
            assertTrue(server.out().contains(title) && client.out().contains(title), "both titles say Bidirectional\n" + d);
        }
        if (common.contains("-l")) {
            String title = t.title().replace(" BW ", " Post List BW ");
            String line = " Post List       : " + common.get(common.indexOf("-l") + 1);
            assertTrue(server.out().contains(title) && client.out().contains(title), "both titles say Post List\n" + d);
            assertTrue(server.out().contains(line) && client.out().contains(line), "both headers give the list\n" + d);
        }
        if (common.contains("-e")) {
            assertTrue(jSide.out().contains(" Test with events. Using " + common.get(common.indexOf("-d") + 1) + "_comp0")
                    && cSide.out().contains(" Test with events."), "both headers say events\n" + d);
        }
        String warm = jSide.err().lines().filter(l -> l.startsWith("verbs4j-perf: warm-up: ")).findFirst().orElse(null);
        if (warmUp) {
            assertTrue(warm != null && warm.contains("on a local loopback pair") && warm.contains("not counted"),
                    "the warm-up's line: " + warm + "\n" + d);
            System.err.println("PerftestInteropIT: " + t.command() + " " + String.join(" ", common) + ", " + role
                    + ": " + warm);
        } else {
            assertEquals(null, warm, "--no-warmup: no warm-up\n" + d);
        }
        return null;
    }

    /**
     * The C side's output, with a {@code -nan} t_stdev made 0 when C perftest's own arithmetic explains it: it
     * squares each deviation from the average as an {@code int} ({@code print_report_lat}), which overflows when a
     * sample lies more than 46340 us from the average (a stall of the emulated VM), and takes the square root of
     * the negative sum. Any other {@code nan}, or one without such a sample, stays and fails the parse.
     */
    static PerfSide withCStdev(PerfSide c, String d) {
        List<String> lines = c.out().lines().toList();
        int i = lines.indexOf(PerfFormat.LAT_COLUMNS);
        if (i < 0 || i + 1 >= lines.size()) {
            return c;
        }
        String line = lines.get(i + 1);
        String[] cols = line.trim().split("\\s+");
        if (cols.length != 9 || !cols[6].equals("-nan")) {
            return c;
        }
        double min = Double.parseDouble(cols[2]);
        double max = Double.parseDouble(cols[3]);
        double avg = Double.parseDouble(cols[5]);
        assertTrue(max - avg > 46340 || avg - min > 46340, "C perftest printed t_stdev -nan without a sample more than"
                + " 46340 us from the average (which would overflow its int)\n" + d);
        System.err.println("PerftestInteropIT: C perftest's t_stdev is -nan (its int overflows: t_max " + cols[3]
                + " us, t_avg " + cols[5] + " us); read as 0");
        List<String> fixed = new ArrayList<>(lines);
        fixed.set(i + 1, line.replace("-nan", "0"));
        return new PerfSide(c.exit(), String.join("\n", fixed) + "\n", c.err());
    }

    /** What C perftest's client prints when its exchange connection fails (nobody listens yet). */
    static final String C_NOT_CONNECTED = "Unable to init the socket connection";

    static void assertReports(PerfTest t, long size, PerfSide server, PerfSide client, String d) {
        assertReports(t, size, server, client, d, false);
    }

    /** As above; {@code duplex} ({@code -b}): both sides print the same line, the sum of both directions. */
    static void assertReports(PerfTest t, long size, PerfSide server, PerfSide client, String d, boolean duplex) {
        if (!t.isBandwidth()) {
            VerbsPerfIT.assertLatency(VerbsPerfIT.resultLine(client.out(), PerfFormat.LAT_COLUMNS, d), size, ITERS, d);
            double[] s = VerbsPerfIT.resultLine(server.out(), PerfFormat.LAT_COLUMNS, d);
            if (t == PerfTest.READ_LAT) {
                assertNull(s, "perftest's read_lat server prints no result\n" + d);
            } else {
                VerbsPerfIT.assertLatency(s, size, ITERS, d);
            }
            return;
        }
        double[] c = VerbsPerfIT.resultLine(client.out(), PerfFormat.BW_COLUMNS, d);
        double[] s = VerbsPerfIT.resultLine(server.out(), PerfFormat.BW_COLUMNS, d);
        VerbsPerfIT.assertBandwidth(c, size, ITERS, true, d);
        if (t == PerfTest.SEND_BW && !duplex) {
            VerbsPerfIT.assertBandwidth(s, size, ITERS, false, d);
        } else {
            // the RDMA bandwidth server prints the client's result, sent at the end of the test; with -b both print
            // the sum of both directions
            assertArrayEquals(c, s, "the server prints the client's result (-b: both print the sum)\n" + d);
        }
    }

    /**
     * Runs a C perftest tool to its end (at most {@link #RUN_TIMEOUT_SECONDS}), line-buffered where {@code stdbuf}
     * exists, so that a tool killed at the time-out leaves what it printed (a pipe's buffer dies with it). A kill is
     * reported with the rdma_cm ids' states just before it.
     */
    static PerfSide runC(List<String> command) {
        List<String> run = new ArrayList<>(command);
        if (Files.isExecutable(STDBUF)) {
            run.addAll(0, List.of(STDBUF.toString(), "-oL", "-eL"));
        }
        return runProcess(run, RUN_TIMEOUT_SECONDS, true);
    }

    private static final Path STDBUF = Path.of("/usr/bin/stdbuf");

    /**
     * Runs {@code command} to its end or for {@code timeoutSeconds}, its output in files; killed, it exits -1 with
     * a line saying so after its stderr (and, with {@code cmIdsBeforeKill}, the rdma_cm ids' states).
     */
    private static PerfSide runProcess(List<String> command, long timeoutSeconds, boolean cmIdsBeforeKill) {
        Path out = null;
        Path err = null;
        try {
            out = Files.createTempFile("perftest", ".out");
            err = Files.createTempFile("perftest", ".err");
            Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                String cmIds = cmIdsBeforeKill ? "; the rdma_cm ids before the kill, rdma resource show cm_id:\n"
                        + rdmaCmIds() : "";
                p.destroyForcibly().waitFor();
                return new PerfSide(-1, Files.readString(out, StandardCharsets.UTF_8),
                        Files.readString(err, StandardCharsets.UTF_8) + "\n(killed after " + timeoutSeconds + " s"
                                + cmIds + ")");
            }
            return new PerfSide(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(String.join(" ", command), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } finally {
            for (Path f : new Path[] {out, err}) {
                if (f != null) {
                    f.toFile().delete();
                }
            }
        }
    }

    /** iproute2's {@code rdma resource show cm_id}: each rdma_cm id's state, ports and process (for a hang's report). */
    static String rdmaCmIds() {
        try {
            PerfSide r = runProcess(List.of("rdma", "resource", "show", "cm_id"), 10, false);
            return r.out() + r.err();
        } catch (java.io.UncheckedIOException e) {
            return "(rdma: " + e.getCause().getMessage() + ")";
        } catch (IllegalStateException e) {
            if (e.getCause() instanceof InterruptedException) {
                return "(rdma: interrupted)"; // the interrupt stays set: the caller's wait ends with it
            }
            throw e;
        }
    }

    /** Waits until some socket listens on TCP {@code port} (from /proc/net/tcp and tcp6, without connecting to it). */
    static void awaitListening(int port) throws Exception {
        String local = String.format(Locale.ROOT, ":%04X ", port);
        long deadline = System.nanoTime() + 90_000_000_000L;
        while (System.nanoTime() < deadline) {
            List<String> lines = new ArrayList<>(Files.readAllLines(Path.of("/proc/net/tcp")));
            Path v6 = Path.of("/proc/net/tcp6");
            if (Files.exists(v6)) {
                lines.addAll(Files.readAllLines(v6));
            }
            for (String line : lines) {
                String[] f = line.trim().split("\\s+");
                // sl local_address rem_address st: 0A is LISTEN
                if (f.length > 3 && (f[1] + " ").endsWith(local) && f[3].equals("0A")) {
                    return;
                }
            }
            Thread.sleep(50);
        }
        fail("nothing listens on TCP port " + port + " after 90 s");
    }
}
