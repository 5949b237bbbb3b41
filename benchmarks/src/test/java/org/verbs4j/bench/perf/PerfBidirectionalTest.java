package org.verbs4j.bench.perf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.verbs4j.lab.TestPorts;
import org.verbs4j.lab.Async;

/**
 * {@code -b} on the host, verbs4j-perf against verbs4j-perf on jsiw_lo with {@code -R} (two threads, as
 * {@link LocalWarmUpTest}): both sides stream at once and each prints the same line, the sum of both directions, per
 * size; the title says Bidirectional.
 */
class PerfBidirectionalTest {

    @BeforeAll
    static void softwareDevice() {
        LocalWarmUpTest.softwareDevice();
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"write_bw, -s 65536 -n 500", "read_bw, -s 4096 -n 500", "write_bw, -a --max_size=4096 -n 200",
            "read_bw, -s 1024 -D 2", "send_bw, -s 65536 -n 500", "send_bw, -a --max_size=4096 -n 200",
            "send_bw, -s 2 -n 3000 -r 8 -t 64 -Q 1"})
    void bothSidesStreamAndPrintTheSameSum(String test, String options) throws Exception {
        List<String> a = LocalWarmUpTest.args(test, TestPorts.next(), "-b", "--no-warmup");
        a.addAll(List.of(options.split(" ")));
        LocalWarmUpTest.Pair p = LocalWarmUpTest.runPair(a);
        String d = p.describe();
        assertEquals(0, p.server().exit(), d);
        assertEquals(0, p.client().exit(), d);
        String title = test.equals("write_bw") ? "RDMA_Write Bidirectional BW Test"
                : test.equals("read_bw") ? "RDMA_Read Bidirectional BW Test" : "Send Bidirectional BW Test";
        assertTrue(p.server().output().contains(title) && p.client().output().contains(title), d);
        List<double[]> server = rows(p.server().output());
        List<double[]> client = rows(p.client().output());
        boolean duration = options.contains("-D");
        int sizes = options.contains("-a") ? 12 : 1; // 2 B to 4 KiB
        assertEquals(sizes, server.size(), "one line per size on the server\n" + d);
        assertEquals(sizes, client.size(), "one line per size on the client\n" + d);
        for (int i = 0; i < sizes; i++) {
            double[] s = server.get(i);
            double[] c = client.get(i);
            assertTrue(s[3] > 0 && s[4] > 0, "a bandwidth and a message rate\n" + d);
            if (duration) {
                // each side counts its own iterations in the sample; the sums are the same
                assertArrayEquals(new double[] {c[0], c[2], c[3], c[4]}, new double[] {s[0], s[2], s[3], s[4]}, d);
            } else {
                assertArrayEquals(c, s, "both sides print the sum of both directions\n" + d);
                assertEquals(Integer.parseInt(options.replaceAll(".*-n (\\d+).*", "$1")), (int) s[1], d);
            }
        }
    }

    /** A client with -b against a server without it: the server sends an empty result, and the client says so. */
    @Test
    void aPeerWithoutItIsNamed() throws Exception {
        List<String> server = LocalWarmUpTest.args("write_bw", TestPorts.next(), "-n", "200", "--no-warmup");
        ByteArrayOutputStream serverSink = new ByteArrayOutputStream();
        PrintStream serverBoth = new PrintStream(serverSink, true, StandardCharsets.UTF_8);
        CompletableFuture<LocalWarmUpTest.Side> s =
                Async.supply(() -> LocalWarmUpTest.Side.run(server, serverSink, serverBoth));
        String banner = PerfFormat.waitingBanner().get(2);
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!serverSink.toString(StandardCharsets.UTF_8).contains(banner) && !s.isDone()
                && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        List<String> client = new ArrayList<>(LocalWarmUpTest.client(server));
        client.add("-b");
        ByteArrayOutputStream clientSink = new ByteArrayOutputStream();
        LocalWarmUpTest.Side c = LocalWarmUpTest.Side.run(client, clientSink,
                new PrintStream(clientSink, true, StandardCharsets.UTF_8));
        LocalWarmUpTest.Side sv = s.get(60, TimeUnit.SECONDS);
        String d = "--- server\n" + sv.output() + "--- client\n" + c.output();
        assertEquals(0, c.exit(), d);
        assertTrue(c.output().contains("verbs4j-perf: the peer measured nothing (it runs without -b?): the line is "
                + "this side's direction only"), d);
    }

    /** The result lines after the bandwidth columns: size, iterations, peak, average, message rate. */
    static List<double[]> rows(String output) {
        List<double[]> rows = new ArrayList<>();
        boolean in = false;
        for (String l : output.lines().toList()) {
            if (l.equals(PerfFormat.BW_COLUMNS)) {
                in = true;
            } else if (in && l.startsWith("---")) {
                in = false;
            } else if (in) {
                String[] f = l.trim().split("\\s+");
                double[] v = new double[f.length];
                for (int i = 0; i < f.length; i++) {
                    v[i] = Double.parseDouble(f[i]);
                }
                rows.add(v);
            }
        }
        return rows;
    }
}
