package org.verbs4j.examples.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.verbs4j.api.VerbsException;
import org.verbs4j.api.NoSuchDeviceException;

/** The getopt_long rules, the typed values, the generated usage and the common exit behaviour. */
class OptionParserTest {
    static final Option<Long> SIZE = Option.of('s', "size", "SIZE", Values.size(1, 1 << 30), 64L, "message size");
    static final Option<Integer> ITERS = Option.of('n', "iters", "N", Values.intIn(5, 1000), 100, "iterations");
    static final Option<Integer> SL = Option.of(Option.NO_SHORT, "sl", "SL", Values.intIn(0, 15), 0, "service level");
    static final Option<String> DEVICE = Option.of('d', "ib-dev", "DEV", Values.string(), null, "device");
    static final Option<Boolean> VERBOSE = Option.flag('v', "verbose", "say more");
    static final Option<Boolean> VALIDATE = Option.flag('V', null, "check the data");
    static final Option<Boolean> ALL = Option.flag('a', "all", "every size");
    static final Option<String> MODE = Option.of('m', "mode", "MODE", Values.choice(Map.of("rc", "RC")), "RC", "mode");

    static OptionParser parser() {
        return new OptionParser("tool")
                .synopsis("[options]", "server")
                .synopsis("[options] HOST", "client")
                .operands(0, 1)
                .add(SIZE, ITERS, SL, DEVICE, VERBOSE, VALIDATE, ALL, MODE)
                .add(Option.unsupported('b', "bidirectional", "both ways at once"));
    }

    static CommandLine parse(String... args) throws UsageException {
        return parser().parse(args);
    }

    static String error(String... args) {
        return assertThrows(UsageException.class, () -> parse(args), String.join(" ", args)).getMessage();
    }

    @Test
    void everyFormOfAnArgument() throws Exception {
        for (String[] args : new String[][] {{"-s", "128"}, {"-s128"}, {"--size=128"}, {"--size", "128"}, {"--si", "128"},
                {"--si=128"}, {"-vs128"}, {"-vs", "128"}, {"-s", "0x80"}, {"-s", "0200"}}) {
            assertEquals(128L, parse(args).get(SIZE), String.join(" ", args));
        }
    }

    @Test
    void defaultsWhenNotGiven() throws Exception {
        CommandLine c = parse();
        assertEquals(64L, c.get(SIZE));
        assertEquals(100, c.get(ITERS));
        assertNull(c.get(DEVICE));
        assertFalse(c.get(VERBOSE));
        assertFalse(c.given(SIZE));
        assertEquals(-1, c.position(SIZE));
        assertEquals(List.of(), c.operands());
        assertFalse(c.helpRequested());
        assertEquals(32L, c.get(SIZE.withDefault(32L)), "a copy with another default is found by name");
    }

    @Test
    void bundledFlagsAndABundleEndingInAnArgument() throws Exception {
        CommandLine c = parse("-vVa");
        assertTrue(c.get(VERBOSE));
        assertTrue(c.get(VALIDATE));
        assertTrue(c.get(ALL));
        c = parse("-aVn50", "host");
        assertTrue(c.get(ALL) && c.get(VALIDATE));
        assertEquals(50, c.get(ITERS));
        assertEquals(List.of("host"), c.operands());
        c = parse("-vd", "rxe0");
        assertEquals("rxe0", c.get(DEVICE), "the argument of the last letter may be the next word");
        c = parse("-dv");
        assertEquals("v", c.get(DEVICE), "the rest of the word is the argument, as with getopt");
        assertFalse(c.get(VERBOSE));
    }

    @Test
    void operandsAnywhereAndDoubleDashEndsTheOptions() throws Exception {
        CommandLine c = parse("-v", "host", "-n", "10");
        assertEquals(List.of("host"), c.operands());
        assertEquals(10, c.get(ITERS));
        c = parse("--", "-v");
        assertEquals(List.of("-v"), c.operands());
        assertFalse(c.get(VERBOSE));
        assertEquals(List.of("-"), parse("-").operands(), "a lone dash is an operand");
        assertEquals("-5", parse("-d", "-5").get(DEVICE), "an argument may start with a dash");
        assertEquals("too many arguments: 'b' 'c'", error("a", "b", "-v", "c"));
        assertEquals("unexpected argument 'x'", assertThrows(UsageException.class,
                () -> new OptionParser("p").parse("x")).getMessage());
        assertEquals("missing argument", assertThrows(UsageException.class,
                () -> new OptionParser("p").operands(1, 1).parse()).getMessage());
    }

    @Test
    void theLastValueWinsAndPositionsSayWhichCameLast() throws Exception {
        CommandLine c = parse("-n", "10", "-v", "--iters=20", "-V");
        assertEquals(20, c.get(ITERS));
        assertEquals(2, c.position(ITERS));
        assertTrue(c.position(VALIDATE) > c.position(VERBOSE));
    }

    @Test
    void longNamesMayBeAbbreviatedWhenOnlyOneMatches() throws Exception {
        assertEquals(7, parse("--it", "7").get(ITERS));
        assertEquals(3, parse("--sl=3").get(SL), "an exact name wins over longer names it is a prefix of");
        assertEquals("option '--s' is ambiguous; possibilities: '--size' '--sl'", error("--s", "8"));
        assertEquals("unrecognized option '--nope'", error("--nope=1"));
        assertEquals("unrecognized option '--'", assertThrows(UsageException.class,
                () -> parse("--=1")).getMessage());
    }

    @Test
    void getoptsMessagesForUnknownOptionsAndMissingArguments() {
        assertEquals("invalid option -- 'x'", error("-x"));
        assertEquals("invalid option -- 'x'", error("-vx"));
        assertEquals("option requires an argument -- 'n'", error("-n"));
        assertEquals("option requires an argument -- 'n'", error("-vn"));
        assertEquals("option '--iters' requires an argument", error("--iters"));
        assertEquals("option '--iters' requires an argument", error("--it"));
        assertEquals("option '--verbose' doesn't allow an argument", error("--verbose=yes"));
    }

    @Test
    void badValuesNameTheOptionAsGiven() {
        assertEquals("option -n: 3 is not between 5 and 1000", error("-n", "3"));
        assertEquals("option --iters: 'ten' is not a number", error("--iters=ten"));
        assertEquals("option -n: '12abc' is not a number", error("-n12abc"));
        assertEquals("option -s: 'big' is not a size (a number, optionally with K, M or G)", error("-s", "big"));
        assertEquals("option -s: 0 is not between 1 and 1073741824", error("-s", "0"));
        assertEquals("option -s: 2147483648 is not between 1 and 1073741824", error("-s", "2G"));
        assertEquals("option --mode: 'ud' is not one of rc", error("--mode", "ud"));
        assertEquals("option -n: '' is not a number", error("-n", ""));
    }

    @Test
    void refusedOptionsAreNamedWithWhatTheyDo() {
        assertEquals("option -b (--bidirectional, both ways at once) is not supported by verbs4j", error("-vb"));
        assertEquals("option --bidirectional (-b, both ways at once) is not supported by verbs4j", error("--bi"));
        assertEquals("option -q (several QPs) is not implemented by perf", assertThrows(UsageException.class,
                () -> new OptionParser("perf").refusal("is not implemented by perf")
                        .add(Option.unsupported('q', null, "several QPs")).parse("-q", "2")).getMessage());
    }

    @Test
    void helpStopsTheParse() throws Exception {
        for (String[] args : new String[][] {{"-h"}, {"--help"}, {"--he"}, {"-vh"}, {"-h", "-x"}, {"a", "b", "--help"}}) {
            assertTrue(parse(args).helpRequested(), String.join(" ", args));
        }
        assertEquals("invalid option -- 'x'", error("-x", "-h"), "an error before -h is still an error");
        assertEquals(List.of("-h"), parse("--", "-h").operands());
    }

    @Test
    void sizesAndNumbers() {
        ValueType<Long> size = Values.size(0, Long.MAX_VALUE);
        assertEquals(4096L, size.parse("4K"));
        assertEquals(4096L, size.parse("4k"));
        assertEquals(2L << 20, size.parse("2M"));
        assertEquals(1L << 30, size.parse("1G"));
        assertEquals(0x10L << 10, size.parse("0x10K"));
        assertEquals(-12, Values.number("-12"));
        assertEquals(0, Values.number("0"));
        assertEquals(8, Values.number("010"), "octal, as strtol(..., 0)");
        assertEquals(255, Values.number("0xFF"));
        assertThrows(IllegalArgumentException.class, () -> Values.number("0x"));
        assertThrows(IllegalArgumentException.class, () -> Values.number("09"));
        assertThrows(IllegalArgumentException.class, () -> Values.number(" 1"));
        assertThrows(IllegalArgumentException.class, () -> Values.number("99999999999999999999"));
        assertEquals(Thread.State.NEW, Values.enumOf(Thread.State.class).parse("new"));
    }

    @Test
    void declarationsThatClashAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> parser().add(Option.flag('v', "other", "x")));
        assertThrows(IllegalArgumentException.class, () -> parser().add(Option.flag('z', "size", "x")));
        assertThrows(IllegalArgumentException.class, () -> parser().add(Option.flag('h', null, "x")));
        assertThrows(IllegalArgumentException.class, () -> Option.flag(Option.NO_SHORT, null, "x"));
        assertThrows(IllegalArgumentException.class, () -> Option.flag('-', null, "x"));
        assertThrows(IllegalArgumentException.class, () -> Option.flag('x', "a=b", "x"));
    }

    @Test
    void theHelpIsMadeFromTheDeclarations() {
        assertEquals("Usage:\n"
                + "  tool [options]         server\n"
                + "  tool [options] HOST    client\n"
                + "\n"
                + "Options:\n"
                + "  -s, --size=SIZE   message size (default 64)\n"
                + "  -n, --iters=N     iterations (default 100)\n"
                + "      --sl=SL       service level (default 0)\n"
                + "  -d, --ib-dev=DEV  device\n"
                + "  -v, --verbose     say more\n"
                + "  -V                check the data\n"
                + "  -a, --all         every size\n"
                + "  -m, --mode=MODE   mode (default RC)\n"
                + "  -h, --help        print this help and exit\n"
                + "\n"
                + "These are not supported by verbs4j:\n"
                + "  -b/--bidirectional\n", parser().help());
        assertEquals("Usage: tool [options]\n       tool [options] HOST\n", parser().usageLines());
    }

    @Test
    void launchPrintsHelpOnStdoutAndUsageErrorsOnStderr() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
        int[] ran = {0};
        assertEquals(0, parser().launch(new String[] {"--help"}, o, e, c -> c, c -> ++ran[0]));
        assertEquals(parser().help(), out.toString(StandardCharsets.UTF_8));
        assertEquals("", err.toString(StandardCharsets.UTF_8));
        assertEquals(0, ran[0]);
        out.reset();

        assertEquals(OptionParser.EXIT_USAGE, parser().launch(new String[] {"-n", "1"}, o, e, c -> c, c -> ++ran[0]));
        assertEquals("", out.toString(StandardCharsets.UTF_8));
        assertEquals("tool: option -n: 1 is not between 5 and 1000\n"
                + "Usage: tool [options]\n       tool [options] HOST\n"
                + "Try 'tool --help' for more information.\n", err.toString(StandardCharsets.UTF_8));
        err.reset();

        assertEquals(2, parser().launch(new String[] {"-a"}, o, e, c -> {
            throw new UsageException("-a needs -s");
        }, c -> ++ran[0]));
        assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("tool: -a needs -s\nUsage: tool"));
        assertEquals(0, ran[0]);

        assertEquals(42, parser().launch(new String[] {"-s", "1K", "h"}, o, e, c -> c.get(SIZE), s -> s == 1024 ? 42 : 1));
    }

    @Test
    void aVerbsErrorOfTheToolIsOneLineAndItsErrnoNotAStackTrace() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream o = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
        assertEquals(19, parser().launch(new String[0], o, e, c -> c, c -> {
            throw new NoSuchDeviceException("RDMA device 'mlx5_0' not found; devices present: rxe0");
        }));
        assertEquals("tool: ibv_get_device_list failed (RDMA device 'mlx5_0' not found; devices present: rxe0): "
                + "ENODEV (19, No such device)\n", err.toString(StandardCharsets.UTF_8));
        err.reset();
        assertEquals(1, parser().launch(new String[0], o, e, c -> c, c -> {
            throw new VerbsException("ibv_open_device", 0, "rxe0");
        }));
        assertEquals(1, err.toString(StandardCharsets.UTF_8).lines().count());
        assertThrows(IllegalStateException.class, () -> parser().launch(new String[0], o, e, c -> c, c -> {
            throw new IllegalStateException("a bug propagates");
        }));
    }
}
