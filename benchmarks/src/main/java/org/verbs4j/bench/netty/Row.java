package org.verbs4j.bench.netty;

import java.util.Arrays;
import java.util.Locale;

/**
 * One line of netty-perf's report: a transport's result at one size, or a ratio of two (then {@code transport} is
 * {@code a/b} and the value columns hold {@code a}'s value over {@code b}'s). Latencies in microseconds, whole round
 * trips; throughput in MB/s (10^6 bytes) and messages per second; allocation in bytes per message. NaN: not measured
 * by this test.
 */
record Row(Test test, boolean ratio, String transport, int bytes, long count, double mean, double median, double p99,
        double min, double mbPerSecond, double messagesPerSecond, double clientLoopBytes, double serverLoopBytes,
        double callerBytes, double warmupMillis) {

    static final String CSV_HEADER = "test,kind,transport,bytes,count,mean_us,median_us,p99_us,min_us,mb_per_s,msg_per_s,"
            + "client_loop_b_per_msg,server_loop_b_per_msg,caller_b_per_msg,warmup_ms";

    /** A latency result over {@code rttNanos}, each a round trip. */
    static Row latency(Test test, String transport, int bytes, long[] rttNanos, double warmupMillis) {
        long[] s = rttNanos.clone();
        Arrays.sort(s);
        double sum = 0;
        for (long v : s) {
            sum += v;
        }
        int n = s.length;
        double p99 = s[Math.max(0, (int) Math.ceil(0.99 * n) - 1)];
        return new Row(test, false, transport, bytes, n, sum / n / 1e3, s[n / 2] / 1e3, p99 / 1e3, s[0] / 1e3,
                Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, warmupMillis);
    }

    static Row throughput(String transport, int bytes, long count, long nanos, double warmupMillis) {
        double seconds = nanos / 1e9;
        return new Row(Test.THROUGHPUT, false, transport, bytes, count, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                (double) bytes * count / 1e6 / seconds, count / seconds, Double.NaN, Double.NaN, Double.NaN, warmupMillis);
    }

    static Row allocation(String transport, int bytes, long count, double clientLoop, double serverLoop, double caller,
            double warmupMillis) {
        return new Row(Test.ALLOC, false, transport, bytes, count, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                Double.NaN, Double.NaN, clientLoop, serverLoop, caller, warmupMillis);
    }

    /** {@code a / b}, column by column. */
    static Row ratio(Row a, Row b) {
        return new Row(a.test, true, a.transport + "/" + b.transport, a.bytes, a.count, a.mean / b.mean, a.median / b.median,
                a.p99 / b.p99, a.min / b.min, a.mbPerSecond / b.mbPerSecond, a.messagesPerSecond / b.messagesPerSecond,
                Double.NaN, Double.NaN, Double.NaN, Double.NaN);
    }

    String csv() {
        return String.join(",", test.name().toLowerCase(Locale.ROOT), ratio ? "ratio" : "result", transport,
                Integer.toString(bytes), Long.toString(count), num(mean), num(median), num(p99), num(min), num(mbPerSecond),
                num(messagesPerSecond), num(clientLoopBytes), num(serverLoopBytes), num(callerBytes), num(warmupMillis));
    }

    private static String num(double v) {
        return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.4f", v);
    }
}
