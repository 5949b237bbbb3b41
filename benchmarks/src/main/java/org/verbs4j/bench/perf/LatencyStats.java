package org.verbs4j.bench.perf;

import java.util.Arrays;
import org.HdrHistogram.Histogram;

/**
 * perftest's latency statistics ({@code print_report_lat}) over nanosecond time stamps.
 *
 * <p>As perftest: the samples are the {@code iters - 1} differences between consecutive post time stamps,
 * divided by the round-trip factor (2 for the send/write ping-pong, whose period is a round trip; 1 for an RDMA
 * READ); they are sorted and the 2 largest dropped ({@code LAT_MEASURE_TAIL}); {@code t_min} is the smallest,
 * {@code t_max} the largest kept one, {@code t_avg} and {@code t_stdev} are over the kept ones.
 *
 * <p>Differences from perftest, all deliberate: time stamps come from {@link System#nanoTime()} (perftest reads
 * the CPU's cycle counter and converts with the CPU's MHz); the median ({@code t_typical}) and the 99% / 99.9%
 * percentiles are HdrHistogram's (3 significant digits: within 0.1% of the exact sample; nearest rank, where
 * perftest averages the two middle samples of an even count and indexes {@code ceil(n * 0.99)} into the sorted
 * array); {@code t_stdev} is the real standard deviation (perftest truncates each deviation to whole
 * microseconds before squaring it).
 */
public final class LatencyStats {
    /** perftest drops the largest samples: {@code LAT_MEASURE_TAIL}. */
    static final int MEASURE_TAIL = 2;
    /** HdrHistogram precision: 3 significant decimal digits. */
    static final int SIGNIFICANT_DIGITS = 3;

    /** One result line's numbers, in microseconds. */
    public record Result(long bytes, long iterations, double min, double max, double typical, double average,
            double stdev, double p99, double p999) {
    }

    /** One duration-mode line ({@code -D}): average latency and round trips (transactions) per second. */
    public record DurationResult(long bytes, long iterations, double average, double tps) {
    }

    private LatencyStats() {
    }

    /**
     * The latency samples, unsorted, in nanoseconds of one-way (or READ round-trip) latency: the
     * {@code iters - 1} differences of {@code posted}, divided by the round-trip factor.
     */
    static double[] samples(long[] posted, int iters, int rttFactor) {
        double[] d = new double[iters - 1];
        for (int i = 0; i < iters - 1; i++) {
            d[i] = (double) (posted[i + 1] - posted[i]) / rttFactor;
        }
        return d;
    }

    /** perftest's report over {@code iters} post time stamps (ns). */
    public static Result compute(long bytes, long[] posted, int iters, int rttFactor) {
        if (iters < MEASURE_TAIL + 3) {
            throw new IllegalArgumentException("need at least " + (MEASURE_TAIL + 3) + " iterations, not " + iters);
        }
        double[] sorted = samples(posted, iters, rttFactor);
        Arrays.sort(sorted);
        int n = sorted.length - MEASURE_TAIL;
        double sum = 0;
        for (int i = 0; i < n; i++) {
            sum += sorted[i];
        }
        double avg = sum / n;
        double var = 0;
        for (int i = 0; i < n; i++) {
            double dev = sorted[i] - avg;
            var += dev * dev;
        }
        double stdev = Math.sqrt(var / n);
        Histogram h = histogram(sorted, n);
        return new Result(bytes, iters, us(sorted[0]), us(sorted[n]), us(h.medianEquivalentValue(h.getValueAtPercentile(50.0))),
                us(avg), us(stdev), us(h.medianEquivalentValue(h.getValueAtPercentile(99.0))),
                us(h.medianEquivalentValue(h.getValueAtPercentile(99.9))));
    }

    /** The first {@code n} values of {@code ns} (whole nanoseconds, at least 1) in a histogram wide enough for them. */
    static Histogram histogram(double[] ns, int n) {
        long highest = 2;
        for (int i = 0; i < n; i++) {
            highest = Math.max(highest, (long) Math.ceil(ns[i]) + 1);
        }
        Histogram h = new Histogram(1, Math.max(2, highest), SIGNIFICANT_DIGITS);
        for (int i = 0; i < n; i++) {
            h.recordValue(Math.max(1, Math.round(ns[i])));
        }
        return h;
    }

    /** {@code print_report_lat_duration}: the sample period's time and round trips. */
    public static DurationResult duration(long bytes, long iterations, long sampleNanos, int rttFactor) {
        double avg = iterations == 0 ? Double.POSITIVE_INFINITY : (double) sampleNanos / 1000.0 / rttFactor / iterations;
        double tps = iterations / (sampleNanos / 1e9);
        return new DurationResult(bytes, iterations, avg, tps);
    }

    /** The sorted, tail-trimmed samples in microseconds, as {@code -H} prints them. */
    static double[] sortedTrimmedMicros(long[] posted, int iters, int rttFactor) {
        double[] s = samples(posted, iters, rttFactor);
        Arrays.sort(s);
        double[] r = Arrays.copyOf(s, s.length - MEASURE_TAIL);
        for (int i = 0; i < r.length; i++) {
            r[i] = us(r[i]);
        }
        return r;
    }

    /** The unsorted samples in microseconds, as {@code -U} prints them. */
    static double[] unsortedMicros(long[] posted, int iters, int rttFactor) {
        double[] s = samples(posted, iters, rttFactor);
        for (int i = 0; i < s.length; i++) {
            s[i] = us(s[i]);
        }
        return s;
    }

    private static double us(double ns) {
        return ns / 1000.0;
    }
}
