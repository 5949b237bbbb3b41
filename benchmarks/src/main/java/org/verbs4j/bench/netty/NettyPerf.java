package org.verbs4j.bench.netty;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * netty-perf: what Netty over verbs4j costs. In one run on one device: Netty over verbs4j ({@code RdmaChannel})
 * against verbs4j's endpoint API by hand (the layer's own cost) and against Netty's NIO TCP transport on the same
 * IP address; gRPC unary calls over both Netty transports; the bytes allocated per message on the
 * Netty-over-verbs4j path. One process per side, or both in one JVM ({@code --local}).
 *
 * <pre>
 *   benchmarks/bin/netty-perf [-d DEVICE | -b ADDR] [options]                  server, until killed
 *   benchmarks/bin/netty-perf [options] HOST                                   client: runs the tests, prints the table
 *   benchmarks/bin/netty-perf --local [options] [ADDRESS]                      both in one JVM (default 127.0.0.1, jsiw_lo)
 * </pre>
 *
 * Every echo and every streamed message is checked: its length, and a sample of its bytes ({@link MessagePattern}).
 * Exit status 0; 1 when a check or a connection failed; 2 on a bad command line.
 */
public final class NettyPerf {
    private static final String LEAK_DETECTION = "io.netty.leakDetection.level";

    private NettyPerf() {
    }

    /**
     * Runs a server, a client or both.
     *
     * @param args the command line, see the class comment ({@code -h} lists the options)
     */
    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /**
     * Runs and reports.
     *
     * @param args the command line
     * @param out  the report
     * @param err  errors
     * @return the exit status: 0; 1 on a failure; 2 on a bad command line
     */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        if (System.getProperty(LEAK_DETECTION) == null) {
            // its sampled stack traces would be counted as the transports' allocation (both alike); -D... turns it on
            System.setProperty(LEAK_DETECTION, "disabled");
        }
        return NettyPerfOptions.PARSER.launch(args, out, err, NettyPerfOptions::of, o -> {
            try {
                return o.server() ? serve(o, out, err) : o.local ? local(o, out, err) : client(o, null, out, err);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                err.println("netty-perf: interrupted");
                return 1;
            } catch (Exception e) {
                out.flush();
                err.println("netty-perf: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
                return 1;
            } finally {
                out.flush();
                err.flush();
            }
        });
    }

    private static int serve(NettyPerfOptions o, PrintStream out, PrintStream err) throws Exception {
        try (PerfServers s = new PerfServers(o, err)) {
            out.printf(Locale.ROOT, "netty-perf server: listening on %s, ports %d (netty-rdma), %d (raw-endpoint), "
                    + "%d (netty-nio), %d (gRPC rdma), %d (gRPC nio); message size %d, depth %d, allocator %s%s, "
                    + "RdmaIoHandler spin %d us, naps up to %d us, RDMA region %d; waiting for connections%n", o.bind,
                    o.port, o.port + 1, o.port + 2, o.port + 3, o.port + 4, o.messageSize, o.depth, o.allocator,
                    o.rdmaRegistered ? " (netty-rdma: registered)" : "", o.rdmaSpinNanos / 1000,
                    o.rdmaMaxParkNanos / 1000, o.rdmaRegion);
            out.flush();
            Thread.currentThread().join(); // until killed
            return 0;
        }
    }

    private static int local(NettyPerfOptions o, PrintStream out, PrintStream err) throws Exception {
        try (PerfServers s = new PerfServers(o, err)) {
            return client(o, s, out, err);
        }
    }

    private static int client(NettyPerfOptions o, PerfServers local, PrintStream out, PrintStream err) throws Exception {
        out.printf(Locale.ROOT, "netty-perf: %s %s ports %d-%d, sizes %s, %d iterations after %d warm-up, message size %d,"
                + " depth %d, allocator %s%s, RdmaIoHandler spin %d us, naps up to %d us, RDMA region %d, %s%n",
                local != null ? "--local on" : "client of", o.host, o.port, o.port + Transport.PORTS - 1, sizes(o.sizes),
                o.iters, o.warmup, o.messageSize, o.depth, o.allocator,
                o.rdmaRegistered ? " (netty-rdma: registered)" : "", o.rdmaSpinNanos / 1000,
                o.rdmaMaxParkNanos / 1000, o.rdmaRegion, System.getProperty("java.vm.name") + " " + Runtime.version());
        Report report = new Report(out);
        Transport[] all = {Transport.NETTY_RDMA, Transport.RAW, Transport.NETTY_NIO};
        try (PerfClient c = new PerfClient(o, local)) {
            if (o.runs(Test.LATENCY)) {
                for (int size : o.sizes) {
                    Row[] r = new Row[all.length];
                    for (int i = 0; i < all.length; i++) {
                        Transport t = all[i];
                        report.add(r[i] = measure("latency " + t.label + " " + size + " B", () -> c.latency(t, size)));
                    }
                    report.add(Row.ratio(r[0], r[1]));
                    report.add(Row.ratio(r[0], r[2]));
                }
            }
            if (o.runs(Test.THROUGHPUT)) {
                for (int size : o.sizes) {
                    Row[] r = new Row[all.length];
                    for (int i = 0; i < all.length; i++) {
                        Transport t = all[i];
                        report.add(r[i] = measure("throughput " + t.label + " " + size + " B", () -> c.throughput(t, size)));
                    }
                    report.add(Row.ratio(r[0], r[1]));
                    report.add(Row.ratio(r[0], r[2]));
                }
            }
            if (o.runs(Test.GRPC)) {
                Row rdma = measure("gRPC over netty-rdma", () -> c.grpc(Transport.NETTY_RDMA));
                report.add(rdma);
                Row nio = measure("gRPC over netty-nio", () -> c.grpc(Transport.NETTY_NIO));
                report.add(nio);
                report.add(Row.ratio(rdma, nio));
            }
            if (o.runs(Test.ALLOC)) {
                for (int size : o.sizes) {
                    report.add(measure("alloc netty-rdma " + size + " B", () -> c.allocation(Transport.NETTY_RDMA, size)));
                    report.add(measure("alloc netty-nio " + size + " B", () -> c.allocation(Transport.NETTY_NIO, size)));
                }
                out.println(" (server loop: with --local only; caller: the thread that waits for the loop; the warm-up"
                        + " primes Netty's pools and the JIT)");
            }
        }
        int status = 0;
        if (o.maxAlloc != null) {
            for (Row r : report.rows()) {
                if (r.test() == Test.ALLOC && r.transport().equals(Transport.NETTY_RDMA.label)
                        && (r.clientLoopBytes() > o.maxAlloc || r.serverLoopBytes() > o.maxAlloc)) {
                    err.printf(Locale.ROOT, "netty-perf: netty-rdma at %d B allocates %.1f B (client loop) and %.1f B (server"
                            + " loop) per message, above --max-alloc %d%n", r.bytes(), r.clientLoopBytes(),
                            r.serverLoopBytes(), o.maxAlloc);
                    status = 1;
                }
            }
        }
        if (o.csv != null) {
            try {
                report.writeCsv(Path.of(o.csv));
            } catch (IOException e) {
                throw new IOException("--csv " + o.csv + ": " + e.getMessage(), e);
            }
        }
        return status;
    }

    /** Runs one measurement; a failure says which test, transport and size it was. */
    private static Row measure(String what, Callable<Row> run) throws Exception {
        try {
            return run.call();
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw new Exception(what + ": " + (e.getMessage() == null ? e.toString() : e.getMessage()), e);
        }
    }

    private static String sizes(List<Integer> sizes) {
        StringBuilder sb = new StringBuilder();
        for (int s : sizes) {
            sb.append(sb.length() == 0 ? "" : ",").append(s);
        }
        return sb.toString();
    }
}
