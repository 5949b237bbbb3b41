package org.verbs4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.verbs4j.examples.RpingOptions.UsageException;

/** rping's command line, parsed as rping 44's getopt("a:I:Pp:C:S:t:scvVdq") and atoi parse it. */
class RpingOptionsTest {

    @Test
    void defaultsAreRpings() throws Exception {
        RpingOptions o = RpingOptions.parse("-s");
        assertTrue(o.server);
        assertNull(o.address);
        assertNull(o.sourceAddress);
        assertEquals(7174, o.port);
        assertEquals(64, o.size);
        assertEquals(0, o.count, "count 0: the client pings forever");
        assertFalse(o.verbose);
        assertFalse(o.validate);
        assertFalse(o.debug);
        assertFalse(o.persistent);
    }

    @Test
    void everyOptionSeparateAttachedAndClustered() throws Exception {
        RpingOptions o = RpingOptions.parse("-c", "-a", "10.77.0.1", "-p7300", "-C", "250", "-S1000", "-vVd",
                "-I", "10.77.0.1");
        assertFalse(o.server);
        assertEquals("10.77.0.1", o.address);
        assertEquals("10.77.0.1", o.sourceAddress);
        assertEquals(7300, o.port);
        assertEquals(250, o.count);
        assertEquals(1000, o.size);
        assertTrue(o.verbose);
        assertTrue(o.validate);
        assertTrue(o.debug);

        RpingOptions p = RpingOptions.parse("-sPva10.77.1.1");
        assertTrue(p.server);
        assertTrue(p.persistent);
        assertTrue(p.verbose);
        assertEquals("10.77.1.1", p.address, "an option's argument may follow letters in the same word");
    }

    @Test
    void theLastOfSAndCWins() throws Exception {
        assertFalse(RpingOptions.parse("-s", "-c").server);
        assertTrue(RpingOptions.parse("-c", "-s").server);
    }

    @Test
    void operandsAreIgnoredAndDoubleDashEndsTheOptions() throws Exception {
        RpingOptions o = RpingOptions.parse("host", "-c", "-", "-C", "3", "--", "-S", "1");
        assertFalse(o.server);
        assertEquals(3, o.count);
        assertEquals(64, o.size, "-S after -- is an operand");
    }

    @Test
    void numbersAreReadLikeAtoi() {
        assertEquals(7174, RpingOptions.atoi("7174"));
        assertEquals(12, RpingOptions.atoi("  +12abc"));
        assertEquals(-5, RpingOptions.atoi("-5"));
        assertEquals(0, RpingOptions.atoi("0x10"), "atoi is decimal only");
        assertEquals(0, RpingOptions.atoi("abc"));
        assertEquals(0, RpingOptions.atoi(""));
        assertEquals(-1, RpingOptions.atoi("99999999999999999999"), "strtol saturates at LONG_MAX, the int cast keeps -1");
        assertEquals((int) 4294967296L + 5, RpingOptions.atoi("4294967301"));
    }

    @Test
    void thePortIsTheLow16BitsAsHtobe16Keeps() throws Exception {
        assertEquals(7174, RpingOptions.parse("-s", "-p", "7174x").port);
        assertEquals(70000 & 0xffff, RpingOptions.parse("-s", "-p", "70000").port);
        assertEquals(0, RpingOptions.parse("-s", "-p", "none").port);
    }

    @Test
    void sizeRangeIsRpings() throws Exception {
        assertEquals(23, RpingOptions.parse("-c", "-S", "23").size);
        assertEquals(65535, RpingOptions.parse("-c", "-S", "65535").size);
        UsageException small = assertThrows(UsageException.class, () -> RpingOptions.parse("-c", "-S", "22"));
        assertEquals("Invalid size 22 (valid range is 23 to 65536)", small.message);
        assertEquals(22, small.exitStatus);
        UsageException big = assertThrows(UsageException.class, () -> RpingOptions.parse("-c", "-S", "65536"));
        assertEquals("Invalid size 65536 (valid range is 23 to 65536)", big.message);
        // rping reports it even without -s/-c: the option loop comes first
        assertEquals("Invalid size 1 (valid range is 23 to 65536)",
                assertThrows(UsageException.class, () -> RpingOptions.parse("-S", "1")).message);
    }

    @Test
    void aNegativeCountIsInvalid() throws Exception {
        UsageException e = assertThrows(UsageException.class, () -> RpingOptions.parse("-c", "-C", "-1"));
        assertEquals("Invalid count -1", e.message);
        assertEquals(22, e.exitStatus);
        assertEquals(0, RpingOptions.parse("-c", "-C", "0").count);
    }

    @Test
    void usageForUnknownOrIncompleteOptionsAndWithoutARole() {
        for (String[] args : new String[][] {{"-x"}, {"-h"}, {"-c", "-S"}, {"-s", "-t", "5"}, {}, {"-v"}, {"-c:"},
                {"--size=100", "-c"}}) {
            UsageException e = assertThrows(UsageException.class, () -> RpingOptions.parse(args), String.join(" ", args));
            assertNull(e.message, String.join(" ", args));
            assertEquals(22, e.exitStatus);
        }
    }

    @Test
    void selfCreatedQpIsRefusedWithAReason() {
        UsageException e = assertThrows(UsageException.class, () -> RpingOptions.parse("-c", "-q", "-a", "x"));
        assertTrue(e.message.contains("-q") && e.message.contains("not supported by verbs4j"), e.message);
        assertEquals(22, e.exitStatus);
    }

    @Test
    void usageIsRpings() {
        String u = RpingOptions.usage("rping");
        assertTrue(u.startsWith("rping -s [-vVd] [-S size] [-C count] [-a addr] [-p port]\n"
                + "rping -c [-vVd] [-S size] [-C count] [-I addr] -a addr [-p port]\n"
                + "\t-c\t\tclient side\n"), u);
        assertTrue(u.contains("\t-P\t\tpersistent server mode allowing multiple connections\n"), u);
        assertEquals(14, u.lines().count());
    }

    @Test
    void theToolPrintsTheUsageOnStdoutAndTheValueErrorsOnStderr() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
        assertEquals(22, Rping.run(new String[] {"-x"}, o, e));
        assertEquals(RpingOptions.usage("rping"), out.toString(StandardCharsets.UTF_8));
        assertEquals("", err.toString(StandardCharsets.UTF_8));
        out.reset();
        assertEquals(22, Rping.run(new String[] {"-c", "-S", "10"}, o, e));
        assertEquals("", out.toString(StandardCharsets.UTF_8));
        assertEquals("Invalid size 10 (valid range is 23 to 65536)\n", err.toString(StandardCharsets.UTF_8));
    }
}
