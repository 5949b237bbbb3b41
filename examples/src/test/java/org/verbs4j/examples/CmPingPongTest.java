package org.verbs4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.verbs4j.endpoint.ConnectionMode;
import org.verbs4j.examples.cli.UsageException;

class CmPingPongTest {
    private static CmPingPong parse(String... args) throws UsageException {
        return CmPingPong.of(CmPingPong.PARSER.parse(args));
    }

    @Test
    void parsesTheOptions() throws UsageException {
        CmPingPong p = parse("-p", "5000", "-s64", "--iters=7", "-r", "3", "-cM", "-d", "rxe0", "-i", "2", "-t", "9",
                "-w", "250", "10.0.0.1");
        assertEquals(5000, p.port);
        assertEquals(64, p.size);
        assertEquals(7, p.iters);
        assertEquals(3, p.rxDepth);
        assertTrue(p.validate && p.manual);
        assertEquals("rxe0", p.device);
        assertEquals(2, p.ibPort);
        assertEquals(9, p.timeoutSeconds);
        assertEquals(250, p.warmupMillis);
        assertEquals("10.0.0.1", p.server);
        assertEquals(ConnectionMode.MANUAL, p.options().mode());
        assertEquals(3, p.options().receiveDepth());
        assertEquals(64, p.options().messageSize());
        CmPingPong d = parse();
        assertNull(d.server);
        assertEquals(CmPingPong.DEFAULT_PORT, d.port);
        assertEquals(ConnectionMode.RDMA_CM, d.options().mode());
        assertEquals(1000, d.warmupMillis, "a second of warm-up by default");
        assertEquals(0, parse("--warmup=0").warmupMillis);
        assertEquals(CmPingPong.MAX_ITERS, parse("-n", "" + CmPingPong.MAX_ITERS).iters);
        assertTrue(CmPingPong.PARSER.parse(new String[] {"-h"}).helpRequested());
    }

    @Test
    void refusesBadCommandLines() {
        for (String[] bad : new String[][] {{"-s", "0"}, {"-n", "x"}, {"-p"}, {"-q", "1"}, {"a", "b"},
                {"-w", "-1"}, {"-w", "x"}, {"-n", "" + (CmPingPong.MAX_ITERS + 1)}}) {
            assertThrows(UsageException.class, () -> parse(bad), String.join(" ", bad));
        }
        assertTrue(assertThrows(UsageException.class, () -> parse("-d", "rxe0")).getMessage().contains("-M"));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(2, CmPingPong.run(new String[] {"-s", "0"}, new PrintStream(out), new PrintStream(err)));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("-s"), err.toString(StandardCharsets.UTF_8));
        assertEquals(0, CmPingPong.run(new String[] {"--help"}, new PrintStream(out), new PrintStream(err)));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("--rx-depth=DEPTH"));
    }

    @Test
    void theLatencyLineHasTheRoundTripAndTheOneWayTypicalLatency() {
        long[] rtt = {30_000, 10_000, 20_000, 50_000, 40_000};
        assertEquals("round trip [usec]: min 10.00  median 30.00  avg 30.00  p99 50.00  max 50.00  one-way t_typical 15.00",
                CmPingPong.latencySummary(rtt));
        assertEquals("round trip [usec]: min 7.00  median 7.00  avg 7.00  p99 7.00  max 7.00  one-way t_typical 3.50",
                CmPingPong.latencySummary(new long[] {7_000}));
    }
}
