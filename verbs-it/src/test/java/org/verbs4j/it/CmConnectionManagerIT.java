package org.verbs4j.it;

import org.verbs4j.lab.CmSide;

import org.verbs4j.lab.Lab;
import org.verbs4j.lab.QpPair;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.verbs4j.api.Access;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.Opcode;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.QpInitAttributes;
import org.verbs4j.api.QpType;
import org.verbs4j.api.QueuePair;
import org.verbs4j.api.Rdma;
import org.verbs4j.api.ReceiveRequests;
import org.verbs4j.api.SendFlags;
import org.verbs4j.api.SendRequests;
import org.verbs4j.api.TransportType;
import org.verbs4j.api.WaitStrategy;
import org.verbs4j.api.WcOpcode;
import org.verbs4j.api.WcStatus;
import org.verbs4j.api.WorkCompletions;
import org.verbs4j.api.cm.CmEventType;
import org.verbs4j.api.cm.CmException;
import org.verbs4j.api.cm.CmId;
import org.verbs4j.api.cm.CmRejectedException;
import org.verbs4j.api.cm.ConnectionManager;
import org.verbs4j.api.cm.ConnectionParameters;
import org.verbs4j.api.cm.ConnectionRequest;
import org.verbs4j.api.cm.PortSpace;
import org.verbs4j.lab.Async;

/** The public rdma_cm API on RoCE (rxe) and iWARP (siw), addressed by IP. */
class CmConnectionManagerIT {
    private static final Duration T = Duration.ofSeconds(30);

    /** 0 the RoCE device, 1 the iWARP device: those of the run. */
    static List<Integer> devices() {
        return Lab.hasFabric("roce") ? List.of(0, 1) : List.of(1);
    }

    private static String ip(int dev) {
        return Lab.env(dev == 0 ? "FABRIC_LAB_RXE_IP" : "FABRIC_LAB_SIW_IP");
    }

    private static InetSocketAddress at(int dev, int port) throws Exception {
        return new InetSocketAddress(InetAddress.getByName(ip(dev)), port);
    }

    /** One side's verbs objects on a CmId's context (see {@link CmSide}). */
    static final class Side extends CmSide {
        Side(CmId id) {
            super(id, QpType.RC, 16, 4096, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        }
    }

    /** Client: resolve, route, QP. */
    private static Side client(ConnectionManager cm, InetSocketAddress server) {
        CmId id = CmSide.resolved(cm, PortSpace.TCP, server, T);
        try {
            return new Side(id);
        } catch (RuntimeException | Error e) {
            id.close();
            throw e;
        }
    }

    /** {@code from} disconnects; both sides see DISCONNECTED. */
    private static void disconnect(Side from, Side peer) {
        from.id.disconnect();
        peer.id.awaitDisconnected(T);
        from.id.awaitDisconnected(T);
    }

    private static byte[] prefix(byte[] b, int n) {
        assertTrue(b.length >= n, "private data of " + b.length + " bytes, expected at least " + n);
        for (int i = n; i < b.length; i++) {
            assertEquals(0, b[i], "padding byte " + i);
        }
        return Arrays.copyOf(b, n);
    }

    @ParameterizedTest
    @MethodSource("devices")
    void connectAcceptWithPrivateDataBothWaysThenSendAndWrite(int dev) throws Exception {
        InetSocketAddress addr = at(dev, 7600 + dev);
        byte[] hello = ("client hello via " + ip(dev)).getBytes(StandardCharsets.US_ASCII);
        try (ConnectionManager scm = Rdma.connectionManager(); ConnectionManager ccm = Rdma.connectionManager()) {
            CmId listener = CmSide.listen(scm, PortSpace.TCP, addr);
            CompletableFuture<Object[]> serverF = Async.supply(() -> {
                ConnectionRequest req = listener.awaitRequest(T);
                Side s = new Side(req.id());
                try (ReceiveRequests rrs = ReceiveRequests.allocate(1, 1)) {
                    rrs.at(0).wrId(7).sge(s.mr.address(), 1024, s.mr.lkey());
                    s.qp.postReceive(rrs);
                }
                // tell the client where to RDMA WRITE: address (8) + rkey (4) + a greeting
                byte[] reply = ByteBuffer.allocate(20).putLong(s.mr.address() + 2048).putInt(s.mr.rkey())
                        .put("welcome!".getBytes(StandardCharsets.US_ASCII)).array();
                s.id.accept(ConnectionParameters.defaults().withPrivateData(reply));
                s.id.awaitEstablished(T);
                return new Object[] {s, req.privateData()};
            });
            Side c = client(ccm, addr);
            Side s = null;
            try {
                byte[] accepted = c.id.connect(ConnectionParameters.defaults().withPrivateData(hello), T);
                Object[] r = serverF.get(60, TimeUnit.SECONDS);
                s = (Side) r[0];
                byte[] got = (byte[]) r[1];
                if (s.ctx.device().transportType() == TransportType.IWARP) {
                    assertArrayEquals(hello, got, "iWARP carries the exact private data");
                    assertEquals(20, accepted.length);
                } else {
                    assertEquals(ConnectionParameters.CONNECT_PRIVATE_DATA_MAX, got.length, "IB CM REQ private data");
                }
                assertArrayEquals(hello, prefix(got, hello.length));
                ByteBuffer rep = ByteBuffer.wrap(prefix(accepted, 20));
                long remote = rep.getLong();
                int rkey = rep.getInt();
                byte[] greet = new byte[8];
                rep.get(greet);
                assertEquals("welcome!", new String(greet, StandardCharsets.US_ASCII));
                assertEquals(s.mr.address() + 2048, remote);

                byte[] msg = ("SEND over the rdma_cm API on " + ip(dev)).getBytes(StandardCharsets.US_ASCII);
                byte[] wr = ("RDMA WRITE over the rdma_cm API on " + ip(dev)).getBytes(StandardCharsets.US_ASCII);
                try (SendRequests wrs = SendRequests.allocate(1, 1); WorkCompletions wc = WorkCompletions.allocate(4)) {
                    c.mr.putBytes(0, msg);
                    wrs.at(0).wrId(1).opcode(Opcode.SEND).flags(SendFlags.SIGNALED).sge(c.mr.address(), msg.length,
                            c.mr.lkey());
                    c.qp.postSend(wrs); // the active side sends first (iWARP)
                    assertEquals(1, WaitStrategy.busySpin().await(c.cq, wc, 10_000_000_000L));
                    assertEquals(WcStatus.SUCCESS, wc.status(0), wc.toString(0));
                    assertEquals(1, WaitStrategy.busySpin().await(s.cq, wc, 10_000_000_000L));
                    assertEquals(WcStatus.SUCCESS, wc.status(0), wc.toString(0));
                    assertEquals(WcOpcode.RECV, wc.opcode(0));
                    assertEquals(msg.length, wc.byteLength(0));
                    assertArrayEquals(msg, s.mr.getBytes(0, msg.length));

                    c.mr.putBytes(1024, wr);
                    wrs.at(0).wrId(2).opcode(Opcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                            .sge(c.mr.address() + 1024, wr.length, c.mr.lkey()).rdma(remote, rkey);
                    c.qp.postSend(wrs);
                    assertEquals(1, WaitStrategy.busySpin().await(c.cq, wc, 10_000_000_000L));
                    assertEquals(WcStatus.SUCCESS, wc.status(0), wc.toString(0));
                    // on iWARP the write's completion does not mean placement (the region has no REMOTE_READ for
                    // a fence read): wait for the bytes
                    assertArrayEquals(wr, QpPair.awaitBytes(s.mr, 2048, wr));
                }
                disconnect(c, s);
            } finally {
                CmSide.closeAll(c, s, listener);
            }
        }
    }

    @ParameterizedTest
    @MethodSource("devices")
    void connectToAPortNobodyListensOnFailsClearlyWithinTheTimeout(int dev) throws Exception {
        InetSocketAddress addr = at(dev, 7610 + dev);
        try (ConnectionManager cm = Rdma.connectionManager()) {
            Side c = client(cm, addr);
            try {
                long t0 = System.nanoTime();
                CmException e = assertThrows(CmException.class,
                        () -> c.id.connect(ConnectionParameters.defaults(), Duration.ofSeconds(20)));
                long ms = (System.nanoTime() - t0) / 1_000_000;
                System.out.println("nobody listens on " + addr + " -> " + e.getClass().getSimpleName() + " after " + ms
                        + " ms: " + e.getMessage());
                assertTrue(ms < 25_000, ms + " ms");
                assertEquals("rdma_connect", e.verb());
                // RoCE: REJECTED, IB CM reason 8; siw: rdma_connect itself fails with ECONNREFUSED
                assertTrue(e.event() == CmEventType.REJECTED || e.errno() == 111, e.getMessage());
                assertTrue(e.getMessage().contains("nobody listens"), e.getMessage());
            } finally {
                c.close();
            }
        }
    }

    @ParameterizedTest
    @MethodSource("devices")
    void rejectWithPrivateDataReachesTheConnectingSide(int dev) throws Exception {
        InetSocketAddress addr = at(dev, 7620 + dev);
        byte[] why = "server full, try later".getBytes(StandardCharsets.US_ASCII);
        try (ConnectionManager cm = Rdma.connectionManager()) {
            CmId listener = CmSide.listen(cm, PortSpace.TCP, addr);
            CompletableFuture<byte[]> serverF = Async.supply(() -> {
                ConnectionRequest req = listener.awaitRequest(T);
                req.id().reject(why);
                return req.privateData();
            });
            Side c = client(cm, addr);
            try {
                CmRejectedException e = assertThrows(CmRejectedException.class, () -> c.id.connect(
                        ConnectionParameters.defaults().withPrivateData(new byte[] {1, 2, 3}), T));
                System.out.println("rejected on " + addr + ": " + e.getMessage());
                assertEquals(CmEventType.REJECTED, e.event());
                assertArrayEquals(why, prefix(e.privateData(), why.length));
                assertArrayEquals(new byte[] {1, 2, 3}, prefix(serverF.get(60, TimeUnit.SECONDS), 3));
                if (c.ctx.device().transportType() != TransportType.IWARP) {
                    assertEquals(28, e.status(), "IB CM consumer-defined reject");
                } else {
                    assertEquals(-104, e.status(), "siw reports an MPA reject as -ECONNRESET");
                }
                assertTrue(e.getMessage().contains("application rejected the request"), e.getMessage());
            } finally {
                c.close();
                listener.close();
            }
        }
    }

    @ParameterizedTest
    @MethodSource("devices")
    void closingTheListenerEndsAwaitRequestPromptly(int dev) throws Exception {
        try (ConnectionManager cm = Rdma.connectionManager()) {
            CmId listener = CmSide.listen(cm, PortSpace.TCP, at(dev, 7630 + dev));
            CompletableFuture<ConnectionRequest> waiting = Async.supply(
                    () -> listener.awaitRequest(Duration.ofMinutes(5)));
            Thread.sleep(500);
            long t0 = System.nanoTime();
            listener.close();
            ExecutionException e = assertThrows(ExecutionException.class, () -> waiting.get(10, TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof CmException, String.valueOf(e.getCause()));
            assertTrue(e.getCause().getMessage().contains("closed"), e.getCause().getMessage());
            assertTrue((System.nanoTime() - t0) / 1_000_000 < 10_000);
            assertTrue(listener.isClosed());
        }
    }

    @ParameterizedTest
    @MethodSource("devices")
    void closingTheConnectionManagerEndsEveryWait(int dev) throws Exception {
        ConnectionManager cm = Rdma.connectionManager();
        CmId listener = CmSide.listen(cm, PortSpace.TCP, at(dev, 7640 + dev));
        CompletableFuture<ConnectionRequest> waiting = Async.supply(
                () -> listener.awaitRequest(Duration.ofMinutes(5)));
        Thread.sleep(500);
        cm.close();
        ExecutionException e = assertThrows(ExecutionException.class, () -> waiting.get(10, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof CmException, String.valueOf(e.getCause()));
        assertTrue(e.getCause().getMessage().contains("ConnectionManager was closed"), e.getCause().getMessage());
        assertThrows(IllegalStateException.class, cm::createId);
    }

    /**
     * The event thread sleeps until an event or close() comes: a listener with nothing to do costs no
     * wake-ups (a busy-polling data path on the same CPUs would pay for each), and close() still ends
     * the thread at once.
     */
    @ParameterizedTest
    @MethodSource("devices")
    void anIdleEventThreadSleepsAndCloseWakesIt(int dev) throws Exception {
        ConnectionManager cm = Rdma.connectionManager();
        try {
            CmId listener = CmSide.listen(cm, PortSpace.TCP, at(dev, 7690 + dev));
            // a thread started a moment ago may not have set its kernel name yet: look again for a while
            List<java.nio.file.Path> threads = eventThreads();
            for (long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                    threads.isEmpty() && System.nanoTime() < deadline; threads = eventThreads()) {
                Thread.sleep(10);
            }
            assertTrue(!threads.isEmpty(), "no verbs4j-rdma-cm thread in /proc/self/task after 5 s");
            Thread.sleep(300);
            long before = switches(threads);
            Thread.sleep(2000);
            long after = switches(threads);
            // one wake-up per thread is allowed for a stray signal; a 100 ms poll time-out made 20 each
            assertTrue(after - before <= threads.size(), (after - before) + " context switches of "
                    + threads.size() + " idle rdma_cm event thread(s) in 2 s");
        } finally {
            long t0 = System.nanoTime();
            cm.close();
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(ms < 5_000, "close() took " + ms + " ms");
        }
    }

    /** The status files of this JVM's rdma_cm event threads (kernel name: the first 15 characters). */
    private static List<java.nio.file.Path> eventThreads() throws java.io.IOException {
        List<java.nio.file.Path> found = new java.util.ArrayList<>();
        try (java.util.stream.Stream<java.nio.file.Path> tasks = java.nio.file.Files.list(java.nio.file.Path.of("/proc/self/task"))) {
            for (java.nio.file.Path task : (Iterable<java.nio.file.Path>) tasks::iterator) {
                try {
                    if (java.nio.file.Files.readString(task.resolve("comm")).strip().equals("verbs4j-rdma-cm")) {
                        found.add(task.resolve("status"));
                    }
                } catch (java.io.IOException gone) {
                    // a thread that ended while we listed
                }
            }
        }
        return found;
    }

    private static long switches(List<java.nio.file.Path> statusFiles) throws java.io.IOException {
        long n = 0;
        for (java.nio.file.Path status : statusFiles) {
            // voluntary plus involuntary context switches of the thread
            for (String line : java.nio.file.Files.readAllLines(status)) {
                if (line.startsWith("voluntary_ctxt_switches:") || line.startsWith("nonvoluntary_ctxt_switches:")) {
                    n += Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
                }
            }
        }
        return n;
    }

    @ParameterizedTest
    @MethodSource("devices")
    void awaitDisconnectedTimesOutWhenThePeerStaysConnected(int dev) throws Exception {
        // and the wait is bounded even with no event at all
        InetSocketAddress addr = at(dev, 7650 + dev);
        try (ConnectionManager cm = Rdma.connectionManager()) {
            CmId listener = CmSide.listen(cm, PortSpace.TCP, addr);
            CompletableFuture<Side> serverF = Async.supply(() -> {
                ConnectionRequest req = listener.awaitRequest(T);
                Side s = new Side(req.id());
                s.id.accept(ConnectionParameters.defaults());
                s.id.awaitEstablished(T);
                return s;
            });
            Side c = client(cm, addr);
            Side s = null;
            try {
                c.id.connect(ConnectionParameters.defaults(), T);
                s = serverF.get(60, TimeUnit.SECONDS);
                long t0 = System.nanoTime();
                CmException e = assertThrows(CmException.class, () -> c.id.awaitDisconnected(Duration.ofMillis(200)));
                assertTrue((System.nanoTime() - t0) / 1_000_000 < 5_000);
                assertTrue(e.getMessage().contains("RDMA_CM_EVENT_DISCONNECTED"), e.getMessage());
                disconnect(s, c); // the passive side disconnects: the active side sees DISCONNECTED
            } finally {
                CmSide.closeAll(c, s, listener);
            }
        }
    }

    @ParameterizedTest
    @MethodSource("devices")
    void resolveAddressToAnAddressNoDeviceOwnsFailsClearly(int dev) throws Exception {
        try (ConnectionManager cm = Rdma.connectionManager(); CmId id = cm.createId()) {
            // TEST-NET-1: no device owns it, no route reaches it from the device's subnet
            long t0 = System.nanoTime();
            CmException e = assertThrows(CmException.class, () -> id.resolveAddress(
                    new InetSocketAddress(InetAddress.getByName("192.0.2.1"), 7660 + dev), Duration.ofSeconds(5)));
            System.out.println("resolveAddress(192.0.2.1) -> " + e.getMessage());
            assertTrue((System.nanoTime() - t0) / 1_000_000 < 10_000);
            assertEquals("rdma_resolve_addr", e.verb());
            assertTrue(!e.hint().isEmpty(), e.getMessage());
        }
        try (ConnectionManager cm = Rdma.connectionManager(); CmId id = cm.createId()) {
            CmException e = assertThrows(CmException.class,
                    () -> id.bind(new InetSocketAddress(InetAddress.getByName("192.0.2.1"), 7662 + dev)));
            System.out.println("bind(192.0.2.1) -> " + e.getMessage());
            assertEquals("rdma_bind_addr", e.verb());
            assertTrue(e.getMessage().contains("no RDMA device has this address"), e.getMessage());
        }
    }

    @ParameterizedTest
    @MethodSource("devices")
    void connectToAServerThatNeverAcceptsTimesOutOrEndsWhenTheIdIsClosed(int dev) throws Exception {
        InetSocketAddress addr = at(dev, 7680 + dev);
        try (ConnectionManager cm = Rdma.connectionManager()) {
            CmId listener = CmSide.listen(cm, PortSpace.TCP, addr);
            Side c = client(cm, addr);
            try {
                long t0 = System.nanoTime();
                CmException e = assertThrows(CmException.class,
                        () -> c.id.connect(ConnectionParameters.defaults(), Duration.ofMillis(1500)));
                long ms = (System.nanoTime() - t0) / 1_000_000;
                assertTrue(ms >= 1400 && ms < 10_000, ms + " ms");
                assertTrue(e.getMessage().contains("no RDMA_CM_EVENT_ESTABLISHED within 1500 ms"), e.getMessage());
                ConnectionRequest pending = listener.awaitRequest(T); // it did arrive; nobody accepts it
                assertNotNull(pending.id());
            } finally {
                c.close();
            }
            Side c2 = client(cm, addr);
            try {
                // a thread each for the waiting connect and the close: on JDK 25 with one CPU (the lab VM)
                // CompletableFuture's async tasks share the common pool's single worker, and the close would
                // queue behind the blocked connect
                java.util.concurrent.Executor ownThread = r -> new Thread(r, "connect-or-close").start();
                CompletableFuture<byte[]> waiting = CompletableFuture.supplyAsync(
                        () -> c2.id.connect(ConnectionParameters.defaults(), Duration.ofMinutes(5)), ownThread);
                listener.awaitRequest(T); // the request is there: connect() is now waiting for ESTABLISHED
                CompletableFuture<Long> ended = waiting.handle((r, x) -> System.nanoTime());
                long t0 = System.nanoTime();
                // on siw, rdma_destroy_id of an id whose MPA request is unanswered blocks in the kernel for
                // a while: the waiting connect() must end at once all the same
                CompletableFuture<Long> closed = CompletableFuture.supplyAsync(() -> {
                    c2.id.close();
                    return System.nanoTime();
                }, ownThread);
                ExecutionException e = assertThrows(ExecutionException.class, () -> waiting.get(10, TimeUnit.SECONDS));
                assertTrue(e.getCause() instanceof CmException, String.valueOf(e.getCause()));
                assertTrue(e.getCause().getMessage().contains("the CmId was closed"), e.getCause().getMessage());
                long waitEndedMs = (ended.get() - t0) / 1_000_000;
                assertTrue(waitEndedMs < 10_000, waitEndedMs + " ms");
                long closeMs = (closed.get(120, TimeUnit.SECONDS) - t0) / 1_000_000;
                System.out.println("close of a connecting id on " + addr + ": connect() ended after " + waitEndedMs
                        + " ms, close() returned after " + closeMs + " ms");
                assertTrue(c2.qp.isClosed(), "closing the id destroys its QP");
            } finally {
                c2.close();
                listener.close(); // the two requests nobody accepted are destroyed with the ConnectionManager
            }
        }
    }


    @ParameterizedTest
    @MethodSource("devices")
    void typeOfServiceAndParameterLimits(int dev) throws Exception {
        try (ConnectionManager cm = Rdma.connectionManager(); CmId id = cm.createId()) {
            id.setTypeOfService(32);
            assertThrows(IllegalArgumentException.class, () -> id.setTypeOfService(256));
            assertThrows(IllegalArgumentException.class,
                    () -> ConnectionParameters.defaults().withPrivateData(new byte[197]));
            assertThrows(IllegalStateException.class, id::context, "no device before bind/resolve");
            id.bind(at(dev, 7670 + dev));
            assertEquals(dev == 0 ? Lab.roceDevice() : Lab.iwarpDevice(), id.context().device().name());
        }
    }
}
