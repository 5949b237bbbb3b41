package org.verbs4j.examples;

import org.verbs4j.lab.Lab;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.verbs4j.examples.PingPongLab.Pairing.C_SERVER_JAVA_CLIENT;
import static org.verbs4j.examples.PingPongLab.Pairing.JAVA_JAVA;
import static org.verbs4j.examples.PingPongLab.Pairing.JAVA_SERVER_C_CLIENT;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.verbs4j.examples.PingPongLab.Pairing;
import org.verbs4j.examples.PingPongLab.PairRun;
import org.verbs4j.examples.PingPongLab.Run;
import org.verbs4j.examples.PingPongLab.Tool;

/**
 * {@code examples/bin/rc-pingpong} against rdma-core 44's {@code ibv_rc_pingpong} on the lab's Soft-RoCE
 * device, in both roles and Java against Java, with {@code -c}: the client writes a pattern at every page
 * start, the server checks it after the last exchange (the C tool prints "invalid data in page N", which
 * fails the four-line check; the Java tool also checks every other byte and exits 1 on a mismatch).
 */
class RcPingPongIT {
    static final Tool TOOL = Tool.RC;
    static final int ITERS = 50;

    static Stream<Arguments> sizesAndPairings() {
        List<Arguments> a = new ArrayList<>();
        for (int size : new int[] {1, 64, 4096, 65536}) {
            for (Pairing p : new Pairing[] {JAVA_SERVER_C_CLIENT, C_SERVER_JAVA_CLIENT, JAVA_JAVA}) {
                // every size against the C tool in both roles; Java with Java (two JVM starts, twice the time)
                // at the smallest and the largest size only
                if (p != JAVA_JAVA || size == 1 || size == 65536) {
                    a.add(Arguments.of(size, p));
                }
            }
        }
        return a.stream();
    }

    static List<String> roce(int port, String... more) {
        List<String> args = new ArrayList<>(List.of("-d", PingPongLab.roceDevice(), "-g", PingPongLab.roceGidIndex(),
                "-p", Integer.toString(port)));
        args.addAll(List.of(more));
        return args;
    }

    static String expectedGid() {
        return "::ffff:" + PingPongLab.roceIp();
    }

    static PairRun pair(String name, Pairing pairing, List<String> args, Map<String, String> javaEnv) throws Exception {
        return PingPongLab.pair(TOOL, name, pairing, args, javaEnv);
    }

    @ParameterizedTest(name = "-s {0} -c, {1}")
    @MethodSource("sizesAndPairings")
    void pingPongsWithTheCToolAndChecksTheData(int size, Pairing pairing) throws Exception {
        List<String> args = roce(PingPongLab.nextPort(), "-n", Integer.toString(ITERS), "-s", Integer.toString(size), "-c");
        PairRun pr = pair("rc-s" + size + "-" + pairing, pairing, args, Map.of());
        PingPongLab.assertPingPong(TOOL, pr, size, ITERS, expectedGid());
    }

    @ParameterizedTest(name = "-e, {0}")
    @EnumSource(value = Pairing.class, names = {"JAVA_SERVER_C_CLIENT", "C_SERVER_JAVA_CLIENT"})
    void sleepsOnCompletionEvents(Pairing pairing) throws Exception {
        List<String> args = roce(PingPongLab.nextPort(), "-n", Integer.toString(ITERS), "-e", "-c");
        PairRun pr = pair("rc-e-" + pairing, pairing, args, Map.of());
        PingPongLab.assertPingPong(TOOL, pr, 4096, ITERS, expectedGid());
    }

    /**
     * The check is real: a client without {@code -c} sends the 0x7b fill where the pattern should be. The C
     * server says "invalid data in page 0" and still exits 0; the Java server says the same and exits 1.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Pairing.class, names = {"JAVA_SERVER_C_CLIENT", "C_C"})
    void theCheckCatchesDataThatIsNotThePattern(Pairing pairing) throws Exception {
        int port = PingPongLab.nextPort();
        List<String> serverArgs = roce(port, "-n", "5", "-s", "8192", "-c");
        List<String> clientArgs = roce(port, "-n", "5", "-s", "8192", PingPongLab.roceIp());
        PairRun pr = PingPongLab.pair("rc-badchk-" + pairing, PingPongLab.command(TOOL, pairing.javaServer, serverArgs),
                PingPongLab.command(TOOL, false, clientArgs), port, Map.of(), Map.of());
        assertEquals(0, pr.client().exit(), pr.describe());
        assertTrue(pr.server().stdout().contains("\ninvalid data in page 0\ninvalid data in page 1\n"), pr.describe());
        assertEquals(pairing.javaServer ? 1 : 0, pr.server().exit(), pr.describe());
    }

    @Test
    void defaultSizeWithoutCheck() throws Exception {
        List<String> args = roce(PingPongLab.nextPort(), "-n", Integer.toString(ITERS));
        PairRun pr = pair("rc-default", JAVA_SERVER_C_CLIENT, args, Map.of());
        PingPongLab.assertPingPong(TOOL, pr, 4096, ITERS, expectedGid());
    }

    /** With C1 only (C2 resolves string constants in the requesting thread, see PingPongSession). */
    @Test
    void theLoopAllocatesNothing() throws Exception {
        List<String> args = roce(PingPongLab.nextPort(), "-n", Integer.toString(ITERS));
        PairRun pr = pair("rc-alloc", JAVA_JAVA, args, Map.of("VERBS4J_JAVA_OPTS",
                "-XX:TieredStopAtLevel=1 -D" + PingPongSession.MEASURE_ALLOCATION + "=true"));
        PingPongLab.assertPingPong(TOOL, pr, 4096, ITERS, expectedGid());
        assertEquals(0, PingPongLab.allocatedBytes(pr.server()), pr.describe());
        assertEquals(0, PingPongLab.allocatedBytes(pr.client()), pr.describe());
    }

    @Test
    void aClientWithNobodyListeningFailsAsTheCToolDoes() throws Exception {
        int port = PingPongLab.nextPort();
        List<String> args = roce(port, "-n", "5", PingPongLab.roceIp());
        Run c = PingPongLab.run(PingPongLab.command(TOOL, false, args), Map.of());
        Run j = PingPongLab.run(PingPongLab.command(TOOL, true, args), Map.of());
        String expected = "Couldn't connect to " + PingPongLab.roceIp() + ":" + port;
        assertEquals(1, c.exit(), c.describe());
        assertEquals(1, j.exit(), j.describe());
        assertTrue(c.stderr().contains(expected), c.describe());
        assertTrue(j.stderr().contains(expected), j.describe());
        assertTrue(PingPongLab.LOCAL.matcher(j.stdout().stripTrailing()).matches(), j.describe());
    }

    @Test
    void iwarpFailsFastWithAClearMessage() throws Exception {
        String siw = PingPongLab.iwarpDevice();
        for (boolean client : new boolean[] {false, true}) {
            List<String> args = new ArrayList<>(List.of("-d", siw, "-g", "0", "-n", "5", "-p",
                    Integer.toString(PingPongLab.nextPort())));
            if (client) {
                args.add(Lab.env("FABRIC_LAB_SIW_IP"));
            }
            Run j = PingPongLab.run(PingPongLab.command(TOOL, true, args), Map.of());
            assertEquals(1, j.exit(), j.describe());
            assertEquals("", j.stdout(), j.describe());
            assertTrue(j.stderr().contains(siw + " is an iWARP device") && j.stderr().contains("rdma_cm"), j.describe());
        }
        // the C tool cannot do it either: it gets as far as RTR/RTS and fails there (both ends exit 1)
        int port = PingPongLab.nextPort();
        List<String> args = List.of("-d", siw, "-g", "0", "-n", "5", "-p", Integer.toString(port));
        List<String> clientArgs = new ArrayList<>(args);
        clientArgs.add(Lab.env("FABRIC_LAB_SIW_IP"));
        PairRun c = PingPongLab.pair("rc-siw-c", PingPongLab.command(TOOL, false, args),
                PingPongLab.command(TOOL, false, clientArgs), port, Map.of(), Map.of());
        assertNotEquals(0, c.server().exit(), c.describe());
        assertNotEquals(0, c.client().exit(), c.describe());
    }
}
