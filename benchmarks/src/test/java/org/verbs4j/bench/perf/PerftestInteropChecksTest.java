package org.verbs4j.bench.perf;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

/**
 * The check of the Java side in a {@link PerftestInteropIT} pair whose C side measured no clock: before, such an
 * attempt was retried or skipped without looking at the Java side, so a Java failure in it went unseen.
 */
class PerftestInteropChecksTest {
    private static final long SIZE = 4096;
    private static final String D = "(test)";

    private static String latencyReport() {
        long[] posted = new long[PerftestInteropIT.ITERS];
        for (int i = 0; i < posted.length; i++) {
            posted[i] = 1_000_000L + i * 20_000L + (i % 3) * 1_000L;
        }
        return " header\n" + PerfFormat.LAT_COLUMNS + "\n"
                + PerfFormat.latencyLine(LatencyStats.compute(SIZE, posted, PerftestInteropIT.ITERS, 2)) + "\n"
                + PerfFormat.RESULT_LINE + "\n";
    }

    private static String bandwidthReport() {
        int n = PerftestInteropIT.ITERS;
        long[] posted = new long[n];
        long[] completed = new long[n];
        for (int i = 0; i < n; i++) {
            posted[i] = 1_000_000L + i * 20_000L;
            completed[i] = posted[i] + 50_000L + (i % 4) * 5_000L;
        }
        return PerfFormat.BW_COLUMNS + "\n"
                + PerfFormat.bandwidthLine(BandwidthStats.compute(SIZE, n, posted, completed, 1, false, false), false)
                + "\n" + PerfFormat.RESULT_LINE + "\n";
    }

    private static void check(PerfTest t, PerftestInteropIT.Role role, PerfSide java) {
        PerftestInteropIT.assertJavaSideSound(t, role, SIZE, java, false, D);
    }

    @Test
    void aJavaSideThatRanToItsEndPasses() {
        check(PerfTest.SEND_LAT, PerftestInteropIT.Role.C_SERVER, new PerfSide(0, latencyReport(), ""));
        check(PerfTest.SEND_LAT, PerftestInteropIT.Role.JAVA_SERVER, new PerfSide(0, latencyReport(), ""));
        // perftest's read_lat server prints no result, and neither does verbs4j-perf's
        check(PerfTest.READ_LAT, PerftestInteropIT.Role.JAVA_SERVER, new PerfSide(0, " header\n", ""));
        // the RDMA bandwidth server prints the client's result, which a C client without a clock never sent
        check(PerfTest.WRITE_BW, PerftestInteropIT.Role.JAVA_SERVER, new PerfSide(1, "",
                "verbs4j-perf ib_write_bw: the peer at 10.0.0.2:18515 (rdma_cm) disconnected at the end of test"
                        + " (did it fail? see its output)\n"));
        check(PerfTest.WRITE_BW, PerftestInteropIT.Role.C_SERVER, new PerfSide(0, bandwidthReport(), ""));
        // send_bw -b: the server sums both directions after the report exchange, which such a client never reaches
        String flushed = "verbs4j-perf send_bw: the receive of the report exchange with the client of rdma_cm port"
                + " 19906 on siw0 completed with Work Request Flushed Error (the connection is gone: did the peer fail?"
                + " see its output)\n";
        PerftestInteropIT.assertJavaSideSound(PerfTest.SEND_BW, PerftestInteropIT.Role.JAVA_SERVER, SIZE,
                new PerfSide(1, "", flushed), true, D);
        // not a client, nor a send_bw server without -b: they print their result before that exchange
        assertThrows(AssertionFailedError.class, () -> PerftestInteropIT.assertJavaSideSound(PerfTest.SEND_BW,
                PerftestInteropIT.Role.C_SERVER, SIZE, new PerfSide(1, bandwidthReport(), flushed), true, D));
        assertThrows(AssertionFailedError.class, () -> PerftestInteropIT.assertJavaSideSound(PerfTest.SEND_BW,
                PerftestInteropIT.Role.JAVA_SERVER, SIZE, new PerfSide(1, bandwidthReport(), flushed), false, D));
    }

    @Test
    void itMayEndOneOnlyAtAHandshakeAfterItsResult() {
        for (String gone : new String[] {"the peer at /10.0.0.2:18515 closed the connection at the close (did it"
                + " fail? see its output)", "the peer at 10.0.0.2:18515 (rdma_cm) sent nothing for 30 s at the close",
                "the close with /10.0.0.2:18515 failed: java.net.SocketException: Connection reset",
                "the send of the close with 10.0.0.2:18515 (rdma_cm) completed with work request flushed error"}) {
            assertDoesNotThrow(() -> check(PerfTest.SEND_LAT, PerftestInteropIT.Role.C_SERVER,
                    new PerfSide(1, latencyReport(), "verbs4j-perf ib_send_lat: " + gone + "\n")), gone);
        }
        // a failure of its own (a completion with an error), or at a step before its result
        assertThrows(AssertionFailedError.class, () -> check(PerfTest.SEND_LAT, PerftestInteropIT.Role.C_SERVER,
                new PerfSide(1, "", "verbs4j-perf ib_send_lat: Completion with error at client\n")));
        assertThrows(AssertionFailedError.class, () -> check(PerfTest.SEND_LAT, PerftestInteropIT.Role.C_SERVER,
                new PerfSide(1, "", "verbs4j-perf ib_send_lat: the peer at /10.0.0.2:18515 closed the connection at"
                        + " the start of size 4096 (did it fail? see its output)\n")));
    }

    @Test
    void aCrashAKillOrAStackTraceFails() {
        assertThrows(AssertionFailedError.class, () -> check(PerfTest.SEND_LAT, PerftestInteropIT.Role.C_SERVER,
                new PerfSide(134, latencyReport(), "# A fatal error has been detected by the Java Runtime\n")));
        assertThrows(AssertionFailedError.class, () -> check(PerfTest.SEND_LAT, PerftestInteropIT.Role.C_SERVER,
                new PerfSide(-1, "", "\n(killed after 90 s)")));
        assertThrows(AssertionFailedError.class, () -> check(PerfTest.SEND_LAT, PerftestInteropIT.Role.C_SERVER,
                new PerfSide(1, "", "verbs4j-perf ib_send_lat: unexpected failure: java.lang.IllegalStateException\n"
                        + "\tat org.verbs4j.X.y(X.java:1)\n")));
    }

    @Test
    void anExitZeroNeedsASaneResultOfItsOwn() {
        // no result line, or one of another size
        assertThrows(AssertionFailedError.class, () -> check(PerfTest.SEND_LAT, PerftestInteropIT.Role.C_SERVER,
                new PerfSide(0, " header\n", "")));
        assertThrows(AssertionFailedError.class, () -> PerftestInteropIT.assertJavaSideSound(PerfTest.SEND_LAT,
                PerftestInteropIT.Role.C_SERVER, 2, new PerfSide(0, latencyReport(), ""), false, D));
        assertThrows(AssertionFailedError.class, () -> check(PerfTest.WRITE_BW, PerftestInteropIT.Role.C_SERVER,
                new PerfSide(0, "", "")));
        // ended 1 at the close, but without the result it prints before it
        assertThrows(AssertionFailedError.class, () -> check(PerfTest.SEND_LAT, PerftestInteropIT.Role.C_SERVER,
                new PerfSide(1, " header\n", "verbs4j-perf ib_send_lat: the peer at /10.0.0.2:18515 closed the"
                        + " connection at the close (did it fail? see its output)\n")));
    }
}
