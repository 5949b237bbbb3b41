package org.verbs4j.bench.perf;

import java.io.PrintStream;

/**
 * perftest's report of one test: the column headers, and per size the result line from the time stamps or
 * the duration sample of {@link PerfRunner} ({@code -U} and {@code -H} print the samples first). The RDMA
 * bandwidth client keeps its last result: perftest sends it to the server at the end of the test, which prints it
 * ({@link PerfRun}).
 */
final class PerfReport {
    private final PerfOptions o;
    private final PrintStream out;
    /** The last bandwidth result this side printed. */
    private BandwidthStats.Result last;

    PerfReport(PerfOptions o, PrintStream out) {
        this.o = o;
        this.out = out;
    }

    /** The last bandwidth result this side printed, or null. */
    BandwidthStats.Result last() {
        return last;
    }

    /** Prints a bandwidth result line (the RDMA bandwidth server: the client's). */
    void bandwidthLine(BandwidthStats.Result r) {
        out.println(PerfFormat.bandwidthLine(r, o.reportGbits));
    }

    /** The column headers of the test. */
    void columns() {
        if (o.test.bandwidth) {
            out.println(o.reportGbits ? PerfFormat.BW_COLUMNS_GBITS : PerfFormat.BW_COLUMNS);
        } else {
            out.println(o.isDuration() ? PerfFormat.LAT_DURATION_COLUMNS : PerfFormat.LAT_COLUMNS);
        }
        out.flush();
    }

    /** {@code -D}: the line of the {@code sampledIters} iterations in the middle {@code sampledNanos} of the run. */
    void duration(boolean client, int size, long sampledIters, long sampledNanos) {
        PerfTest t = o.test;
        if (!t.bandwidth) {
            if (t != PerfTest.READ_LAT || client) {
                out.println(PerfFormat.latencyDurationLine(LatencyStats.duration(size, sampledIters, sampledNanos,
                        t.rttFactor())));
            }
            return;
        }
        bandwidth(client, BandwidthStats.duration(size, sampledIters, sampledNanos, o.reportGbits));
    }

    /** {@code -n}: the line from the time stamps of each post ({@code posted}) and completion ({@code completed}). */
    void iterations(boolean client, int size, long[] posted, long[] completed) {
        PerfTest t = o.test;
        if (!t.bandwidth) {
            if (t == PerfTest.READ_LAT && !client) {
                return;
            }
            if (o.unsorted || o.histogram) {
                samples(posted);
            }
            out.println(PerfFormat.latencyLine(LatencyStats.compute(size, posted, o.iters, t.rttFactor())));
            return;
        }
        BandwidthStats.Result r;
        if (t == PerfTest.SEND_BW && !client && !o.duplex) {
            r = BandwidthStats.duration(size, o.iters, completed[0] - posted[0], o.reportGbits);
        } else if (client || o.duplex) {
            r = BandwidthStats.compute(size, o.iters, posted, completed, o.cqMod, o.postList, o.noPeak, o.reportGbits);
        } else {
            r = null;
        }
        bandwidth(client, r);
    }

    private void bandwidth(boolean client, BandwidthStats.Result measured) {
        if (measured == null) {
            // the RDMA bandwidth server measures nothing: it prints the client's result at the end
            return;
        }
        last = measured;
        if (!o.duplex) {
            bandwidthLine(measured); // -b: printed with the peer's direction added, once both are measured (PerfRun)
        }
    }

    /** {@code -U}: the unsorted samples; {@code -H}: the sorted, trimmed ones; then the columns again. */
    private void samples(long[] posted) {
        int rtt = o.test.rttFactor();
        if (o.unsorted) {
            out.println("#, usec");
            print(LatencyStats.unsortedMicros(posted, o.iters, rtt));
        }
        if (o.histogram) {
            out.println("#, usec");
            print(LatencyStats.sortedTrimmedMicros(posted, o.iters, rtt));
        }
        out.println(PerfFormat.RESULT_LINE);
        out.println(PerfFormat.LAT_COLUMNS);
    }

    private void print(double[] micros) {
        for (int i = 0; i < micros.length; i++) {
            out.println((i + 1) + ", " + PerfFormat.cG(micros[i]));
        }
    }
}
