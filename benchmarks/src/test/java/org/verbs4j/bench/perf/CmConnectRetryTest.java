package org.verbs4j.bench.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.verbs4j.api.cm.CmEventType;
import org.verbs4j.api.cm.CmException;
import org.verbs4j.api.cm.CmRejectedException;
import org.verbs4j.lab.TestPorts;
import org.verbs4j.lab.Async;

/**
 * verbs4j-perf's client retries of an rdma_cm connection: the rule, and on jsiw_lo a server whose first request
 * was swallowed (a listener that took the TCP connection and never answered the MPA Request, then went away).
 */
class CmConnectRetryTest {
    private static final CmException REFUSED = new CmRejectedException("rdma_connect", -111, null, "10.0.0.1:1", "");
    private static final CmException NO_EVENT = new CmException("rdma_connect", null, 0,
            "no RDMA_CM_EVENT_ESTABLISHED within 10000 ms", "");
    private static final CmException UNREACHABLE = new CmException("rdma_connect", CmEventType.UNREACHABLE, -110,
            "no MPA Reply", "");
    private static final CmException CONNECT_ERROR = new CmException("rdma_connect", CmEventType.CONNECT_ERROR, -22,
            "", "");

    @Test
    void withinTheWindowEveryFailureIsRetried() {
        CmConnectRetry r = new CmConnectRetry(60_000);
        for (CmException e : new CmException[] {REFUSED, NO_EVENT, UNREACHABLE, CONNECT_ERROR, REFUSED, NO_EVENT}) {
            assertTrue(r.again(e), e.getMessage());
        }
        assertTrue(r.describe().startsWith("6 attempts in "), r.describe());
    }

    @Test
    void afterTheWindowARefusedOrFailedAttemptIsTheLast() {
        assertFalse(new CmConnectRetry(0).again(REFUSED));
        assertFalse(new CmConnectRetry(0).again(CONNECT_ERROR));
    }

    @Test
    void afterTheWindowAnUnansweredAttemptIsTriedOnceMore() {
        for (CmException unanswered : new CmException[] {NO_EVENT, UNREACHABLE}) {
            CmConnectRetry r = new CmConnectRetry(0);
            assertTrue(r.again(unanswered), "one more after " + unanswered.getMessage());
            assertFalse(r.again(unanswered), "only one");
            assertTrue(r.describe().startsWith("2 attempts in "), r.describe());
        }
        CmConnectRetry r = new CmConnectRetry(0);
        assertTrue(r.again(NO_EVENT));
        assertFalse(r.again(REFUSED), "the server refused: the last");
    }

    /**
     * {@code -R} on jsiw_lo: the client's first request goes to a plain TCP listener that never answers; it then
     * closes, and the real server listens on the port. The client's attempt ends unanswered after its 10 s, past
     * the retry window, and its one more attempt reaches the server.
     */
    @Test
    void aClientWhoseRequestGotNoAnswerTriesOnceMoreAndConnects() throws Exception {
        LocalWarmUpTest.softwareDevice();
        int port = TestPorts.next();
        List<String> server = LocalWarmUpTest.args("write_lat", port, "-s", "2", "-n", "100", "--no-warmup");
        try (ServerSocket swallow = new ServerSocket()) {
            swallow.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            CompletableFuture<PerfSide> client = Async.supply(
                    () -> PerfSide.run(LocalWarmUpTest.client(server)));
            try (Socket swallowed = swallow.accept()) {
                swallow.close();
                CompletableFuture<PerfSide> real = Async.supply(() -> PerfSide.run(server));
                PerfSide c = client.get(120, TimeUnit.SECONDS);
                // a client that gave up leaves the server waiting for it: fail at once
                assertEquals(0, c.exit(), c.describe("client"));
                PerfSide s = real.get(120, TimeUnit.SECONDS);
                String d = s.describe("server") + "\n" + c.describe("client");
                // what was swallowed: the first attempt's MPA Request (its key, RFC 5044)
                swallowed.setSoTimeout(5_000);
                byte[] key = swallowed.getInputStream().readNBytes(16);
                assertEquals("MPA ID Req Frame", new String(key, StandardCharsets.US_ASCII), d);
                assertEquals(0, s.exit(), d);
                VerbsPerfIT.assertLatency(VerbsPerfIT.resultLine(c.out(), PerfFormat.LAT_COLUMNS, d), 2, 100, d);
            }
        }
    }
}
