package org.verbs4j.endpoint;

import org.verbs4j.lab.Lab;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.verbs4j.api.Access;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.Opcode;
import org.verbs4j.api.Rdma;
import org.verbs4j.api.SendFlags;
import org.verbs4j.api.SendRequests;
import org.verbs4j.api.WcOpcode;
import org.verbs4j.api.WcStatus;
import org.verbs4j.api.WorkCompletions;
import org.verbs4j.api.cm.CmException;
import org.verbs4j.api.cm.CmId;
import org.verbs4j.api.cm.CmRejectedException;
import org.verbs4j.api.cm.ConnectionManager;
import org.verbs4j.api.cm.ConnectionParameters;
import org.verbs4j.softiwarp.SoftIwarpBackend;

/**
 * The connection-level API on the lab's real devices: the same test code on rxe0 (RoCE) and siw0 (iWARP),
 * over rdma_cm, and over the Netty TCP exchange where the fabric allows it. Data is checked byte for byte.
 */
class EndpointIT {
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

    /** The run's fabrics: "rxe" and "siw" in the lab, "siw" alone on a run with only an iWARP device (see {@link Lab}). */
    static Stream<String> fabrics() {
        return Lab.hasFabric("roce") ? Stream.of("rxe", "siw") : Stream.of("siw");
    }

    /** "rxe" or "siw" → the lab device's IP address. */
    static String ip(String fabric) {
        return Lab.env(fabric.equals("rxe") ? "FABRIC_LAB_RXE_IP" : "FABRIC_LAB_SIW_IP");
    }

    static String device(String fabric) {
        return Lab.env(fabric.equals("rxe") ? "FABRIC_LAB_RXE_DEV" : "FABRIC_LAB_SIW_DEV");
    }

    static InetSocketAddress next(String fabric) {
        return new InetSocketAddress(ip(fabric), org.verbs4j.lab.TestPorts.next());
    }

    static void fill(ByteBuffer b, int offset, int length, int seed) {
        for (int i = 0; i < length; i++) {
            b.put(offset + i, (byte) (seed * 31 + i * 7));
        }
    }

    static void check(ByteBuffer b, int offset, int length, int seed, String what) {
        for (int i = 0; i < length; i++) {
            byte want = (byte) (seed * 31 + i * 7);
            byte got = b.get(offset + i);
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
                    assertEquals(fabric.equals("rxe") ? "roce" : "iwarp", ep.fabric());
                    long bytes = 0;
                    for (int m = 0; m < messages; m++) {
                        int slot = awaitReceive(ep, wc);
                        int len = wc.byteLength(0);
                        assertEquals(1 + (m * 37) % 1500, len, "length of message " + m);
                        ByteBuffer message = ep.message(wc, 0);
                        assertEquals(len, message.remaining(), "the message view is as long as the message");
                        check(message, 0, len, m, "message " + m);
                        bytes += len;
                        if (m % 50 == 7) {
                            Thread.sleep(200); // the sender runs out of credits here
                        }
                        ep.repostReceive(slot);
                    }
                    ep.sendSlot(0).putLong(0, bytes);
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
                    fill(ep.sendSlot(slot), 0, len, m);
                    ep.send(slot, len);
                    inFlight++;
                    sentBytes += len;
                    assertTrue(ep.sendCredits() >= 0, "credits never go negative");
                }
                while (inFlight > 0) {
                    inFlight -= drainOne(ep, wc);
                }
                awaitReceive(ep, wc);
                assertEquals(8, wc.byteLength(0));
                assertEquals(sentBytes, ep.message(wc, 0).getLong(0), "the server's byte count");
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
    @MethodSource("fabrics")
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
    @MethodSource("fabrics")
    void writeThenReadTheRemoteRegion(String fabric) throws Exception {
        EndpointOptions o = EndpointOptions.defaults().rdmaRegionSize(64 * 1024).messageSize(64).timeout(T);
        InetSocketAddress at = next(fabric);
        int len = 20_000;
        try (EndpointServer server = Endpoints.listen(at, o)) {
            Future<?> serverSide = SERVER.submit(() -> {
                try (RdmaEndpoint ep = server.accept(T); WorkCompletions wc = WorkCompletions.allocate(1)) {
                    fill(ep.rdmaRegion(), 40_000, 1000, 99); // what the client reads
                    ep.send(0, 1); // "ready"
                    awaitSend(ep, wc);
                    int slot = awaitReceive(ep, wc); // "written"
                    ep.repostReceive(slot);
                    check(ep.rdmaRegion(), 1000, len, 5, "what the client wrote");
                    ep.send(0, 1); // "checked"
                    awaitSend(ep, wc);
                    awaitReceive(ep, wc); // the client's goodbye
                }
                return null;
            });
            try (RdmaEndpoint ep = Endpoints.connect(at, o); WorkCompletions wc = WorkCompletions.allocate(1)) {
                assertEquals(64 * 1024, ep.remoteRegion().length());
                ep.repostReceive(awaitReceive(ep, wc)); // "ready"
                fill(ep.rdmaRegion(), 0, len, 5);
                ep.write(0, len, 1000, 77);
                assertEquals(77, awaitSend(ep, wc));
                assertEquals(WcOpcode.RDMA_WRITE, wc.opcode(0));
                ep.read(30_000, 1000, 40_000, 78);
                assertEquals(78, awaitSend(ep, wc));
                assertEquals(WcOpcode.RDMA_READ, wc.opcode(0));
                check(ep.rdmaRegion(), 30_000, 1000, 99, "what the client read");
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
    @MethodSource("fabrics")
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

    /**
     * repostReceives gives several slots back at once: the sender gets exactly that many credits, and the next
     * messages land in those slots with their bytes; a bad range or slot posts nothing (a slot posted twice would
     * show as one credit too many).
     */
    @ParameterizedTest
    @MethodSource("fabrics")
    void repostReceivesGivesSeveralSlotsBackAtOnce(String fabric) throws Exception {
        EndpointOptions o = EndpointOptions.defaults().sendDepth(4).receiveDepth(4).messageSize(48).timeout(T);
        try (Pair p = Pair.connect(fabric, o); WorkCompletions wc = WorkCompletions.allocate(1)) {
            for (int round = 0; round < 3; round++) {
                int[] slots = new int[6];
                for (int i = 0; i < 4; i++) {
                    fill(p.client().sendSlot(i), 0, 48, 10 * round + i);
                    p.client().send(i, 48);
                }
                assertEquals(0, p.client().sendCredits());
                for (int i = 0; i < 4; i++) {
                    slots[1 + i] = awaitReceive(p.server(), wc);
                    check(p.server().message(wc, 0), 0, 48, 10 * round + i, "round " + round + ", message " + i);
                    awaitSend(p.client(), wc);
                }
                int[] bad = {slots[1], 4};
                assertThrows(IndexOutOfBoundsException.class, () -> p.server().repostReceives(bad, 0, 2));
                assertThrows(IndexOutOfBoundsException.class, () -> p.server().repostReceives(slots, 3, 4));
                assertThrows(IndexOutOfBoundsException.class, () -> p.server().repostReceives(slots, -1, 1));
                p.server().repostReceives(slots, 1, 0);
                p.server().repostReceives(slots, 1, 4);
                long deadline = System.nanoTime() + T.toNanos();
                while (p.client().sendCredits() < 4 && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
                assertEquals(4, p.client().sendCredits(), "round " + round + ": one credit per slot given back");
            }
        }
    }

    /**
     * trySendBatch posts a chain of sends at once, as many as the credits allow (the rest is left, nothing waits),
     * wrapping around the send slots; each arrives with its bytes, in order; bad counts and lengths post nothing.
     */
    @ParameterizedTest
    @MethodSource("fabrics")
    void sendBatchPostsAsManyAsTheCreditsAllow(String fabric) throws Exception {
        EndpointOptions o = EndpointOptions.defaults().sendDepth(4).receiveDepth(3).messageSize(64).timeout(T);
        try (Pair p = Pair.connect(fabric, o); WorkCompletions wc = WorkCompletions.allocate(1)) {
            int[] lengths = {64, 1, 0, 17};
            for (int i = 0; i < 4; i++) {
                fill(p.client().sendSlot((2 + i) % 4), 0, lengths[i], i);
            }
            assertThrows(IllegalArgumentException.class, () -> p.client().trySendBatch(2, lengths, 5));
            assertThrows(IllegalArgumentException.class, () -> p.client().trySendBatch(2, new int[] {65}, 1));
            assertThrows(IndexOutOfBoundsException.class, () -> p.client().trySendBatch(4, lengths, 1));
            assertEquals(3, p.client().sendCredits());
            assertEquals(3, p.client().trySendBatch(2, lengths, 4), "three credits: three of the four go");
            assertEquals(0, p.client().sendCredits());
            assertEquals(0, p.client().trySendBatch(1, lengths, 1));
            for (int i = 0; i < 3; i++) {
                awaitReceive(p.server(), wc);
                assertEquals(lengths[i], wc.byteLength(0), "message " + i);
                check(p.server().message(wc, 0), 0, lengths[i], i, "message " + i);
                p.server().repostReceive((int) wc.wrId(0));
                awaitSend(p.client(), wc);
                assertEquals((2 + i) % 4, wc.wrId(0), "the completion's id is the slot");
            }
        }
    }

    @ParameterizedTest
    @MethodSource("fabrics")
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
        refusedOverRdmaCm("rxe", "hello".getBytes(StandardCharsets.US_ASCII));
    }

    /**
     * A raw rdma_cm peer connects to an endpoint server with {@code privateData}: it must see REJECTED with
     * "not a verbs4j endpoint", the server must drop it with a log line (no accept sees it), and a real endpoint
     * must get through after it. Returns the server's log line for the drop.
     */
    static String refusedOverRdmaCm(String fabric, byte[] privateData) throws Exception {
        InetSocketAddress at = next(fabric);
        EndpointOptions o = EndpointOptions.defaults().timeout(T);
        java.util.concurrent.BlockingQueue<String> drops = new java.util.concurrent.LinkedBlockingQueue<>();
        // its own thread: other test classes call it after this one's @AfterAll stopped SERVER
        ExecutorService own = Executors.newSingleThreadExecutor();
        try (EndpointServer server = new EndpointServer(at, o, drops::add)) {
            Future<RdmaEndpoint> first = own.submit(() -> server.accept(T));
            try (ConnectionManager cm = Rdma.connectionManager()) {
                CmId id = cm.createId();
                id.resolveAddress(at, T);
                id.resolveRoute(T);
                var pd = id.context().allocProtectionDomain();
                var cq = id.context().createCompletionQueue(4);
                id.createQueuePair(pd, new org.verbs4j.api.QpInitAttributes(org.verbs4j.api.QpType.RC, cq, cq)
                        .maxSendWr(1).maxRecvWr(1));
                CmRejectedException r = assertThrows(CmRejectedException.class, () -> id.connect(
                        ConnectionParameters.defaults().withPrivateData(privateData), T));
                assertTrue(new String(r.privateData(), StandardCharsets.US_ASCII).startsWith("not a verbs4j endpoint"));
                id.close();
                cq.close();
                pd.close();
            }
            String line = drops.poll(1, TimeUnit.MINUTES);
            assertNotNull(line, "the server logs the peer it dropped");
            assertTrue(line.contains("dropped the peer"), line);
            assertEquals(1, server.dropped());
            assertFalse(first.isDone(), "a dropped peer never reaches accept");
            // still listening, and the accept already waiting gets the real endpoint
            try (RdmaEndpoint ep = Endpoints.connect(at, o); RdmaEndpoint peer = first.get(2, TimeUnit.MINUTES)) {
                assertEquals(16, ep.sendCredits());
                assertEquals(16, peer.sendCredits());
            }
            return line;
        } finally {
            own.shutdownNow();
        }
    }

    /**
     * Closing frees what the endpoint made, the regions registered through its queue pair view included; after
     * that every use throws, and a slot view kept from before is plain Java memory (no crash).
     */
    @Test
    void closeFreesEverythingAndUseAfterCloseThrows() throws Exception {
        EndpointOptions o = EndpointOptions.defaults().timeout(T);
        RdmaEndpoint closed;
        MemoryRegion userRegion;
        ByteBuffer keptView;
        try (Pair p = Pair.connect(fabrics().findFirst().orElseThrow(), o)) {
            closed = p.client();
            userRegion = closed.queuePair().registerMemory(ByteBuffer.allocateDirect(4096), Access.LOCAL_WRITE);
            keptView = closed.sendSlot(0);
            p.server().close();
            closed.close();
            closed.close(); // twice is fine
        }
        assertTrue(userRegion.isClosed(), "the endpoint closed the region registered through it");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> closed.send(0, 1));
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> closed.pollReceive(WorkCompletions.allocate(1)));
        assertThrows(IllegalStateException.class, closed::queuePair);
        assertThrows(IllegalStateException.class, () -> closed.sendSlot(0));
        keptView.putLong(0, 42);
        assertEquals(42, keptView.getLong(0));
    }

    /**
     * The data path allocates nothing: one thread drives both endpoints of a connection through the slot and
     * region views, send (with immediate data where the fabric has it), pollReceive, message, repostReceive (with
     * its credit write), write, a request of its own through the queue pair view and pollSend; the bytes this
     * thread allocated over the measured loop (after a warm-up that lets the JIT compile it) must stay at JIT
     * noise, far below one object per operation.
     */
    @ParameterizedTest
    @MethodSource("fabrics")
    void dataPathAllocatesNothing(String fabric) throws Exception {
        EndpointOptions o = EndpointOptions.defaults().messageSize(256).sendDepth(4).receiveDepth(4)
                .rdmaRegionSize(4096).timeout(T);
        InetSocketAddress at = next(fabric);
        try (EndpointServer server = Endpoints.listen(at, o)) {
            Future<RdmaEndpoint> accepted = SERVER.submit(() -> server.accept(T));
            try (RdmaEndpoint a = Endpoints.connect(at, o); RdmaEndpoint b = accepted.get(2, TimeUnit.MINUTES);
                    WorkCompletions wc = WorkCompletions.allocate(4); SendRequests own = SendRequests.allocate(1, 1)) {
                com.sun.management.ThreadMXBean mx =
                        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
                long tid = Thread.currentThread().getId();
                b.queuePair().remoteTarget(b.queuePair().localSge(own.at(0).clear().wrId(6).opcode(Opcode.RDMA_WRITE)
                        .flags(SendFlags.SIGNALED), 8, 8), 8, 8);
                // The warm-up lets C2 compile the loop. HotSpot asks for a method's C2 compilation from the thread
                // that runs it, and that thread first loads the classes of the method's signature and resolves the
                // string constants of its class (CompileBroker): a few KB, once per class, counted here although
                // the code allocates nothing (with -Xint or C1 alone the measured loop allocates 0 bytes). On the
                // software device (jsiw_lo) the transport too is Java code on this thread, whose methods reach C2
                // only after ~10^4 round trips: with 3000, 3-35 KB of those requests fell in the measured loop.
                boolean software = SoftIwarpBackend.NAME.equals(a.device().backendName());
                int warmUp = software ? 20_000 : 3000;
                roundTrips(a, b, wc, own, warmUp);
                long before = mx.getThreadAllocatedBytes(tid);
                int n = 3000;
                roundTrips(a, b, wc, own, n);
                long bytes = mx.getThreadAllocatedBytes(tid) - before;
                System.out.printf("dataPathAllocatesNothing on %s (%s): %d bytes in %d round trips after %d of warm-up%n",
                        fabric, a.device().name(), bytes, n, warmUp);
                // 3000 round trips are 24,000 data-path calls; one object per call would be >= 384 KB
                assertTrue(bytes < 2048, fabric + ": the data path allocated " + bytes + " bytes in " + n + " round trips");
            }
        }
    }

    private static void roundTrips(RdmaEndpoint a, RdmaEndpoint b, WorkCompletions wc, SendRequests own, int n) {
        EndpointQueuePair hatch = b.queuePair();
        for (int i = 0; i < n; i++) {
            a.sendSlot(0).putLong(0, i);
            if (a.supportsImmediateData()) {
                a.sendWithImmediate(0, 64, i);
            } else {
                a.send(0, 64);
            }
            spinSend(a, wc);
            spinReceive(b, wc);
            if (b.message(wc, 0).getLong(0) != i) {
                throw new AssertionError("message " + i + " carried " + b.message(wc, 0).getLong(0));
            }
            b.repostReceive((int) wc.wrId(0));
            b.rdmaRegion().putLong(0, i);
            b.write(0, 8, 0, 5);
            spinSend(b, wc);
            hatch.postSend(own); // the user's own RDMA WRITE through the escape hatch
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

    /**
     * With {@link EndpointOptions#completionChannel(boolean)} the client's endpoint and the accepted one have a
     * completion channel: a thread asleep on it after {@link RdmaEndpoint#requestNotify} wakes when the peer sends
     * (a receive completion) and, armed again, when its own send completes. Without the option there is none, and
     * requestNotify says how to get one. Closing the endpoint closes its channel.
     */
    @ParameterizedTest
    @MethodSource("fabrics")
    void aCompletionChannelLetsAThreadSleepUntilTheEndpointHasACompletion(String fabric) throws Exception {
        EndpointOptions o = EndpointOptions.defaults().messageSize(256).receiveDepth(4).timeout(T)
                .completionChannel(true);
        org.verbs4j.api.CompletionChannel clientChannel;
        try (Pair p = Pair.connect(fabric, o); WorkCompletions wc = WorkCompletions.allocate(4)) {
            clientChannel = p.client().completionChannel();
            org.verbs4j.api.CompletionChannel serverChannel = p.server().completionChannel();
            assertNotNull(clientChannel, "the client's endpoint has a channel");
            assertNotNull(serverChannel, "the accepted endpoint has one too (the listener's options)");
            assertTrue(p.client().options().completionChannel());
            p.server().requestNotify();
            assertEquals(0, p.server().pollReceive(wc), "nothing sent yet");
            Future<org.verbs4j.api.CompletionQueue> woken = SERVER.submit(() -> serverChannel.awaitEvent(2, TimeUnit.MINUTES));
            Thread.sleep(300);
            assertFalse(woken.isDone(), "nothing came: the thread sleeps");
            p.client().requestNotify();
            p.client().sendSlot(0).put(0, (byte) 42);
            p.client().send(0, 1);
            assertNotNull(woken.get(2, TimeUnit.MINUTES), "the receive woke the sleeping thread");
            int n = 0;
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
            while (n == 0 && System.nanoTime() < deadline) {
                n = p.server().pollReceive(wc);
            }
            assertEquals(1, n);
            assertEquals(42, p.server().message(wc, 0).get(0));
            p.server().repostReceive((int) wc.wrId(0));
            // the client's own send completion fires its channel (armed before the send)
            assertNotNull(clientChannel.awaitEvent(2, TimeUnit.MINUTES), "the send completion raised an event");
            while (p.client().pollSend(wc) == 0 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
        }
        assertTrue(clientChannel.isClosed(), "the endpoint closed its channel");

        EndpointOptions none = EndpointOptions.defaults().messageSize(256).receiveDepth(4).timeout(T);
        try (Pair p = Pair.connect(fabric, none)) {
            assertEquals(null, p.client().completionChannel());
            IllegalStateException e = assertThrows(IllegalStateException.class, p.client()::requestNotify);
            assertTrue(e.getMessage().contains("completionChannel(true)"), e.getMessage());
        }
    }

    /** A connected pair on one lab device: a server, the client's endpoint and the endpoint it accepted. */
    record Pair(EndpointServer listener, RdmaEndpoint client, RdmaEndpoint server) implements AutoCloseable {
        static Pair connect(String fabric, EndpointOptions o) throws Exception {
            InetSocketAddress at = next(fabric);
            EndpointServer listener = Endpoints.listen(at, o);
            try {
                Future<RdmaEndpoint> accepted = SERVER.submit(() -> listener.accept(T));
                RdmaEndpoint client = Endpoints.connect(at, o);
                return new Pair(listener, client, accepted.get(2, TimeUnit.MINUTES));
            } catch (Exception | Error e) {
                listener.close();
                throw e;
            }
        }

        @Override
        public void close() {
            client.close();
            server.close();
            listener.close();
        }
    }

    /**
     * Immediate data where the connection has it: on RoCE, and on iWARP between two verbs4j peers on the software
     * device (they negotiate RFC 7306), but not on the kernel's iWARP (siw). Where it has it, a send with immediate
     * arrives with its 32 bits and its bytes, and an RDMA WRITE with immediate puts its bytes in the peer's region
     * and completes one of the peer's receives with the 32 bits (opcode RECV_RDMA_WITH_IMM, an empty message),
     * taking a credit like a send. Where it has not, both calls are refused before posting, naming the fabric and
     * what to use instead, and the connection stays intact.
     */
    @ParameterizedTest
    @MethodSource("fabrics")
    void immediateDataWhereTheConnectionHasIt(String fabric) throws Exception {
        EndpointOptions o = EndpointOptions.defaults().messageSize(256).receiveDepth(4).rdmaRegionSize(8192).timeout(T);
        try (Pair p = Pair.connect(fabric, o); WorkCompletions wc = WorkCompletions.allocate(1)) {
            boolean expected = fabric.equals("rxe") || p.client().device().backendName().equals("softiwarp");
            assertEquals(expected, p.client().supportsImmediateData(), p.client().device().toString());
            assertEquals(expected, p.server().supportsImmediateData(), "the accepting side agrees");
            if (expected) {
                immediateDataArrives(p, wc);
            } else {
                immediateDataIsRefusedUpFront(p, wc);
            }
        }
    }

    private static void immediateDataArrives(Pair p, WorkCompletions wc) {
        assertTrue(p.client().supportsImmediateData());
        fill(p.client().sendSlot(1), 0, 200, 3);
        p.client().sendWithImmediate(1, 200, 0xCAFEBABE);
        assertEquals(1, awaitSend(p.client(), wc));
        assertEquals(WcOpcode.SEND, wc.opcode(0));
        int slot = awaitReceive(p.server(), wc);
        assertEquals(WcOpcode.RECV, wc.opcode(0));
        assertTrue(wc.hasImmData(0), wc.toString(0));
        assertEquals(0xCAFEBABE, wc.immData(0));
        ByteBuffer m = p.server().message(wc, 0);
        assertEquals(200, m.remaining());
        check(m, 0, 200, 3, "the message of the send with immediate");
        p.server().repostReceive(slot);

        fill(p.client().rdmaRegion(), 100, 3000, 8);
        // the server's repost hands its credit back by an RDMA write of its own: wait for it, or it could land
        // between the two reads below
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (p.client().sendCredits() < 4 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        long creditsBefore = p.client().sendCredits();
        assertEquals(4, creditsBefore, "every receive of the server's is free again");
        p.client().writeWithImmediate(100, 3000, 5000, 0x12345678, 77);
        assertEquals(creditsBefore - 1, p.client().sendCredits(), "a write with immediate takes a credit");
        assertEquals(77, awaitSend(p.client(), wc));
        assertEquals(WcOpcode.RDMA_WRITE, wc.opcode(0));
        slot = awaitReceive(p.server(), wc);
        assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, wc.opcode(0));
        assertEquals(0x12345678, wc.immData(0));
        assertEquals(0, p.server().message(wc, 0).remaining(), "the data went to the region, not the slot");
        check(p.server().rdmaRegion(), 5000, 3000, 8, "what the write with immediate wrote");
        p.server().repostReceive(slot);

        assertTrue(p.client().trySendWithImmediate(0, 0, -1));
        awaitSend(p.client(), wc);
        awaitReceive(p.server(), wc);
        assertEquals(-1, wc.immData(0));
        assertEquals(0, p.server().message(wc, 0).remaining());
    }

    private static void immediateDataIsRefusedUpFront(Pair p, WorkCompletions wc) {
        assertFalse(p.client().supportsImmediateData());
        long credits = p.client().sendCredits();
        UnsupportedOperationException s = assertThrows(UnsupportedOperationException.class,
                () -> p.client().sendWithImmediate(0, 8, 1));
        assertTrue(s.getMessage().contains("iwarp") && s.getMessage().contains("send the 32 bits in the message"),
                s.getMessage());
        UnsupportedOperationException w = assertThrows(UnsupportedOperationException.class,
                () -> p.client().writeWithImmediate(0, 8, 0, 1, 9));
        assertTrue(w.getMessage().contains("writeWithImmediate") && w.getMessage().contains("iwarp"), w.getMessage());
        assertThrows(UnsupportedOperationException.class, () -> p.client().trySendWithImmediate(0, 8, 1));
        assertEquals(0, p.client().inFlight(), "nothing was posted");
        assertEquals(credits, p.client().sendCredits(), "no credit was taken");
        // the connection is intact: a plain send still arrives
        p.client().sendSlot(0).putLong(0, 0x5151);
        p.client().send(0, 8);
        awaitSend(p.client(), wc);
        awaitReceive(p.server(), wc);
        assertEquals(0x5151, p.server().message(wc, 0).getLong(0));
    }

    /**
     * The escape hatch: the user's own RDMA WRITEs (one from the endpoint's region, one from a buffer registered
     * through the hatch) posted as one chain, then more sends than sendDepth in a row, all complete through
     * pollSend with the right ids, and the bytes arrive; misuse is refused with nothing posted.
     */
    @ParameterizedTest
    @MethodSource("fabrics")
    void userRequestsThroughTheQueuePairKeepTheAccountingRight(String fabric) throws Exception {
        EndpointOptions o = EndpointOptions.defaults().messageSize(64).sendDepth(4).receiveDepth(8)
                .rdmaRegionSize(16384).timeout(T);
        try (Pair p = Pair.connect(fabric, o); WorkCompletions wc = WorkCompletions.allocate(1);
                SendRequests wrs = SendRequests.allocate(2, 1)) {
            EndpointQueuePair qp = p.client().queuePair();
            assertTrue(qp.capabilities().maxSendWr() >= 4, qp.capabilities().toString());
            assertEquals(p.client().queuePair().qpNumber(), qp.qpNumber());
            ByteBuffer mine = ByteBuffer.allocateDirect(1024);
            MemoryRegion mr = qp.registerMemory(mine, Access.LOCAL_WRITE);
            fill(p.client().rdmaRegion(), 0, 2000, 1);
            fill(mine, 0, 1024, 2);
            qp.remoteTarget(qp.localSge(wrs.at(0).clear().wrId(101).opcode(Opcode.RDMA_WRITE)
                    .flags(SendFlags.SIGNALED), 0, 2000), 4000, 2000);
            wrs.at(1).clear().wrId(102).opcode(Opcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                    .sge(mr.address(), 1024, mr.lkey());
            qp.remoteTarget(wrs.at(1), 8000, 1024);
            wrs.count(2);
            qp.postSend(wrs);
            assertEquals(2, p.client().inFlight());
            assertEquals(2, qp.room());

            // misuse is refused and changes nothing
            wrs.count(1);
            wrs.at(0).opcode(Opcode.SEND);
            assertThrows(IllegalArgumentException.class, () -> qp.postSend(wrs));
            wrs.at(0).opcode(Opcode.RDMA_WRITE).flags(0);
            assertThrows(IllegalArgumentException.class, () -> qp.postSend(wrs));
            wrs.at(0).flags(SendFlags.SIGNALED).wrId(RdmaEndpoint.INTERNAL_WR_ID);
            assertThrows(IllegalArgumentException.class, () -> qp.postSend(wrs));
            wrs.at(0).wrId(103);
            assertThrows(IndexOutOfBoundsException.class, () -> qp.remoteTarget(wrs.at(0), 16000, 1000));
            assertThrows(IndexOutOfBoundsException.class, () -> qp.localSge(wrs.at(0), 16000, 1000));
            p.client().send(0, 8);
            p.client().send(1, 8);
            IllegalStateException full = assertThrows(IllegalStateException.class, () -> qp.postSend(wrs));
            assertTrue(full.getMessage().contains("sendDepth"), full.getMessage());
            assertEquals(4, p.client().inFlight());

            // every completion comes back once, with the user's ids and the slots
            java.util.Set<Long> ids = new java.util.HashSet<>();
            while (ids.size() < 4) {
                ids.add(awaitSend(p.client(), wc));
            }
            assertEquals(java.util.Set.of(101L, 102L, 0L, 1L), ids);
            assertEquals(0, p.client().inFlight());
            for (int m = 0; m < 2; m++) {
                p.server().repostReceive(awaitReceive(p.server(), wc));
            }
            // the sends came after the writes on the same QP: the written bytes are there
            check(p.server().rdmaRegion(), 4000, 2000, 1, "the user's write from the endpoint's region");
            check(p.server().rdmaRegion(), 8000, 1024, 2, "the user's write from their own region");
            // and the data path still flows: more sends than sendDepth, each with a credit
            for (int m = 0; m < 12; m++) {
                p.client().sendSlot(m % 4).putInt(0, m);
                p.client().send(m % 4, 4);
                awaitSend(p.client(), wc);
                int slot = awaitReceive(p.server(), wc);
                assertEquals(m, p.server().message(wc, 0).getInt(0));
                p.server().repostReceive(slot);
            }
        }
    }

    /**
     * An atomic through the escape hatch on RoCE (siw has none): fetch-and-add on the peer's RDMA region (which
     * the endpoint registers with remote atomic access where the device executes atomics) returns the old
     * value into a buffer of ours and leaves the sum there; then a send still flows.
     */
    @Test
    void atomicThroughTheQueuePairOnRoce() throws Exception {
        EndpointOptions o = EndpointOptions.defaults().messageSize(64).rdmaRegionSize(4096).timeout(T);
        try (Pair p = Pair.connect("rxe", o); WorkCompletions wc = WorkCompletions.allocate(1);
                SendRequests wrs = SendRequests.allocate(1, 1)) {
            ByteBuffer target = p.server().rdmaRegion().duplicate().order(java.nio.ByteOrder.nativeOrder());
            target.putLong(64, 100);
            EndpointQueuePair qp = p.client().queuePair();
            ByteBuffer old = ByteBuffer.allocateDirect(8).order(java.nio.ByteOrder.nativeOrder());
            MemoryRegion mr = qp.registerMemory(old, Access.LOCAL_WRITE);
            RemoteRegion remote = p.client().remoteRegion();
            wrs.at(0).clear().wrId(55).opcode(Opcode.ATOMIC_FETCH_AND_ADD).flags(SendFlags.SIGNALED)
                    .sge(mr.address(), 8, mr.lkey()).atomic(remote.address() + 64, remote.rkey(), 5, 0);
            qp.postSend(wrs);
            assertEquals(55, awaitSend(p.client(), wc));
            assertEquals(WcOpcode.FETCH_ADD, wc.opcode(0));
            assertEquals(100, old.getLong(0), "the value before the add");
            assertEquals(105, target.getLong(64), "the sum in the peer's region");
            p.client().send(0, 1);
            awaitSend(p.client(), wc);
            awaitReceive(p.server(), wc);
        }
    }
}
