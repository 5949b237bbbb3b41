package org.verbs4j.bench.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FlatnessTest {
    /** A sample at {@code done} with every metric at {@code v} but RSS at {@code rss}. */
    static Sample at(long done, long rss, long v) {
        return new Sample("rxe0", "ep-send", done, done, rss, v, v, v, v, v, v, v, v, 0);
    }

    static Flatness.Verdict verdict(List<Flatness.Verdict> vs, String metric) {
        return vs.stream().filter(v -> v.metric().equals(metric)).findFirst().orElseThrow();
    }

    @Test
    void warmUpGrowthIsNotJudgedButLaterGrowthIs() {
        List<Sample> s = new ArrayList<>();
        s.add(at(0, 50_000, 10));      // warm-up: RSS still climbing
        s.add(at(100, 80_000, 10));
        s.add(at(200, 100_000, 10));   // first judged sample (warm-up 20% of 1000)
        s.add(at(600, 104_000, 10));
        s.add(at(1000, 103_000, 10));
        List<Flatness.Verdict> vs = Flatness.judge(s, 1000, 0.2, 0.05);
        Flatness.Verdict rss = verdict(vs, "rss_kb");
        assertEquals(100_000, rss.baseline());
        assertEquals(104_000, rss.peak());
        assertEquals(103_000, rss.held(), "104,000 did not hold: the next sample was lower");
        assertEquals(103_000, rss.last());
        assertTrue(rss.flat(), rss.toString());
        assertTrue(vs.stream().allMatch(Flatness.Verdict::flat));

        s.add(at(1000, 106_000, 10));  // 6% over the baseline
        assertFalse(verdict(Flatness.judge(s, 1000, 0.2, 0.05), "rss_kb").flat());
    }

    /** A value far above the baseline in one sample only is reported, not failed; a step that stays fails. */
    @Test
    void aOneSampleSpikeIsNotALeakButAStepThatStaysIs() {
        List<Sample> spike = List.of(at(0, 2500, 10), at(250, 2500, 10), at(500, 2670, 10), at(750, 2500, 10),
                at(1000, 2505, 10));
        Flatness.Verdict rss = verdict(Flatness.judge(spike, 1000, 0, 0.05), "rss_kb");
        assertTrue(rss.flat(), rss.toString());
        assertEquals(2670, rss.peak());
        assertTrue(rss.toString().contains("one-sample peak 2670"), rss.toString());
        List<Sample> step = List.of(at(0, 2500, 10), at(250, 2500, 10), at(500, 2670, 10), at(750, 2670, 10),
                at(1000, 2500, 10));
        assertFalse(verdict(Flatness.judge(step, 1000, 0, 0.05), "rss_kb").flat(), "two samples in a row");
        List<Sample> atTheEnd = List.of(at(0, 2500, 10), at(500, 2500, 10), at(1000, 2670, 10));
        assertFalse(verdict(Flatness.judge(atTheEnd, 1000, 0, 0.05), "rss_kb").flat(), "the last sample alone");
    }

    @Test
    void oneMoreFileDescriptorOrQueuePairIsALeakWhenTheToleranceIsZero() {
        List<Sample> s = List.of(at(0, 1, 40), at(500, 1, 40), at(1000, 1, 41));
        Flatness.Verdict fds = verdict(Flatness.judge(s, 1000, 0, 0), "fds");
        assertFalse(fds.flat());
        assertEquals(1.0 / 40, fds.growth(), 1e-9);
    }

    @Test
    void aResourceThatFallsIsFlatAndOneThatStartsAtZeroMustStayThere() {
        List<Sample> falling = List.of(at(0, 100, 5), at(1000, 90, 5));
        assertTrue(verdict(Flatness.judge(falling, 1000, 0, 0.05), "rss_kb").flat());
        List<Sample> fromZero = List.of(at(0, 100, 0), at(1000, 100, 1));
        assertFalse(verdict(Flatness.judge(fromZero, 1000, 0, 0.05), "qp").flat());
    }

    @Test
    void unmeasuredMetricsAreLeftOutAndTooFewSamplesJudgeNothing() {
        List<Sample> s = List.of(at(0, 100, -1), at(1000, 100, -1));
        List<Flatness.Verdict> vs = Flatness.judge(s, 1000, 0, 0.05);
        assertEquals(List.of("rss_kb"), vs.stream().map(Flatness.Verdict::metric).toList());
        assertTrue(Flatness.judge(List.of(at(0, 1, 1), at(100, 1, 1), at(1000, 1, 1)), 1000, 0.5, 0.05).isEmpty());
    }
}
