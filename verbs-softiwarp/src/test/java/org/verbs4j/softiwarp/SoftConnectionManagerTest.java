package org.verbs4j.softiwarp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.verbs4j.api.Access;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.Opcode;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.QpAttrMask;
import org.verbs4j.api.QpInitAttributes;
import org.verbs4j.api.QpState;
import org.verbs4j.api.QpType;
import org.verbs4j.api.QueuePair;
import org.verbs4j.api.ReceiveRequests;
import org.verbs4j.api.SendFlags;
import org.verbs4j.api.SendRequests;
import org.verbs4j.api.VerbsException;
import org.verbs4j.api.WorkCompletions;
import org.verbs4j.api.cm.CmEventType;
import org.verbs4j.api.cm.CmException;
import org.verbs4j.api.cm.CmId;
import org.verbs4j.api.cm.CmRejectedException;
import org.verbs4j.api.cm.ConnectionParameters;
import org.verbs4j.api.cm.ConnectionRequest;
import org.verbs4j.api.cm.PortSpace;
import org.verbs4j.lab.Async;

/**
 * The software rdma_cm over the loopback device jsiw_lo (127.0.0.1): the TCP and MPA handshakes, rejects,
 * failures, disconnects and closes, each wait bounded. Written against {@link SoftQueuePair#establish}'s contract,
 * so they pass with the placeholder and with the data path.
 */
class SoftConnectionManagerTest {
    private static final Duration T = Duration.ofSeconds(5);
    private static final InetAddress LO = InetAddress.getLoopbackAddress();

    private final SoftConnectionManager serverCm = new SoftConnectionManager();
    private final SoftConnectionManager clientCm = new SoftConnectionManager();
    private final Side server = new Side();
    private final Side client = new Side();

    /** The verbs objects of one side, made on the context its cm id got. */
    private static final class Side {
        ProtectionDomain pd;
        CompletionQueue cq;

        QueuePair qp(CmId id) {
            if (pd == null) {
                pd = id.context().allocProtectionDomain();
                cq = id.context().createCompletionQueue(64);
            }
            return id.createQueuePair(pd, new QpInitAttributes(QpType.RC, cq, cq).maxSendWr(8).maxRecvWr(8)
                    .maxSendSge(1).maxRecvSge(1));
        }

        void close() {
            if (cq != null) {
                cq.close();
            }
            if (pd != null) {
                pd.close();
            }
        }
    }

    @AfterEach
    void tearDown() {
        // ids first (each with its QP), then the application's PD/CQ, then the managers
        for (SoftConnectionManager cm : new SoftConnectionManager[] {serverCm, clientCm}) {
            for (Object child : cm.openChildren()) {
                ((CmId) child).close();
            }
        }
        server.close();
        client.close();
        serverCm.close();
        clientCm.close();
    }

    private SoftCmId listener() {
        SoftCmId l = (SoftCmId) serverCm.createId();
        l.bind(new InetSocketAddress(LO, 0));
        l.listen(16);
        return l;
    }

    private CmId activeTo(SoftCmId listener) {
        CmId id = clientCm.createId();
        id.resolveAddress(new InetSocketAddress(LO, listener.localAddress().getPort()), T);
        id.resolveRoute(T);
        client.qp(id);
        return id;
    }

    private static ConnectionParameters params(String privateData, int responderResources, int initiatorDepth) {
        return ConnectionParameters.defaults().withPrivateData(privateData.getBytes(StandardCharsets.US_ASCII))
                .withResponderResources(responderResources).withInitiatorDepth(initiatorDepth);
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.US_ASCII);
    }

    /** The server's half of a connection: take the request, accept it with {@code accept}. */
    private CompletableFuture<ConnectionRequest> acceptOne(SoftCmId listener, ConnectionParameters accept) {
        return Async.supply(() -> {
            ConnectionRequest req = listener.awaitRequest(T);
            server.qp(req.id());
            req.id().accept(accept);
            req.id().awaitEstablished(T);
            return req;
        });
    }

    @Test
    void privateDataBothWaysAndIrdOrdNegotiatedAsSiw() throws Exception {
        SoftCmId l = listener();
        assertEquals(SoftIwarp.LOOPBACK_NAME, l.context().device().name());
        CompletableFuture<ConnectionRequest> srv = acceptOne(l, params("hello client", 8, 2));
        CmId id = activeTo(l);
        assertEquals(SoftIwarp.LOOPBACK_NAME, id.context().device().name());
        byte[] reply = id.connect(params("hello server", 4, 3), T);
        ConnectionRequest req = srv.get(5, TimeUnit.SECONDS);

        assertEquals("hello client", text(reply));
        assertEquals("hello server", text(req.privateData()));
        // the request shows the initiator's values, as rdma_cm shows siw's (responder_resources = its IRD)
        assertEquals(4, req.parameters().responderResources());
        assertEquals(3, req.parameters().initiatorDepth());
        assertEquals(SoftIwarp.LOOPBACK_NAME, req.id().context().device().name());
        QueuePair c = id.queuePair();
        QueuePair s = req.id().queuePair();
        assertEquals(QpState.RTS, c.state());
        assertEquals(QpState.RTS, s.state());
        // server: ORD = min(its initiator_depth 2, client IRD 4) = 2; IRD = client ORD 3 (the smaller offer)
        // client adopts the reply: IRD = server ORD 2, ORD = server IRD 3
        SoftCmId ci = (SoftCmId) id;
        SoftCmId si = (SoftCmId) req.id();
        assertEquals(2, ci.negotiatedIrd(), "client IRD");
        assertEquals(3, ci.negotiatedOrd(), "client ORD");
        assertEquals(3, si.negotiatedIrd(), "server IRD");
        assertEquals(2, si.negotiatedOrd(), "server ORD");
        // the CM moves the QP to RTR with the IRD (max_dest_rd_atomic) before establish takes it to RTS
        assertEquals(2, c.query(QpAttrMask.MAX_DEST_RD_ATOMIC).maxDestRdAtomic(), "client QP IRD");
        assertEquals(3, s.query(QpAttrMask.MAX_DEST_RD_ATOMIC).maxDestRdAtomic(), "server QP IRD");
        assertFalse(id.isDisconnected());
    }

    @Test
    void aWildcardListenerListensOnTheDevicesInterfacesOnly() throws Exception {
        SoftCmId l = (SoftCmId) serverCm.createId();
        l.bind(new InetSocketAddress(0));
        assertThrows(IllegalStateException.class, l::context, "a wildcard id has no device");
        l.listen(4);
        int port = l.localAddress().getPort();
        assertTrue(port > 0);
        CompletableFuture<ConnectionRequest> srv = acceptOne(l, params("", 1, 1));
        CmId id = activeTo(l);
        id.connect(params("", 1, 1), T);
        assertEquals(SoftIwarp.LOOPBACK_NAME, srv.get(5, TimeUnit.SECONDS).id().context().device().name());
        // an address of an interface without a software device (eth0, if there is one) is not listened on
        for (java.net.NetworkInterface ni : java.util.Collections.list(java.net.NetworkInterface.getNetworkInterfaces())) {
            for (InetAddress a : java.util.Collections.list(ni.getInetAddresses())) {
                if (!ni.isLoopback() && a instanceof java.net.Inet4Address && SoftConnectionManager.deviceFor(a) == null) {
                    assertThrows(java.net.ConnectException.class, () -> new Socket(a, port).close(), a.toString());
                }
            }
        }
    }

    @Test
    void crcAskedForByTheInitiatorIsGranted() throws Exception {
        clientCm.settings(clientCm.settings().withCrcRequired(true));
        SoftCmId l = listener();
        CompletableFuture<ConnectionRequest> srv = acceptOne(l, params("crc", 1, 1));
        CmId id = activeTo(l);
        assertEquals("crc", text(id.connect(params("", 1, 1), T)));
        srv.get(5, TimeUnit.SECONDS);
        assertEquals(QpState.RTS, id.queuePair().state());
    }

    @Test
    void rdmaGivesThisManagerWhenSoftiwarpIsTheOnlyBackend() {
        try (org.verbs4j.api.cm.ConnectionManager cm = org.verbs4j.api.Rdma.connectionManager()) {
            assertTrue(cm instanceof SoftConnectionManager, cm.toString());
        }
    }

    @Test
    void rejectCarriesPrivateData() throws Exception {
        SoftCmId l = listener();
        CompletableFuture<Void> srv = Async.run(() -> {
            ConnectionRequest req = l.awaitRequest(T);
            req.id().reject("go away".getBytes(StandardCharsets.US_ASCII));
            req.id().close();
        });
        CmId id = activeTo(l);
        CmRejectedException e = assertThrows(CmRejectedException.class, () -> id.connect(params("hi", 1, 1), T));
        srv.get(5, TimeUnit.SECONDS);
        assertEquals("go away", text(e.privateData()));
        assertEquals(CmEventType.REJECTED, e.event());
        assertEquals(-104, e.status(), "an MPA reject is -ECONNRESET, as siw reports it");
        assertEquals(QpState.INIT, id.queuePair().state());
    }

    @Test
    void nobodyListeningIsRejectedWithinTheTimeout() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, LO)) {
            port = s.getLocalPort();
        }
        CmId id = clientCm.createId();
        id.resolveAddress(new InetSocketAddress(LO, port), T);
        id.resolveRoute(T);
        client.qp(id);
        long t0 = System.nanoTime();
        CmRejectedException e = assertThrows(CmRejectedException.class,
                () -> id.connect(ConnectionParameters.defaults(), Duration.ofSeconds(2)));
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(2), "took " + (System.nanoTime() - t0) + " ns");
        assertEquals(-111, e.status());
        assertTrue(e.getMessage().contains("rdma_connect"), e.getMessage());
        // the same words as libibverbs' rdma_cm on iWARP (rping's tests look for them on both)
        assertTrue(e.getMessage().contains("ECONNREFUSED") && e.getMessage().contains("nobody listens on that port"),
                e.getMessage());
    }

    @Test
    void silentAndGarbagePeersDoNotBlockAGoodConnect() throws Exception {
        SoftCmId l = listener();
        int port = l.localAddress().getPort();
        try (Socket silent = new Socket(LO, port); Socket garbage = new Socket(LO, port)) {
            OutputStream out = garbage.getOutputStream();
            out.write(new byte[] {'G', 'E', 'T', ' ', '/', ' ', 'H', 'T', 'T', 'P', '/', '1', '.', '1', '\r', '\n',
                '\r', '\n', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
            out.flush();
            Thread.sleep(100);
            long t0 = System.nanoTime();
            CompletableFuture<ConnectionRequest> srv = acceptOne(l, params("ok", 1, 1));
            CmId id = activeTo(l);
            assertEquals("ok", text(id.connect(params("good", 1, 1), T)));
            assertEquals("good", text(srv.get(5, TimeUnit.SECONDS).privateData()));
            assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(2), "the good connect waited for the bad");
            // the garbage peer was dropped at once: its read sees the end of the stream
            garbage.setSoTimeout(2000);
            assertEquals(-1, garbage.getInputStream().read());
        }
    }

    @Test
    void disconnectFromEitherSideEndsTheOther() throws Exception {
        for (boolean clientFirst : new boolean[] {true, false}) {
            SoftCmId l = listener();
            CompletableFuture<ConnectionRequest> srv = acceptOne(l, params("", 1, 1));
            CmId id = activeTo(l);
            id.connect(params("", 1, 1), T);
            CmId passive = srv.get(5, TimeUnit.SECONDS).id();
            CmId first = clientFirst ? id : passive;
            CmId other = clientFirst ? passive : id;
            first.disconnect();
            assertTrue(first.isDisconnected());
            first.awaitDisconnected(T);
            other.awaitDisconnected(T);
            assertTrue(other.isDisconnected());
            assertEquals(QpState.ERR, other.queuePair().state());
            other.disconnect(); // after the peer's: nothing to do
            id.close();
            passive.close();
            l.close();
        }
    }

    @Test
    void awaitDisconnectedTimesOut() throws Exception {
        SoftCmId l = listener();
        CompletableFuture<ConnectionRequest> srv = acceptOne(l, params("", 1, 1));
        CmId id = activeTo(l);
        id.connect(params("", 1, 1), T);
        srv.get(5, TimeUnit.SECONDS);
        CmException e = assertThrows(CmException.class, () -> id.awaitDisconnected(Duration.ofMillis(100)));
        assertTrue(e.getMessage().contains("RDMA_CM_EVENT_DISCONNECTED"), e.getMessage());
        assertThrows(CmException.class, () -> l.awaitRequest(Duration.ofMillis(50)));
    }

    @Test
    void closeEndsAWaitingAwaitRequest() {
        SoftCmId l = listener();
        CompletableFuture<ConnectionRequest> waiting = Async.supply(() -> l.awaitRequest(
                Duration.ofSeconds(60)));
        sleep(200);
        assertTimeoutPreemptively(Duration.ofSeconds(2), () -> l.close());
        ExecutionException e = assertThrows(ExecutionException.class, () -> waiting.get(2, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof CmException, e.getCause().toString());
        assertTrue(e.getCause().getMessage().contains("closed"), e.getCause().getMessage());
    }

    @Test
    void managerCloseEndsAWaitingAwaitRequest() {
        SoftCmId l = listener();
        CompletableFuture<ConnectionRequest> waiting = Async.supply(() -> l.awaitRequest(
                Duration.ofSeconds(60)));
        sleep(200);
        assertTimeoutPreemptively(Duration.ofSeconds(2), () -> serverCm.close());
        ExecutionException e = assertThrows(ExecutionException.class, () -> waiting.get(2, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof CmException, e.getCause().toString());
        assertTrue(e.getCause().getMessage().contains("its ConnectionManager was closed"), e.getCause().getMessage());
        assertTrue(l.isClosed());
        assertThrows(IllegalStateException.class, serverCm::createId);
    }

    @Test
    void closeEndsAConnectWaitingForTheMpaReply() throws Exception {
        try (ServerSocket mute = new ServerSocket(0, 4, LO)) { // accepts TCP, never answers the MPA Request
            CmId id = clientCm.createId();
            id.resolveAddress(new InetSocketAddress(LO, mute.getLocalPort()), T);
            id.resolveRoute(T);
            client.qp(id);
            CompletableFuture<byte[]> waiting = Async.supply(() -> id.connect(
                    ConnectionParameters.defaults(), Duration.ofSeconds(60)));
            try (Socket accepted = mute.accept()) {
                sleep(200);
                long t0 = System.nanoTime();
                id.close();
                ExecutionException e = assertThrows(ExecutionException.class, () -> waiting.get(2, TimeUnit.SECONDS));
                assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(2));
                assertTrue(e.getCause() instanceof CmException, e.getCause().toString());
                assertTrue(e.getCause().getMessage().contains("closed"), e.getCause().getMessage());
                assertTrue(id.queuePair().isClosed(), "the id's close closed its QP");
            }
        }
    }

    @Test
    void closeRacingConnectAtRandomMomentsNeverHangs() throws Exception {
        SoftCmId l = listener();
        CompletableFuture<Void> server = Async.run(() -> {
            while (!l.isClosed()) {
                try {
                    ConnectionRequest req = l.awaitRequest(Duration.ofMillis(200));
                    req.id().reject(null);
                    req.id().close();
                } catch (RuntimeException e) {
                    // a time-out, or the listener closed
                }
            }
        });
        java.util.Random random = new java.util.Random(42);
        for (int i = 0; i < 30; i++) {
            CmId id = activeTo(l);
            CompletableFuture<byte[]> connecting = Async.supply(() -> id.connect(
                    ConnectionParameters.defaults(), Duration.ofSeconds(30)));
            sleep(random.nextInt(5));
            id.close();
            try {
                connecting.get(2, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                assertTrue(e.getCause() instanceof CmException || e.getCause() instanceof IllegalStateException,
                        e.getCause().toString());
            }
            assertTrue(id.queuePair().isClosed());
        }
        l.close();
        server.get(2, TimeUnit.SECONDS);
    }

    @Test
    void connectTimesOutWhenTheReplyDoesNotCome() throws Exception {
        try (ServerSocket mute = new ServerSocket(0, 4, LO)) {
            CmId id = clientCm.createId();
            id.resolveAddress(new InetSocketAddress(LO, mute.getLocalPort()), T);
            id.resolveRoute(T);
            client.qp(id);
            long t0 = System.nanoTime();
            CmException e = assertThrows(CmException.class,
                    () -> id.connect(ConnectionParameters.defaults(), Duration.ofMillis(300)));
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(ms >= 250 && ms < 2000, ms + " ms");
            assertTrue(e.getMessage().contains("300 ms"), e.getMessage());
        }
    }

    @Test
    void requestsNobodyTookAreRejectedWhenTheListenerCloses() throws Exception {
        SoftCmId l = listener();
        CmId id = activeTo(l);
        CompletableFuture<byte[]> connecting = Async.supply(() -> id.connect(params("x", 1, 1), T));
        sleep(300); // the request is queued at the listener
        l.close();
        ExecutionException e = assertThrows(ExecutionException.class, () -> connecting.get(5, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof CmRejectedException, e.getCause().toString());
    }

    @Test
    void misuseIsRefusedClearly() {
        assertThrows(UnsupportedOperationException.class, () -> clientCm.createId(PortSpace.UDP));
        CmId id = clientCm.createId();
        assertThrows(IllegalStateException.class, id::context);
        assertThrows(IllegalStateException.class, () -> id.awaitRequest(T));
        CmException e = assertThrows(CmException.class, () -> id.bind(new InetSocketAddress("192.0.2.1", 0)));
        assertTrue(e.getMessage().contains("not an address of this host"), e.getMessage());
        id.resolveAddress(new InetSocketAddress(LO, 9), T);
        assertThrows(IllegalStateException.class, () -> id.connect(ConnectionParameters.defaults(), T));
        client.qp(id);
        assertThrows(IllegalStateException.class, () -> id.connect(ConnectionParameters.defaults(), T));
        assertThrows(IllegalStateException.class, () -> client.qp(id));
        CmId other = clientCm.createId();
        other.resolveAddress(new InetSocketAddress(LO, 9), T);
        VerbsException ud = assertThrows(VerbsException.class, () -> other.createQueuePair(client.pd,
                new QpInitAttributes(QpType.UD, client.cq, client.cq)));
        assertTrue(ud.getMessage().contains("RC QPs only"), ud.getMessage());
        other.close();
        assertEquals(QpState.INIT, id.queuePair().state());
        id.close();
        id.close();
        assertThrows(IllegalStateException.class, () -> id.resolveRoute(T));
        assertTrue(id.queuePair().isClosed());
    }

    @Test
    void oneHundredCyclesLeakNoThreadsOrSockets() throws Exception {
        SoftCmId l = listener();
        cycle(l); // warm-up: the first handshake thread, the contexts, the PD and CQ of each side
        sleep(1500); // idle handshake threads end after 1 s
        int threads = Thread.activeCount();
        long fds = openFiles();
        long t0 = System.nanoTime();
        for (int i = 0; i < 100; i++) {
            cycle(l);
        }
        long ms = (System.nanoTime() - t0) / 1_000_000;
        int threadsAfter = Thread.activeCount();
        long fdsAfter = openFiles();
        for (int i = 0; i < 40 && (threadsAfter > threads || fdsAfter > fds); i++) {
            sleep(100); // idle handshake threads and TIME_WAIT-free closes settle
            threadsAfter = Thread.activeCount();
            fdsAfter = openFiles();
        }
        assertTrue(threadsAfter <= threads, "threads " + threads + " -> " + threadsAfter);
        assertTrue(fdsAfter <= fds, "open files " + fds + " -> " + fdsAfter);
        assertTrue(ms < 30_000, "100 cycles took " + ms + " ms");
        org.slf4j.LoggerFactory.getLogger(getClass()).info("100 connect/disconnect cycles: {} ms", ms);
    }

    private void cycle(SoftCmId l) throws Exception {
        CompletableFuture<ConnectionRequest> srv = acceptOne(l, params("", 1, 1));
        CmId id = activeTo(l);
        id.connect(params("", 1, 1), T);
        CmId passive = srv.get(5, TimeUnit.SECONDS).id();
        id.disconnect();
        passive.awaitDisconnected(T);
        id.close();
        passive.close();
    }

    private static long openFiles() {
        String[] fds = new File("/proc/self/fd").list();
        Assumptions.assumeTrue(fds != null, "no /proc/self/fd");
        return fds.length;
    }

    /**
     * A SEND across a CM-made connection. Needs the data path: skipped while {@link SoftQueuePair} has the
     * placeholder establish (its {@code watch} method), so it runs by itself once the data path replaces it.
     */
    @Test
    void sendMovesAcrossAConnection() throws Exception {
        boolean placeholder;
        try {
            SoftQueuePair.class.getDeclaredMethod("watch", org.verbs4j.softiwarp.wire.MpaConnection.class);
            placeholder = true;
        } catch (NoSuchMethodException e) {
            placeholder = false;
        }
        Assumptions.assumeFalse(placeholder, "SoftQueuePair.establish is the placeholder: no data path to test");
        SoftCmId l = listener();
        CompletableFuture<ConnectionRequest> srv = Async.supply(() -> {
            ConnectionRequest req = l.awaitRequest(T);
            server.qp(req.id());
            return req;
        });
        CmId id = activeTo(l);
        CompletableFuture<byte[]> connecting = Async.supply(() -> id.connect(params("", 1, 1), T));
        ConnectionRequest req = srv.get(5, TimeUnit.SECONDS);
        MemoryRegion rx = server.pd.allocateMemory(64, Access.LOCAL_WRITE);
        MemoryRegion tx = client.pd.allocateMemory(64, Access.LOCAL_WRITE);
        try (ReceiveRequests rr = ReceiveRequests.allocate(1, 1);
                SendRequests sr = SendRequests.allocate(1, 1);
                WorkCompletions wc = WorkCompletions.allocate(4)) {
            rr.at(0).wrId(7).sge(rx, 0, 64);
            req.id().queuePair().postReceive(rr.count(1)); // before the accept: the first SEND finds it
            req.id().accept(params("", 1, 1));
            req.id().awaitEstablished(T);
            connecting.get(5, TimeUnit.SECONDS);
            tx.putBytes(0, new byte[] {42, 1, 2, 3, 4, 5, 6, 7});
            sr.at(0).wrId(9).opcode(Opcode.SEND).flags(SendFlags.SIGNALED).sge(tx, 0, 8);
            id.queuePair().postSend(sr.count(1));
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            int got = 0;
            while (got == 0 && System.nanoTime() < end) {
                got = server.cq.poll(wc);
            }
            assertEquals(1, got, "the SEND arrived");
            assertTrue(wc.ok(0), wc.toString(0));
            assertEquals(7, wc.wrId(0));
            assertEquals(8, wc.byteLength(0));
            assertArrayEquals(new byte[] {42, 1, 2, 3, 4, 5, 6, 7}, rx.getBytes(0, 8));
        } finally {
            id.close();
            req.id().close();
            rx.close();
            tx.close();
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
