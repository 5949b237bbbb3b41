package org.verbs4j.bench.perf;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * perftest's command line, the part verbs4j-perf implements: the same short and long option names, the same
 * defaults and ranges, and the same adjustments perftest makes after parsing ({@code force_dependecies}: tx depth
 * and rx depth capped by the iterations, CQ moderation capped by the tx depth and off above 8 KiB, no peak above
 * 20,000 iterations, ...). Options of perftest that verbs4j-perf does not implement are refused by name.
 *
 * <p>Parsing is getopt_long's: short options may be clustered ({@code -aF}) and take their value attached or
 * as the next word ({@code -s64}, {@code -s 64}); long options take {@code --size=64} or {@code --size 64};
 * the one non-option word is the server's host name (client role), anywhere on the line.
 */
public final class PerfOptions {
    /** perftest's defaults and limits (perftest_parameters.h). */
    static final int DEF_PORT = 18515;
    static final int DEF_SIZE_LAT = 2;
    static final int DEF_SIZE_BW = 65536;
    static final int DEF_ITERS = 1000;
    static final int DEF_ITERS_WRITE_BW = 5000;
    static final int DEF_TX_BW = 128;
    static final int DEF_TX_LAT = 1;
    static final int DEF_RX_SEND = 512;
    static final int DEF_CQ_MOD = 100;
    static final int DEF_QP_TIMEOUT = 14;
    static final int DEF_DURATION = 5;
    static final int DEF_INLINE_WRITE_LAT = 220;
    static final int DEF_INLINE_SEND_LAT = 236;
    static final int MAX_SIZE = 8388608;
    static final int MIN_ITER = 5;
    static final int MAX_ITER = 100_000_000;
    static final int MAX_TX = 15000;
    static final int MAX_RX = 16384;
    static final int MAX_CQ_MOD = 1024;
    static final int MAX_INLINE = 912;
    static final int MSG_SIZE_CQ_MOD_LIMIT = 8192;
    static final int NO_PEAK_ITERS = 20000;

    /** Short options that take a value (those verbs4j-perf implements and those it refuses). */
    private static final String SHORT_WITH_VALUE = "pdimsntuSxcIorQDTqXMAlfBEJjKkYwyWL";

    private static final Map<String, Character> LONG = Map.ofEntries(
            Map.entry("port", 'p'), Map.entry("ib-dev", 'd'), Map.entry("ib-port", 'i'), Map.entry("mtu", 'm'),
            Map.entry("size", 's'), Map.entry("iters", 'n'), Map.entry("tx-depth", 't'), Map.entry("qp-timeout", 'u'),
            Map.entry("sl", 'S'), Map.entry("gid-index", 'x'), Map.entry("all", 'a'), Map.entry("CPU-freq", 'F'),
            Map.entry("connection", 'c'), Map.entry("inline_size", 'I'), Map.entry("outs", 'o'),
            Map.entry("rdma_cm", 'R'), Map.entry("tos", 'T'), Map.entry("help", 'h'), Map.entry("rx-depth", 'r'),
            Map.entry("cq-mod", 'Q'), Map.entry("noPeak", 'N'), Map.entry("version", 'V'),
            Map.entry("report-histogrm", 'H'), Map.entry("report-unsorted", 'U'), Map.entry("duration", 'D'),
            // refused, with their names
            Map.entry("qp", 'q'), Map.entry("events", 'e'), Map.entry("vector", 'X'), Map.entry("mcg", 'g'),
            Map.entry("comm_rdma_cm", 'z'), Map.entry("hop_limit", 'L'), Map.entry("MGID", 'M'),
            Map.entry("bidirectional", 'b'), Map.entry("report-cycles", 'C'), Map.entry("atomic_type", 'A'),
            Map.entry("dualport", 'O'), Map.entry("post_list", 'l'), Map.entry("margin", 'f'));

    /** What the refused short options are, for the message. */
    private static final Map<Character, String> REFUSED = Map.ofEntries(
            Map.entry('q', "--qp, several queue pairs"), Map.entry('e', "--events, completion events"),
            Map.entry('X', "--vector, completion vectors"), Map.entry('g', "--mcg, multicast"),
            Map.entry('z', "--comm_rdma_cm, the exchange over rdma_cm"), Map.entry('L', "--hop_limit (raw Ethernet)"),
            Map.entry('M', "--MGID, multicast"), Map.entry('b', "--bidirectional"),
            Map.entry('C', "--report-cycles (verbs4j-perf times in nanoseconds, not cycles)"),
            Map.entry('A', "--atomic_type"), Map.entry('O', "--dualport"), Map.entry('l', "--post_list"),
            Map.entry('f', "--margin"), Map.entry('B', "--source_mac (raw Ethernet)"),
            Map.entry('E', "--dest_mac (raw Ethernet)"), Map.entry('J', "--dest_ip (raw Ethernet)"),
            Map.entry('j', "--source_ip (raw Ethernet)"), Map.entry('K', "--dest_port (raw Ethernet)"),
            Map.entry('k', "--source_port (raw Ethernet)"), Map.entry('Y', "--ethertype (raw Ethernet)"),
            Map.entry('w', "--limit_bw"), Map.entry('y', "--limit_msgrate"), Map.entry('W', "--report-counters"),
            Map.entry('v', "--mac_fwd"), Map.entry('G', "--use_rss"), Map.entry('P', "--client (raw Ethernet)"),
            Map.entry('Z', "--server (raw Ethernet)"));

    /** A bad command line: the message for stderr; usage follows. */
    public static final class UsageException extends Exception {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }

    /** {@code -h}: print usage and exit 0; {@code -V}: print the version and exit 0. */
    public static final class HelpRequested extends Exception {
        private static final long serialVersionUID = 1L;
        final boolean version;

        HelpRequested(boolean version) {
            super(version ? "version" : "help");
            this.version = version;
        }
    }

    final PerfTest test;
    int port = DEF_PORT;
    String device;
    int ibPort = 1;
    int mtu;
    long size;
    boolean sizeGiven;
    int iters;
    boolean itersGiven;
    int txDepth;
    boolean txDepthGiven;
    int qpTimeout = DEF_QP_TIMEOUT;
    int sl;
    int gidIndex = -1;
    boolean all;
    long maxSize = MAX_SIZE;
    boolean cpuFreqF;
    int inlineSize = -1;
    int outReads;
    boolean rdmaCm;
    int tos = -1;
    int rxDepth;
    int cqMod = DEF_CQ_MOD;
    boolean cqModGiven;
    boolean noPeak;
    boolean histogram;
    boolean unsorted;
    int duration;
    boolean reportGbits;
    /** verbs4j: iterations of an unmeasured run of the same loop before each measured one (JIT warm-up). */
    int warmup;
    String serverHost;

    private PerfOptions(PerfTest test) {
        this.test = test;
        this.size = test.bandwidth ? DEF_SIZE_BW : DEF_SIZE_LAT;
        this.txDepth = test.bandwidth ? DEF_TX_BW : DEF_TX_LAT;
        this.iters = test == PerfTest.WRITE_BW ? DEF_ITERS_WRITE_BW : DEF_ITERS;
        this.rxDepth = test.verb == PerfTest.Verb.SEND ? DEF_RX_SEND : 1;
    }

    /** True for the client role (a server host was given). */
    public boolean isClient() {
        return serverHost != null;
    }

    public boolean isDuration() {
        return duration > 0;
    }

    /** The message sizes to run: {@code -s}, or with {@code -a} every power of two from 2 to {@code --max_size}. */
    public long[] sizes() {
        if (!all) {
            return new long[] {size};
        }
        List<Long> s = new ArrayList<>();
        for (int i = 1; i < 24 && (1L << i) <= maxSize; i++) {
            s.add(1L << i);
        }
        return s.stream().mapToLong(Long::longValue).toArray();
    }

    /** The largest message this run sends (the buffer size). */
    public long largestSize() {
        long[] s = sizes();
        return s[s.length - 1];
    }

    /** The perftest margin: a quarter of the duration, warm-up before and cool-down after the sample. */
    int margin() {
        return duration / 4;
    }

    /** Parses {@code args} (the test name already removed) and applies perftest's dependencies. */
    public static PerfOptions parse(PerfTest test, String[] args) throws UsageException, HelpRequested {
        PerfOptions o = new PerfOptions(test);
        List<String> positional = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--")) {
                for (int j = i + 1; j < args.length; j++) {
                    positional.add(args[j]);
                }
                break;
            }
            if (a.startsWith("--")) {
                String name = a.substring(2);
                String value = null;
                int eq = name.indexOf('=');
                if (eq >= 0) {
                    value = name.substring(eq + 1);
                    name = name.substring(0, eq);
                }
                if (name.equals("report_gbits")) {
                    noValue(name, value);
                    o.reportGbits = true;
                    continue;
                }
                if (name.equals("warmup")) {
                    if (value == null) {
                        if (i + 1 >= args.length) {
                            throw new UsageException("option '--warmup' requires an argument");
                        }
                        value = args[++i];
                    }
                    o.warmup = intIn("--warmup", value, 0, MAX_ITER);
                    continue;
                }
                if (name.equals("max_size")) {
                    if (value == null) {
                        if (i + 1 >= args.length) {
                            throw new UsageException("option '--max_size' requires an argument");
                        }
                        value = args[++i];
                    }
                    o.maxSize = parseSize("--max_size", value);
                    continue;
                }
                Character c = LONG.get(name);
                if (c == null) {
                    throw new UsageException("unrecognized option '--" + name + "'" + (refusedLong(name)
                            ? " (a perftest option verbs4j-perf does not implement)" : ""));
                }
                if (SHORT_WITH_VALUE.indexOf(c) >= 0) {
                    if (value == null) {
                        if (i + 1 >= args.length) {
                            throw new UsageException("option '--" + name + "' requires an argument");
                        }
                        value = args[++i];
                    }
                } else {
                    noValue(name, value);
                }
                o.apply(c, value, "--" + name);
                continue;
            }
            if (a.startsWith("-") && a.length() > 1) {
                for (int k = 1; k < a.length(); k++) {
                    char c = a.charAt(k);
                    if (SHORT_WITH_VALUE.indexOf(c) >= 0) {
                        String value;
                        if (k + 1 < a.length()) {
                            value = a.substring(k + 1);
                        } else if (i + 1 < args.length) {
                            value = args[++i];
                        } else {
                            throw new UsageException("option requires an argument -- '" + c + "'");
                        }
                        o.apply(c, value, "-" + c);
                        break;
                    }
                    o.apply(c, null, "-" + c);
                }
                continue;
            }
            positional.add(a);
        }
        if (positional.size() > 1) {
            throw new UsageException("more than one server host: " + String.join(" ", positional));
        }
        if (positional.size() == 1) {
            o.serverHost = positional.get(0);
        }
        o.dependencies();
        return o;
    }

    private static boolean refusedLong(String name) {
        return List.of("use-srq", "run_infinitely", "report-both", "reversed", "pkey_index", "inline_recv", "tcp",
                "burst_size", "rate_limit", "rate_limit_type", "rate_units", "output", "cpu_util", "out_json",
                "out_json_file", "latency_gap", "flow_label", "retry_count", "dont_xchg_versions", "use_cuda",
                "use_rocm", "mmap", "mmap-offset", "ipv6", "odp", "use_hugepages", "use_old_post_send", "dlid",
                "tclass", "wait_destroy", "flows", "reply_every", "perform_warm_up", "recv_post_list",
                "disable_pcie_relaxed", "force-link").contains(name);
    }

    private static void noValue(String name, String value) throws UsageException {
        if (value != null) {
            throw new UsageException("option '--" + name + "' doesn't allow an argument");
        }
    }

    private void apply(char c, String v, String opt) throws UsageException, HelpRequested {
        boolean read = test.verb == PerfTest.Verb.READ;
        switch (c) {
            case 'p': port = intIn(opt, v, 1, 65534); break;
            case 'd': device = v; break;
            case 'i': ibPort = intIn(opt, v, 1, 255); break;
            case 'm':
                mtu = intIn(opt, v, 256, 4096);
                if (Integer.bitCount(mtu) != 1) {
                    throw new UsageException("Invalid MTU " + mtu + ": choose 256, 512, 1024, 2048 or 4096");
                }
                break;
            case 's':
                size = parseSize(opt, v);
                sizeGiven = true;
                break;
            case 'n':
                iters = intIn("Iteration num (" + opt + ")", v, MIN_ITER, MAX_ITER);
                itersGiven = true;
                break;
            case 't':
                txDepth = intIn("Tx depth (" + opt + ")", v, 1, MAX_TX);
                txDepthGiven = true;
                break;
            case 'u': qpTimeout = intIn(opt, v, 0, 31); break;
            case 'S': sl = intIn(opt, v, 0, 15); break;
            case 'x': gidIndex = intIn("Gid index (" + opt + ")", v, 0, 255); break;
            case 'a': all = true; break;
            case 'F': cpuFreqF = true; break;
            case 'c':
                if (!v.equals("RC")) {
                    throw new UsageException("connection type " + v + ": verbs4j-perf runs RC queue pairs only (-c RC)");
                }
                break;
            case 'I':
                if (read) {
                    throw new UsageException("Inline feature not available on READ/Atomic verbs");
                }
                inlineSize = intIn("Max inline (" + opt + ")", v, 0, MAX_INLINE);
                break;
            case 'o':
                if (!read) {
                    throw new UsageException("Setting Outstanding reads only available on READ verb");
                }
                outReads = intIn("Outstanding Reads (" + opt + ")", v, 1, 65535);
                break;
            case 'r':
                rxDepth = intIn("Rx depth (" + opt + ")", v, 1, MAX_RX);
                if (test.verb != PerfTest.Verb.SEND && rxDepth > 1) {
                    throw new UsageException("On RDMA verbs rx depth can be only 1");
                }
                break;
            case 'Q':
                cqMod = intIn("CQ moderation (" + opt + ")", v, 1, MAX_CQ_MOD);
                cqModGiven = true;
                break;
            case 'D':
                duration = intIn("Duration period (" + opt + ")", v, 1, Integer.MAX_VALUE);
                break;
            case 'T': tos = intIn("TOS (" + opt + ")", v, 0, 256); break;
            case 'R': rdmaCm = true; break;
            case 'N':
                if (!test.bandwidth) {
                    throw new UsageException("NoPeak only valid for BW tests");
                }
                noPeak = true;
                break;
            case 'H':
                if (test.bandwidth) {
                    throw new UsageException("-H (--report-histogrm) is available only on latency tests");
                }
                histogram = true;
                break;
            case 'U':
                if (test.bandwidth) {
                    throw new UsageException("-U (--report-unsorted) is available only on latency tests");
                }
                unsorted = true;
                break;
            case 'h': throw new HelpRequested(false);
            case 'V': throw new HelpRequested(true);
            default:
                String what = REFUSED.get(c);
                if (what != null) {
                    throw new UsageException("option " + opt + " (" + what + ") is not implemented by verbs4j-perf");
                }
                throw new UsageException("invalid option -- '" + c + "'");
        }
    }

    /** perftest's {@code force_dependecies}, the part that concerns what verbs4j-perf implements. */
    private void dependencies() throws UsageException {
        if (all && sizeGiven) {
            // perftest: -a overrides -s
            sizeGiven = false;
        }
        if (!all && maxSize != MAX_SIZE) {
            throw new UsageException("--max_size limits -a (all sizes); give it with -a");
        }
        if (all && maxSize < 2) {
            throw new UsageException("--max_size " + maxSize + ": -a starts at 2 bytes");
        }
        if (isDuration()) {
            if (all) {
                throw new UsageException("Duration mode currently doesn't support running on all sizes.");
            }
            if (itersGiven) {
                throw new UsageException("-D (duration) and -n (iterations) exclude each other");
            }
            if (warmup > 0) {
                throw new UsageException("--warmup is for iteration runs; -D has its own warm-up margin");
            }
            if (!(duration > 2 * margin())) {
                throw new UsageException("please check that DURATION > 2*MARGIN");
            }
            noPeak = true;
        } else {
            if (txDepth > iters) {
                txDepth = iters;
            }
            if (test.verb == PerfTest.Verb.SEND && rxDepth > iters) {
                rxDepth = iters;
            }
        }
        if (size > MSG_SIZE_CQ_MOD_LIMIT && !all && !cqModGiven) {
            cqMod = 1;
        }
        if (cqMod > txDepth) {
            cqMod = txDepth;
        }
        if (test.verb == PerfTest.Verb.READ) {
            inlineSize = 0;
        } else if (inlineSize < 0) {
            // perftest's latency defaults (then capped by what the QP grants); bandwidth tests do not inline
            inlineSize = test.bandwidth ? 0 : test.verb == PerfTest.Verb.WRITE ? DEF_INLINE_WRITE_LAT : DEF_INLINE_SEND_LAT;
        }
        if (tos >= 0 && !rdmaCm) {
            throw new UsageException("TOS only valid for rdma_cm based QP (-R)");
        }
        if (test.verb == PerfTest.Verb.SEND && test.bandwidth && !isClient()) {
            noPeak = true;
        }
        if (test.verb == PerfTest.Verb.SEND && rxDepth % 2 == 1 && !all) {
            rxDepth += 1;
        }
        if (test.bandwidth && !isDuration() && iters > NO_PEAK_ITERS) {
            noPeak = true;
        }
        if (all) {
            size = largestSize();
        }
    }

    static long parseSize(String opt, String v) throws UsageException {
        long factor = 1;
        String n = v;
        if (n.endsWith("K")) {
            factor = 1024;
            n = n.substring(0, n.length() - 1);
        } else if (n.endsWith("M")) {
            factor = 1024 * 1024;
            n = n.substring(0, n.length() - 1);
        }
        long value;
        try {
            value = Long.decode(n) * factor;
        } catch (NumberFormatException e) {
            throw new UsageException(opt + " " + v + ": not a size (a number, optionally with K or M)");
        }
        if (value < 1 || value > 0x7fffffffL) {
            throw new UsageException(" Message Size should be between 1 and " + 0x7fffffffL);
        }
        return value;
    }

    private static int intIn(String what, String v, int min, int max) throws UsageException {
        int value;
        try {
            value = Integer.decode(v.trim());
        } catch (NumberFormatException e) {
            throw new UsageException(what + ": '" + v + "' is not a number");
        }
        if (value < min || value > max) {
            throw new UsageException(what + " should be between " + min + " and " + max);
        }
        return value;
    }

    /** The usage text (perftest's options that verbs4j-perf implements, in perftest's words where they fit). */
    public static void printUsage(PerfTest test, PrintStream out) {
        String me = test == null ? "verbs4j-perf TEST" : "verbs4j-perf " + test.command();
        out.println("Usage:");
        out.println("  " + me + "            start a server and wait for connection");
        out.println("  " + me + " <host>     connect to server at <host>");
        out.println();
        out.println("Tests: send_lat write_lat read_lat send_bw write_bw read_bw (as rdma-core perftest's ib_*)");
        out.println();
        out.println("Options:");
        out.println("  -a, --all                 Run sizes from 2 till 2^23 (with --max_size=SIZE: till SIZE)");
        out.println("      --max_size=<size>     verbs4j: the largest size -a runs (default 8388608)");
        out.println("  -c, --connection=RC       Connection type (RC only)");
        out.println("  -d, --ib-dev=<dev>        Use IB device <dev> (default first device found)");
        out.println("  -D, --duration=<sec>      Run test for a customized period of seconds");
        out.println("  -F, --CPU-freq            Do not show a warning even if cpufreq_ondemand module is loaded "
                + "(accepted; verbs4j-perf times with System.nanoTime, not cycles)");
        out.println("  -h, --help                Show this help screen");
        out.println("  -H, --report-histogrm     Print out all results (latency tests)");
        out.println("  -i, --ib-port=<port>      Use port <port> of IB device (default 1)");
        out.println("  -I, --inline_size=<size>  Max size of message to be sent in inline (send/write)");
        out.println("  -m, --mtu=<mtu>           MTU size: 256 - 4096 (default port mtu)");
        out.println("  -n, --iters=<iters>       Number of exchanges (at least 5, default 1000; write_bw 5000)");
        out.println("  -N, --noPeak              Cancel peak-bw calculation (bandwidth tests)");
        out.println("  -o, --outs=<num>          Number of outstanding reads (read tests; default device max)");
        out.println("  -p, --port=<port>         Listen on/connect to port <port> (default 18515); "
                + "with -R rdma_cm uses <port>+1");
        out.println("  -Q, --cq-mod              Generate Cqe only after <--cq-mod> completion (bandwidth tests)");
        out.println("  -r, --rx-depth=<dep>      Rx queue size (default 512; send tests)");
        out.println("  -R, --rdma_cm             Connect QPs with rdma_cm (needed on iWARP)");
        out.println("  -s, --size=<size>         Size of message to exchange (default 2 latency, 65536 bandwidth)");
        out.println("  -S, --sl=<sl>             SL (default 0)");
        out.println("  -t, --tx-depth=<dep>      Size of tx queue (default 1 latency, 128 bandwidth)");
        out.println("  -T, --tos=<tos value>     Set <tos_value> to RDMA-CM QPs (with -R)");
        out.println("  -u, --qp-timeout=<timeout> QP timeout, timeout value is 4 usec * 2 ^(timeout), default 14");
        out.println("  -U, --report-unsorted     Print out unsorted results (latency tests)");
        out.println("  -V, --version             Display version number");
        out.println("  -x, --gid-index=<index>   Test uses GID with GID index (default: the fabric's choice)");
        out.println("      --report_gbits        Report Max/Average BW of test in Gbit/sec (instead of MB/sec)");
        out.println("      --warmup=<iters>      verbs4j: run the loop <iters> times unmeasured before each size (JIT)");
    }
}
