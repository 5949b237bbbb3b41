package org.verbs4j.examples;

import org.verbs4j.lab.Lab;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.Rdma;
import org.verbs4j.examples.PingPongLab.Pairing;
import org.verbs4j.examples.PingPongLab.PairRun;
import org.verbs4j.examples.PingPongLab.Run;
import org.verbs4j.examples.PingPongLab.Tool;

/**
 * {@code examples/bin/ud-pingpong} against rdma-core 44's {@code ibv_ud_pingpong} on the lab's Soft-RoCE
 * device, in both roles and Java against Java, with {@code -c}, for sizes up to the port's active MTU
 * (a UD message must fit one packet).
 */
class UdPingPongIT {
    static final Tool TOOL = Tool.UD;
    static final int ITERS = 50;

    static int activeMtu() {
        try (DeviceContext ctx = Rdma.open(PingPongLab.roceDevice())) {
            return ctx.queryPort(1).activeMtu().bytes();
        }
    }

    static Stream<Arguments> sizesAndPairings() {
        int mtu = activeMtu();
        List<Arguments> a = new ArrayList<>();
        for (int size : new int[] {1, mtu / 2, mtu}) {
            for (Pairing p : new Pairing[] {JAVA_SERVER_C_CLIENT, C_SERVER_JAVA_CLIENT, JAVA_JAVA}) {
                // every size against the C tool in both roles; Java with Java (two JVM starts, twice the time)
                // at the smallest and the largest size only
                if (p != JAVA_JAVA || size == 1 || size == mtu) {
                    a.add(Arguments.of(size, p));
                }
            }
        }
        return a.stream();
    }

    static PairRun pair(String name, Pairing pairing, List<String> args, Map<String, String> javaEnv) throws Exception {
        return PingPongLab.pair(TOOL, name, pairing, args, javaEnv);
    }

    @ParameterizedTest(name = "-s {0} -c, {1}")
    @MethodSource("sizesAndPairings")
    void pingPongsWithTheCToolAndChecksTheData(int size, Pairing pairing) throws Exception {
        List<String> args = RcPingPongIT.roce(PingPongLab.nextPort(), "-n", Integer.toString(ITERS), "-s",
                Integer.toString(size), "-c");
        PairRun pr = pair("ud-s" + size + "-" + pairing, pairing, args, Map.of());
        PingPongLab.assertPingPong(TOOL, pr, size, ITERS, RcPingPongIT.expectedGid());
    }

    @ParameterizedTest(name = "-e, {0}")
    @EnumSource(value = Pairing.class, names = {"JAVA_SERVER_C_CLIENT", "C_SERVER_JAVA_CLIENT"})
    void sleepsOnCompletionEvents(Pairing pairing) throws Exception {
        List<String> args = RcPingPongIT.roce(PingPongLab.nextPort(), "-n", Integer.toString(ITERS), "-e", "-c");
        PairRun pr = pair("ud-e-" + pairing, pairing, args, Map.of());
        PingPongLab.assertPingPong(TOOL, pr, 1024, ITERS, RcPingPongIT.expectedGid());
    }

    @Test
    void theLoopAllocatesNothing() throws Exception {
        List<String> args = RcPingPongIT.roce(PingPongLab.nextPort(), "-n", Integer.toString(ITERS));
        PairRun pr = pair("ud-alloc", JAVA_JAVA, args, Map.of("VERBS4J_JAVA_OPTS",
                "-XX:TieredStopAtLevel=1 -D" + PingPongSession.MEASURE_ALLOCATION + "=true"));
        PingPongLab.assertPingPong(TOOL, pr, 1024, ITERS, RcPingPongIT.expectedGid());
        assertEquals(0, PingPongLab.allocatedBytes(pr.server()), pr.describe());
        assertEquals(0, PingPongLab.allocatedBytes(pr.client()), pr.describe());
    }

    @Test
    void aMessageLargerThanTheMtuIsRefusedAsTheCToolDoes() throws Exception {
        int mtu = activeMtu();
        List<String> args = RcPingPongIT.roce(PingPongLab.nextPort(), "-s", Integer.toString(mtu + 1));
        Run c = PingPongLab.run(PingPongLab.command(TOOL, false, args), Map.of());
        Run j = PingPongLab.run(PingPongLab.command(TOOL, true, args), Map.of());
        assertEquals(1, c.exit(), c.describe());
        assertEquals(1, j.exit(), j.describe());
        String expected = "Requested size larger than port MTU (" + mtu + ")\n";
        assertEquals(expected, c.stderr(), c.describe());
        assertEquals(expected, j.stderr(), j.describe());
        assertEquals("", j.stdout(), j.describe());
    }

    @Test
    void iwarpFailsFastWithAClearMessage() throws Exception {
        String siw = PingPongLab.iwarpDevice();
        for (boolean client : new boolean[] {false, true}) {
            List<String> args = new ArrayList<>(List.of("-d", siw, "-n", "5", "-p", Integer.toString(PingPongLab.nextPort())));
            if (client) {
                args.add(Lab.env("FABRIC_LAB_SIW_IP"));
            }
            Run j = PingPongLab.run(PingPongLab.command(TOOL, true, args), Map.of());
            assertEquals(1, j.exit(), j.describe());
            assertEquals("", j.stdout(), j.describe());
            assertTrue(j.stderr().contains(siw + " is an iWARP device") && j.stderr().contains("no UD queue pairs"),
                    j.describe());
        }
        // the C tool fails too, at ibv_create_qp (siw has no UD QPs)
        Run c = PingPongLab.run(PingPongLab.command(TOOL, false, List.of("-d", siw, "-n", "5", "-p",
                Integer.toString(PingPongLab.nextPort()))), Map.of());
        assertEquals(1, c.exit(), c.describe());
        assertTrue(c.stderr().contains("Couldn't create QP"), c.describe());
    }
}
