package org.verbs4j.bench.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.verbs4j.lab.TestPorts;

/**
 * A short {@code netty-perf --local} run of each test on the software device {@code jsiw_lo} (127.0.0.1): it exits
 * 0, and its CSV has every row the test makes (each transport and size, the ratios), each value positive and
 * finite (allocation: finite and not negative).
 */
class NettyPerfLocalTest {
    private static final List<String> SIZES = List.of("64", "8192");

    /** The first of {@link Transport#PORTS} ports in a row that {@link TestPorts} handed out one after the other. */
    private static int ports() {
        for (int tries = 0; tries < 20; tries++) {
            int base = TestPorts.next();
            boolean row = true;
            for (int i = 1; i < Transport.PORTS && row; i++) {
                row = TestPorts.next() == base + i;
            }
            if (row) {
                return base;
            }
        }
        throw new IllegalStateException("no " + Transport.PORTS + " free ports in a row");
    }

    @ParameterizedTest
    @ValueSource(strings = {"latency", "throughput", "grpc", "alloc"})
    void aShortLocalRun(String test, @TempDir Path dir) throws Exception {
        Path csv = dir.resolve("rows.csv");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        String[] args = {"--local", "--only", test, "-s", String.join(",", SIZES), "-n", "40", "-w", "20",
            "-p", Integer.toString(ports()), "--csv", csv.toString()};
        int rc = NettyPerf.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        String report = out.toString(StandardCharsets.UTF_8);
        System.out.println(report);
        assertEquals(0, rc, report + err.toString(StandardCharsets.UTF_8));

        List<String> lines = Files.readAllLines(csv);
        assertEquals(Row.CSV_HEADER, lines.get(0));
        List<String> expected = new ArrayList<>();
        switch (test) {
            case "latency", "throughput" -> {
                for (String size : SIZES) {
                    for (String t : List.of("netty-rdma", "raw-endpoint", "netty-nio")) {
                        expected.add(test + ",result," + t + "," + size);
                    }
                    expected.add(test + ",ratio,netty-rdma/raw-endpoint," + size);
                    expected.add(test + ",ratio,netty-rdma/netty-nio," + size);
                }
            }
            case "grpc" -> {
                expected.add("grpc,result,grpc-netty-rdma,64");
                expected.add("grpc,result,grpc-netty-nio,64");
                expected.add("grpc,ratio,grpc-netty-rdma/grpc-netty-nio,64");
            }
            default -> {
                for (String size : SIZES) {
                    expected.add("alloc,result,netty-rdma," + size);
                    expected.add("alloc,result,netty-nio," + size);
                }
            }
        }
        List<String> keys = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split(",", -1);
            keys.add(String.join(",", f[0], f[1], f[2], f[3]));
            // the columns this test fills: latency and gRPC mean..min, throughput MB/s and msg/s, allocation the loops
            int[] columns = switch (test) {
                case "latency", "grpc" -> new int[] {5, 6, 7, 8};
                case "throughput" -> new int[] {9, 10};
                default -> new int[] {11, 12, 13};
            };
            for (int c : columns) {
                double v = Double.parseDouble(f[c]);
                assertTrue(Double.isFinite(v) && (test.equals("alloc") ? v >= 0 : v > 0), "column " + c + " of " + line);
            }
        }
        assertEquals(expected, keys, report);
        assertFalse(report.isBlank());
    }
}
