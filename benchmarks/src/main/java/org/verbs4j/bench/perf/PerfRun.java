package org.verbs4j.bench.perf;

import java.io.PrintStream;

/**
 * One test, size after size, as perftest runs it: the column headers, then per size the unmeasured warm-up
 * runs ({@code --warmup}), the measured run of {@link PerfRunner} and its report ({@link PerfReport}), then
 * the closing line, with perftest's handshakes between the sides ({@link #run}).
 */
final class PerfRun {
    /** {@code --warmup} runs the loop this many times (its iterations split among them). */
    static final int WARMUP_RUNS = 5;

    private final PerfOptions o;
    private final PerfSession session;
    private final PerfRunner runner;
    private final PerfReport reporter;
    private final PrintStream out;
    private final PrintStream err;

    PerfRun(PerfOptions o, PerfSession session, PerfRunner runner, PrintStream out, PrintStream err) {
        this.o = o;
        this.session = session;
        this.runner = runner;
        this.reporter = new PerfReport(o, out);
        this.out = out;
        this.err = err;
    }

    /**
     * Runs every size, printing perftest's result lines, with perftest's handshakes: before each size of the
     * send tests (and, in send_bw over all sizes, after it); none between the sizes of the RDMA tests, whose
     * server waits at one handshake for the client's end and, in the bandwidth tests, for its last result. Then
     * perftest's closing handshake and "done" (not in write_lat, which just exits). {@code --warmup} (verbs4j-perf's own, so both sides must be
     * verbs4j-perf with the same value) adds a handshake before every run of every test.
     */
    void run() {
        PerfCmLink link = session.channel.cmLink();
        Runnable drive = passiveServer() && link != null ? runner.passiveDrive() : null;
        if (drive != null) {
            link.driveWhileWaiting(drive);
        }
        try {
            runSizes();
        } finally {
            if (drive != null) {
                link.driveWhileWaiting(null);
            }
        }
    }

    /** The servers that only wait: read_lat's, write_bw's and read_bw's (write_lat's server ping-pongs). */
    private boolean passiveServer() {
        PerfTest t = o.test;
        return !o.isClient()
                && (t == PerfTest.READ_LAT || !o.duplex && (t == PerfTest.WRITE_BW || t == PerfTest.READ_BW));
    }

    private void runSizes() {
        boolean client = o.isClient();
        PerfTest t = o.test;
        boolean warm = o.warmup > 0;
        boolean passiveServer = passiveServer();
        // perftest's read_lat server only waits: no columns, no results
        boolean quiet = t == PerfTest.READ_LAT && !client;
        if (!quiet) {
            reporter.columns();
        }
        long[] sizes = o.sizes();
        for (long sz : sizes) {
            if (passiveServer && !warm) {
                break;
            }
            warmUp((int) sz);
            // duration mode: perftest's iters = 0, the loops run until the clock says END
            runner.measure((int) sz, o.isDuration() ? 0 : o.iters, "start of size " + sz,
                    t.syncsEachSize() || warm || o.duplex);
            long loopBytes = runner.loopAllocated();
            runner.report(reporter);
            if (runner.measuresAllocation()
                    && (client || o.duplex || t == PerfTest.SEND_LAT || t == PerfTest.WRITE_LAT || t == PerfTest.SEND_BW)) {
                err.println("verbs4j-perf: the measured loop allocated " + loopBytes + " bytes (size " + sz + ")");
            }
            out.flush();
            // with -a a handshake after each size: in send_bw after its results, in the RDMA tests with -b before them
            boolean allSizes = sizes.length > 1;
            if (allSizes && o.duplex && t != PerfTest.SEND_BW) {
                session.sync("end of size " + sz);
            }
            if (o.duplex) {
                printBothDirections();
            }
            if (allSizes && t == PerfTest.SEND_BW) {
                session.sync("end of size " + sz);
            }
        }
        if (t.bandwidth && t.verb != PerfTest.Verb.SEND && !o.duplex) {
            session.sync("end of test");
            BandwidthStats.Result theirs = session.channel.exchangeReports(client ? reporter.last() : null);
            if (!client) {
                reporter.bandwidthLine(theirs);
            }
        }
        if (!quiet) {
            out.println(PerfFormat.RESULT_LINE);
        }
        out.flush();
        if (t.closesConnection()) {
            session.sync("close");
            session.channel.finish();
        }
    }

    /** {@code -b}: this side's result for the peer's, and one line with both directions added. */
    private void printBothDirections() {
        BandwidthStats.Result mine = reporter.last();
        BandwidthStats.Result theirs = session.channel.exchangeReports(mine);
        reporter.bandwidthLine(BandwidthStats.sum(mine, theirs));
        out.flush();
        if (theirs.iterations() == 0) {
            err.println("verbs4j-perf: the peer measured nothing (it runs without -b?): the line is this side's "
                    + "direction only");
        }
    }

    /**
     * verbs4j's {@code --warmup}: the same loop, unmeasured, so that the measured run is compiled code. In
     * {@link #WARMUP_RUNS} runs, each followed by a wait for the JIT compiler threads to go idle: HotSpot
     * compiles a long loop on-stack (OSR) within its first run, and its ordinary compilation of the method only
     * when the method is entered again and runs long enough; the end of a run can deoptimize the loop (a path
     * the profile never saw). Seen in the lab with one warm-up run: C2 compiled the loop method at the start of
     * the measured run, taking half a vCPU for most of a second of it.
     */
    private void warmUp(int sz) {
        LocalWarmUp.Plan plan = o.warmupPlan;
        int runs = plan != null ? LocalWarmUp.MAX_RUNS : (int) Math.min(WARMUP_RUNS, o.warmup);
        long waited = 0;
        long lastIters = 0;
        long lastNanos = 0;
        for (int r = 0; r < runs; r++) {
            long n = plan != null ? plan.iterations(r, lastIters, lastNanos)
                    : o.warmup / runs + (r < o.warmup % runs ? 1 : 0);
            if (n == 0) {
                break;
            }
            long t0 = System.nanoTime();
            runner.measure(sz, n, "warm-up " + (r + 1) + " of size " + sz, true);
            lastNanos = System.nanoTime() - t0;
            lastIters = n;
            waited += plan != null ? CompilerQuiet.await(plan.quietLimit()) : CompilerQuiet.await();
        }
        if (waited > 2_000_000_000L) {
            err.printf("verbs4j-perf: waited %.1f s in all for the JIT compiler during the warm-up of size %d%n",
                    waited / 1e9, sz);
        }
    }
}
