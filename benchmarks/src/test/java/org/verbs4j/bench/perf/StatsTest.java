package org.verbs4j.bench.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** perftest's latency and bandwidth arithmetic, on time stamps whose answer is known. */
class StatsTest {

    /** Time stamps with the given gaps (ns), starting at 1,000,000. */
    private static long[] stamps(long... gaps) {
        long[] t = new long[gaps.length + 1];
        t[0] = 1_000_000;
        for (int i = 0; i < gaps.length; i++) {
            t[i + 1] = t[i] + gaps[i];
        }
        return t;
    }

    @Test
    void latencyHalvesTheRoundTripAndDropsTheTwoLargestSamples() {
        // 10 round trips of 20 us, one of 40 us, two outliers: the outliers are the dropped tail
        long[] t = stamps(20_000, 20_000, 20_000, 40_000, 20_000, 20_000, 20_000, 20_000, 20_000, 20_000, 20_000,
                9_000_000, 8_000_000);
        LatencyStats.Result r = LatencyStats.compute(64, t, t.length, 2);
        assertEquals(64, r.bytes());
        assertEquals(14, r.iterations());
        assertEquals(10.0, r.min(), 1e-9);
        // perftest's t_max: delta[measure_cnt] of the sorted array, the largest dropped one's neighbour
        assertEquals(4000.0, r.max(), 1e-9, "t_max is the smaller outlier, as in perftest");
        assertEquals(10.0, r.typical(), 0.01);
        // average over the 11 kept samples: (10 * 10 + 20) / 11
        assertEquals(120.0 / 11, r.average(), 1e-9);
        double mean = 120.0 / 11;
        double var = (10 * Math.pow(10 - mean, 2) + Math.pow(20 - mean, 2)) / 11;
        assertEquals(Math.sqrt(var), r.stdev(), 1e-9);
        assertEquals(20.0, r.p99(), 0.02);
        assertEquals(20.0, r.p999(), 0.02);
    }

    @Test
    void readLatencyIsTheRoundTripAndPercentilesComeFromTheHistogram() {
        long[] gaps = new long[1000];
        for (int i = 0; i < gaps.length; i++) {
            gaps[i] = 50_000 + i * 10L; // 50.00 .. 59.99 us, evenly spread
        }
        long[] t = stamps(gaps);
        LatencyStats.Result r = LatencyStats.compute(2, t, t.length, 1);
        assertEquals(50.0, r.min(), 1e-9);
        // perftest's t_max is delta[n - 2] of the sorted n samples: the largest is dropped, the second shown
        assertEquals(59.98, r.max(), 1e-9);
        assertEquals(54.99, r.typical(), 0.06);
        assertEquals(59.89, r.p99(), 0.06);
        assertEquals(59.96, r.p999(), 0.06);
        assertEquals(54.985, r.average(), 1e-6);
    }

    @Test
    void tooFewIterations() {
        assertThrows(IllegalArgumentException.class, () -> LatencyStats.compute(2, stamps(1, 2, 3), 4, 2));
    }

    @Test
    void latencyDurationLine() {
        // 1000 round trips in 0.04 s: 20 us one-way, 25,000 round trips per second
        LatencyStats.DurationResult d = LatencyStats.duration(8, 1000, 40_000_000, 2);
        assertEquals(20.0, d.average(), 1e-9);
        assertEquals(25_000.0, d.tps(), 1e-6);
    }

    @Test
    void bandwidthAverageMsgRateAndPeak() {
        // 10 messages of 1 MiB, cq_mod 5: posted every 0.5 ms, completion of 0..4 at 2.5 ms, of 5..9 at 8 ms
        int n = 10;
        long[] posted = new long[n];
        long[] completed = new long[n];
        for (int i = 0; i < n; i++) {
            posted[i] = 500_000L * i;
        }
        completed[4] = 2_500_000;
        completed[9] = 8_000_000;
        BandwidthStats.Result r = BandwidthStats.compute(1 << 20, n, posted, completed, 5, false, false);
        // 10 MiB in 8 ms
        assertEquals(10 / 0.008, r.average(), 1e-6);
        assertEquals(10 / 0.008 / 1e6, r.msgRateMpps(), 1e-12);
        // best window: posted[0] to completed[4] (2.5 ms), 5 messages: 0.5 ms each
        assertEquals(1 / 0.0005, r.peak(), 1e-6);
        BandwidthStats.Result g = BandwidthStats.compute(1 << 20, n, posted, completed, 5, false, true);
        assertEquals((1 << 20) * 10 * 8 / 0.008 / 1e9, g.average(), 1e-9, "Gb/s: 10^9 bits");
    }

    @Test
    void bandwidthOfPostListsStartsItsWindowsAtLists() {
        // 8 messages in lists of 4 (cq_mod 4): lists posted at 0 and 1 ms, completed at 4 and 5 ms; the other
        // entries of posted[] hold nothing of this run (here: a stale 3.9 ms that would make a 0.1 ms window)
        long[] posted = {0, 3_900_000, 3_900_000, 3_900_000, 1_000_000, 3_900_000, 3_900_000, 3_900_000};
        long[] completed = new long[8];
        completed[3] = 4_000_000;
        completed[7] = 5_000_000;
        BandwidthStats.Result r = BandwidthStats.compute(1 << 20, 8, posted, completed, 4, 4, false, false);
        assertEquals(8 / 0.005, r.average(), 1e-6);
        // windows from list starts only: 0 -> 3 (4 ms / 4), 0 -> 7 (5 ms / 8), 4 -> 7 (4 ms / 4): 0.625 ms each
        assertEquals(1 / 0.000625, r.peak(), 1e-6);
        BandwidthStats.Result single = BandwidthStats.compute(1 << 20, 8, posted, completed, 4, false, false);
        assertTrue(single.peak() > r.peak(), "read as single posts, the stale entries make a better window");
    }

    @Test
    void bandwidthWithALastPartialModerationWindow() {
        // 7 messages, cq_mod 3: signaled 2, 5 and the last (6); completion times 10, 20, 25 ms
        long[] posted = {0, 1_000_000, 2_000_000, 3_000_000, 4_000_000, 5_000_000, 6_000_000};
        long[] completed = new long[7];
        completed[2] = 10_000_000;
        completed[5] = 20_000_000;
        completed[6] = 25_000_000;
        BandwidthStats.Result r = BandwidthStats.compute(1000, 7, posted, completed, 3, false, false);
        assertEquals(1000 * 7 / 0.025 / 0x100000, r.average(), 1e-9);
        // best: post 3 -> completion 5 (17 ms / 3) vs post 0 -> 2 (10/3) vs post 6 -> 6 (19) ...: 10/3 ms
        assertEquals(1000 / (10e-3 / 3) / 0x100000, r.peak(), 1e-9);
    }

    @Test
    void aBidirectionalLineAddsBothDirectionsAndKeepsThisSidesSizeAndIterations() {
        BandwidthStats.Result mine = new BandwidthStats.Result(65536, 1000, 900.5, 800.25, 0.0128);
        BandwidthStats.Result theirs = new BandwidthStats.Result(65536, 990, 700.5, 600.5, 0.0096);
        BandwidthStats.Result sum = BandwidthStats.sum(mine, theirs);
        assertEquals(new BandwidthStats.Result(65536, 1000, 1601.0, 1400.75, 0.0224), sum);
        assertEquals(sum.average(), BandwidthStats.sum(theirs, mine).average(), "the same on both sides");
    }

    @Test
    void bandwidthWithoutPeak() {
        long[] posted = {0};
        long[] completed = {2_000_000_000L};
        BandwidthStats.Result r = BandwidthStats.compute(4096, 1000, posted, completed, 100, true, false);
        assertEquals(0, r.peak());
        assertEquals(4096 * 1000 / 2.0 / 0x100000, r.average(), 1e-9);
        assertEquals(1000 / 2.0 / 1e6, r.msgRateMpps(), 1e-12);
        BandwidthStats.Result d = BandwidthStats.duration(4096, 1000, 2_000_000_000L, false);
        assertEquals(r, d);
    }
}
