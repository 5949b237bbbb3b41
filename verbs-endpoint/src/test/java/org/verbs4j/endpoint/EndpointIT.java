package org.verbs4j.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.verbs4j.api.Rdma;
import org.verbs4j.api.WcOpcode;
import org.verbs4j.api.WcStatus;
import org.verbs4j.api.WorkCompletions;
import org.verbs4j.api.cm.CmException;
import org.verbs4j.api.cm.CmId;
import org.verbs4j.api.cm.CmRejectedException;
import org.verbs4j.api.cm.ConnectionManager;
import org.verbs4j.api.cm.ConnectionParameters;
import org.verbs4j.api.internal.RawMemory;

/**
 * The connection-level API on the lab's real devices: the same test code on rxe0 (RoCE) and siw0 (iWARP),
 * over rdma_cm, and over the Netty TCP exchange where the fabric allows it. Data is checked byte for byte.
 */
class EndpointIT {
    private static final AtomicInteger PORTS = new AtomicInteger(21000 + (int) (ProcessHandle.current().pid() % 500) * 8);
    private static final ExecutorService SERVER = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "endpoint-it-server");
        t.setDaemon(true);
        return t;
    });
    private static final Duration T = Duration.ofSeconds(60);

    @AfterAll
    static void stop() {
        SERVER.shutdownNow();
    }

    static String env(String name) {
        String v = System.getenv(name);
        if (v == null || v.isEmpty()) {
            fail(name + " is not set: integration tests run inside the fabric lab (lab/run -- ...)");
        }
        return v;
    }

    /** "rxe" or "siw" → the lab device's IP address. */
    static String ip(String fabric) {
        return env(fabric.equals("rxe") ? "FABRIC_LAB_RXE_IP" : "FABRIC_LAB_SIW_IP");
    }

    static String device(String fabric) {
        return env(fabric.equals("rxe") ? "FABRIC_LAB_RXE_DEV" : "FABRIC_LAB_SIW_DEV");
    }

    static InetSocketAddress next(String fabric) {
        return new InetSocketAddress(ip(fabric), PORTS.getAndIncrement());
    }

    static void fill(long address, int length, int seed) {
        for (int i = 0; i < length; i++) {
            RawMemory.putByte(address + i, (byte) (seed * 31 + i * 7));
        }
    }

    static void check(long address, int length, int seed, String what) {
        for (int i = 0; i < length; i++) {
            byte want = (byte) (seed * 31 + i * 7);
            byte got = RawMemory.getByte(address + i);
            if (got != want) {
                fail(what + ": byte " + i + " of " + length + " is " + got + ", expected " + want);
            }
        }
    }

    /** Waits for one completion on the receive (or send) side, failing on an error status or after T. */
    static int awaitReceive(RdmaEndpoint ep, WorkCompletions wc) {
        long deadline = System.nanoTime() + T.toNanos();
        while (ep.pollReceive(wc) == 0) {
            if (System.nanoTime() > deadline) {
                fail(ep + ": no receive completion in " + T);
            }
        }
        assertEquals(WcStatus.SUCCESS, wc.status(0), () -> "receive: " + wc.toString(0));
        return (int) wc.wrId(0);
    }

    static long awaitSend(RdmaEndpoint ep, WorkCompletions wc) {
        long deadline = System.nanoTime() + T.toNanos();
        while (ep.pollSend(wc) == 0) {
            if (System.nanoTime() > deadline) {
                fail(ep + ": no send completion in " + T);
            }
        }
        assertEquals(WcStatus.SUCCESS, wc.status(0), () -> "send: " + wc.toString(0));
        return wc.wrId(0);
    }

    /**
     * A stream of 300 messages of varying sizes into 4 receive slots, with a receiver that stops now and
     * then: credits must hold the sender back (on iWARP a send without a receive would break the
     * connection), every message must arrive in order with its bytes, and the answer must come back.
     */
    void stream(ConnectionMode mode, String fabric) throws Exception {
        EndpointOptions o = EndpointOptions.defaults().mode(mode).messageSize(1500).sendDepth(8).receiveDepth(4)
                .timeout(T);
        if (mode == ConnectionMode.MANUAL) {
            o.device(device(fabric));
        }
        InetSocketAddress at = next(fabric);
        int messages = 300;
        try (EndpointServer server = Endpoints.listen(at, o)) {
            Future<Long> received = SERVER.submit(() -> {
                try (RdmaEndpoint ep = server.accept(T); WorkCompletions wc = WorkCompletions.allocate(1)) {
                    assertEquals(fabric.equals("rxe") ? "roce" : "iwarp", ep.fabric().name());
                    long bytes = 0;
                    for (int m = 0; m < messages; m++) {
                        int slot = awaitReceive(ep, wc);
                        int len = wc.byteLength(0);
                        assertEquals(1 + (m * 37) % 1500, len, "length of message " + m);
                        check(ep.receiveAddress(slot), len, m, "message " + m);
                        bytes += len;
                        if (m % 50 == 7) {
                            Thread.sleep(200); // the sender runs out of credits here
                        }
                        ep.repostReceive(slot);
                    }
                    RawMemory.putLong(ep.sendAddress(0), bytes);
                    ep.send(0, 8);
                    awaitSend(ep, wc);
                    // wait for the client's close: its disconnect flushes our receives
                    return bytes;
                }
            });
            long sentBytes = 0;
            try (RdmaEndpoint ep = Endpoints.connect(at, o); WorkCompletions wc = WorkCompletions.allocate(4)) {
                assertEquals(4, ep.peerReceiveDepth());
                int inFlight = 0;
                for (int m = 0; m < messages; m++) {
                    int slot = m % 8;
                    if (inFlight == 8) {
                        inFlight -= drainOne(ep, wc);
                    }
                    int len = 1 + (m * 37) % 1500;
                    fill(ep.sendAddress(slot), len, m);
                    ep.send(slot, len);
                    inFlight++;
                    sentBytes += len;
                    assertTrue(ep.sendCredits() >= 0, "credits never go negative");
                }
                while (inFlight > 0) {
                    inFlight -= drainOne(ep, wc);
                }
                int slot = awaitReceive(ep, wc);
                assertEquals(8, wc.byteLength(0));
                assertEquals(sentBytes, RawMemory.getLong(ep.receiveAddress(slot)), "the server's byte count");
            }
            assertEquals(sentBytes, received.get(2, TimeUnit.MINUTES));
        }
    }

    private static int drainOne(RdmaEndpoint ep, WorkCompletions wc) {
        long deadline = System.nanoTime() + T.toNanos();
        int n;
        while ((n = ep.pollSend(wc)) == 0) {
            if (System.nanoTime() > deadline) {
                fail("no send completion");
            }
        }
        for (int i = 0; i < n; i++) {
            assertEquals(WcStatus.SUCCESS, wc.status(i), wc.toString(i));
            assertEquals(WcOpcode.SEND, wc.opcode(i));
        }
        return n;
    }

    @ParameterizedTest
    @ValueSource(strings = {"rxe", "siw"})
    void streamOverRdmaCm(String fabric) throws Exception {
        stream(ConnectionMode.RDMA_CM, fabric);
    }

    @Test
    void streamOverTcpExchangeOnRoce() throws Exception {
        stream(ConnectionMode.MANUAL, "rxe");
    }

    @Test
    void manualModeOnIwarpSaysRdmaCm() {
        EndpointOptions o = EndpointOptions.defaults().mode(ConnectionMode.MANUAL).device(device("siw")).timeout(T);
        // the device check comes before any TCP connection: no server is needed to hear the refusal
        EndpointException c = assertThrows(EndpointException.class, () -> Endpoints.connect(next("siw"), o));
        assertTrue(c.getMessage().contains("rdma_cm"), c.getMessage());
    }

    /** RDMA WRITE into the peer's region, RDMA READ back into another offset (a read sink: iWARP needs remote write). */
    @ParameterizedTest
    @ValueSource(strings = {"rxe", "siw"})
    void writeThenReadTheRemoteRegion(String fabric) throws Exception {
        EndpointOptions o = EndpointOptions.defaults().rdmaRegionSize(64 * 1024).messageSize(64).timeout(T);
        InetSocketAddress at = next(fabric);
        int len = 20_000;
        try (EndpointServer server = Endpoints.listen(at, o)) {
            Future<?> serverSide = SERVER.submit(() -> {
                try (RdmaEndpoint ep = server.accept(T); WorkCompletions wc = WorkCompletions.allocate(1)) {
                    fill(ep.rdmaRegion().address() + 40_000, 1000, 99); // what the client reads
                    ep.send(0, 1); // "ready"
                    awaitSend(ep, wc);
                    int slot = awaitReceive(ep, wc); // "written"
                    ep.repostReceive(slot);
                    check(ep.rdmaRegion().address() + 1000, len, 5, "what the client wrote");
                    ep.send(0, 1); // "checked"
                    awaitSend(ep, wc);
                    awaitReceive(ep, wc); // the client's goodbye
                }
                return null;
            });
            try (RdmaEndpoint ep = Endpoints.connect(at, o); WorkCompletions wc = WorkCompletions.allocate(1)) {
                assertEquals(64 * 1024, ep.remoteRegion().length());
                ep.repostReceive(awaitReceive(ep, wc)); // "ready"
                fill(ep.rdmaRegion().address(), len, 5);
                ep.write(0, len, 1000, 77);
                assertEquals(77, awaitSend(ep, wc));
                assertEquals(WcOpcode.RDMA_WRITE, wc.opcode(0));
                ep.read(30_000, 1000, 40_000, 78);
                assertEquals(78, awaitSend(ep, wc));
                assertEquals(WcOpcode.RDMA_READ, wc.opcode(0));
                check(ep.rdmaRegion().address() + 30_000, 1000, 99, "what the client read");
                ep.send(0, 1); // "written" (ordered after the write on the same QP)
                awaitSend(ep, wc);
                ep.repostReceive(awaitReceive(ep, wc)); // "checked"
                ep.send(0, 1);
                awaitSend(ep, wc);
                assertThrows(IndexOutOfBoundsException.class, () -> ep.write(0, 10, 64 * 1024 - 5, 1));
            }
            serverSide.get(2, TimeUnit.MINUTES);
        }
    }

    /** A receiver that never reposts: the sender's credits run out; trySend says so, send times out clearly. */
    @ParameterizedTest
    @ValueSource(strings = {"rxe", "siw"})
    void creditsRunOut(String fabric) throws Exception {
        EndpointOptions o = EndpointOptions.defaults().receiveDepth(2).messageSize(32).timeout(T);
        InetSocketAddress at = next(fabric);
        try (EndpointServer server = Endpoints.listen(at, o)) {
            Future<RdmaEndpoint> accepted = SERVER.submit(() -> server.accept(T));
            try (RdmaEndpoint ep = Endpoints.connect(at, o.copy().timeout(Duration.ofSeconds(2)));
                    WorkCompletions wc = WorkCompletions.allocate(1)) {
                RdmaEndpoint peer = accepted.get(2, TimeUnit.MINUTES);
                assertEquals(2, ep.sendCredits());
                ep.send(0, 32);
                ep.send(1, 32);
                assertEquals(0, ep.sendCredits());
                assertFalse(ep.trySend(2, 32));
                EndpointException e = assertThrows(EndpointException.class, () -> ep.send(2, 32));
                assertTrue(e.getMessage().contains("no send credit"), e.getMessage());
                // the peer takes one message and reposts: one credit comes back
                awaitReceive(peer, wc);
                peer.repostReceive((int) wc.wrId(0));
                long deadline = System.nanoTime() + T.toNanos();
                while (ep.sendCredits() == 0 && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
                assertEquals(1, ep.sendCredits());
                awaitSend(ep, wc);
                awaitSend(ep, wc);
                assertTrue(ep.trySend(2, 32));
                peer.close();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"rxe", "siw"})
    void connectToNobody(String fabric) {
        EndpointOptions o = EndpointOptions.defaults().timeout(Duration.ofSeconds(20));
        long t0 = System.nanoTime();
        RuntimeException e = assertThrows(RuntimeException.class, () -> Endpoints.connect(next(fabric), o));
        assertTrue(e instanceof CmException || e instanceof EndpointException, e.toString());
        assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(40).toNanos(), "ended within the timeout");
    }

    @Test
    void connectToNobodyOverTcp() {
        EndpointOptions o = EndpointOptions.defaults().mode(ConnectionMode.MANUAL).device(device("rxe"))
                .timeout(Duration.ofSeconds(10));
        EndpointException e = assertThrows(EndpointException.class, () -> Endpoints.connect(next("rxe"), o));
        assertTrue(e.getMessage().contains("TCP exchange"), e.getMessage());
    }

    /** A peer that is not a verbs4j endpoint: the server refuses it (the peer sees REJECTED) and keeps listening. */
    @Test
    void foreignPeerIsRejected() throws Exception {
        InetSocketAddress at = next("rxe");
        EndpointOptions o = EndpointOptions.defaults().timeout(T);
        try (EndpointServer server = Endpoints.listen(at, o)) {
            Future<RdmaEndpoint> first = SERVER.submit(() -> server.accept(T));
            try (ConnectionManager cm = Rdma.connectionManager()) {
                CmId id = cm.createId();
                id.resolveAddress(at, T);
                id.resolveRoute(T);
                var pd = id.context().allocProtectionDomain();
                var cq = id.context().createCompletionQueue(4);
                id.createQueuePair(pd, new org.verbs4j.api.QpInitAttributes(org.verbs4j.api.QpType.RC, cq, cq)
                        .maxSendWr(1).maxRecvWr(1));
                CmRejectedException r = assertThrows(CmRejectedException.class, () -> id.connect(
                        ConnectionParameters.defaults().withPrivateData("hello".getBytes(StandardCharsets.US_ASCII)), T));
                assertTrue(new String(r.privateData(), StandardCharsets.US_ASCII).startsWith("not a verbs4j endpoint"));
                id.close();
                cq.close();
                pd.close();
            }
            Exception e = assertThrows(Exception.class, () -> first.get(2, TimeUnit.MINUTES));
            assertInstanceOf(EndpointException.class, e.getCause());
            // still listening: a real endpoint gets through
            Future<RdmaEndpoint> second = SERVER.submit(() -> server.accept(T));
            try (RdmaEndpoint ep = Endpoints.connect(at, o); RdmaEndpoint peer = second.get(2, TimeUnit.MINUTES)) {
                assertEquals(16, ep.sendCredits());
                assertEquals(16, peer.sendCredits());
            }
        }
    }

    @Test
    void useAfterCloseThrows() throws Exception {
        InetSocketAddress at = next("rxe");
        EndpointOptions o = EndpointOptions.defaults().timeout(T);
        RdmaEndpoint closed;
        try (EndpointServer server = Endpoints.listen(at, o)) {
            Future<RdmaEndpoint> accepted = SERVER.submit(() -> server.accept(T));
            closed = Endpoints.connect(at, o);
            accepted.get(2, TimeUnit.MINUTES).close();
            closed.close();
            closed.close(); // twice is fine
        }
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> closed.send(0, 1));
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> closed.pollReceive(WorkCompletions.allocate(1)));
        assertTrue(closed.queuePair().isClosed());
    }

    /**
     * The data path allocates nothing: one thread drives both endpoints of a connection through send,
     * pollReceive, repostReceive (with its credit write), write and pollSend; the bytes this thread allocated
     * over the measured loop (after a warm-up that lets the JIT compile it) must stay at JIT noise, far below
     * one object per operation.
     */
    @ParameterizedTest
    @ValueSource(strings = {"rxe", "siw"})
    void dataPathAllocatesNothing(String fabric) throws Exception {
        EndpointOptions o = EndpointOptions.defaults().messageSize(256).sendDepth(4).receiveDepth(4)
                .rdmaRegionSize(4096).timeout(T);
        InetSocketAddress at = next(fabric);
        try (EndpointServer server = Endpoints.listen(at, o)) {
            Future<RdmaEndpoint> accepted = SERVER.submit(() -> server.accept(T));
            try (RdmaEndpoint a = Endpoints.connect(at, o); RdmaEndpoint b = accepted.get(2, TimeUnit.MINUTES);
                    WorkCompletions wc = WorkCompletions.allocate(4)) {
                com.sun.management.ThreadMXBean mx =
                        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
                long tid = Thread.currentThread().getId();
                roundTrips(a, b, wc, 3000); // warm-up
                long before = mx.getThreadAllocatedBytes(tid);
                int n = 3000;
                roundTrips(a, b, wc, n);
                long bytes = mx.getThreadAllocatedBytes(tid) - before;
                // 3000 round trips are 24,000 data-path calls; one object per call would be >= 384 KB
                assertTrue(bytes < 2048, fabric + ": the data path allocated " + bytes + " bytes in " + n + " round trips");
            }
        }
    }

    private static void roundTrips(RdmaEndpoint a, RdmaEndpoint b, WorkCompletions wc, int n) {
        for (int i = 0; i < n; i++) {
            a.send(0, 64);
            spinSend(a, wc);
            spinReceive(b, wc);
            b.repostReceive((int) wc.wrId(0));
            b.write(0, 8, 0, 5);
            spinSend(b, wc);
            b.send(1, 64);
            spinSend(b, wc);
            spinReceive(a, wc);
            a.repostReceive((int) wc.wrId(0));
        }
    }

    private static void spinSend(RdmaEndpoint ep, WorkCompletions wc) {
        while (ep.pollSend(wc) == 0) {
            Thread.onSpinWait();
        }
        if (!wc.ok(0)) {
            throw new AssertionError("send completion " + wc.status(0));
        }
    }

    private static void spinReceive(RdmaEndpoint ep, WorkCompletions wc) {
        while (ep.pollReceive(wc) == 0) {
            Thread.onSpinWait();
        }
        if (!wc.ok(0)) {
            throw new AssertionError("receive completion " + wc.status(0));
        }
    }

    /** FabricOptions.trafficClass becomes the rdma_cm type of service: on RoCE the QP's GRH traffic class. */
    @Test
    void trafficClassReachesTheQueuePairOnRoce() throws Exception {
        EndpointOptions o = EndpointOptions.defaults().timeout(T)
                .fabric(org.verbs4j.api.FabricOptions.defaults().trafficClass(32));
        InetSocketAddress at = next("rxe");
        try (EndpointServer server = Endpoints.listen(at, o)) {
            Future<RdmaEndpoint> accepted = SERVER.submit(() -> server.accept(T));
            try (RdmaEndpoint a = Endpoints.connect(at, o); RdmaEndpoint b = accepted.get(2, TimeUnit.MINUTES)) {
                for (RdmaEndpoint ep : List.of(a, b)) {
                    var av = ep.queuePair().query(org.verbs4j.api.QpAttrMask.AV).addressVector();
                    assertTrue(av.isGlobal(), ep + ": " + av);
                    assertEquals(32, av.trafficClass(), ep + ": " + av);
                }
            }
        }
    }
}
