package org.verbs4j.bench.perf;

import java.util.ArrayList;
import java.util.List;
import org.verbs4j.examples.cli.CommandLine;
import org.verbs4j.examples.cli.UsageException;

/**
 * perftest's command line, the part verbs4j-perf implements: the same short and long option names, the same
 * defaults and ranges, and the same adjustments perftest makes after parsing ({@code force_dependecies}: tx depth
 * and rx depth capped by the iterations, CQ moderation capped by the tx depth and off above 8 KiB, no peak above
 * 20,000 iterations, ...). The options themselves, and those of perftest that verbs4j-perf refuses by name, are
 * declared in {@link PerfCommandLine}; the one operand is the server's host name (client role).
 */
public final class PerfOptions implements Cloneable {
    /** perftest's defaults and limits (perftest_parameters.h). */
    static final int DEF_PORT = 18515;
    static final int DEF_SIZE_LAT = 2;
    static final int DEF_SIZE_BW = 65536;
    static final int DEF_ITERS = 1000;
    static final int DEF_ITERS_WRITE_BW = 5000;
    static final int DEF_TX_BW = 128;
    static final int DEF_TX_LAT = 1;
    static final int DEF_RX_SEND = 512;
    /**
     * perftest's {@code UC_MAX_RX}: the receives of a UC send test, all posted before it (UC drops a message that
     * finds none).
     */
    static final int UC_MAX_RX = 16000;
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
    static final int MAX_EQ_NUM = 2048;

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
    /**
     * {@code -l}: the sender posts chains of this many requests (one post per list), every {@code cqMod}-th of a list
     * signaled; 1: single posts.
     */
    int postList = 1;
    /** {@code -l} without {@code -Q}: the CQ moderation became the list's size, which perftest says before the test. */
    boolean cqModFromPostList;
    boolean noPeak;
    boolean histogram;
    boolean unsorted;
    int duration;
    boolean reportGbits;
    /** {@code -e}: sleep on completion events instead of polling; {@code -X}: the completion vector of the queues. */
    boolean events;
    int eqNum;
    /** {@code -c}: RC, or UC (unreliable connected: no acknowledgements, no reads). */
    boolean uc;
    /** {@code -b}: both sides run the bandwidth loop at once, each printing the sum of both directions. */
    boolean duplex;
    /**
     * verbs4j ({@code --warmup ITERS}): iterations of an unmeasured run of the same loop with the peer before each
     * measured one (JIT warm-up); the peer must be verbs4j-perf with the same value.
     */
    int warmup;
    /**
     * verbs4j: before anything reaches the peer, run the test's loops on a loopback pair of this device
     * ({@link LocalWarmUp}). On unless {@code --warmup} (any value) or {@code --no-warmup} is given.
     */
    boolean localWarmup;
    /** The local warm-up's loopback sides only: the iterations of their warm-up runs (else null: {@link #warmup}). */
    LocalWarmUp.Plan warmupPlan;
    /** The local warm-up's loopback server only: told once it listens, so its client connects only then (else null). */
    Runnable listening;
    String serverHost;

    /** {@code -V}: print the version and exit; nothing else is checked. */
    boolean version;

    private PerfOptions(PerfTest test, CommandLine c) throws UsageException {
        this.test = test;
        version = c.get(PerfCommandLine.VERSION);
        if (version) {
            return;
        }
        port = c.get(PerfCommandLine.PORT);
        device = c.get(PerfCommandLine.DEVICE);
        ibPort = c.get(PerfCommandLine.IB_PORT);
        mtu = c.get(PerfCommandLine.MTU);
        size = c.get(PerfCommandLine.SIZE.withDefault((long) (test.bandwidth ? DEF_SIZE_BW : DEF_SIZE_LAT)));
        sizeGiven = c.given(PerfCommandLine.SIZE);
        iters = c.get(PerfCommandLine.ITERS.withDefault(test == PerfTest.WRITE_BW ? DEF_ITERS_WRITE_BW : DEF_ITERS));
        itersGiven = c.given(PerfCommandLine.ITERS);
        txDepth = c.get(PerfCommandLine.TX_DEPTH.withDefault(test.bandwidth ? DEF_TX_BW : DEF_TX_LAT));
        qpTimeout = c.get(PerfCommandLine.QP_TIMEOUT);
        sl = c.get(PerfCommandLine.SL);
        gidIndex = c.get(PerfCommandLine.GID_INDEX);
        all = c.get(PerfCommandLine.ALL);
        maxSize = c.get(PerfCommandLine.MAX_SIZE);
        cpuFreqF = c.get(PerfCommandLine.CPU_FREQ);
        rdmaCm = c.get(PerfCommandLine.RDMA_CM);
        tos = c.get(PerfCommandLine.TOS);
        cqMod = c.get(PerfCommandLine.CQ_MOD);
        cqModGiven = c.given(PerfCommandLine.CQ_MOD);
        postList = c.get(PerfCommandLine.POST_LIST);
        noPeak = c.get(PerfCommandLine.NO_PEAK);
        histogram = c.get(PerfCommandLine.HISTOGRAM);
        unsorted = c.get(PerfCommandLine.UNSORTED);
        duration = c.get(PerfCommandLine.DURATION);
        reportGbits = c.get(PerfCommandLine.REPORT_GBITS);
        uc = c.get(PerfCommandLine.CONNECTION).equals("UC");
        if (uc && test.verb == PerfTest.Verb.READ) {
            throw new UsageException("UC connection not possible in READ/ATOMIC verbs (-c UC)");
        }
        if (uc && c.get(PerfCommandLine.RDMA_CM)) {
            throw new UsageException("UC is not supported in librdmacm (-c UC, -R)");
        }
        duplex = c.get(PerfCommandLine.BIDIRECTIONAL);
        if (duplex && !test.bandwidth) {
            throw new UsageException("Bidirectional is only available in BW test (-b)");
        }
        if (duplex && test.verb == PerfTest.Verb.SEND && c.get(PerfCommandLine.DURATION) > 0) {
            throw new UsageException("send_bw -b with -D is not implemented by verbs4j-perf (write_bw and read_bw "
                    + "have it)");
        }
        if (duplex && test.verb == PerfTest.Verb.SEND && c.get(PerfCommandLine.EVENTS)) {
            throw new UsageException("send_bw -b with -e is not implemented by verbs4j-perf (its loop polls both "
                    + "queues in turn)");
        }
        events = c.get(PerfCommandLine.EVENTS);
        eqNum = c.get(PerfCommandLine.VECTOR);
        if ((events || c.given(PerfCommandLine.VECTOR)) && test.verb == PerfTest.Verb.WRITE) {
            throw new UsageException("Events feature not available on WRITE verb (-e, -X): the write tests spin on "
                    + "memory, not on a completion queue");
        }
        if (c.given(PerfCommandLine.VECTOR) && !events) {
            throw new UsageException("Events must be enabled to select a completion vector (-X needs -e)");
        }
        warmup = c.get(PerfCommandLine.WARMUP);
        boolean noWarmup = c.get(PerfCommandLine.NO_WARMUP);
        if (noWarmup && warmup > 0) {
            throw new UsageException("--no-warmup and --warmup " + warmup + " exclude each other");
        }
        localWarmup = !noWarmup && !c.given(PerfCommandLine.WARMUP);
        serverHost = c.operands().isEmpty() ? null : c.operands().get(0);
        boolean read = test.verb == PerfTest.Verb.READ;
        boolean send = test.verb == PerfTest.Verb.SEND;
        if (c.given(PerfCommandLine.INLINE)) {
            if (read) {
                throw new UsageException("Inline feature not available on READ/Atomic verbs (-I)");
            }
            inlineSize = c.get(PerfCommandLine.INLINE);
        }
        if (c.given(PerfCommandLine.OUTS)) {
            if (!read) {
                throw new UsageException("Setting Outstanding reads only available on READ verb (-o)");
            }
            outReads = c.get(PerfCommandLine.OUTS);
        }
        rxDepth = c.given(PerfCommandLine.RX_DEPTH) ? c.get(PerfCommandLine.RX_DEPTH) : send ? DEF_RX_SEND : 1;
        if (!send && rxDepth > 1) {
            throw new UsageException("On RDMA verbs rx depth can be only 1 (-r)");
        }
        if (noPeak && !test.bandwidth) {
            throw new UsageException("NoPeak only valid for BW tests (-N)");
        }
        if (histogram && test.bandwidth) {
            throw new UsageException("-H (--report-histogrm) is available only on latency tests");
        }
        if (unsorted && test.bandwidth) {
            throw new UsageException("-U (--report-unsorted) is available only on latency tests");
        }
        dependencies();
    }

    /** A copy to change (the local warm-up's loopback sides). */
    PerfOptions copy() {
        try {
            return (PerfOptions) clone();
        } catch (CloneNotSupportedException e) {
            throw new AssertionError(e);
        }
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

    /**
     * The settings of one test from its parsed command line ({@link PerfCommandLine#parser(PerfTest)}), with
     * perftest's dependencies applied.
     *
     * @throws UsageException when options do not go together (as perftest refuses them)
     */
    static PerfOptions of(PerfTest test, CommandLine c) throws UsageException {
        return new PerfOptions(test, c);
    }

    /** Parses {@code args} (the test name already removed); for tests. {@code -h} is not handled here. */
    static PerfOptions parse(PerfTest test, String... args) throws UsageException {
        return of(test, PerfCommandLine.parser(test).parse(args));
    }

    /** perftest's rules for {@code -l}, and the cases verbs4j-perf does not implement. */
    private void postListDependencies() throws UsageException {
        if (postList == 1) {
            return;
        }
        if (!test.bandwidth) {
            throw new UsageException("Post list is supported in BW tests only (-l)");
        }
        if (!isDuration() && iters % postList != 0) {
            throw new UsageException("Number of iterations must be a multiple of post list size (-n " + iters + ", -l "
                    + postList + ")");
        }
        if (warmup > 0) {
            throw new UsageException("--warmup ITERS with -l is not implemented by verbs4j-perf (the local warm-up, "
                    + "the default, runs post lists)");
        }
        if (!cqModGiven) {
            cqMod = postList;
            cqModFromPostList = true;
        } else if (postList % cqMod != 0) {
            throw new UsageException("Post list size must be a multiple of CQ moderation (-l " + postList + ", -Q "
                    + cqMod + ")");
        }
        if (postList > txDepth) {
            throw new UsageException("post list size " + postList + " is larger than the TX depth " + txDepth
                    + ": no list would fit the send queue (-l, -t)");
        }
        if (duplex && test.verb == PerfTest.Verb.SEND) {
            throw new UsageException("send_bw -b with -l is not implemented by verbs4j-perf (write_bw and read_bw "
                    + "have it)");
        }
        if (test.verb == PerfTest.Verb.SEND && postList >= rxDepth) {
            // with receive credits (iWARP) a list goes only while it fits below the peer's rx depth
            throw new UsageException("post list size " + postList + " must be smaller than the RX depth " + rxDepth
                    + " (-l, -r)");
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
                throw new UsageException("--warmup ITERS is for iteration runs; with -D the local warm-up runs the loop for "
                        + LocalWarmUp.DURATION_SECONDS + " s (--no-warmup: none)");
            }
            if (events) {
                throw new UsageException("Duration mode doesn't work with events (-D, -e).");
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
            if (uc && rxDepth == DEF_RX_SEND) {
                // every receive of the test posted at the start, as perftest (UC has no receiver-not-ready retry)
                rxDepth = Math.min(iters, UC_MAX_RX);
            }
        }
        if (size > MSG_SIZE_CQ_MOD_LIMIT && !all && !cqModGiven && !events) {
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
        if (test.verb == PerfTest.Verb.SEND && test.bandwidth && !isClient() && !duplex) {
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
        postListDependencies();
    }
}
