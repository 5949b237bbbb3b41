package org.verbs4j.bench.perf;

/**
 * perftest's bandwidth report ({@code print_report_bw}) over nanosecond time stamps.
 *
 * <p>{@code posted[i]} is the time the i-th message was posted, {@code completed[j]} the time the completion
 * that covers message j was polled (written only for the signaled messages: every {@code cqMod}-th and the
 * last). Average bandwidth is {@code size * iters} over the time from the first post to the last completion;
 * the peak is perftest's best rate over any window that starts at a post and ends at a signaled completion.
 * "MB" is perftest's: 2^20 bytes; {@code --report_gbits} is 10^9 bits.
 */
public final class BandwidthStats {
    /** perftest's {@code format_factor} for MB/sec (2^20) and Gb/sec (10^9 / 8 bytes). */
    static final double MB = 0x100000;
    static final double GBIT = 125_000_000;

    /** One result line's numbers. */
    public record Result(long bytes, long iterations, double peak, double average, double msgRateMpps) {
    }

    private BandwidthStats() {
    }

    /**
     * perftest's {@code print_full_bw_report} of a bidirectional run: this side's size and iterations, the peak, the
     * average and the message rate of both directions added.
     */
    static Result sum(Result mine, Result theirs) {
        return new Result(mine.bytes(), mine.iterations(), mine.peak() + theirs.peak(), mine.average() + theirs.average(),
                mine.msgRateMpps() + theirs.msgRateMpps());
    }

    /**
     * Report of a run with time stamps.
     *
     * @param noPeak when set, only {@code posted[0]} (start) and {@code completed[0]} (end) are read and the
     *               peak is 0, as perftest prints it
     */
    public static Result compute(long bytes, long iters, long[] posted, long[] completed, int cqMod, boolean noPeak,
            boolean gbits) {
        return compute(bytes, iters, posted, completed, cqMod, 1, noPeak, gbits);
    }

    /**
     * Report of a run with time stamps whose sender posted lists of {@code postList} requests ({@code -l}): only a
     * list's first message has its post time, so the windows start at lists, as perftest's do.
     */
    static Result compute(long bytes, long iters, long[] posted, long[] completed, int cqMod, int postList,
            boolean noPeak, boolean gbits) {
        double factor = gbits ? GBIT : MB;
        int n = (int) iters;
        long total = noPeak ? completed[0] - posted[0] : completed[n - 1] - posted[0];
        double seconds = total / 1e9;
        double avg = bytes * (double) iters / seconds / factor;
        double rate = iters / seconds / 1e6;
        double peak = 0;
        if (!noPeak) {
            double best = Double.POSITIVE_INFINITY;
            for (int i = 0; i < n; i += postList) {
                for (int j = roundUp(i + 1, cqMod) - 1; j < n; j += cqMod) {
                    best = Math.min(best, (double) (completed[j] - posted[i]) / (j - i + 1));
                }
                if (n % cqMod != 0) {
                    int j = n - 1;
                    best = Math.min(best, (double) (completed[j] - posted[i]) / (j - i + 1));
                }
            }
            peak = bytes / (best / 1e9) / factor;
        }
        return new Result(bytes, iters, peak, avg, rate);
    }

    /** Report of a duration run ({@code -D}) or of the send_bw server: messages counted over {@code nanos}; no peak. */
    public static Result duration(long bytes, long iters, long nanos, boolean gbits) {
        double factor = gbits ? GBIT : MB;
        double seconds = nanos / 1e9;
        return new Result(bytes, iters, 0, bytes * (double) iters / seconds / factor, iters / seconds / 1e6);
    }

    private static int roundUp(int value, int multiple) {
        return (value + multiple - 1) / multiple * multiple;
    }
}
