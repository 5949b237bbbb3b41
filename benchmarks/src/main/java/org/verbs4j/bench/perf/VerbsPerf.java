package org.verbs4j.bench.perf;

import java.io.PrintStream;
import org.verbs4j.api.VerbsException;
import org.verbs4j.examples.cli.OptionParser;
import org.verbs4j.examples.cli.UsageException;

/**
 * {@code verbs4j-perf}: rdma-core perftest's six basic tests on verbs4j, with perftest's options, roles and
 * report, so that the two can be run side by side on the same device and compared.
 *
 * <pre>
 * verbs4j-perf send_lat|write_lat|read_lat|send_bw|write_bw|read_bw [options]          # server
 * verbs4j-perf send_lat|write_lat|read_lat|send_bw|write_bw|read_bw [options] HOST     # client
 * </pre>
 *
 * Without a host it is the server: it waits for one client on TCP port {@code -p} (18515; with {@code -R} the
 * rdma_cm port {@code -p}). With a host it
 * is the client. Both sides must be given the same test and the same {@code -s}/{@code -a}, {@code -n}/{@code -D}
 * and {@code -R}, as with perftest. The out-of-band exchange is perftest's ({@link PerfChannel}), so the
 * peer can be C perftest's tool of the same test. See {@link PerfOptions} for the options and
 * docs/perftest.md for what is and is not like perftest.
 *
 * <p>Exit status: 0 when the test ran (or for {@code -h}, {@code -V}), 1 on any failure (message on stderr), as
 * perftest; 2 for a bad command line (perftest: 1), as every tool of the examples' {@link OptionParser}.
 */
public final class VerbsPerf {
    static final String VERSION = "verbs4j-perf 0.1 (perftest 4.5-0.17 report format)";

    private VerbsPerf() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs one test with {@code args} (the test name first); returns the exit status. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        OptionParser general = PerfCommandLine.parser(null);
        if (args.length == 0 || args[0].startsWith("-")) {
            // no test: only -h/--help has a meaning
            return general.launch(args, out, err, c -> {
                throw new UsageException(args.length == 0 ? "no test given" : "the test comes first, then its options");
            }, o -> 0);
        }
        PerfTest test = PerfTest.of(args[0]);
        if (test == null) {
            return general.reportUsageError(new UsageException("unknown test '" + args[0] + "'; the tests are "
                    + PerfCommandLine.TESTS), err);
        }
        String[] rest = new String[args.length - 1];
        System.arraycopy(args, 1, rest, 0, rest.length);
        return PerfCommandLine.parser(test).launch(rest, out, err, c -> PerfOptions.of(test, c), o -> run(o, out, err));
    }

    private static int run(PerfOptions o, PrintStream out, PrintStream err) {
        PerfTest test = o.test;
        if (o.version) {
            out.println("Version: " + VERSION);
            out.flush();
            return 0;
        }
        try {
            runTest(o, out, err);
            return 0;
        } catch (PerfFailure | PerfChannel.ExchangeException e) {
            out.flush();
            err.println("verbs4j-perf " + test.command() + ": " + e.getMessage());
            return 1;
        } catch (VerbsException e) {
            out.flush();
            err.println("verbs4j-perf " + test.command() + ": " + e.getMessage());
            return 1;
        } catch (RuntimeException e) {
            out.flush();
            err.println("verbs4j-perf " + test.command() + ": unexpected failure: " + e);
            e.printStackTrace(err);
            return 1;
        } finally {
            out.flush();
            err.flush();
        }
    }

    /** System property: print what one {@link System#nanoTime()} costs on this machine (stderr). */
    static final String CLOCK_COST = "verbs4j.perf.clockCost";

    /**
     * The median cost of {@link System#nanoTime()} in ns, from 21 batches of 1000 back-to-back calls. It is in
     * every latency sample once (one time stamp per iteration); perftest's cycle counter costs a few cycles.
     */
    static double clockCostNanos() {
        double[] batch = new double[21];
        long sink = 0;
        for (int b = 0; b < batch.length; b++) {
            long t0 = System.nanoTime();
            for (int i = 0; i < 1000; i++) {
                sink += System.nanoTime();
            }
            batch[b] = (System.nanoTime() - t0) / 1000.0;
        }
        java.util.Arrays.sort(batch);
        return sink == 42 ? -1 : batch[batch.length / 2];
    }

    /** perftest's exchange: over TCP, or with {@code -R} over its own rdma_cm connection, on port {@code -p}. */
    private static PerfChannel openChannel(PerfOptions o) {
        if (o.rdmaCm) {
            return PerfChannel.over(o.isClient() ? PerfCmLink.connect(o.serverHost, o.port, o.device)
                    : PerfCmLink.serve(o.port, o.device, o.listening), o.isClient());
        }
        return o.isClient() ? PerfChannel.connect(o.serverHost, o.port) : PerfChannel.serve(o.port, o.listening);
    }

    static void runTest(PerfOptions o, PrintStream out, PrintStream err) {
        if (Boolean.getBoolean(CLOCK_COST)) {
            err.printf(java.util.Locale.ROOT, "verbs4j-perf: System.nanoTime() takes %.0f ns here%n", clockCostNanos());
        }
        PerfSession.checkVectorEarly(o);
        if (o.cqModFromPostList) {
            out.println(PerfFormat.RESULT_LINE); // as perftest says it, when it reads its options
            out.println("Post List requested - CQ moderation will be the size of the post list");
            out.flush();
        }
        if (o.localWarmup) {
            // before the exchange exists: the peer (perhaps C perftest) sees nothing of it; a server prints its
            // "Waiting for client" banner (scripts wait for it) only once it is about to listen
            err.println("verbs4j-perf: " + LocalWarmUp.run(o).line());
            err.flush();
        }
        if (!o.isClient()) {
            for (String l : PerfFormat.waitingBanner()) {
                out.println(l);
            }
            out.flush();
        }
        try (PerfChannel channel = openChannel(o);
             PerfSession session = new PerfSession(o, out, channel)) {
            PerfRunner[] runner = new PerfRunner[1];
            session.connect(() -> {
                // a -R client that retries its test connection comes here once per try, with a new queue pair
                if (runner[0] != null) {
                    runner[0].close();
                }
                runner[0] = new PerfRunner(o, session);
                runner[0].topUpReceives((int) o.sizes()[0]);
            }, () -> {
                for (String l : PerfFormat.header(session.headerValues(session.deviceName(),
                        session.ctx.device().transportType(), session.port.linkLayer(), session.mtu.bytes()))) {
                    out.println(l);
                }
                out.flush();
            });
            try (PerfRunner r = runner[0]) {
                new PerfRun(o, session, r, out, err).run();
            }
        }
    }
}
