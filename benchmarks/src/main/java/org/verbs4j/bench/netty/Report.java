package org.verbs4j.bench.netty;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** netty-perf's rows, printed as a text table per test as they come, and written as CSV at the end. */
final class Report {
    private final PrintStream out;
    private final List<Row> rows = new ArrayList<>();
    private Test section;

    Report(PrintStream out) {
        this.out = out;
    }

    List<Row> rows() {
        return List.copyOf(rows);
    }

    void add(Row r) {
        rows.add(r);
        if (r.test() != section) {
            section = r.test();
            out.println();
            out.println(title(section));
            out.println(columns(section));
        }
        out.println(line(r));
        out.flush();
    }

    private static String title(Test t) {
        return switch (t) {
            case LATENCY -> "Latency: ping-pong, round trip in microseconds (ratio rows: a over b)";
            case THROUGHPUT -> "Throughput: one-way stream, MB/s = 10^6 bytes per second (ratio rows: a over b)";
            case GRPC -> "gRPC unary calls: round trip of one call in microseconds (ratio row: a over b)";
            case ALLOC -> "Allocation: bytes allocated per message (round trip) by each thread, measured loop only";
        };
    }

    private static String columns(Test t) {
        return switch (t) {
            case LATENCY, GRPC -> String.format(Locale.ROOT, " %-34s %8s %9s %10s %10s %10s %10s %11s", "transport", "bytes",
                    "iters", "mean", "median", "p99", "min", "warm-up ms");
            case THROUGHPUT -> String.format(Locale.ROOT, " %-34s %8s %9s %12s %12s %11s", "transport", "bytes", "msgs",
                    "MB/s", "msg/s", "warm-up ms");
            case ALLOC -> String.format(Locale.ROOT, " %-34s %8s %9s %14s %14s %14s %11s", "transport", "bytes", "msgs",
                    "client loop", "server loop", "caller", "warm-up ms");
        };
    }

    private static String line(Row r) {
        String f = r.ratio() ? "%10.3f" : "%10.2f";
        String name = r.ratio() ? "  " + r.transport() : r.transport();
        return switch (r.test()) {
            case LATENCY, GRPC -> String.format(Locale.ROOT, " %-34s %8d %9s " + f + " " + f + " " + f + " " + f + " %11s", name,
                    r.bytes(), r.ratio() ? "" : Long.toString(r.count()), r.mean(), r.median(), r.p99(), r.min(),
                    warmup(r));
            case THROUGHPUT -> String.format(Locale.ROOT, " %-34s %8d %9s %12s %12s %11s", name, r.bytes(),
                    r.ratio() ? "" : Long.toString(r.count()), value(r.mbPerSecond(), r.ratio()),
                    value(r.messagesPerSecond(), r.ratio()), warmup(r));
            case ALLOC -> String.format(Locale.ROOT, " %-34s %8d %9d %14s %14s %14s %11s", name, r.bytes(), r.count(),
                    value(r.clientLoopBytes(), false), value(r.serverLoopBytes(), false), value(r.callerBytes(), false),
                    warmup(r));
        };
    }

    private static String value(double v, boolean ratio) {
        if (Double.isNaN(v)) {
            return "-";
        }
        return String.format(Locale.ROOT, ratio ? "%.3f" : "%.1f", v);
    }

    private static String warmup(Row r) {
        return Double.isNaN(r.warmupMillis()) ? "" : String.format(Locale.ROOT, "%.0f", r.warmupMillis());
    }

    void writeCsv(Path file) throws IOException {
        List<String> lines = new ArrayList<>();
        lines.add(Row.CSV_HEADER);
        for (Row r : rows) {
            lines.add(r.csv());
        }
        Files.write(file, lines, StandardCharsets.UTF_8);
    }
}
