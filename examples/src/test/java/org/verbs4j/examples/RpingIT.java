package org.verbs4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.verbs4j.examples.PingPongLab.Pairing.C_SERVER_JAVA_CLIENT;
import static org.verbs4j.examples.PingPongLab.Pairing.JAVA_JAVA;
import static org.verbs4j.examples.PingPongLab.Pairing.JAVA_SERVER_C_CLIENT;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.verbs4j.examples.PingPongLab.PairRun;
import org.verbs4j.examples.PingPongLab.Pairing;
import org.verbs4j.examples.PingPongLab.Run;
import org.verbs4j.examples.RpingLab.Device;
import org.verbs4j.examples.RpingLab.Server;

/**
 * {@code examples/bin/rping} against rdma-core 44's {@code rping} on the lab's Soft-RoCE (rxe0) and
 * soft-iWARP (siw0) devices, in both roles and Java against Java, with {@code -v -V}: every "ping data:"
 * line the client prints and every "server ping data:" line the server prints must be exactly rping's ping
 * data for that ping (the C client generates it in the C-client runs, so the Java pattern and the C pattern
 * must agree), the C client's {@code -V} must not report a mismatch (it would exit 255), and the Java
 * server's {@code -V} checks what it READ against the pattern. Plus: a client with nobody listening, and the
 * persistent server ({@code -P}) serving a C and a Java client whose {@code -V} catches a wrong byte.
 * On verbs4j's software device (the host run of the README's test command) only Java meets Java: rping's smallest size 1000
 * times and rping's largest size, and a client with nobody listening.
 */
class RpingIT {
    /** Pings per run: a few hundred at most, emulation is slow. */
    static final int COUNT = 100;
    static final Pattern CLIENT_SUMMARY = Pattern.compile(
            "rping: client: (\\d+) pings of (\\d+) bytes in (\\d+\\.\\d{3}) s, (\\d+\\.\\d) us per ping "
                    + "\\(min (\\d+\\.\\d), max (\\d+\\.\\d)\\)(, data validated)?");
    static final Pattern SERVER_SUMMARY = Pattern.compile(
            "rping: server: (\\d+) pings of (\\d+) bytes in (\\d+\\.\\d{3}) s, (\\d+\\.\\d) us per ping "
                    + "\\(min (\\d+\\.\\d), max (\\d+\\.\\d)\\)(, all of it rping's ping data)?");

    static Stream<Arguments> devicesPairingsSizes() {
        List<Arguments> a = new ArrayList<>();
        for (Device d : RpingLab.devices()) {
            if (d.software()) {
                a.add(Arguments.of(d, JAVA_JAVA, RpingOptions.MIN_SIZE, 1000));
                a.add(Arguments.of(d, JAVA_JAVA, RpingOptions.MAX_SIZE, 20));
                continue;
            }
            a.add(Arguments.of(d, JAVA_SERVER_C_CLIENT, 1000, COUNT));
            a.add(Arguments.of(d, C_SERVER_JAVA_CLIENT, 777, COUNT));
            a.add(Arguments.of(d, JAVA_JAVA, RpingOptions.MAX_SIZE, 20));
        }
        return a.stream();
    }

    static List<String> serverArgs(String ip, int port, String... more) {
        List<String> args = new ArrayList<>(List.of("-s", "-a", ip, "-p", Integer.toString(port)));
        args.addAll(List.of(more));
        return args;
    }

    static List<String> clientArgs(String ip, int port, String... more) {
        List<String> args = new ArrayList<>(List.of("-c", "-a", ip, "-p", Integer.toString(port)));
        args.addAll(List.of(more));
        return args;
    }

    /** The lines rping -v prints for pings {@code from .. from+count-1} of {@code size} bytes. */
    static List<String> pingLines(String prefix, int size, int from, int count) {
        List<String> lines = new ArrayList<>();
        for (int i = from; i < from + count; i++) {
            lines.add(prefix + RpingMessage.pingText(size, i));
        }
        return lines;
    }

    static Matcher summary(Pattern p, Run run) {
        Matcher m = p.matcher(run.stderr());
        assertTrue(m.find(), "no summary line " + p + "\n" + run.describe());
        return m;
    }

    @ParameterizedTest(name = "{0}: {1}, -v -V -S {2} -C {3}")
    @MethodSource("devicesPairingsSizes")
    void pingsWithTheCToolAndTheDataMatches(Device device, Pairing pairing, int size, int count) throws Exception {
        String ip = device.ip();
        int port = RpingLab.nextPort();
        List<String> client = clientArgs(ip, port, "-v", "-V", "-S", Integer.toString(size), "-C", Integer.toString(count));
        if (pairing == JAVA_JAVA) {
            client.addAll(List.of("-I", ip)); // rping -I: bind the client to a source address first
        }
        PairRun pr = RpingLab.pair("rping-" + device + "-" + pairing, RpingLab.command(pairing.javaServer,
                serverArgs(ip, port, "-v", "-V", "-S", Integer.toString(size))), RpingLab.command(pairing.javaClient, client),
                ip, port, Map.of(), Map.of());
        assertEquals(0, pr.client().exit(), "client exit status\n" + pr.describe());
        assertEquals(0, pr.server().exit(), "server exit status\n" + pr.describe());
        assertEquals(pingLines("ping data: ", size, 0, count), pr.client().stdout().lines().toList(),
                "the client's ping data lines\n" + pr.describe());
        assertEquals(pingLines("server ping data: ", size, 0, count), pr.server().stdout().lines().toList(),
                "the server's ping data lines\n" + pr.describe());
        assertFalse(pr.client().stderr().contains("mismatch"), pr.describe());
        assertTrue(pr.server().stderr().contains("server DISCONNECT EVENT..."), pr.describe());
        if (pairing.javaClient) {
            Matcher m = summary(CLIENT_SUMMARY, pr.client());
            assertEquals(count, Integer.parseInt(m.group(1)), pr.describe());
            assertEquals(size, Integer.parseInt(m.group(2)), pr.describe());
            assertTrue(Double.parseDouble(m.group(5)) <= Double.parseDouble(m.group(4))
                    && Double.parseDouble(m.group(4)) <= Double.parseDouble(m.group(6)), "min <= avg <= max\n" + pr.describe());
            assertTrue(m.group(7) != null, "-V reported\n" + pr.describe());
        }
        if (pairing.javaServer) {
            Matcher m = summary(SERVER_SUMMARY, pr.server());
            assertEquals(count, Integer.parseInt(m.group(1)), pr.describe());
            assertEquals(size, Integer.parseInt(m.group(2)), pr.describe());
            assertTrue(m.group(7) != null, "-V reported\n" + pr.describe());
        }
    }

    /** No hang, a clear message and rping's status 255: REJECTED on RoCE, ECONNREFUSED on iWARP. */
    static List<Device> devices() {
        return RpingLab.devices();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("devices")
    void aClientWithNobodyListeningFailsClearly(Device device) throws Exception {
        String ip = device.ip();
        int port = RpingLab.nextPort();
        long t0 = System.nanoTime();
        Run j = RpingLab.client("rping-nobody-" + device, RpingLab.command(true, clientArgs(ip, port, "-C", "1")), Map.of());
        double seconds = (System.nanoTime() - t0) / 1e9;
        assertEquals(255, j.exit(), j.describe());
        assertEquals("", j.stdout(), j.describe());
        assertTrue(j.stderr().startsWith("rping: cannot connect to " + ip + ":" + port + ": rdma_connect failed"), j.describe());
        assertTrue(j.stderr().contains("nobody listens on that port"), j.describe());
        assertTrue(j.stderr().contains(device == Device.RXE ? "RDMA_CM_EVENT_REJECTED" : "ECONNREFUSED"), j.describe());
        System.out.printf("rping -c to %s:%d, nobody listening: exit %d after %.1f s (JVM start included)%n", ip, port,
                j.exit(), seconds);
    }

    /**
     * A Java client whose {@code -S} is larger than the Java server's: the server refuses it (exit 255, saying
     * why) and the client's message points at the server's output, not only at a disconnect.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("devices")
    void aClientLargerThanTheServerIsToldWhy(Device device) throws Exception {
        String ip = device.ip();
        int port = RpingLab.nextPort();
        PairRun pr = RpingLab.pair("rping-larger-" + device, RpingLab.command(true, serverArgs(ip, port, "-S", "100")),
                RpingLab.command(true, clientArgs(ip, port, "-S", "4096", "-C", "5")), ip, port, Map.of(), Map.of());
        assertEquals(255, pr.server().exit(), pr.describe());
        assertTrue(pr.server().stderr().contains("the client's buffer is 4096 bytes, more than this server's 100 (-S)"),
                pr.describe());
        assertEquals(255, pr.client().exit(), pr.describe());
        assertTrue(pr.client().stderr().contains("the server disconnected after 0 of 5 pings (a server refuses a client"
                + " whose -S is larger than its own: see its output)"), pr.describe());
    }

    /**
     * {@code -P}, and the {@code -V} checks are real: one Java server (on siw0) that serves clients one after
     * the other, told by a test-only property to flip one byte before it WRITEs ping 3 back. A C client with
     * the default size and 3 pings never meets the wrong byte and succeeds; a C client and then a Java client
     * with {@code -S 1000 -C 10} both stop at ping 3 with "data mismatch!" and exit 255, having printed pings
     * 0-2. The server keeps serving through all three, then is killed.
     */
    @Test
    void thePersistentServerServesClientAfterClientAndTheClientsCatchAWrongByte() throws Exception {
        Assumptions.assumeFalse(Device.SIW.software(), "C rping meets the Java server: kernel siw only");
        String ip = Device.SIW.ip();
        int port = RpingLab.nextPort();
        Server s = RpingLab.startServer("rping-persistent", RpingLab.command(true, serverArgs(ip, port, "-P", "-v", "-V",
                "-S", "1000")), ip, port, Map.of("VERBS4J_JAVA_OPTS", "-D" + RpingConnection.CORRUPT_PING + "=3"));
        Run good;
        Run c;
        Run java;
        Run server;
        try {
            good = RpingLab.client("rping-persistent-c64", RpingLab.command(false, clientArgs(ip, port, "-v", "-V", "-C", "3")),
                    Map.of());
            c = RpingLab.client("rping-persistent-c1000", RpingLab.command(false, clientArgs(ip, port, "-v", "-V", "-C", "10",
                    "-S", "1000")), Map.of());
            java = RpingLab.client("rping-persistent-java1000", RpingLab.command(true, clientArgs(ip, port, "-v", "-V", "-C",
                    "10", "-S", "1000")), Map.of());
            // the last connection must be over on the server before it is killed: its report is the last line
            long deadline = System.nanoTime() + RpingLab.SERVER_AFTER_CLIENT_SECONDS * 1_000_000_000L;
            while (RpingLab.read(s.err()).lines().filter(l -> l.startsWith("rping: server:")).count() < 3
                    && System.nanoTime() < deadline) {
                Thread.sleep(250);
            }
        } finally {
            server = s.kill();
        }
        String all = "C client -S 64: " + good.describe() + "\nC client -S 1000: " + c.describe() + "\nJava client -S 1000: "
                + java.describe() + "\nserver: " + server.describe();
        assertEquals(0, good.exit(), all);
        assertEquals(pingLines("ping data: ", RpingOptions.DEFAULT_SIZE, 0, 3), good.stdout().lines().toList(), all);
        for (Run r : new Run[] {c, java}) {
            assertEquals(255, r.exit(), all);
            assertTrue(r.stderr().contains("data mismatch!"), all);
            assertEquals(pingLines("ping data: ", 1000, 0, 3), r.stdout().lines().toList(), all);
        }
        // the byte in the middle of the 1000 (strlen 999 + its NUL) the server writes back
        assertTrue(java.stderr().contains("rping: ping 3: byte 500 is 0x"), all);
        List<String> expected = new ArrayList<>(pingLines("server ping data: ", RpingOptions.DEFAULT_SIZE, 0, 3));
        expected.addAll(pingLines("server ping data: ", 1000, 0, 4));
        expected.addAll(pingLines("server ping data: ", 1000, 0, 4));
        assertEquals(expected, server.stdout().lines().toList(), all);
        List<String> reports = server.stderr().lines().filter(l -> l.startsWith("rping: server:")).toList();
        assertEquals(3, reports.size(), all);
        assertTrue(reports.get(0).startsWith("rping: server: 3 pings of 64 bytes"), all);
        // the server counts a ping when it sent its last go-ahead: ping 3 (the wrong one) was the fourth
        assertTrue(reports.get(1).startsWith("rping: server: 4 pings of 1000 bytes"), all);
        assertTrue(reports.get(2).startsWith("rping: server: 4 pings of 1000 bytes"), all);
    }
}
