package org.verbs4j.bench.perf;

import java.util.LinkedHashMap;
import java.util.Map;
import org.verbs4j.examples.cli.Option;
import org.verbs4j.examples.cli.OptionParser;
import org.verbs4j.examples.cli.Values;

/**
 * The options of verbs4j-perf: perftest's short and long names, arguments, defaults and ranges
 * (perftest_parameters.c), declared once for the examples' {@link OptionParser}, and perftest's options
 * verbs4j-perf does not implement, refused by name. {@link PerfOptions} turns a parsed command line into
 * the settings of a run.
 */
final class PerfCommandLine {
    static final Option<Integer> PORT = Option.of('p', "port", "PORT", Values.intIn(1, 65534), PerfOptions.DEF_PORT,
            "Listen on/connect to port PORT (TCP; with -R rdma_cm, for the exchange and the test)");
    static final Option<String> DEVICE = Option.of('d', "ib-dev", "DEV", Values.string(), null,
            "Use IB device DEV").defaultText("first device found");
    static final Option<Integer> IB_PORT = Option.of('i', "ib-port", "PORT", Values.intIn(1, 255), 1,
            "Use port PORT of IB device");
    static final Option<Integer> MTU = Option.of('m', "mtu", "MTU", Values.choice(mtus()), 0,
            "MTU size: 256 - 4096").defaultText("port mtu");
    static final Option<Long> SIZE = Option.of('s', "size", "SIZE", Values.size(1, 0x7fffffffL), null,
            "Size of message to exchange (K, M suffixes)").defaultText("2 latency, 65536 bandwidth");
    static final Option<Integer> ITERS = Option.of('n', "iters", "ITERS",
            Values.intIn(PerfOptions.MIN_ITER, PerfOptions.MAX_ITER), null, "Number of exchanges")
            .defaultText("1000; write_bw 5000");
    static final Option<Integer> TX_DEPTH = Option.of('t', "tx-depth", "DEPTH", Values.intIn(1, PerfOptions.MAX_TX),
            null, "Size of tx queue").defaultText("1 latency, 128 bandwidth");
    static final Option<Integer> QP_TIMEOUT = Option.of('u', "qp-timeout", "TIMEOUT", Values.intIn(0, 31),
            PerfOptions.DEF_QP_TIMEOUT, "QP timeout, timeout value is 4 usec * 2 ^(timeout)");
    static final Option<Integer> SL = Option.of('S', "sl", "SL", Values.intIn(0, 15), 0, "SL");
    static final Option<Integer> GID_INDEX = Option.of('x', "gid-index", "INDEX", Values.intIn(0, 255), -1,
            "Test uses GID with GID index").defaultText("the fabric's choice");
    static final Option<Boolean> ALL = Option.flag('a', "all",
            "Run sizes from 2 till 2^23 (with --max_size=SIZE: till SIZE)");
    static final Option<Long> MAX_SIZE = Option.of(Option.NO_SHORT, "max_size", "SIZE", Values.size(1, 0x7fffffffL),
            (long) PerfOptions.MAX_SIZE, "verbs4j: the largest size -a runs");
    static final Option<Boolean> CPU_FREQ = Option.flag('F', "CPU-freq",
            "Do not show a warning even if cpufreq_ondemand module is loaded (accepted; verbs4j-perf times with "
                    + "System.nanoTime, not cycles)");
    static final Option<String> CONNECTION = Option.of('c', "connection", "TYPE",
            Values.choice(new java.util.TreeMap<>(Map.of("RC", "RC", "UC", "UC"))), "RC",
            "Connection type RC/UC (UC: send and write tests, not with -R)");
    static final Option<Integer> INLINE = Option.of('I', "inline_size", "SIZE", Values.intIn(0, PerfOptions.MAX_INLINE),
            null, "Max size of message to be sent in inline (send/write)").defaultText("236 send_lat, 220 write_lat, 0 bw");
    static final Option<Integer> OUTS = Option.of('o', "outs", "NUM", Values.intIn(1, 65535), null,
            "Number of outstanding reads (read tests)").defaultText("device max");
    static final Option<Boolean> RDMA_CM = Option.flag('R', "rdma_cm", "Connect QPs with rdma_cm (needed on iWARP)");
    static final Option<Integer> TOS = Option.of('T', "tos", "TOS", Values.intIn(0, 256), -1,
            "Set TOS to RDMA-CM QPs (with -R)").defaultText(null);
    static final Option<Integer> RX_DEPTH = Option.of('r', "rx-depth", "DEPTH", Values.intIn(1, PerfOptions.MAX_RX),
            null, "Rx queue size (send tests)").defaultText("512");
    static final Option<Integer> CQ_MOD = Option.of('Q', "cq-mod", "N", Values.intIn(1, PerfOptions.MAX_CQ_MOD),
            PerfOptions.DEF_CQ_MOD, "Generate Cqe only after N completions (bandwidth tests)");
    static final Option<Integer> POST_LIST = Option.of('l', "post_list", "LIST", Values.intIn(1, PerfOptions.MAX_TX),
            1, "Post list of send WQEs of <list size> size, instead of single posts (bandwidth tests)");
    static final Option<Boolean> NO_PEAK = Option.flag('N', "noPeak", "Cancel peak-bw calculation (bandwidth tests)");
    static final Option<Boolean> BIDIRECTIONAL = Option.flag('b', "bidirectional",
            "Measure bidirectional bandwidth (write_bw, read_bw; both sides give it)");
    static final Option<Boolean> VERSION = Option.flag('V', "version", "Display version number");
    static final Option<Boolean> EVENTS = Option.flag('e', "events", "Sleep on CQ events (default poll)");
    static final Option<Integer> VECTOR = Option.of('X', "vector", "NUM", Values.intIn(0, PerfOptions.MAX_EQ_NUM), 0,
            "Set <completion vector> used for events");
    static final Option<Boolean> HISTOGRAM = Option.flag('H', "report-histogrm", "Print out all results (latency tests)");
    static final Option<Boolean> UNSORTED = Option.flag('U', "report-unsorted",
            "Print out unsorted results (latency tests)");
    static final Option<Integer> DURATION = Option.of('D', "duration", "SEC", Values.intIn(1, Integer.MAX_VALUE), 0,
            "Run test for a customized period of seconds").defaultText(null);
    static final Option<Boolean> REPORT_GBITS = Option.flag(Option.NO_SHORT, "report_gbits",
            "Report Max/Average BW of test in Gbit/sec (instead of MB/sec)");
    static final Option<Integer> WARMUP = Option.of(Option.NO_SHORT, "warmup", "ITERS",
            Values.intIn(0, PerfOptions.MAX_ITER), 0, "verbs4j: instead of the local warm-up, run the loop ITERS times "
                    + "unmeasured with the peer before each size (the peer must be verbs4j-perf with the same ITERS); "
                    + "0: no warm-up at all").defaultText("a local warm-up on a loopback pair, before connecting");
    static final Option<Boolean> NO_WARMUP = Option.flag(Option.NO_SHORT, "no-warmup",
            "verbs4j: no local warm-up (as --warmup=0): the first iterations run in the interpreter and are counted");

    /** perftest's options verbs4j-perf does not implement: letter (or none), long name, what it does. */
    private static final Object[][] REFUSED = {
        {'q', "qp", "several queue pairs"}, {'g', "mcg", "multicast"},
        {'z', "comm_rdma_cm", "the exchange over rdma_cm"}, {'L', "hop_limit", "raw Ethernet"},
        {'M', "MGID", "multicast"},
        {'C', "report-cycles", "verbs4j-perf times in nanoseconds, not cycles"}, {'A', "atomic_type", "atomics"},
        {'O', "dualport", "both ports"}, {'f', "margin", "a margin"},
        {'B', "source_mac", "raw Ethernet"}, {'E', "dest_mac", "raw Ethernet"}, {'J', "dest_ip", "raw Ethernet"},
        {'j', "source_ip", "raw Ethernet"}, {'K', "dest_port", "raw Ethernet"}, {'k', "source_port", "raw Ethernet"},
        {'Y', "ethertype", "raw Ethernet"}, {'w', "limit_bw", "a bandwidth limit"},
        {'y', "limit_msgrate", "a message rate limit"}, {'W', "report-counters", "device counters"},
        {'v', "mac_fwd", "raw Ethernet"}, {'G', "use_rss", "raw Ethernet"}, {'P', "client", "raw Ethernet"},
        {'Z', "server", "raw Ethernet"},
        {null, "use-srq", "a shared receive queue"}, {null, "run_infinitely", "endless runs"},
        {null, "report-both", "both directions"}, {null, "reversed", "the other direction"},
        {null, "pkey_index", "a P_Key index"}, {null, "inline_recv", "inline receive"}, {null, "tcp", "raw Ethernet"},
        {null, "burst_size", "rate limiting"}, {null, "rate_limit", "rate limiting"},
        {null, "rate_limit_type", "rate limiting"}, {null, "rate_units", "rate limiting"},
        {null, "output", "one-value output"}, {null, "cpu_util", "CPU utilization"}, {null, "out_json", "JSON output"},
        {null, "out_json_file", "JSON output"}, {null, "latency_gap", "gaps between latency samples"},
        {null, "flow_label", "a flow label"}, {null, "retry_count", "a retry count"},
        {null, "dont_xchg_versions", "no version exchange"}, {null, "use_cuda", "GPU memory"},
        {null, "use_rocm", "GPU memory"}, {null, "mmap", "memory from a file"}, {null, "mmap-offset", "memory from a file"},
        {null, "ipv6", "IPv6"}, {null, "odp", "on-demand paging"}, {null, "use_hugepages", "huge pages"},
        {null, "use_old_post_send", "the old post send"}, {null, "dlid", "a destination LID"},
        {null, "tclass", "a traffic class"}, {null, "wait_destroy", "a wait before destroying"},
        {null, "flows", "several flows"}, {null, "reply_every", "raw Ethernet"},
        {null, "perform_warm_up", "perftest's warm-up (verbs4j-perf has --warmup)"},
        {null, "recv_post_list", "lists of receive requests"}, {null, "disable_pcie_relaxed", "PCIe ordering"},
        {null, "force-link", "a link layer"},
    };

    private PerfCommandLine() {
    }

    private static Map<String, Integer> mtus() {
        Map<String, Integer> m = new LinkedHashMap<>();
        for (int mtu = 256; mtu <= 4096; mtu *= 2) {
            m.put(Integer.toString(mtu), mtu);
        }
        return m;
    }

    /** The tests' names, for the usage and the messages. */
    static final String TESTS = "send_lat, write_lat, read_lat, send_bw, write_bw, read_bw";

    /**
     * The parser of one test's options ({@code verbs4j-perf TEST [options] [HOST]}) with that test's defaults,
     * or with {@code test} null the usage of {@code verbs4j-perf} itself.
     */
    static OptionParser parser(PerfTest test) {
        String prog = test == null ? "verbs4j-perf" : "verbs4j-perf " + test.command();
        String first = test == null ? "TEST " : "";
        OptionParser p = new OptionParser(prog)
                .synopsis(first + "[options]", "start a server and wait for connection")
                .synopsis(first + "[options] HOST", "connect to server at HOST")
                .operands(0, 1)
                .refusal("is not implemented by verbs4j-perf")
                .note("Tests: " + TESTS + " (as rdma-core perftest's ib_*)");
        if (test == null) {
            p.add(ALL, BIDIRECTIONAL, MAX_SIZE, CONNECTION, DEVICE, DURATION, EVENTS, CPU_FREQ, HISTOGRAM, IB_PORT, INLINE,
                    MTU, ITERS,
                    NO_PEAK, OUTS, PORT, POST_LIST, CQ_MOD, RX_DEPTH, RDMA_CM, SIZE, SL, TX_DEPTH, TOS, QP_TIMEOUT,
                    UNSORTED, VERSION, GID_INDEX, VECTOR, REPORT_GBITS, WARMUP, NO_WARMUP);
        } else {
            p.add(ALL, BIDIRECTIONAL, MAX_SIZE, CONNECTION, DEVICE, DURATION, EVENTS, CPU_FREQ, HISTOGRAM, IB_PORT,
                    INLINE, MTU,
                    ITERS.withDefault(test == PerfTest.WRITE_BW ? PerfOptions.DEF_ITERS_WRITE_BW : PerfOptions.DEF_ITERS),
                    NO_PEAK, OUTS, PORT, POST_LIST, CQ_MOD, RX_DEPTH, RDMA_CM,
                    SIZE.withDefault((long) (test.bandwidth ? PerfOptions.DEF_SIZE_BW : PerfOptions.DEF_SIZE_LAT)), SL,
                    TX_DEPTH.withDefault(test.bandwidth ? PerfOptions.DEF_TX_BW : PerfOptions.DEF_TX_LAT), TOS, QP_TIMEOUT,
                    UNSORTED, VERSION, GID_INDEX, VECTOR, REPORT_GBITS, WARMUP, NO_WARMUP);
        }
        for (Object[] r : REFUSED) {
            p.add(Option.unsupported(r[0] == null ? Option.NO_SHORT : (Character) r[0], (String) r[1], (String) r[2]));
        }
        return p;
    }
}
