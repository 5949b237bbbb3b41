package org.verbs4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.verbs4j.api.Gid;
import org.verbs4j.api.QpEndpoint;
import org.verbs4j.examples.PingPongLab.Run;
import org.verbs4j.examples.PingPongLab.Tool;
import org.verbs4j.examples.RpingLab.Device;

/**
 * The tools' servers against hostile clients on the lab's devices: the rc-pingpong server (Java, and rdma-core's
 * {@code ibv_rc_pingpong} beside it for comparison) given an over-long address message, garbage, or nothing;
 * the rping server given a client whose buffer is larger than its own.
 */
class HostileExchangeIT {
    /**
     * The Java server's exchange time-out in these runs: its default ({@code verbs4j.pingpong.exchangeTimeoutMs}
     * unset). The Java server runs in this JVM ({@link InJvmTool}): what is checked is its exchange, its message and
     * its exit status, not its launcher, and each JVM start costs the lab's emulated CPU 15-40 s.
     */
    private static final int TIMEOUT_MS = PingPongExchange.TIMEOUT_MS;
    /** How long the C server gets before the test calls it hung and kills it. */
    private static final int C_PATIENCE_S = 20;

    /** What a hostile client sends, then it stays connected without another byte. */
    static byte[] input(String kind) {
        byte[] address = PingPongExchange.encode(new QpEndpoint(0, 0x123, 0x456,
                Gid.parse("00000000000000000000ffff0a4d0101")));
        switch (kind) {
            case "over-long":
                byte[] b = Arrays.copyOf(address, 60);
                Arrays.fill(b, 52, 60, (byte) 'x');
                return b;
            case "garbage":
                byte[] g = new byte[PingPongExchange.MESSAGE_SIZE];
                new Random(13).nextBytes(g);
                return g;
            case "silent":
                return new byte[0];
            default:
                throw new IllegalArgumentException(kind);
        }
    }

    /** Starts the server, plays the hostile client, and returns the server's run (killed after {@code patience}). */
    static Run hostileClient(boolean java, String kind, int patienceSeconds) throws Exception {
        int port = PingPongLab.nextPort();
        List<String> cmd = PingPongLab.command(Tool.RC, java, new ArrayList<>(List.of("-d", PingPongLab.roceDevice(),
                "-g", PingPongLab.roceGidIndex(), "-p", Integer.toString(port), "-n", "5")));
        Path dir = Files.createDirectories(PingPongLab.moduleDir().resolve("target/pingpong-it"));
        String name = "hostile-" + (java ? "java-" : "c-") + kind + "-" + port;
        Path out = dir.resolve(name + ".out");
        Path err = dir.resolve(name + ".err");
        Process server = PingPongLab.startSide(cmd, out, err, Map.of());
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(PingPongLab.PROCESS_TIMEOUT_SECONDS);
            while (!PingPongLab.listening(port)) {
                if (!server.isAlive() || System.nanoTime() > deadline) {
                    fail("the server did not listen on " + port + ":\n" + PingPongLab.finish(cmd, server, out, err).describe());
                }
                Thread.sleep(100);
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(PingPongLab.roceIp(), port), 10_000);
                long t0 = System.nanoTime();
                s.getOutputStream().write(input(kind));
                s.getOutputStream().flush();
                boolean ended = server.waitFor(patienceSeconds, TimeUnit.SECONDS);
                double seconds = (System.nanoTime() - t0) / 1e9;
                if (!ended) {
                    server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                    Run r = PingPongLab.finish(cmd, server, out, err);
                    System.out.printf("rc-pingpong %s server, %s client: still running after %d s (killed)%n",
                            java ? "Java" : "C", kind, patienceSeconds);
                    return new Run(r.command(), -999, r.stdout(), r.stderr());
                }
                Run r = PingPongLab.finish(cmd, server, out, err);
                System.out.printf("rc-pingpong %s server, %s client: exit %d after %.1f s: %s%n", java ? "Java" : "C",
                        kind, r.exit(), seconds, r.stderr().strip().replace('\n', '|'));
                return r;
            }
        } finally {
            if (server.isAlive()) {
                server.destroyForcibly();
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"over-long", "garbage", "silent"})
    void theJavaServerExitsWithAFailureWithinItsTimeout(String kind) throws Exception {
        long t0 = System.nanoTime();
        Run j = hostileClient(true, kind, TIMEOUT_MS / 1000 + 15);
        assertEquals(1, j.exit(), j.describe());
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(TIMEOUT_MS / 1000 + 60), j.describe());
        String expected = switch (kind) {
            case "over-long" -> "more than the 52 bytes";
            case "garbage" -> "Couldn't parse the remote address";
            default -> "the peer sent 0 of 52 bytes in " + TIMEOUT_MS + " ms";
        };
        assertTrue(j.stderr().contains(expected), j.describe());
    }

    /** For the table: rdma-core's server on the same input (it has no time-out: a silent client holds it). */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"over-long", "garbage"})
    void theCServerOnTheSameInput(String kind) throws Exception {
        Run c = hostileClient(false, kind, C_PATIENCE_S);
        assertNotEquals(0, c.exit(), c.describe());
    }

    /** The rping server refuses a client that advertises a buffer larger than its own, and exits 255. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Device.class)
    void theRpingServerRefusesAnAdvertLargerThanItsBuffer(Device device) throws Exception {
        String ip = device.ip();
        int port = RpingLab.nextPort();
        List<String> server = RpingLab.command(true, RpingIT.serverArgs(ip, port, "-S", "100"));
        List<String> client = RpingLab.command(false, RpingIT.clientArgs(ip, port, "-S", "1000", "-C", "1"));
        PingPongLab.PairRun pr = RpingLab.pair("rping-advert-" + device, server, client, ip, port, Map.of(), Map.of());
        assertEquals(255, pr.server().exit(), pr.describe());
        assertTrue(pr.server().stderr().contains("the client's buffer is 1000 bytes, more than this server's 100 (-S)"),
                pr.describe());
        System.out.printf("rping Java server -S 100, C client -S 1000 on %s: server exit %d, client exit %d%n", device,
                pr.server().exit(), pr.client().exit());
    }
}
