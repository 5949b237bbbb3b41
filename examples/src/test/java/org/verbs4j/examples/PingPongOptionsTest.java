package org.verbs4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.verbs4j.api.Mtu;
import org.verbs4j.api.QpType;
import org.verbs4j.examples.cli.UsageException;

/** The command line of rc-pingpong and ud-pingpong: ibv_rc_pingpong's and ibv_ud_pingpong's options. */
class PingPongOptionsTest {

    private static PingPongOptions parse(QpType type, String... args) throws UsageException {
        String prog = type == QpType.RC ? "rc-pingpong" : "ud-pingpong";
        return PingPongOptions.of(type, prog, PingPongOptions.parser(type, prog).parse(args));
    }

    private static PingPongOptions rc(String... args) throws UsageException {
        return parse(QpType.RC, args);
    }

    private static String rcError(String... args) {
        return assertThrows(UsageException.class, () -> rc(args), String.join(" ", args)).getMessage();
    }

    /** Every setting, in one line. */
    private static String settings(PingPongOptions o) {
        return "port " + o.port + ", dev " + o.deviceName + ", ib-port " + o.ibPort + ", size " + o.size + ", mtu "
                + o.mtu.bytes() + ", rx " + o.rxDepth + ", iters " + o.iters + ", sl " + o.sl + ", events " + o.events
                + ", gid " + o.gidIndex + ", chk " + o.validate + ", server " + o.serverName;
    }

    @Test
    void defaultsAreTheCTools() throws Exception {
        assertEquals("port 18515, dev null, ib-port 1, size 4096, mtu 1024, rx 500, iters 1000, sl 0, events false, "
                + "gid -1, chk false, server null", settings(rc()));
        assertEquals(1024, parse(QpType.UD).size, "ud_pingpong's default size");
    }

    @Test
    void everyOptionInShortAndLongForm() throws Exception {
        assertEquals("port 19000, dev rxe0, ib-port 1, size 16, mtu 2048, rx 100, iters 50, sl 3, events true, "
                + "gid 1, chk true, server host", settings(rc("-d", "rxe0", "-g1", "host", "-ec", "--iters=50", "--size",
                "0x10", "--mtu=2048", "--rx", "100", "-p", "19000", "-i", "1", "--sl", "3")));
        assertEquals("port 1, dev mlx5_0, ib-port 2, size 4096, mtu 1024, rx 500, iters 1000, sl 0, events true, "
                + "gid 3, chk true, server null", settings(rc("--ib-dev=mlx5_0", "--gid-idx", "3", "--events", "--chk",
                "--ib-port=2", "--port", "1")));
        assertEquals("-x", rc("--", "-x").serverName);
        assertEquals(8, rc("-s", "010").size, "octal, as strtoul(.., 0)");
        assertEquals(4096, rc("-s", "4K").size);
        assertEquals(0xffffffffL, rc("-n", "4294967295").iters, "the iterations are C's unsigned int");
    }

    @Test
    void valuesOutOfRangeAreNamed() {
        // the getopt rules themselves: OptionParserTest
        assertEquals("option -m: '1000' is not one of 256, 512, 1024, 2048, 4096", rcError("-m", "1000"));
        assertEquals("option -p: 70000 is not between 0 and 65535", rcError("-p", "70000"));
        assertEquals("option -i: 0 is not between 1 and 255", rcError("-i", "0"));
        assertEquals("option --sl: 16 is not between 0 and 15", rcError("--sl=16"), "named as given");
        assertEquals("too many arguments: 'b'", rcError("a", "b"));
        assertEquals("invalid option -- 'm'", assertThrows(UsageException.class,
                () -> parse(QpType.UD, "-m", "1024")).getMessage(), "ud_pingpong has no -m");
    }

    @Test
    void unsupportedRdmaCoreOptionsAreNamed() {
        for (String opt : new String[] {"-o", "-O", "-P", "-t", "-j", "-N", "--odp", "--iodp", "--prefetch", "--ts",
                "--dm", "--new_send"}) {
            assertTrue(rcError(opt).startsWith("option " + opt + " ("), opt);
            ToolRun r = ToolRun.of(RcPingPong::run, opt);
            assertEquals(2, r.exit(), opt);
            assertTrue(r.err().contains("is not supported by verbs4j"), r.err());
            assertEquals("", r.out());
        }
        assertEquals("option -o (--odp, on-demand paging) is not supported by verbs4j", rcError("-o"));
        assertEquals("option --new_send (-N, the ibv_wr_* send API) is not supported by verbs4j", rcError("--new"));
    }

    @Test
    void helpGoesToStdoutAndExits0() {
        ToolRun r = ToolRun.of(UdPingPong::run, "-h");
        assertEquals(0, r.exit());
        assertEquals("", r.err());
        assertTrue(r.out().startsWith("Usage:\n  ud-pingpong [options]         start a server and wait for connection\n"
                + "  ud-pingpong [options] HOST    connect to server at HOST\n\nOptions:\n"), r.out());
        assertTrue(r.out().contains("  -s, --size=SIZE       size of message to exchange (default 1024)\n"), r.out());
        assertFalse(r.out().contains("--mtu"), r.out());
        ToolRun rc = ToolRun.of(RcPingPong::run, "--help");
        assertEquals(0, rc.exit());
        assertTrue(rc.out().contains("  -m, --mtu=MTU         path MTU (default 1024)\n"), rc.out());
        assertTrue(rc.out().endsWith("\nThese are not supported by verbs4j:\n  -o/--odp -O/--iodp -P/--prefetch -t/--ts -j/--dm -N/--new_send\n"), rc.out());
    }

    @Test
    void aBadCommandLineGoesToStderrWithTheUsageAndExits2() {
        ToolRun r = ToolRun.of(RcPingPong::run, "-s", "-1");
        assertEquals(2, r.exit());
        assertEquals("", r.out());
        assertEquals("rc-pingpong: option -s: -1 is not between 0 and 4294967295\n"
                + "Usage: rc-pingpong [options]\n       rc-pingpong [options] HOST\n"
                + "Try 'rc-pingpong --help' for more information.\n", r.err());
    }
}
