package org.verbs4j.bench.perf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** perftest's command line, defaults and dependencies as verbs4j-perf parses them. */
class PerfOptionsTest {

    private static PerfOptions parse(PerfTest t, String... args) throws Exception {
        return PerfOptions.parse(t, args);
    }

    @Test
    void defaultsAreClientlessServerWithPerftestsValues() throws Exception {
        PerfOptions lat = parse(PerfTest.SEND_LAT);
        assertFalse(lat.isClient());
        assertEquals(18515, lat.port);
        assertEquals(2, lat.size);
        assertEquals(1000, lat.iters);
        assertEquals(1, lat.txDepth);
        assertEquals(512, lat.rxDepth);
        assertEquals(236, lat.inlineSize);
        assertEquals(1, lat.cqMod, "CQ moderation is capped by the tx depth of 1");
        assertEquals(-1, lat.gidIndex);
        assertEquals(220, parse(PerfTest.WRITE_LAT).inlineSize);
        assertEquals(0, parse(PerfTest.READ_LAT).inlineSize);

        PerfOptions bw = parse(PerfTest.WRITE_BW);
        assertEquals(65536, bw.size);
        assertEquals(5000, bw.iters, "ib_write_bw's default is 5000 iterations");
        assertEquals(128, bw.txDepth);
        assertEquals(1, bw.cqMod, "65536 bytes is above 8 KiB: CQ moderation off");
        assertEquals(0, bw.inlineSize);
        assertEquals(1000, parse(PerfTest.READ_BW).iters);
        assertTrue(parse(PerfTest.SEND_BW).noPeak, "the send_bw server has no peak");
        assertFalse(parse(PerfTest.SEND_BW, "host").noPeak);
    }

    @Test
    void shortAndLongFormsAndTheHostAnywhere() throws Exception {
        PerfOptions o = parse(PerfTest.WRITE_LAT, "-d", "rxe0", "10.77.0.1", "-x1", "--size=64", "--iters", "200", "-aF",
                "-p", "19000", "-i", "1", "-R", "-T", "32", "-I", "0");
        assertEquals("rxe0", o.device);
        assertEquals("10.77.0.1", o.serverHost);
        assertTrue(o.isClient());
        assertEquals(1, o.gidIndex);
        assertEquals(200, o.iters);
        assertTrue(o.all);
        assertTrue(o.cpuFreqF);
        assertEquals(19000, o.port);
        assertTrue(o.rdmaCm);
        assertEquals(32, o.tos);
        assertEquals(0, o.inlineSize);
        assertEquals(PerfOptions.MAX_SIZE, o.size, "-a overrides -s: the buffer is for the largest size");
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
        assertThrows(PerfOptions.UsageException.class, () -> parse(PerfTest.SEND_LAT, "--max_size", "64"));
        assertThrows(PerfOptions.UsageException.class, () -> parse(PerfTest.SEND_LAT, "-s", "0"));
        assertThrows(PerfOptions.UsageException.class, () -> parse(PerfTest.SEND_LAT, "-s", "abc"));
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
        assertThrows(PerfOptions.UsageException.class, () -> parse(PerfTest.WRITE_BW, "-D", "4", "-n", "10"));
        assertThrows(PerfOptions.UsageException.class, () -> parse(PerfTest.WRITE_LAT, "-D", "4", "-a"));
        // TOS needs rdma_cm
        assertThrows(PerfOptions.UsageException.class, () -> parse(PerfTest.WRITE_LAT, "-T", "32"));
    }

    @Test
    void refusedAndWrongOptionsSayWhat() {
        PerfOptions.UsageException e = assertThrows(PerfOptions.UsageException.class,
                () -> parse(PerfTest.SEND_BW, "-b"));
        assertTrue(e.getMessage().contains("--bidirectional"), e.getMessage());
        e = assertThrows(PerfOptions.UsageException.class, () -> parse(PerfTest.SEND_BW, "--use-srq"));
        assertTrue(e.getMessage().contains("does not implement"), e.getMessage());
        e = assertThrows(PerfOptions.UsageException.class, () -> parse(PerfTest.READ_LAT, "-I", "64"));
        assertTrue(e.getMessage().contains("Inline"), e.getMessage());
        e = assertThrows(PerfOptions.UsageException.class, () -> parse(PerfTest.WRITE_LAT, "-n", "3"));
        assertTrue(e.getMessage().contains("between 5 and 100000000"), e.getMessage());
        e = assertThrows(PerfOptions.UsageException.class, () -> parse(PerfTest.WRITE_LAT, "-o", "4"));
        assertTrue(e.getMessage().contains("READ"), e.getMessage());
        assertThrows(PerfOptions.UsageException.class, () -> parse(PerfTest.WRITE_LAT, "-c", "UD"));
        assertThrows(PerfOptions.UsageException.class, () -> parse(PerfTest.WRITE_LAT, "-s"));
        assertThrows(PerfOptions.UsageException.class, () -> parse(PerfTest.WRITE_LAT, "a", "b"));
        assertThrows(PerfOptions.UsageException.class, () -> parse(PerfTest.WRITE_BW, "-U"));
        assertThrows(PerfOptions.UsageException.class, () -> parse(PerfTest.WRITE_LAT, "-N"));
    }

    @Test
    void helpAndVersion() {
        assertFalse(assertThrows(PerfOptions.HelpRequested.class, () -> parse(PerfTest.SEND_LAT, "-h")).version);
        assertTrue(assertThrows(PerfOptions.HelpRequested.class, () -> parse(PerfTest.SEND_LAT, "--version")).version);
    }

    @Test
    void theCommandLineEntry() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
        assertEquals(1, VerbsPerf.run(new String[] {"ping"}, o, e));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("unknown test 'ping'"));
        assertEquals(0, VerbsPerf.run(new String[] {"ib_read_bw", "-h"}, o, e));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("--report_gbits"));
        assertEquals(1, VerbsPerf.run(new String[] {"write_bw", "-q", "2"}, o, e));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("-q (--qp, several queue pairs) is not implemented"));
        assertNull(PerfTest.of("atomic_bw"));
        assertEquals(PerfTest.SEND_BW, PerfTest.of("ib_send_bw"));
    }
}
