package org.verbs4j.bench.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.verbs4j.lab.TestPorts;

/**
 * {@code -e} on the host, verbs4j-perf against verbs4j-perf on jsiw_lo with {@code -R} (two threads, as
 * {@link LocalWarmUpTest}): the loops sleep on their completion channels and still run every iteration; the
 * header says so; a completion vector the device does not have is refused before anything reaches the peer.
 */
class PerfEventsTest {

    @BeforeAll
    static void softwareDevice() {
        LocalWarmUpTest.softwareDevice();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = PerfTest.class, names = {"SEND_LAT", "READ_LAT", "SEND_BW", "READ_BW"})
    void bothSidesSleepOnEventsAndRunEveryIteration(PerfTest t) throws Exception {
        // send_lat keeps the local warm-up, so the event loops are what it warms up
        List<String> a = LocalWarmUpTest.args(t.command(), TestPorts.next(), "-e", "-n", "500", "-s",
                t.isBandwidth() ? "65536" : "64");
        if (t != PerfTest.SEND_LAT) {
            a.add("--no-warmup");
        }
        LocalWarmUpTest.Pair p = LocalWarmUpTest.runPair(a);
        String d = p.describe();
        assertEquals(0, p.server().exit(), d);
        assertEquals(0, p.client().exit(), d);
        String events = " Test with events. Using " + LocalWarmUpTest.DEVICE + "_comp0";
        assertTrue(p.client().output().contains(events) && p.server().output().contains(events), d);
        String columns = t.isBandwidth() ? PerfFormat.BW_COLUMNS : PerfFormat.LAT_COLUMNS;
        List<String> lines = p.client().output().lines().toList();
        int at = lines.indexOf(columns);
        assertTrue(at >= 0, "the client's result\n" + d);
        String[] row = lines.get(at + 1).trim().split("\\s+");
        assertEquals(t.isBandwidth() ? "65536" : "64", row[0], d);
        assertEquals("500", row[1], "every iteration ran\n" + d);
    }

    @Test
    void aVectorTheDeviceDoesNotHaveIsRefusedFirst() {
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        PrintStream both = new PrintStream(sink, true, StandardCharsets.UTF_8);
        List<String> a = LocalWarmUpTest.args("send_lat", TestPorts.next(), "-e", "-X", "1");
        LocalWarmUpTest.Side s = LocalWarmUpTest.Side.run(a, sink, both);
        assertEquals(1, s.exit(), s.output());
        assertTrue(s.output().contains("Completion vector specified is invalid (-X 1): " + LocalWarmUpTest.DEVICE
                + " has 1, so the largest is 0"), s.output());
        assertFalse(s.output().contains("warm-up") || s.output().contains("Waiting"), "before the warm-up and the "
                + "banner\n" + s.output());
    }
}
