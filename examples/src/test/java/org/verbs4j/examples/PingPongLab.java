package org.verbs4j.examples;

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
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs the pingpong tools, C and Java, as the fabric lab's integration tests need them (the idea of
 * verbs-jnr's test {@code Lab}, kept separate): the lab's devices from {@code FABRIC_LAB_*}, a server in the
 * background, a client once the server listens, their exit status and output, and the output parsed.
 * Integration tests fail, never skip, when the lab's variables are missing.
 */
final class PingPongLab {
    /** Per process: generous, the lab's CPU is ~25x slower and a JVM takes seconds to start there. */
    static final long PROCESS_TIMEOUT_SECONDS = 240;
    private static final AtomicInteger NEXT_PORT = new AtomicInteger(19300);

    private PingPongLab() {
    }

    /** The two tools, each a C binary ({@code ibv_rc_pingpong}) and a Java launcher ({@code rc-pingpong}). */
    enum Tool {
        RC,
        UD;

        final String c = "ibv_" + name().toLowerCase(Locale.ROOT) + "_pingpong";
        final String launcher = name().toLowerCase(Locale.ROOT) + "-pingpong";
        /** ud_pingpong's local-address line has a colon before "GID". */
        final boolean udLocalLine = name().equals("UD");
    }

    /** Who plays which role. */
    enum Pairing {
        JAVA_SERVER_C_CLIENT(true, false),
        C_SERVER_JAVA_CLIENT(false, true),
        JAVA_JAVA(true, true),
        C_C(false, false);

        final boolean javaServer;
        final boolean javaClient;

        Pairing(boolean javaServer, boolean javaClient) {
            this.javaServer = javaServer;
            this.javaClient = javaClient;
        }
    }

    static String roceDevice() {
        return Lab.env("FABRIC_LAB_RXE_DEV");
    }

    static String roceGidIndex() {
        return Lab.env("FABRIC_LAB_RXE_GID_INDEX");
    }

    static String roceIp() {
        return Lab.env("FABRIC_LAB_RXE_IP");
    }

    static String iwarpDevice() {
        return Lab.env("FABRIC_LAB_SIW_DEV");
    }

    static int nextPort() {
        return NEXT_PORT.getAndIncrement();
    }

    /** The examples module directory (failsafe runs in it; from the repository root it is examples/). */
    static Path moduleDir() {
        Path here = Path.of("").toAbsolutePath();
        if (Files.isDirectory(here.resolve("bin"))) {
            return here;
        }
        return here.resolve("examples");
    }

    /** The Java launcher of {@code tool}, checked to be runnable (it needs the packaged module). */
    static String launcher(Tool tool) {
        Path dir = moduleDir();
        Path jar = dir.resolve("target/examples.jar");
        if (!Files.isRegularFile(jar) || !Files.isDirectory(dir.resolve("target/lib"))) {
            fail("examples/bin/" + tool.launcher + " needs " + jar + " and target/lib: build on the host first "
                    + "(mvn -o -B -DskipTests install)");
        }
        return dir.resolve("bin").resolve(tool.launcher).toString();
    }

    /** The command for one side. */
    static List<String> command(Tool tool, boolean java, List<String> args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(java ? launcher(tool) : tool.c);
        cmd.addAll(args);
        return cmd;
    }

    /** What one process did. */
    record Run(List<String> command, int exit, String stdout, String stderr) {
        String describe() {
            return String.join(" ", command) + " -> exit " + exit + "\n--- stdout:\n" + stdout + "--- stderr:\n" + stderr;
        }
    }

    /** Both sides of one ping-pong. */
    record PairRun(Run server, Run client) {
        String describe() {
            return "server: " + server.describe() + "\nclient: " + client.describe();
        }
    }

    /**
     * JVM options for every example these tests start, before the test's own {@code VERBS4J_JAVA_OPTS}: C1 only
     * and the serial collector. Under the lab's emulation the C2 compiler and G1's threads take the one vCPU from
     * a JVM that runs for seconds; with these a launch takes about 17% less (8.4 s against 10.1 s for
     * {@code devices}). They change how fast the examples run, not what they do.
     */
    static final String JVM_OPTS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC";

    /** Starts {@code cmd} with stdout and stderr into files (no pipe can fill up and block it). */
    static Process start(List<String> cmd, Path outFile, Path errFile, Map<String, String> env) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(moduleDir().toFile())
                .redirectOutput(outFile.toFile()).redirectError(errFile.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.environment().putAll(env);
        String own = env.get("VERBS4J_JAVA_OPTS");
        pb.environment().put("VERBS4J_JAVA_OPTS", own == null ? JVM_OPTS
                : own.contains("TieredStopAtLevel") ? own : JVM_OPTS + " " + own);
        return pb.start();
    }

    /**
     * Starts one side of a pair: a Java tool in this JVM when it can run here ({@link InJvmTool}: no environment
     * of its own), else a process as {@link #start} does.
     */
    static Process startSide(List<String> cmd, Path outFile, Path errFile, Map<String, String> env) throws IOException {
        Process p = InJvmTool.startIfPossible(cmd, outFile, errFile, env);
        return p != null ? p : start(cmd, outFile, errFile, env);
    }

    static Run finish(List<String> cmd, Process p, Path outFile, Path errFile) throws IOException, InterruptedException {
        if (!p.waitFor(PROCESS_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            return new Run(cmd, -999, read(outFile), read(errFile) + "\n[test: killed after " + PROCESS_TIMEOUT_SECONDS + " s]");
        }
        return new Run(cmd, p.exitValue(), read(outFile), read(errFile));
    }

    private static String read(Path f) throws IOException {
        return Files.exists(f) ? Files.readString(f, StandardCharsets.UTF_8) : "";
    }

    /** Runs one process to its end. */
    static Run run(List<String> cmd, Map<String, String> env) throws IOException, InterruptedException {
        Path dir = Files.createDirectories(moduleDir().resolve("target/pingpong-it"));
        String name = "run-" + nextPort();
        Path out = dir.resolve(name + ".out");
        Path err = dir.resolve(name + ".err");
        return finish(cmd, start(cmd, out, err, env), out, err);
    }

    /**
     * Runs a server of {@code serverCmd} in the background and, once it listens on {@code port}, the client
     * {@code clientCmd} (retried a few times if it finds nobody listening); waits for both.
     */
    static PairRun pair(String name, List<String> serverCmd, List<String> clientCmd, int port, Map<String, String> serverEnv,
            Map<String, String> clientEnv) throws IOException, InterruptedException {
        Path dir = Files.createDirectories(moduleDir().resolve("target/pingpong-it"));
        Path sOut = dir.resolve(name + "-server.out");
        Path sErr = dir.resolve(name + "-server.err");
        Path cOut = dir.resolve(name + "-client.out");
        Path cErr = dir.resolve(name + "-client.err");
        Process server = startSide(serverCmd, sOut, sErr, serverEnv);
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(PROCESS_TIMEOUT_SECONDS);
            while (!listening(port)) {
                if (!server.isAlive()) {
                    Run s = finish(serverCmd, server, sOut, sErr);
                    fail("the server exited before it listened on port " + port + ":\n" + s.describe());
                }
                if (System.nanoTime() > deadline) {
                    fail("the server did not listen on port " + port + " within " + PROCESS_TIMEOUT_SECONDS + " s");
                }
                Thread.sleep(100);
            }
            Run client = null;
            for (int attempt = 1; attempt <= 5; attempt++) {
                client = finish(clientCmd, startSide(clientCmd, cOut, cErr, clientEnv), cOut, cErr);
                boolean nobodyListened = client.exit != 0 && client.stderr.contains("Couldn't connect to");
                if (!nobodyListened || !server.isAlive()) {
                    break;
                }
                Thread.sleep(1000);
            }
            return new PairRun(finish(serverCmd, server, sOut, sErr), client);
        } finally {
            if (server.isAlive()) {
                server.destroyForcibly();
            }
        }
    }

    /**
     * One ping-pong of {@code tool} with the same {@code args} on both sides (they hold {@code -p PORT}), the
     * client's with the server's address appended; {@code javaEnv} is the environment of the Java side(s).
     */
    static PairRun pair(Tool tool, String name, Pairing pairing, List<String> args, Map<String, String> javaEnv)
            throws IOException, InterruptedException {
        int port = Integer.parseInt(args.get(args.indexOf("-p") + 1));
        List<String> clientArgs = new ArrayList<>(args);
        clientArgs.add(roceIp());
        return pair(name, command(tool, pairing.javaServer, args), command(tool, pairing.javaClient, clientArgs), port,
                pairing.javaServer ? javaEnv : Map.of(), pairing.javaClient ? javaEnv : Map.of());
    }

    /** True when something listens on TCP {@code port} (from /proc/net/tcp and tcp6: no probe connection). */
    static boolean listening(int port) throws IOException {
        String hexPort = String.format(Locale.ROOT, ":%04X ", port);
        for (String f : new String[] {"/proc/net/tcp", "/proc/net/tcp6"}) {
            Path p = Path.of(f);
            if (!Files.exists(p)) {
                continue;
            }
            for (String line : Files.readAllLines(p)) {
                String[] cols = line.trim().split("\\s+");
                if (cols.length > 3 && (cols[1] + " ").toUpperCase(Locale.ROOT).endsWith(hexPort) && cols[3].equals("0A")) {
                    return true;
                }
            }
        }
        return false;
    }

    // ---- the output ----

    static final Pattern LOCAL = Pattern.compile(
            "  local address:  LID 0x([0-9a-f]{4}), QPN 0x([0-9a-f]{6}), PSN 0x([0-9a-f]{6})([,:]) GID (\\S+)");
    static final Pattern REMOTE = Pattern.compile(
            "  remote address: LID 0x([0-9a-f]{4}), QPN 0x([0-9a-f]{6}), PSN 0x([0-9a-f]{6}), GID (\\S+)");
    static final Pattern BYTES = Pattern.compile("(\\d+) bytes in (\\d+\\.\\d\\d) seconds = (\\d+\\.\\d\\d) Mbit/sec");
    static final Pattern ITERS = Pattern.compile("(\\d+) iters in (\\d+\\.\\d\\d) seconds = (\\d+\\.\\d\\d) usec/iter");

    /** The four lines of a successful run, parsed. */
    record Output(int lid, int qpn, int psn, String gid, int remoteLid, int remoteQpn, int remotePsn, String remoteGid,
            long bytes, long iters, double seconds, double mbits, double usecPerIter) {
    }

    /**
     * Parses a successful run's stdout: exactly the C tools' four lines (local address, remote address, bytes,
     * iters; any other line, e.g. "invalid data in page N" from a -c check, fails), and checks the totals.
     */
    static Output parse(Tool tool, Run run, long size, long iters) {
        List<String> lines = run.stdout.lines().toList();
        assertEquals(4, lines.size(), "expected exactly 4 lines of output\n" + run.describe());
        Matcher l = match(LOCAL, lines.get(0), run);
        Matcher r = match(REMOTE, lines.get(1), run);
        Matcher b = match(BYTES, lines.get(2), run);
        Matcher i = match(ITERS, lines.get(3), run);
        assertEquals(tool.udLocalLine ? ":" : ",", l.group(4), "separator before GID in the local line of " + tool.c);
        assertEquals(size * iters * 2, Long.parseLong(b.group(1)), "bytes\n" + run.describe());
        assertEquals(iters, Long.parseLong(i.group(1)), "iters\n" + run.describe());
        assertEquals(b.group(2), i.group(2), "the same seconds on both result lines");
        double seconds = Double.parseDouble(i.group(2));
        double usec = Double.parseDouble(i.group(3));
        assertTrue(usec > 0, "usec/iter > 0\n" + run.describe());
        // both lines come from one float: seconds * 1e6 / iters ~ usec/iter (to the rounding of the seconds)
        assertTrue(Math.abs(seconds * 1e6 / iters - usec) <= 0.005 * 1e6 / iters + 0.01,
                "seconds and usec/iter disagree\n" + run.describe());
        return new Output(Integer.parseInt(l.group(1), 16), Integer.parseInt(l.group(2), 16), Integer.parseInt(l.group(3), 16),
                l.group(5), Integer.parseInt(r.group(1), 16), Integer.parseInt(r.group(2), 16),
                Integer.parseInt(r.group(3), 16), r.group(4), Long.parseLong(b.group(1)), iters, seconds,
                Double.parseDouble(b.group(3)), usec);
    }

    private static Matcher match(Pattern p, String line, Run run) {
        Matcher m = p.matcher(line);
        assertTrue(m.matches(), "'" + line + "' does not match " + p + "\n" + run.describe());
        return m;
    }

    /** Both ended with 0, printed the four lines, and each saw the other's address. */
    static void assertPingPong(Tool tool, PairRun pr, long size, long iters, String expectedGid) {
        assertEquals(0, pr.server().exit(), "server exit status\n" + pr.describe());
        assertEquals(0, pr.client().exit(), "client exit status\n" + pr.describe());
        Output s = parse(tool, pr.server(), size, iters);
        Output c = parse(tool, pr.client(), size, iters);
        assertEquals(s.qpn(), c.remoteQpn(), "client's remote QPN\n" + pr.describe());
        assertEquals(s.psn(), c.remotePsn(), "client's remote PSN\n" + pr.describe());
        assertEquals(s.lid(), c.remoteLid(), "client's remote LID\n" + pr.describe());
        assertEquals(c.qpn(), s.remoteQpn(), "server's remote QPN\n" + pr.describe());
        assertEquals(c.psn(), s.remotePsn(), "server's remote PSN\n" + pr.describe());
        assertEquals(expectedGid, s.gid(), "server GID");
        assertEquals(expectedGid, c.gid(), "client GID");
        assertEquals(expectedGid, s.remoteGid(), "server's remote GID");
        assertEquals(expectedGid, c.remoteGid(), "client's remote GID");
    }

    /** The "verbs4j: the ping-pong loop allocated N bytes" line of a Java run, or -1. */
    static long allocatedBytes(Run run) {
        Matcher m = Pattern.compile("verbs4j: the ping-pong loop allocated (\\d+) bytes").matcher(run.stderr());
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }
}
