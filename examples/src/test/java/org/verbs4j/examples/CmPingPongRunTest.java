package org.verbs4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.verbs4j.lab.Async;

/**
 * cm-pingpong's warm-up and end, server and client in this JVM on the software device {@code jsiw_lo}: the server
 * echoes the client's warm-up without being told its length, reports the last {@code -n}, and refuses a client that
 * ends early.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CmPingPongRunTest {
    /** A side's exit status, stdout and stderr. */
    record Side(int exit, String out, String err) {
    }

    private static Side run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = CmPingPong.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Side(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** Runs a server with {@code serverArgs}, then a client with {@code clientArgs}, on a free port of 127.0.0.1. */
    private static Side[] pair(String[] serverArgs, String[] clientArgs) throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String[] s = concat(new String[] {"-b", "127.0.0.1", "-p", "" + port, "-t", "20"}, serverArgs);
        CompletableFuture<Side> server = Async.supply(() -> run(s));
        Thread.sleep(500); // the listener is up well before: a connect before it is refused and fails the test
        Side client = run(concat(new String[] {"-p", "" + port, "-t", "20"}, concat(clientArgs,
                new String[] {"127.0.0.1"})));
        return new Side[] {server.get(60, TimeUnit.SECONDS), client};
    }

    /** Checks both sides' exit statuses; {@return both sides' outputs, for messages} */
    private static String describe(Side[] r, int serverExit, int clientExit) {
        String both = "server:\n" + r[0] + "\nclient:\n" + r[1];
        assertEquals(serverExit, r[0].exit(), both);
        assertEquals(clientExit, r[1].exit(), both);
        return both;
    }

    private static String[] concat(String[] a, String[] b) {
        String[] all = new String[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    @Test
    void theServerEchoesTheWarmUpUncountedAndReportsTheLastIters() throws Exception {
        Side[] r = pair(new String[] {"-n", "40", "-s", "100", "-c"}, new String[] {"-n", "40", "-s", "100", "-c",
                "-w", "300"});
        String both = describe(r, 0, 0);
        Matcher cw = CmPingPongIT.CLIENT_WARMUP.matcher(r[1].out());
        Matcher sw = CmPingPongIT.SERVER_WARMUP.matcher(r[0].out());
        assertTrue(cw.find() && sw.find(), both);
        assertEquals(cw.group(1), sw.group(1), both);
        assertTrue(Long.parseLong(cw.group(1)) > 40, "300 ms of round trips over loopback: " + both);
        for (Side s : r) {
            assertTrue(s.out().contains("8000 bytes in "), both); // 40 round trips of 100 bytes, both ways
            assertTrue(s.out().contains("40 iters in "), both);
        }
        assertTrue(r[1].out().contains("data check: 40 echoes of 100 bytes matched"), both);
    }

    @Test
    void withoutAWarmUpNothingIsSaidAndEveryRoundTripCounts() throws Exception {
        Side[] r = pair(new String[] {"-n", "25"}, new String[] {"-n", "25", "-w", "0"});
        String both = describe(r, 0, 0);
        assertTrue(!r[0].out().contains("warm-up") && !r[1].out().contains("warm-up"), both);
        assertTrue(r[0].out().contains("25 iters in ") && r[1].out().contains("25 iters in "), both);
    }

    @Test
    void aServerWhoseClientEndsEarlySaysSo() throws Exception {
        Side[] r = pair(new String[] {"-n", "30"}, new String[] {"-n", "12", "-w", "0"});
        String both = describe(r, 1, 0);
        assertTrue(r[0].err().contains("the client ended after 12 of 30 messages: use the same -n on both sides"), both);
    }
}
