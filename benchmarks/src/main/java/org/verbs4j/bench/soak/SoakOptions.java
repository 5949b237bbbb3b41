package org.verbs4j.bench.soak;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.verbs4j.examples.cli.CommandLine;
import org.verbs4j.examples.cli.Option;
import org.verbs4j.examples.cli.OptionParser;
import org.verbs4j.examples.cli.UsageException;
import org.verbs4j.examples.cli.ValueType;
import org.verbs4j.examples.cli.Values;

/**
 * The options of {@code verbs4j-soak}, declared once for the examples' {@link OptionParser}, and the settings of
 * a run made from them.
 */
final class SoakOptions {
    static final Option<String> DEVICE = Option.of('d', "ib-dev", "DEV", Values.string(), null,
            "run on RDMA device DEV").defaultText("the first device found");
    static final Option<String> ADDRESS = Option.of('a', "address", "IP", Values.string(), null,
            "an IPv4 address of DEV's net device, for rdma_cm").defaultText("the fabric lab's address of DEV");
    static final Option<Integer> PORT = Option.of('p', "port", "PORT", Values.intIn(1, 65000), 18700,
            "the endpoint phases listen on PORT, PORT+1, ... (rdma_cm port space)");
    static final Option<Long> OPS = Option.of('n', "ops", "N", Values.longIn(1, Long.MAX_VALUE / 4), 1_000_000L,
            "operations of each data-path kind");
    static final Option<Long> CYCLES = Option.of('c', "cycles", "N", Values.longIn(1, Long.MAX_VALUE / 4), 10_000L,
            "endpoint connect/disconnect cycles");
    static final Option<List<SoakKind>> KINDS = Option.of('k', "kinds", "LIST", SoakOptions::kinds,
            List.of(SoakKind.values()), "the phases to run, comma-separated, in this order: "
                    + String.join(",", SoakKind.byId().keySet())).defaultText("all");
    static final Option<Long> SIZE = Option.of('s', "size", "SIZE", Values.size(8, 1 << 20), 64L,
            "bytes per message, write and read (K, M suffixes)");
    static final Option<Integer> DEPTH = Option.of('t', "depth", "N", Values.intIn(1, 1023), 16,
            "operations in flight at once (send queue and receives)");
    static final Option<Long> INTERVAL = Option.of('I', "interval", "OPS", Values.longIn(1, Long.MAX_VALUE), null,
            "operations between two samples").defaultText("OPS/40");
    static final Option<Long> CYCLE_INTERVAL = Option.of(Option.NO_SHORT, "cycle-interval", "CYCLES",
            Values.longIn(1, Long.MAX_VALUE), null, "cycles between two samples").defaultText("CYCLES/40");
    static final Option<Double> WARMUP = Option.of('w', "warmup", "PERCENT", percent(0, 90), 20.0,
            "the first PERCENT of each phase is warm-up: its samples are not judged");
    static final Option<Double> TOLERANCE = Option.of('T', "tolerance", "PERCENT", percent(0, 1000), 5.0,
            "growth allowed after the warm-up over the first judged sample");
    static final Option<Path> OUTPUT = Option.of('o', "output", "FILE", Path::of, null, "write every sample to FILE "
            + "(CSV: " + Sample.CSV_HEADER + ")").defaultText(null);
    static final Option<Integer> STALL = Option.of(Option.NO_SHORT, "stall", "SEC", Values.intIn(1, 3600), 30,
            "fail when nothing moved for SEC seconds (also the connection timeout)");
    static final Option<Boolean> NO_NATIVE = Option.flag(Option.NO_SHORT, "no-native",
            "do not count the kernel's RDMA resources (rdma resource show)");

    /** The ring of the responder's memory, in slots: writes land there, reads read it. A multiple of 64. */
    static final int RING = 1024;
    /** Samples per phase when no interval is given. */
    static final int SAMPLES = 40;

    final String device;
    final InetAddress address;
    final int port;
    final long ops;
    final long cycles;
    final List<SoakKind> kinds;
    final int size;
    final int depth;
    final long interval;
    final long cycleInterval;
    final double warmup;
    final double tolerance;
    final Path output;
    final Duration stall;
    final boolean nativeCounts;

    private SoakOptions(CommandLine c, String device, InetAddress address) {
        this.device = device;
        this.address = address;
        this.port = c.get(PORT);
        this.ops = c.get(OPS);
        this.cycles = c.get(CYCLES);
        this.kinds = c.get(KINDS);
        this.size = (int) (long) c.get(SIZE);
        this.depth = c.get(DEPTH);
        this.interval = c.given(INTERVAL) ? c.get(INTERVAL) : Math.max(1, ops / SAMPLES);
        this.cycleInterval = c.given(CYCLE_INTERVAL) ? c.get(CYCLE_INTERVAL) : Math.max(1, cycles / SAMPLES);
        this.warmup = c.get(WARMUP) / 100;
        this.tolerance = c.get(TOLERANCE) / 100;
        this.output = c.get(OUTPUT);
        this.stall = Duration.ofSeconds(c.get(STALL));
        this.nativeCounts = !c.get(NO_NATIVE);
    }

    /** The parser of {@code verbs4j-soak}'s command line. */
    static OptionParser parser() {
        return new OptionParser("verbs4j-soak")
                .synopsis("[options]", "soak DEV: every kind's operations, then the connect/disconnect cycles")
                .operands(0, 0)
                .add(DEVICE, ADDRESS, PORT, OPS, CYCLES, KINDS, SIZE, DEPTH, INTERVAL, CYCLE_INTERVAL, WARMUP, TOLERANCE,
                        OUTPUT, STALL, NO_NATIVE)
                .note("Each phase samples RSS, the heap after GC, open file descriptors, the kernel's pd/cq/qp/mr/cm_id/"
                        + "ctx counts\nand verbs4j's leak count; it passes when every curve stays within the tolerance "
                        + "after the\nwarm-up and nothing leaked. Exit status: 0 all phases passed, 1 a failure or a "
                        + "curve that grew, 2 usage.");
    }

    /**
     * The settings of a parsed command line.
     *
     * @param c the command line
     * @param firstDevice the device when {@code -d} is not given (asked only then: it opens the device list)
     * @param labAddress the rdma_cm address of a device when {@code -a} is not given
     */
    static SoakOptions of(CommandLine c, java.util.function.Supplier<String> firstDevice,
            java.util.function.Function<String, InetAddress> labAddress) throws UsageException {
        String device = c.given(DEVICE) ? c.get(DEVICE) : firstDevice.get();
        InetAddress address;
        if (c.given(ADDRESS)) {
            try {
                address = InetAddress.getByName(c.get(ADDRESS));
            } catch (UnknownHostException e) {
                throw new UsageException("option -a (--address): " + c.get(ADDRESS) + " is not an address");
            }
        } else {
            try {
                address = labAddress.apply(device);
            } catch (IllegalArgumentException e) {
                throw new UsageException(e.getMessage() + "; or give -a IP");
            }
        }
        if (c.given(DEPTH) && c.get(DEPTH) >= RING) {
            throw new UsageException("option -t (--depth): at most " + (RING - 1));
        }
        return new SoakOptions(c, device, address);
    }

    private static List<SoakKind> kinds(String text) {
        Map<String, SoakKind> all = SoakKind.byId();
        List<SoakKind> out = new ArrayList<>();
        for (String w : text.split(",")) {
            SoakKind k = all.get(w.trim());
            if (k == null) {
                throw new IllegalArgumentException("'" + w.trim() + "' is not a kind; the kinds are "
                        + String.join(", ", all.keySet()));
            }
            if (!out.contains(k)) {
                out.add(k);
            }
        }
        return List.copyOf(out);
    }

    private static ValueType<Double> percent(double min, double max) {
        return text -> {
            double v;
            try {
                v = Double.parseDouble(text);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + text + "' is not a number");
            }
            if (!(v >= min && v <= max)) {
                throw new IllegalArgumentException(text + " is not in " + min + ".." + max);
            }
            return v;
        };
    }
}
