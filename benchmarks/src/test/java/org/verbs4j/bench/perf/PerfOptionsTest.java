package org.verbs4j.bench.perf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.verbs4j.examples.cli.UsageException;

/** perftest's command line, defaults and dependencies as verbs4j-perf reads them. */
class PerfOptionsTest {

    private static PerfOptions parse(PerfTest t, String... args) throws Exception {
        return PerfOptions.parse(t, args);
    }

    private static String error(PerfTest t, String... args) {
        return assertThrows(UsageException.class, () -> parse(t, args), String.join(" ", args)).getMessage();
    }

    /** The settings that have defaults, in one line. */
    private static String settings(PerfOptions o) {
        return "port " + o.port + ", size " + o.size + ", iters " + o.iters + ", tx " + o.txDepth + ", rx " + o.rxDepth
                + ", inline " + o.inlineSize + ", cq-mod " + o.cqMod + ", gid " + o.gidIndex + ", timeout " + o.qpTimeout
                + ", mtu " + o.mtu + ", noPeak " + o.noPeak + ", client " + o.isClient();
    }

    @Test
    void defaultsArePerftests() throws Exception {
        // CQ moderation is capped by the tx depth of 1; 65536 bytes is above 8 KiB: CQ moderation off
        assertEquals("port 18515, size 2, iters 1000, tx 1, rx 512, inline 236, cq-mod 1, gid -1, timeout 14, mtu 0, "
                + "noPeak false, client false", settings(parse(PerfTest.SEND_LAT)));
        assertEquals(220, parse(PerfTest.WRITE_LAT).inlineSize);
        assertEquals(0, parse(PerfTest.READ_LAT).inlineSize);
        assertEquals("port 18515, size 65536, iters 5000, tx 128, rx 1, inline 0, cq-mod 1, gid -1, timeout 14, mtu 0, "
                + "noPeak false, client false", settings(parse(PerfTest.WRITE_BW)), "ib_write_bw's default is 5000 iterations");
        assertEquals(1000, parse(PerfTest.READ_BW).iters);
        assertTrue(parse(PerfTest.SEND_BW).noPeak, "the send_bw server has no peak");
        assertFalse(parse(PerfTest.SEND_BW, "host").noPeak);
    }

    @Test
    void shortAndLongFormsAndTheHostAnywhere() throws Exception {
        PerfOptions o = parse(PerfTest.WRITE_LAT, "-d", "rxe0", "10.77.0.1", "-x1", "--size=64", "--iters", "200", "-aF",
                "-p", "19000", "-i", "1", "-R", "-T", "32", "-I", "0", "-u13", "--sl=2", "--mtu", "2048");
        assertEquals("port 19000, size 8388608, iters 200, tx 1, rx 1, inline 0, cq-mod 1, gid 1, timeout 13, mtu 2048, "
                + "noPeak false, client true", settings(o), "-a overrides -s: the buffer is for the largest size");
        assertEquals("rxe0", o.device);
        assertEquals("10.77.0.1", o.serverHost);
        assertTrue(o.all && o.cpuFreqF && o.rdmaCm);
        assertEquals(32, o.tos);
        assertEquals(2, o.sl);
        PerfOptions l = parse(PerfTest.READ_BW, "--ib-dev", "siw0", "--rdma_cm", "--outs=4", "--report_gbits",
                "--duration", "4", "--cq-mod", "10", "--tx-depth=20", "--gid", "0", "--noPeak", "--warm", "0");
        assertEquals("siw0", l.device);
        assertTrue(l.rdmaCm && l.reportGbits && l.noPeak);
        assertEquals(4, l.outReads);
        assertEquals(4, l.duration);
        assertEquals(10, l.cqMod);
        assertEquals(20, l.txDepth);
        assertEquals(0, l.gidIndex);
        PerfOptions h = parse(PerfTest.SEND_LAT, "-HU", "--warmup=100", "-c", "RC", "-r", "64");
        assertTrue(h.histogram && h.unsorted);
        assertEquals(100, h.warmup);
        assertEquals(64, h.rxDepth);
    }

    @Test
    void sizesWithSuffixesAndAllSizesLimited() throws Exception {
        assertEquals(4096, parse(PerfTest.SEND_LAT, "-s", "4K").size);
        assertEquals(2 * 1024 * 1024, parse(PerfTest.SEND_LAT, "-s2M").size);
        assertEquals(0x40, parse(PerfTest.SEND_LAT, "-s", "0x40").size);
        long[] all = parse(PerfTest.SEND_LAT, "-a").sizes();
        assertEquals(23, all.length);
        assertEquals(2, all[0]);
        assertEquals(8388608, all[22]);
        assertArrayEquals(new long[] {2, 4, 8, 16, 32, 64}, parse(PerfTest.READ_LAT, "-a", "--max_size=100").sizes());
        assertArrayEquals(new long[] {64}, parse(PerfTest.READ_LAT, "-s", "64").sizes());
        assertEquals("--max_size limits -a (all sizes); give it with -a", error(PerfTest.SEND_LAT, "--max_size", "64"));
        assertEquals("option -s: 0 is not between 1 and 2147483647", error(PerfTest.SEND_LAT, "-s", "0"));
        assertEquals("option -s: 'abc' is not a size (a number, optionally with K, M or G)",
                error(PerfTest.SEND_LAT, "-s", "abc"));
    }

    @Test
    void perftestsDependencies() throws Exception {
        // tx and rx depth capped by the iterations; odd rx depth made even (perftest's work-around)
        PerfOptions o = parse(PerfTest.SEND_BW, "-n", "7", "h");
        assertEquals(7, o.txDepth);
        assertEquals(8, o.rxDepth);
        // small messages keep CQ moderation 100 (capped by the tx depth); -Q overrides the 8 KiB rule
        assertEquals(100, parse(PerfTest.WRITE_BW, "-s", "64", "h").cqMod);
        assertEquals(10, parse(PerfTest.WRITE_BW, "-s", "64", "-t", "10", "h").cqMod);
        assertEquals(50, parse(PerfTest.WRITE_BW, "-Q", "50", "h").cqMod);
        // more than 20,000 iterations: no peak
        assertTrue(parse(PerfTest.WRITE_BW, "-n", "20001", "h").noPeak);
        assertFalse(parse(PerfTest.WRITE_BW, "-n", "20000", "h").noPeak);
        // duration: no peak, iterations not allowed with it, all sizes not allowed with it
        PerfOptions d = parse(PerfTest.WRITE_BW, "-D", "4", "h");
        assertTrue(d.isDuration());
        assertTrue(d.noPeak);
        assertEquals(1, d.margin());
        assertEquals("-D (duration) and -n (iterations) exclude each other", error(PerfTest.WRITE_BW, "-D", "4", "-n", "10"));
        assertEquals("Duration mode currently doesn't support running on all sizes.", error(PerfTest.WRITE_LAT, "-D", "4", "-a"));
        assertEquals("TOS only valid for rdma_cm based QP (-R)", error(PerfTest.WRITE_LAT, "-T", "32"));
    }

    @Test
    void eventsAsPerftestTakesThem() throws Exception {
        PerfOptions e = parse(PerfTest.SEND_LAT, "-e", "h");
        assertTrue(e.events);
        assertEquals(0, e.eqNum);
        assertFalse(parse(PerfTest.SEND_LAT, "h").events);
        assertEquals(3, parse(PerfTest.READ_BW, "--events", "--vector=3", "h").eqNum);
        // perftest keeps CQ moderation with events above 8 KiB (it turns it off without them)
        assertEquals(1, parse(PerfTest.SEND_BW, "-s", "65536", "h").cqMod);
        assertEquals(100, parse(PerfTest.SEND_BW, "-s", "65536", "-e", "h").cqMod);
        for (PerfTest write : new PerfTest[] {PerfTest.WRITE_LAT, PerfTest.WRITE_BW}) {
            assertTrue(error(write, "-e").startsWith("Events feature not available on WRITE verb (-e, -X)"));
            assertTrue(error(write, "-e", "-X", "1").startsWith("Events feature not available on WRITE verb"));
        }
        assertEquals("Events must be enabled to select a completion vector (-X needs -e)",
                error(PerfTest.SEND_LAT, "-X", "1"));
        assertEquals("Duration mode doesn't work with events (-D, -e).", error(PerfTest.SEND_BW, "-e", "-D", "4"));
        assertEquals("option -X: 2049 is not between 0 and 2048", error(PerfTest.SEND_LAT, "-e", "-X", "2049"));
    }

    @Test
    void unreliableConnectedAsPerftestTakesIt() throws Exception {
        assertFalse(parse(PerfTest.SEND_LAT, "h").uc);
        assertTrue(parse(PerfTest.WRITE_BW, "-c", "UC", "h").uc);
        assertTrue(parse(PerfTest.SEND_BW, "--connection=UC").uc);
        // a UC send test posts every receive first: rx depth = the iterations, at most 16000 (perftest's UC_MAX_RX)
        assertEquals(1000, parse(PerfTest.SEND_LAT, "-c", "UC", "h").rxDepth);
        assertEquals(16000, parse(PerfTest.SEND_BW, "-c", "UC", "-n", "50000", "h").rxDepth);
        assertEquals(100, parse(PerfTest.SEND_BW, "-c", "UC", "-r", "100", "h").rxDepth);
        assertEquals(512, parse(PerfTest.SEND_BW, "-n", "50000", "h").rxDepth);
        for (PerfTest read : new PerfTest[] {PerfTest.READ_LAT, PerfTest.READ_BW}) {
            assertEquals("UC connection not possible in READ/ATOMIC verbs (-c UC)", error(read, "-c", "UC"));
        }
        assertEquals("UC is not supported in librdmacm (-c UC, -R)", error(PerfTest.SEND_LAT, "-c", "UC", "-R"));
    }

    @Test
    void bidirectionalAsPerftestTakesIt() throws Exception {
        assertTrue(parse(PerfTest.WRITE_BW, "-b", "h").duplex);
        assertTrue(parse(PerfTest.READ_BW, "--bidirectional").duplex);
        assertFalse(parse(PerfTest.READ_BW).duplex);
        for (PerfTest lat : new PerfTest[] {PerfTest.SEND_LAT, PerfTest.WRITE_LAT, PerfTest.READ_LAT}) {
            assertEquals("Bidirectional is only available in BW test (-b)", error(lat, "-b"));
        }
        PerfOptions sendBoth = parse(PerfTest.SEND_BW, "-b");
        assertTrue(sendBoth.duplex);
        assertFalse(sendBoth.noPeak, "a bidirectional send_bw server measures its own sends, peak included");
        assertTrue(parse(PerfTest.SEND_BW).noPeak, "the one-way send_bw server counts receives: no peak");
        assertEquals("send_bw -b with -D is not implemented by verbs4j-perf (write_bw and read_bw have it)",
                error(PerfTest.SEND_BW, "-b", "-D", "4"));
        assertTrue(error(PerfTest.SEND_BW, "-b", "-e").startsWith("send_bw -b with -e is not implemented"));
    }

    @Test
    void postListAsPerftestTakesIt() throws Exception {
        PerfOptions one = parse(PerfTest.WRITE_BW, "h");
        assertEquals(1, one.postList);
        assertFalse(one.cqModFromPostList);
        // -l without -Q: the CQ moderation becomes the list's size (also above 8 KiB, where it would be 1)
        PerfOptions l = parse(PerfTest.WRITE_BW, "-l", "8", "-s", "65536", "h");
        assertEquals(8, l.postList);
        assertEquals(8, l.cqMod);
        assertEquals("Number of iterations must be a multiple of post list size (-n 5000, -l 16)",
                error(PerfTest.WRITE_BW, "-l", "16"));
        assertTrue(l.cqModFromPostList);
        // with -Q the list must be a multiple of it
        PerfOptions q = parse(PerfTest.SEND_BW, "--post_list=8", "-Q", "4", "h");
        assertEquals(4, q.cqMod);
        assertFalse(q.cqModFromPostList);
        assertEquals("Post list size must be a multiple of CQ moderation (-l 8, -Q 3)",
                error(PerfTest.SEND_BW, "-l", "8", "-Q", "3"));
        assertEquals("Number of iterations must be a multiple of post list size (-n 1000, -l 3)",
                error(PerfTest.READ_BW, "-l", "3"));
        assertEquals(3, parse(PerfTest.READ_BW, "-l", "3", "-D", "4").postList, "-D: no iteration count to divide");
        for (PerfTest lat : new PerfTest[] {PerfTest.SEND_LAT, PerfTest.WRITE_LAT, PerfTest.READ_LAT}) {
            assertEquals("Post list is supported in BW tests only (-l)", error(lat, "-l", "2"));
        }
        assertEquals(1, parse(PerfTest.SEND_LAT, "-l", "1").postList);
        assertEquals("post list size 200 is larger than the TX depth 128: no list would fit the send queue (-l, -t)",
                error(PerfTest.WRITE_BW, "-l", "200"));
        assertEquals("post list size 8 must be smaller than the RX depth 8 (-l, -r)",
                error(PerfTest.SEND_BW, "-l", "8", "-r", "8"));
        assertEquals("send_bw -b with -l is not implemented by verbs4j-perf (write_bw and read_bw have it)",
                error(PerfTest.SEND_BW, "-b", "-l", "4"));
        assertEquals(4, parse(PerfTest.WRITE_BW, "-b", "-l", "4").postList);
        assertTrue(error(PerfTest.WRITE_BW, "-l", "4", "--warmup", "100").startsWith("--warmup ITERS with -l is not"));
        assertEquals("option -l: 0 is not between 1 and 15000", error(PerfTest.WRITE_BW, "-l", "0"));
    }

    @Test
    void refusedAndWrongOptionsSayWhat() {
        assertEquals("option -q (--qp, several queue pairs) is not implemented by verbs4j-perf",
                error(PerfTest.SEND_BW, "-q", "2"));
        assertEquals("option --use-srq (a shared receive queue) is not implemented by verbs4j-perf",
                error(PerfTest.SEND_BW, "--use-srq"));
        assertEquals("Inline feature not available on READ/Atomic verbs (-I)", error(PerfTest.READ_LAT, "-I", "64"));
        assertEquals("option -n: 3 is not between 5 and 100000000", error(PerfTest.WRITE_LAT, "-n", "3"));
        assertEquals("Setting Outstanding reads only available on READ verb (-o)", error(PerfTest.WRITE_LAT, "-o", "4"));
        assertEquals("On RDMA verbs rx depth can be only 1 (-r)", error(PerfTest.WRITE_LAT, "-r", "4"));
        assertEquals("option -c: 'UD' is not one of RC, UC", error(PerfTest.WRITE_LAT, "-c", "UD"));
        assertEquals("option -m: '1000' is not one of 256, 512, 1024, 2048, 4096", error(PerfTest.WRITE_LAT, "-m", "1000"));
        assertEquals("option requires an argument -- 's'", error(PerfTest.WRITE_LAT, "-s"));
        assertEquals("too many arguments: 'b'", error(PerfTest.WRITE_LAT, "a", "b"));
        assertEquals("-U (--report-unsorted) is available only on latency tests", error(PerfTest.WRITE_BW, "-U"));
        assertEquals("-H (--report-histogrm) is available only on latency tests", error(PerfTest.WRITE_BW, "-H"));
        assertEquals("NoPeak only valid for BW tests (-N)", error(PerfTest.WRITE_LAT, "-N"));
        assertTrue(error(PerfTest.WRITE_LAT, "--report", "x").startsWith("option '--report' is ambiguous; possibilities:"));
    }

    @Test
    void versionSkipsTheChecks() throws Exception {
        assertTrue(parse(PerfTest.SEND_LAT, "--version").version);
        assertTrue(parse(PerfTest.SEND_LAT, "-V", "-T", "5").version);
    }

    private static String[] run(String... args) {
        PerfSide r = PerfSide.run(List.of(args));
        return new String[] {Integer.toString(r.exit()), r.out(), r.err()};
    }

    @Test
    void theCommandLineEntry() {
        String[] r = run("ping");
        assertEquals("2", r[0]);
        assertTrue(r[2].startsWith("verbs4j-perf: unknown test 'ping'; the tests are send_lat, "), r[2]);
        assertTrue(r[2].endsWith("Try 'verbs4j-perf --help' for more information.\n"), r[2]);
        r = run("ib_read_bw", "-h");
        assertEquals("0", r[0]);
        assertEquals("", r[2]);
        assertTrue(r[1].startsWith("Usage:\n  verbs4j-perf read_bw [options]  "), r[1]);
        assertTrue(r[1].contains("  -s, --size=SIZE  ") && r[1].contains("(default 65536)\n"), r[1]);
        assertTrue(r[1].contains("--report_gbits"), r[1]);
        assertTrue(r[1].contains("\nThese are not implemented by verbs4j-perf:\n"), r[1]);
        r = run("--help");
        assertEquals("0", r[0]);
        assertTrue(r[1].startsWith("Usage:\n  verbs4j-perf TEST [options]  "), r[1]);
        assertTrue(r[1].contains("(default 2 latency, 65536 bandwidth)"), r[1]);
        assertEquals("2", run()[0]);
        assertEquals("2", run("-s", "64")[0]);
        r = run("write_bw", "-q", "2");
        assertEquals("2", r[0]);
        assertEquals("", r[1]);
        assertTrue(r[2].startsWith("verbs4j-perf write_bw: option -q (--qp, several queue pairs) is not implemented "
                + "by verbs4j-perf\nUsage: verbs4j-perf write_bw [options]\n"), r[2]);
        r = run("write_lat", "--version");
        assertEquals("0", r[0]);
        assertEquals("Version: " + VerbsPerf.VERSION + "\n", r[1]);
        assertNull(PerfTest.of("atomic_bw"));
        assertEquals(PerfTest.SEND_BW, PerfTest.of("ib_send_bw"));
    }

    @Test
    void theLocalWarmUpIsOnByDefaultAndOffWithWarmup0OrNoWarmup() throws Exception {
        PerfOptions d = parse(PerfTest.SEND_LAT);
        assertTrue(d.localWarmup, "on by default");
        assertEquals(0, d.warmup, "no warm-up with the peer by default: the exchange is perftest's");
        assertTrue(parse(PerfTest.READ_BW, "-R", "10.0.0.1").localWarmup, "on for a client too");
        PerfOptions zero = parse(PerfTest.SEND_LAT, "--warmup=0");
        assertFalse(zero.localWarmup, "--warmup=0: no warm-up at all (the default before the local warm-up)");
        assertEquals(0, zero.warmup);
        PerfOptions off = parse(PerfTest.WRITE_LAT, "--no-warmup");
        assertFalse(off.localWarmup);
        assertEquals(0, off.warmup);
        PerfOptions peer = parse(PerfTest.WRITE_LAT, "--warmup", "500");
        assertFalse(peer.localWarmup, "--warmup ITERS: the warm-up with the peer instead, as before");
        assertEquals(500, peer.warmup);
        assertTrue(error(PerfTest.SEND_LAT, "--no-warmup", "--warmup=5").contains("--no-warmup and --warmup 5"));
        assertFalse(parse(PerfTest.SEND_LAT, "--no-warmup", "--warmup=0").localWarmup);
    }

    @Test
    void withDurationTheLocalWarmUpRunsTheDurationLoop() throws Exception {
        PerfOptions d = parse(PerfTest.WRITE_LAT, "-D", "4");
        assertTrue(d.localWarmup && d.isDuration());
        PerfOptions lo = LocalWarmUp.loopbackOptions(d);
        assertEquals(LocalWarmUp.DURATION_SECONDS, lo.duration, "the same (duration) loop, for a second");
        assertTrue(lo.isDuration());
        assertEquals(0, lo.margin(), "-D 1 has no margin: all of it runs the loop");
        assertEquals(0, lo.warmup);
        assertEquals(4, d.duration, "the run's own options are not changed");
        assertFalse(parse(PerfTest.WRITE_LAT, "-D", "4", "--no-warmup").localWarmup);
        assertFalse(parse(PerfTest.WRITE_LAT, "-D", "4", "--warmup=0").localWarmup);
        assertTrue(error(PerfTest.WRITE_LAT, "-D", "4", "--warmup=100").contains("--warmup ITERS is for iteration runs"));
    }

    @Test
    void theLoopbackRunHasTheRunsOwnLoopSettings() throws Exception {
        PerfOptions o = parse(PerfTest.WRITE_BW, "-R", "-d", "dev0", "-p", "20000", "-n", "50000", "-t", "64", "-Q",
                "16", "-a", "--max_size=1024", "10.0.0.1");
        PerfOptions lo = LocalWarmUp.loopbackOptions(o);
        assertEquals(LocalWarmUp.LAST_RUN_ITERS, lo.iters, "a short last run after the warm-up runs");
        assertEquals(LocalWarmUp.RUN_ITERS, lo.warmup, "warm-up runs on, as large as any run");
        assertEquals(2, lo.size, "-a: the first size");
        assertFalse(lo.all);
        assertFalse(lo.localWarmup, "no warm-up of the warm-up");
        assertFalse(lo.isClient(), "the loopback server");
        assertTrue(lo.port != 20000, "another port than -p: a peer that connects early never reaches it");
        assertEquals("dev0", lo.device);
        assertTrue(lo.rdmaCm);
        // what decides the loop's branches is the run's: tx depth, CQ moderation, no peak (-n above 20000)
        assertEquals(64, lo.txDepth);
        assertEquals(16, lo.cqMod);
        assertTrue(lo.noPeak && o.noPeak);
        assertEquals(o.inlineSize, lo.inlineSize);
        assertEquals(50000, o.iters, "the run's own options are not changed");
        assertEquals("10.0.0.1", o.serverHost);
        assertTrue(o.all && o.localWarmup);
    }

    @Test
    void theWarmUpPlanGivesBothSidesTheSameRunsWithinItsBudget() {
        long start = System.nanoTime();
        LocalWarmUp.Plan fast = new LocalWarmUp.Plan(start, 60_000_000_000L);
        assertEquals(LocalWarmUp.PROBE_ITERS, fast.iterations(0, 0, 0));
        // the first side to ask decides; the other gets the same answer whatever its own last run took
        assertEquals(LocalWarmUp.RUN_ITERS, fast.iterations(1, 200, 1_000_000), "a fast loop: full runs");
        assertEquals(LocalWarmUp.RUN_ITERS, fast.iterations(1, 200, 60_000_000_000L));
        for (int r = 2; r < LocalWarmUp.MAX_RUNS; r++) {
            assertEquals(LocalWarmUp.RUN_ITERS, fast.iterations(r, 4000, 4_000_000));
        }
        assertEquals(0, fast.iterations(LocalWarmUp.MAX_RUNS, 4000, 4_000_000), "at most MAX_RUNS runs");
        assertEquals(LocalWarmUp.ITERS - LocalWarmUp.LAST_RUN_ITERS, fast.total());
        assertEquals(LocalWarmUp.MAX_RUNS, fast.count());

        LocalWarmUp.Plan slow = new LocalWarmUp.Plan(start, 0);
        assertEquals(LocalWarmUp.PROBE_ITERS, slow.iterations(0, 0, 0));
        assertEquals(LocalWarmUp.MIN_RUN_ITERS, slow.iterations(1, 200, 3_000_000_000L),
                "the budget spent: a second, short run (the loop method is entered again)");
        assertEquals(0, slow.iterations(2, 100, 300_000_000), "then no more");
        assertEquals(0, slow.iterations(2, 100, 1), "for either side");
        assertEquals(0, slow.iterations(3, 100, 1));
        assertEquals(2, slow.count());

        // the pair's set-up took 5 s (a cold JVM under emulation): the budget counts from the first run's end
        LocalWarmUp.Plan slowSetUp = new LocalWarmUp.Plan(System.nanoTime() - 5_000_000_000L, 1_500_000_000L);
        slowSetUp.iterations(0, 0, 0);
        assertEquals(LocalWarmUp.RUN_ITERS, slowSetUp.iterations(1, 200, 1_000_000),
                "a fast loop after a slow set-up: full runs");

        // 200 iterations in 0.1 s with 2 s left over 4 runs: 1,000 per run
        LocalWarmUp.Plan paced = new LocalWarmUp.Plan(System.nanoTime(), 2_000_000_000L);
        paced.iterations(0, 0, 0);
        long n = paced.iterations(1, 200, 100_000_000);
        assertTrue(n > 900 && n <= 1000, "paced by the last run's rate: " + n);
    }

    @Test
    void pastTheCutNoRunStartsButTheFirstAndTheCompilerWaitsEnd() {
        // the cut passed already (a slow start under emulation): the first run still runs, then no other
        LocalWarmUp.Plan late = new LocalWarmUp.Plan(System.nanoTime() - 1_000, 60_000_000_000L, 1);
        assertEquals(LocalWarmUp.PROBE_ITERS, late.iterations(0, 0, 0));
        assertFalse(late.wasCut());
        assertEquals(0, late.iterations(1, 200, 1_000_000), "past the cut");
        assertEquals(0, late.iterations(1, 200, 1), "for either side");
        assertTrue(late.wasCut(), "the account says the runs were cut short");
        assertEquals(1, late.count());
        assertEquals(2 * CompilerQuiet.QUIET_NANOS, late.quietLimit(), "a compiler wait past the cut: the shortest");

        LocalWarmUp.Plan early = new LocalWarmUp.Plan(System.nanoTime(), 60_000_000_000L);
        early.iterations(0, 0, 0);
        assertEquals(LocalWarmUp.RUN_ITERS, early.iterations(1, 200, 1_000_000));
        assertFalse(early.wasCut());
        long limit = early.quietLimit();
        assertTrue(limit <= CompilerQuiet.MAX_NANOS && limit > TimeUnit.SECONDS.toNanos(LocalWarmUp.CUT_SECONDS) -
                TimeUnit.SECONDS.toNanos(5), "before the cut: a wait up to the cut " + limit);
    }
}
