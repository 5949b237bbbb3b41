package org.verbs4j.bench.soak;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The soak's verdict on one phase's curves: after the warm-up (the samples taken before a given share of the
 * phase's operations are not judged), each metric must stay within a tolerance above the first judged sample,
 * its baseline. A value counts when it holds: when the next sample is as high, or when it is the last sample. A
 * resource that grows with the operations (a leak) does not go away at the next sample and fails, at the latest
 * with the last one; a one-sample spike (objects that another thread held at the moment of one sample's
 * collection) is reported but does not fail the phase. One that falls (memory given back) does not fail either.
 */
final class Flatness {
    private Flatness() {
    }

    /**
     * One metric's verdict.
     *
     * @param metric the CSV name ({@link Sample#METRICS})
     * @param baseline the first sample after the warm-up
     * @param peak the largest sample after the warm-up
     * @param held the largest value that held (the smaller of a sample and the next; the last sample itself)
     * @param last the last sample
     * @param growth {@code (held - baseline) / baseline} (0 when both are 0)
     * @param flat whether {@code growth <= tolerance}
     */
    record Verdict(String metric, long baseline, long peak, long held, long last, double growth, boolean flat) {
        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%s %d -> %s%d, last %d (%+.1f%%)%s", metric, baseline,
                    peak > held ? "one-sample peak " + peak + ", held " : "peak ", held, last, 100 * growth,
                    flat ? "" : " NOT FLAT");
        }
    }

    /**
     * Judges the samples of one phase.
     *
     * @param samples the phase's samples, in order
     * @param total the phase's operations (or cycles)
     * @param warmup the share of {@code total} before which samples are not judged, 0..1
     * @param tolerance the growth allowed over the baseline, e.g. 0.05
     * @return one verdict per metric that was measured (a metric at -1 is not); empty with fewer than two
     *         samples after the warm-up
     */
    static List<Verdict> judge(List<Sample> samples, long total, double warmup, double tolerance) {
        List<Sample> judged = new ArrayList<>();
        for (Sample s : samples) {
            if (s.done() >= warmup * total) {
                judged.add(s);
            }
        }
        List<Verdict> out = new ArrayList<>();
        if (judged.size() < 2) {
            return out;
        }
        for (int m = 0; m < Sample.METRICS.length; m++) {
            long base = judged.get(0).metric(m);
            if (base < 0) {
                continue;
            }
            long peak = base;
            long held = base;
            for (int i = 0; i < judged.size(); i++) {
                long v = judged.get(i).metric(m);
                peak = Math.max(peak, v);
                held = Math.max(held, i + 1 < judged.size() ? Math.min(v, judged.get(i + 1).metric(m)) : v);
            }
            double growth = held == base ? 0 : base == 0 ? Double.POSITIVE_INFINITY : (double) (held - base) / base;
            out.add(new Verdict(Sample.METRICS[m], base, peak, held, judged.get(judged.size() - 1).metric(m), growth,
                    growth <= tolerance));
        }
        return out;
    }
}
