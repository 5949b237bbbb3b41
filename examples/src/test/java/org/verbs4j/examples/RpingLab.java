package org.verbs4j.examples;

import org.verbs4j.lab.Lab;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.verbs4j.examples.PingPongLab.PairRun;
import org.verbs4j.examples.PingPongLab.Run;

/**
 * Runs rping, C and Java, for the lab's integration tests (on top of {@link PingPongLab}'s process
 * handling): a server in the background, the client once the server's rdma_cm id listens, their exit
 * status and output. An rdma_cm listener has no TCP socket on RoCE, so "listens" is read from
 * {@code rdma resource show cm_id} (state LISTEN, src-addr IP:PORT), which shows the C and the Java server
 * alike. The client is started only then: C rping's client hangs on iWARP when nobody listens yet. On verbs4j's
 * software iWARP device (the README's test command's host run: {@code FABRIC_LAB_SIW_DEV=jsiw_lo}) there is no
 * kernel rdma_cm and no C rping: a listener is a TCP listening socket (read from /proc/net/tcp, no connection
 * made), and only Java meets Java.
 */
final class RpingLab {
    private static final AtomicInteger NEXT_PORT = new AtomicInteger(7720);
    /** How long a server may take to end after its client ended (it sees the disconnect, cleans up, reports). */
    static final long SERVER_AFTER_CLIENT_SECONDS = 90;

    private RpingLab() {
    }

    /** The lab's two devices, by their IP (rping only knows addresses). */
    enum Device {
        RXE("FABRIC_LAB_RXE_IP"),
        SIW("FABRIC_LAB_SIW_IP");

        final String ipVariable;

        Device(String ipVariable) {
            this.ipVariable = ipVariable;
        }

        String ip() {
            return Lab.env(ipVariable);
        }

        /** Whether this run has the device ({@code FABRIC_LAB_FABRICS}). */
        boolean inThisRun() {
            return Lab.hasFabric(this == RXE ? "roce" : "iwarp");
        }

        /** Whether it is verbs4j's pure-Java software device (no kernel device, no C tools). */
        boolean software() {
            return this == SIW && !Lab.isKernelDevice(Lab.iwarpDevice());
        }
    }

    /** The devices of this run. */
    static List<Device> devices() {
        return java.util.Arrays.stream(Device.values()).filter(Device::inThisRun).toList();
    }

    static int nextPort() {
        return NEXT_PORT.getAndIncrement();
    }

    /** {@code examples/bin/rping}, checked to be runnable (it needs the packaged module). */
    static String launcher() {
        Path dir = PingPongLab.moduleDir();
        if (!Files.isRegularFile(dir.resolve("target/examples.jar")) || !Files.isDirectory(dir.resolve("target/lib"))) {
            fail("examples/bin/rping needs target/examples.jar and target/lib: build on the host first "
                    + "(mvn -o -B -DskipTests install)");
        }
        return dir.resolve("bin/rping").toString();
    }

    static String read(Path f) throws IOException {
        return Files.exists(f) ? Files.readString(f, java.nio.charset.StandardCharsets.UTF_8) : "";
    }

    static List<String> command(boolean java, List<String> args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(java ? launcher() : "rping");
        cmd.addAll(args);
        return cmd;
    }

    /** True when an rdma_cm id listens on {@code ip:port} (any process). */
    static boolean listening(String ip, int port) throws IOException, InterruptedException {
        if (Device.SIW.inThisRun() && Device.SIW.software()) {
            return tcpListening(port);
        }
        Process p = new ProcessBuilder("rdma", "resource", "show", "cm_id").redirectErrorStream(true).start();
        String text = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return false;
        }
        String addr = "src-addr " + ip + ":" + port + " ";
        return text.lines().anyMatch(l -> l.contains("state LISTEN") && (l + " ").contains(addr));
    }

    /** True when a TCP socket listens on {@code port} (any address; /proc/net/tcp and tcp6, state 0A). */
    static boolean tcpListening(int port) throws IOException {
        String hexPort = String.format(":%04X ", port);
        for (String f : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            Path p = Path.of(f);
            if (Files.isReadable(p)) {
                for (String line : Files.readAllLines(p)) {
                    String[] cols = line.trim().split("\\s+");
                    if (cols.length > 3 && (cols[1] + " ").endsWith(hexPort) && cols[3].equals("0A")) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** A server process started with output into files. */
    record Server(List<String> command, Process process, Path out, Path err) {
        Run finish() throws IOException, InterruptedException {
            return PingPongLab.finish(command, process, out, err);
        }

        /** Waits at most {@code seconds} for it to end, then kills it (exit -999, as a timeout). */
        Run finish(long seconds) throws IOException, InterruptedException {
            if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                return new Run(command, -999, read(out), read(err) + "\n[test: killed " + seconds
                        + " s after its client ended]");
            }
            return finish();
        }

        /** Kills it (SIGTERM, then SIGKILL) and returns what it printed. */
        Run kill() throws IOException, InterruptedException {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            return finish();
        }
    }

    /**
     * Starts a server process and waits until it listens on {@code ip:port}; kills it and fails when it does not.
     */
    static Server startServer(String name, List<String> cmd, String ip, int port, Map<String, String> env)
            throws IOException, InterruptedException {
        return startServer(name, cmd, ip, port, env, false);
    }

    /**
     * Starts a server and waits until it listens on {@code ip:port}; kills it and fails when it does not. With
     * {@code inJvm} a Java server that can runs in this JVM ({@link InJvmTool}); it cannot be killed then.
     */
    static Server startServer(String name, List<String> cmd, String ip, int port, Map<String, String> env, boolean inJvm)
            throws IOException, InterruptedException {
        Path dir = Files.createDirectories(PingPongLab.moduleDir().resolve("target/rping-it"));
        Path out = dir.resolve(name + "-server.out");
        Path err = dir.resolve(name + "-server.err");
        Server s = new Server(cmd, inJvm ? PingPongLab.startSide(cmd, out, err, env) : PingPongLab.start(cmd, out, err, env),
                out, err);
        boolean ok = false;
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(PingPongLab.PROCESS_TIMEOUT_SECONDS);
            while (!listening(ip, port)) {
                if (!s.process().isAlive()) {
                    fail("the server exited before it listened on " + ip + ":" + port + ":\n" + s.finish().describe());
                }
                if (System.nanoTime() > deadline) {
                    fail("the server did not listen on " + ip + ":" + port + " within "
                            + PingPongLab.PROCESS_TIMEOUT_SECONDS + " s:\n" + s.kill().describe());
                }
                Thread.sleep(250);
            }
            ok = true;
            return s;
        } finally {
            if (!ok && s.process().isAlive()) {
                s.process().destroyForcibly();
            }
        }
    }

    /** Runs one client to its end (killed after the timeout), output into files; a Java client in this JVM when it can. */
    static Run client(String name, List<String> cmd, Map<String, String> env) throws IOException, InterruptedException {
        Path dir = Files.createDirectories(PingPongLab.moduleDir().resolve("target/rping-it"));
        Path out = dir.resolve(name + "-client.out");
        Path err = dir.resolve(name + "-client.err");
        return PingPongLab.finish(cmd, PingPongLab.startSide(cmd, out, err, env), out, err);
    }

    /** A server, then once it listens a client; both to their end (a server that outlives its client is killed). */
    static PairRun pair(String name, List<String> serverCmd, List<String> clientCmd, String ip, int port,
            Map<String, String> serverEnv, Map<String, String> clientEnv) throws IOException, InterruptedException {
        Server s = startServer(name, serverCmd, ip, port, serverEnv, true);
        try {
            Run c = client(name, clientCmd, clientEnv);
            return new PairRun(s.finish(SERVER_AFTER_CLIENT_SECONDS), c);
        } finally {
            if (s.process().isAlive()) {
                s.process().destroyForcibly();
            }
        }
    }
}
