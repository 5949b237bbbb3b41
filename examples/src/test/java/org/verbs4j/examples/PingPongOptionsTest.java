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
import org.verbs4j.api.Mtu;
import org.verbs4j.examples.PingPongOptions.Tool;
import org.verbs4j.examples.PingPongOptions.UsageException;

/** The command line, parsed as getopt_long and strtoul parse the C tools' command line. */
class PingPongOptionsTest {

    private static PingPongOptions rc(String... args) throws UsageException {
        return PingPongOptions.parse(Tool.RC, "rc-pingpong", args);
    }

    private static PingPongOptions ud(String... args) throws UsageException {
        return PingPongOptions.parse(Tool.UD, "ud-pingpong", args);
    }

    @Test
    void defaultsAreTheCTools() throws Exception {
        PingPongOptions o = rc();
        assertEquals(18515, o.port);
        assertNull(o.deviceName);
        assertEquals(1, o.ibPort);
        assertEquals(4096, o.size);
        assertEquals(Mtu.MTU_1024, o.mtu);
        assertEquals(500, o.rxDepth);
        assertEquals(1000, o.iters);
        assertEquals(0, o.sl);
        assertFalse(o.events);
        assertEquals(-1, o.gidIndex);
        assertFalse(o.validate);
        assertNull(o.serverName);
        assertEquals(1024, ud().size);
    }

    @Test
    void shortLongClusteredAndPermuted() throws Exception {
        PingPongOptions o = rc("-d", "rxe0", "-g1", "host", "-ec", "--iters=50", "--size", "0x10", "--mtu=2048",
                "--rx", "100", "-p", "19000");
        assertEquals("rxe0", o.deviceName);
        assertEquals(1, o.gidIndex);
        assertEquals("host", o.serverName);
        assertTrue(o.events);
        assertTrue(o.validate);
        assertEquals(50, o.iters);
        assertEquals(16, o.size);
        assertEquals(Mtu.MTU_2048, o.mtu);
        assertEquals(100, o.rxDepth);
        assertEquals(19000, o.port);
        assertEquals("-x", rc("--", "-x").serverName);
        assertEquals(8, rc("-s", "010").size);       // octal, as strtoul(.., 0)
        assertEquals(12, rc("-n", "12abc").iters);   // trailing garbage ignored
    }

    @Test
    void badCommandLinesAreUsageErrors() {
        assertEquals("rc-pingpong: invalid option -- 'x'", assertThrows(UsageException.class, () -> rc("-x")).diagnostic);
        assertEquals("rc-pingpong: option requires an argument -- 'n'",
                assertThrows(UsageException.class, () -> rc("-n")).diagnostic);
        assertEquals("rc-pingpong: unrecognized option '--nope'",
                assertThrows(UsageException.class, () -> rc("--nope=1")).diagnostic);
        assertEquals("rc-pingpong: option '--events' doesn't allow an argument",
                assertThrows(UsageException.class, () -> rc("--events=1")).diagnostic);
        assertNull(assertThrows(UsageException.class, () -> rc("-m", "1000")).diagnostic); // not an IB MTU
        assertNull(assertThrows(UsageException.class, () -> rc("-p", "70000")).diagnostic);
        assertNull(assertThrows(UsageException.class, () -> rc("-i", "0")).diagnostic);
        assertNull(assertThrows(UsageException.class, () -> rc("a", "b")).diagnostic);
        assertEquals("ud-pingpong: invalid option -- 'm'", assertThrows(UsageException.class, () -> ud("-m", "1024")).diagnostic);
    }

    @Test
    void unsupportedRdmaCoreOptionsAreNamedAndExit1() throws Exception {
        for (String opt : new String[] {"-o", "-O", "-P", "-t", "-j", "-N", "--odp", "--ts", "--dm", "--new_send"}) {
            assertEquals(opt, rc(opt).unsupported);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int rc = RcPingPong.run(new String[] {opt}, new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8));
            assertEquals(1, rc);
            assertTrue(err.toString(StandardCharsets.UTF_8).contains("is not supported by verbs4j"), err.toString());
            assertEquals("", out.toString(StandardCharsets.UTF_8));
        }
    }

    @Test
    void usageGoesToStdoutAndExits1() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = UdPingPong.run(new String[] {"-h"}, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(1, rc);
        assertTrue(out.toString(StandardCharsets.UTF_8).startsWith("Usage:\n  ud-pingpong            start a server"));
        assertEquals("ud-pingpong: invalid option -- 'h'\n", err.toString(StandardCharsets.UTF_8));
    }
}
