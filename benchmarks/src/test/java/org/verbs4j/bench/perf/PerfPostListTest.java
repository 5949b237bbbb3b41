package org.verbs4j.bench.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.verbs4j.lab.TestPorts;

/**
 * {@code -l} (post lists) on the host, verbs4j-perf against verbs4j-perf on jsiw_lo with {@code -R} (two threads,
 * as {@link LocalWarmUpTest}): the sender posts chains, each completion accounts for a list, every iteration
 * arrives (a send_bw server counts its receives), the header and perftest's note say so, and the local warm-up
 * runs whole lists.
 */
class PerfPostListTest {

    @BeforeAll
    static void softwareDevice() {
        LocalWarmUpTest.softwareDevice();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = PerfTest.class, names = {"SEND_BW", "WRITE_BW", "READ_BW"})
    void listsOfEightRunEveryIteration(PerfTest t) throws Exception {
        // send_bw keeps the local warm-up, whose runs must be whole lists too (else its receiver waits or breaks)
        List<String> a = LocalWarmUpTest.args(t.command(), TestPorts.next(), "-l", "8", "-n", "808", "-s", "4096");
        if (t != PerfTest.SEND_BW) {
            a.add("--no-warmup");
        }
        LocalWarmUpTest.Pair p = LocalWarmUpTest.runPair(a);
        String d = p.describe();
        assertEquals(0, p.server().exit(), d);
        assertEquals(0, p.client().exit(), d);
        String title = "                    " + t.title().replace(" BW ", " Post List BW ");
        for (LocalWarmUpTest.Side s : List.of(p.server(), p.client())) {
            List<String> lines = s.output().lines().toList();
            assertTrue(lines.contains(title), d);
            assertTrue(lines.contains(" Post List       : 8"), d);
            assertTrue(lines.contains(" CQ Moderation   : 8"), d);
            assertTrue(lines.contains("Post List requested - CQ moderation will be the size of the post list"), d);
        }
        String[] row = row(p.client().output(), d);
        assertEquals("4096", row[0], d);
        assertEquals("808", row[1], "every iteration ran\n" + d);
        assertTrue(Double.parseDouble(row[2]) > 0, "a peak, from windows that start at lists\n" + d);
        if (t == PerfTest.SEND_BW) {
            assertEquals("808", row(p.server().output(), d)[1], "the server received every message\n" + d);
        }
    }

    /** {@code -Q 2 -l 8}: four signaled requests per list, each completion accounting for two. */
    @Test
    void aModerationBelowTheListSignalsSeveralPerList() throws Exception {
        List<String> a = LocalWarmUpTest.args("write_bw", TestPorts.next(), "-l", "8", "-Q", "2", "-n", "800", "-s",
                "1024", "--no-warmup");
        LocalWarmUpTest.Pair p = LocalWarmUpTest.runPair(a);
        String d = p.describe();
        assertEquals(0, p.client().exit(), d);
        assertTrue(p.client().output().lines().anyMatch(" CQ Moderation   : 2"::equals), d);
        assertEquals("800", row(p.client().output(), d)[1], d);
    }

    /** {@code write_bw -b -l 4}: both sides post lists at once. */
    @Test
    void bidirectionalWritesPostListsOnBothSides() throws Exception {
        List<String> a = LocalWarmUpTest.args("write_bw", TestPorts.next(), "-b", "-l", "4", "-n", "400", "-s",
                "4096", "--no-warmup");
        LocalWarmUpTest.Pair p = LocalWarmUpTest.runPair(a);
        String d = p.describe();
        assertEquals(0, p.server().exit(), d);
        assertEquals(0, p.client().exit(), d);
        for (LocalWarmUpTest.Side s : List.of(p.server(), p.client())) {
            assertTrue(s.output().contains("                    RDMA_Write Bidirectional Post List BW Test"), d);
            assertEquals("400", row(s.output(), d)[1], d);
        }
    }

    private static String[] row(String output, String d) {
        List<String> lines = output.lines().toList();
        int at = lines.indexOf(PerfFormat.BW_COLUMNS);
        assertTrue(at >= 0, "a result\n" + d);
        return lines.get(at + 1).trim().split("\\s+");
    }
}
