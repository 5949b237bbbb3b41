package org.verbs4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.verbs4j.examples.cli.UsageException;

/** rping's command line: rping 44's option letters, defaults and size range. */
class RpingOptionsTest {

    private static RpingOptions parse(String... args) throws UsageException {
        return RpingOptions.of(RpingOptions.PARSER.parse(args));
    }

    private static String error(String... args) {
        return assertThrows(UsageException.class, () -> parse(args), String.join(" ", args)).getMessage();
    }

    @Test
    void defaultsAreRpings() throws Exception {
        RpingOptions o = parse("-s");
        assertTrue(o.server());
        assertNull(o.address());
        assertNull(o.sourceAddress());
        assertEquals(7174, o.port());
        assertEquals(64, o.size());
        assertEquals(0, o.count(), "count 0: the client pings forever");
        assertFalse(o.verbose());
        assertFalse(o.validate());
        assertFalse(o.debug());
        assertFalse(o.persistent());
    }

    @Test
    void everyOptionSeparateAttachedAndClustered() throws Exception {
        RpingOptions o = parse("-c", "-a", "10.77.0.1", "-p7300", "-C", "250", "-S1000", "-vVd", "-I", "10.77.0.2");
        assertFalse(o.server());
        assertEquals("10.77.0.1", o.address());
        assertEquals("10.77.0.2", o.sourceAddress());
        assertEquals(7300, o.port());
        assertEquals(250, o.count());
        assertEquals(1000, o.size());
        assertTrue(o.verbose());
        assertTrue(o.validate());
        assertTrue(o.debug());

        RpingOptions p = parse("-sPva10.77.1.1");
        assertTrue(p.server());
        assertTrue(p.persistent());
        assertTrue(p.verbose());
        assertEquals("10.77.1.1", p.address(), "an option's argument may follow letters in the same word");

        RpingOptions l = parse("--client", "--addr=h", "--size", "100", "--count=3", "--verbose", "--validate", "--debug");
        assertFalse(l.server());
        assertEquals("h", l.address());
        assertEquals(100, l.size());
        assertEquals(3, l.count());
        assertTrue(l.verbose() && l.validate() && l.debug());
    }

    @Test
    void theLastOfSAndCWins() throws Exception {
        assertFalse(parse("-s", "-c").server());
        assertTrue(parse("-c", "-s").server());
        assertTrue(parse("-cs").server());
        assertEquals("-s (server) or -c (client) is needed", error("-v"));
        assertEquals("-s (server) or -c (client) is needed", error());
    }

    @Test
    void sizeRangeIsRpings() throws Exception {
        assertEquals(23, parse("-c", "-S", "23").size());
        assertEquals(65535, parse("-c", "-S", "65535").size());
        assertEquals("option -S: 22 is not between 23 and 65535", error("-c", "-S", "22"));
        assertEquals("option -S: 65536 is not between 23 and 65535", error("-c", "-S", "64K"));
    }

    @Test
    void badCountsPortsAndOptions() {
        assertEquals("option -C: -1 is not between 0 and 2147483647", error("-c", "-C", "-1"));
        assertEquals("option -p: 70000 is not between 1 and 65535", error("-s", "-p", "70000"));
        assertEquals("option -p: 'none' is not a number", error("-s", "-p", "none"));
        assertEquals("invalid option -- 't'", error("-s", "-t", "5"));
        assertEquals("option requires an argument -- 'S'", error("-c", "-S"));
        assertEquals("unexpected argument 'host'", error("-c", "host"));
    }

    @Test
    void selfCreatedQpIsRefusedWithAReason() {
        assertEquals("option -q (a self-created, self-modified QP) is not supported by verbs4j", error("-c", "-q"));
    }

    @Test
    void theToolPrintsHelpOnStdoutAndErrorsOnStderr() {
        ToolRun h = ToolRun.of(Rping::run, "-h");
        assertEquals(0, h.exit());
        assertEquals(RpingOptions.PARSER.help(), h.out());
        assertTrue(h.out().startsWith("Usage:\n  rping -s [-vVdP] [-S SIZE] [-a ADDR] [-p PORT]"), h.out());
        assertTrue(h.out().contains("  -P, --persistent   persistent server mode allowing multiple connections\n"),
                h.out());
        ToolRun e = ToolRun.of(Rping::run, "-c", "-S", "10");
        assertEquals(2, e.exit());
        assertEquals("", e.out());
        assertTrue(e.err().startsWith("rping: option -S: 10 is not between 23 and 65535\nUsage: rping -s "), e.err());
    }
}
