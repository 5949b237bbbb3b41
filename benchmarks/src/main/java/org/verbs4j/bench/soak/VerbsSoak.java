package org.verbs4j.bench.soak;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.verbs4j.api.Rdma;
import org.verbs4j.api.RdmaDevice;
import org.verbs4j.api.WorkCompletions;
import org.verbs4j.bench.RawSoakLink;

/**
 * {@code verbs4j-soak}: a long run of every kind of operation on one RDMA device, through the endpoint API
 * and through the raw verbs, then endpoint connect/disconnect cycles through rdma_cm, sampling the process'
 * resources as it goes; it fails when a curve grows after the warm-up or verbs4j reports a leak.
 *
 * <pre>
 * verbs4j-soak -d rxe0 -n 1000000 -c 10000 -o soak-rxe0.csv          # everything, 10^6 of each, 10^4 cycles
 * verbs4j-soak -d siw0 -k raw-send,raw-write,raw-read -n 200000      # a part
 * </pre>
 *
 * Phases, in this order (or {@code -k}'s): {@code ep-send}, {@code ep-write}, {@code ep-read} (an endpoint
 * pair connected through rdma_cm), {@code raw-send}, {@code raw-write}, {@code raw-read} (two RC queue pairs),
 * {@code cycles}. Both ends of every connection are in this process, driven by one thread (see
 * {@link SoakLoop} for what is checked); a phase's pair is made before its first sample and closed after its
 * last. See {@link SoakOptions} for the options and docs/reliability.md for how to read the result.
 */
public final class VerbsSoak {
    private VerbsSoak() {
    }

    /**
     * Runs the soak with {@code args} and exits with its status.
     *
     * @param args the command line ({@code -h} lists the options)
     */
    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Parses {@code args}, runs the soak; returns the exit status (0 passed, 1 failed, 2 usage). */
    static int run(String[] args, PrintStream out, PrintStream err) {
        return SoakOptions.parser().launch(args, out, err,
                c -> SoakOptions.of(c, VerbsSoak::firstDevice, RawSoakLink::labAddress), o -> {
                    try {
                        return soak(o, out).passed() ? 0 : 1;
                    } catch (RuntimeException e) {
                        out.flush();
                        err.println("verbs4j-soak: " + e);
                        e.printStackTrace(err);
                        return 1;
                    } finally {
                        out.flush();
                        err.flush();
                    }
                });
    }

    private static String firstDevice() {
        List<RdmaDevice> devices = Rdma.devices();
        if (devices.isEmpty()) {
            throw new IllegalStateException("no RDMA device: give -d DEV on a machine with one");
        }
        return devices.get(0).name();
    }

    /**
     * What one phase did.
     *
     * @param kind the phase
     * @param outcome its operations (or cycles), messages checked byte by byte, and time
     * @param samples how many samples it took
     * @param leaks verbs4j leak reports during the phase
     * @param verdicts the flatness of each curve after the warm-up
     */
    record Phase(SoakKind kind, SoakLoop.Outcome outcome, int samples, long leaks, List<Flatness.Verdict> verdicts) {
        /** @return true when there were curves to judge, all flat, and no leak */
        boolean passed() {
            return leaks == 0 && !verdicts.isEmpty() && verdicts.stream().allMatch(Flatness.Verdict::flat);
        }
    }

    /**
     * The whole run.
     *
     * @param device the device
     * @param phases each phase, in order
     * @param samples every sample taken
     */
    record Result(String device, List<Phase> phases, List<Sample> samples) {
        /** @return true when every phase passed */
        boolean passed() {
            return !phases.isEmpty() && phases.stream().allMatch(Phase::passed);
        }
    }

    /** Runs the phases of {@code o}, printing each phase's result on {@code out}. */
    static Result soak(SoakOptions o, PrintStream out) {
        ExecutorService acceptor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "verbs4j-soak-accept");
            t.setDaemon(true);
            return t;
        });
        PrintWriter csv = null;
        try {
            if (o.output != null) {
                csv = new PrintWriter(Files.newBufferedWriter(o.output, StandardCharsets.UTF_8));
                csv.println(Sample.CSV_HEADER);
            }
            ResourceSampler sampler = new ResourceSampler(o.device, csv, o.nativeCounts);
            out.printf(Locale.ROOT, "verbs4j-soak %s (%s): %,d operations per kind, %,d cycles, %d-byte messages, "
                    + "depth %d; warm-up %.0f%%, tolerance %.1f%%%n", o.device, o.address.getHostAddress(), o.ops,
                    o.cycles, o.size, o.depth, 100 * o.warmup, 100 * o.tolerance);
            List<Phase> phases = new ArrayList<>();
            for (SoakKind kind : o.kinds) {
                Phase p = phase(o, kind, phases.size(), sampler, acceptor);
                phases.add(p);
                print(o, p, out);
            }
            Result r = new Result(o.device, List.copyOf(phases), List.copyOf(sampler.samples()));
            out.println("verbs4j-soak " + o.device + ": " + (r.passed() ? "PASSED" : "FAILED") + " ("
                    + phases.stream().filter(Phase::passed).count() + " of " + phases.size() + " phases passed)");
            return r;
        } catch (IOException e) {
            throw new IllegalStateException("cannot write " + o.output + ": " + e.getMessage(), e);
        } finally {
            if (csv != null) {
                csv.close();
            }
            acceptor.shutdownNow();
        }
    }

    private static Phase phase(SoakOptions o, SoakKind kind, int index, ResourceSampler sampler,
            ExecutorService acceptor) {
        long total = kind.operations ? o.ops : o.cycles;
        long interval = kind.operations ? o.interval : o.cycleInterval;
        PhaseProgress progress = new PhaseProgress(sampler, kind.id, interval);
        long leaks0 = ResourceSampler.settledLeakCount();
        SoakLoop.Outcome outcome;
        InetSocketAddress at = new InetSocketAddress(o.address, o.port + index);
        if (kind.operations) {
            SoakLink.Layout layout = new SoakLink.Layout(o.size, o.depth, SoakOptions.RING);
            try (SoakLink link = kind.raw() ? RawSoakLink.open(o.device, o.address, layout)
                    : EndpointLink.open(at, layout, o.stall, acceptor);
                    WorkCompletions wc = WorkCompletions.allocate(o.depth);
                    WorkCompletions rwc = WorkCompletions.allocate(o.depth)) {
                progress.at(0);
                SoakLoop loop = new SoakLoop(link, wc, rwc, o.stall, progress);
                outcome = switch (kind) {
                    case EP_SEND, RAW_SEND -> loop.send(total);
                    case EP_WRITE, RAW_WRITE -> loop.write(total);
                    default -> loop.read(total);
                };
                progress.last(total);
            }
        } else {
            outcome = new ConnectCycles(at, o.size, o.stall, acceptor).run(total, progress);
            progress.last(total);
        }
        if (outcome.ops() != total) {
            throw new IllegalStateException(kind.id + ": " + outcome.ops() + " of " + total + " done");
        }
        long leaks = ResourceSampler.settledLeakCount() - leaks0;
        List<Sample> samples = sampler.of(kind.id);
        return new Phase(kind, outcome, samples.size(), leaks, Flatness.judge(samples, total, o.warmup, o.tolerance));
    }

    private static void print(SoakOptions o, Phase p, PrintStream out) {
        SoakLoop.Outcome r = p.outcome();
        out.printf(Locale.ROOT, "%s %-9s %,d %s in %.1f s (%,.0f/s), %,d checked byte by byte; %d samples, %d leaks: "
                + "%s%n", o.device, p.kind().id, r.ops(), p.kind().operations ? "operations" : "cycles", r.seconds(),
                r.ops() / r.seconds(), r.contentChecked(), p.samples(), p.leaks(), p.passed() ? "FLAT" : "FAILED");
        StringBuilder sb = new StringBuilder("    ");
        for (Flatness.Verdict v : p.verdicts()) {
            sb.append(v).append("; ");
        }
        if (p.verdicts().isEmpty()) {
            sb.append("fewer than two samples after the warm-up: nothing judged (lower -I)");
        }
        out.println(sb);
        out.flush();
    }

    /** Takes a sample every {@code interval} operations of a phase (and at its start and end). */
    private static final class PhaseProgress implements SoakLoop.Progress {
        private final ResourceSampler sampler;
        private final String phase;
        private final long interval;
        private long next;
        private long lastSampled = -1;

        PhaseProgress(ResourceSampler sampler, String phase, long interval) {
            this.sampler = sampler;
            this.phase = phase;
            this.interval = interval;
        }

        @Override
        public void at(long done) {
            if (done >= next) {
                sampler.sample(phase, done);
                lastSampled = done;
                next = (done / interval + 1) * interval;
            }
        }

        /** The phase's last sample, unless the interval just took it. */
        void last(long done) {
            if (lastSampled != done) {
                sampler.sample(phase, done);
                lastSampled = done;
            }
        }
    }
}
