package org.verbs4j.foreign;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.ref.WeakReference;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.verbs4j.api.Access;
import org.verbs4j.api.CompletionQueue;
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
import org.verbs4j.api.WcStatus;
import org.verbs4j.api.WorkCompletions;
import org.verbs4j.api.cm.CmId;
import org.verbs4j.api.cm.ConnectionManager;
import org.verbs4j.api.cm.ConnectionParameters;
import org.verbs4j.api.cm.ConnectionRequest;
import org.verbs4j.lab.Async;

/**
 * Segments registered on the software iWARP device jsiw_lo (127.0.0.1): two RC QPs connected by rdma_cm in this
 * JVM move bytes into and out of them with RDMA WRITE and READ.
 */
class SegmentsTest {
    private static final Duration T = Duration.ofSeconds(10);
    private static final InetAddress LO = InetAddress.getLoopbackAddress();
    private static final int ALL = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ;
    private static final int SIZE = 64 * 1024;

    private static ConnectionManager cm;
    private static CmId listener;
    private static Side active;
    private static Side passive;
    private static final SendRequests SENDS = SendRequests.allocate(1, 1);
    private static final ReceiveRequests RECVS = ReceiveRequests.allocate(1, 1);
    private static final WorkCompletions WC = WorkCompletions.allocate(1);

    /** One end of the connection: its cm id, PD, CQ and QP. */
    private static final class Side {
        final CmId id;
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final QueuePair qp;

        Side(CmId id) {
            this.id = id;
            pd = id.context().allocProtectionDomain();
            cq = id.context().createCompletionQueue(16);
            qp = id.createQueuePair(pd, new QpInitAttributes(QpType.RC, cq, cq).maxSendWr(4).maxRecvWr(4)
                    .maxSendSge(1).maxRecvSge(1));
        }

        void close() {
            id.close();
            cq.close();
            pd.close();
        }
    }

    @BeforeAll
    static void connect() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, LO)) {
            port = s.getLocalPort();
        }
        cm = Rdma.connectionManager();
        listener = cm.createId();
        listener.bind(new InetSocketAddress(LO, port));
        listener.listen(1);
        assertEquals("jsiw_lo", listener.context().device().name());
        CompletableFuture<Side> server = Async.supply(() -> {
            ConnectionRequest req = listener.awaitRequest(T);
            Side s = new Side(req.id());
            req.id().accept(ConnectionParameters.defaults());
            req.id().awaitEstablished(T);
            return s;
        });
        CmId id = cm.createId();
        id.resolveAddress(new InetSocketAddress(LO, port), T);
        id.resolveRoute(T);
        active = new Side(id);
        id.connect(ConnectionParameters.defaults(), T);
        passive = server.get(10, TimeUnit.SECONDS);
    }

    @AfterAll
    static void disconnect() {
        if (active != null) {
            active.close();
        }
        if (passive != null) {
            passive.close();
        }
        if (listener != null) {
            listener.close();
        }
        if (cm != null) {
            cm.close();
        }
        SENDS.close();
        RECVS.close();
        WC.close();
    }

    /**
     * Posts one signaled RDMA WRITE or READ on the active side and waits for its successful completion; after a
     * WRITE, also until its bytes are in the remote memory. A WRITE completes once it is sent (on iWARP: handed to
     * TCP), so a zero-byte SEND follows it, and the passive side's receive completion says that the WRITE, ordered
     * before it, is placed.
     */
    private static void rdma(Opcode op, MemoryRegion local, MemoryRegion remote, int length) {
        if (op == Opcode.RDMA_WRITE) {
            RECVS.count(1).at(0).clear().wrId(1).numSge(0);
            passive.qp.postReceive(RECVS);
        }
        SENDS.count(1).at(0).clear().wrId(op.ordinal()).opcode(op).flags(SendFlags.SIGNALED)
                .sge(local, 0, length).rdma(remote.address(), remote.rkey());
        active.qp.postSend(SENDS);
        await(active.cq, op.toString());
        if (op == Opcode.RDMA_WRITE) {
            SENDS.count(1).at(0).clear().wrId(0).opcode(Opcode.SEND).flags(SendFlags.SIGNALED).numSge(0);
            active.qp.postSend(SENDS);
            await(active.cq, "the SEND after the WRITE");
            await(passive.cq, "the receive of the SEND after the WRITE");
        }
    }

    /** Waits for one successful completion on {@code cq}. */
    private static void await(CompletionQueue cq, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (cq.poll(WC, 1) == 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(what + ": no completion in 10 s");
            }
            Thread.onSpinWait();
        }
        assertEquals(WcStatus.SUCCESS, WC.status(0), what);
    }

    private static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (i * 31 + seed);
        }
        return b;
    }

    /** An RDMA WRITE from the active side lands in a segment of {@code arena}, registered on the passive side. */
    private static void writeArrivesIn(Arena arena, int seed) {
        MemorySegment target = arena.allocate(SIZE, 4096);
        byte[] want = pattern(SIZE, seed);
        try (MemoryRegion src = active.pd.allocateMemory(SIZE, Access.LOCAL_WRITE);
             MemoryRegion dst = Segments.register(passive.pd, target, ALL)) {
            assertEquals(target.address(), dst.address());
            assertEquals(SIZE, dst.length());
            src.putBytes(0, want);
            rdma(Opcode.RDMA_WRITE, src, dst, SIZE);
            assertArrayEquals(want, target.toArray(ValueLayout.JAVA_BYTE), "the bytes written are in the segment");
        }
    }

    @Test
    void rdmaWriteArrivesInAConfinedSegment() {
        try (Arena arena = Arena.ofConfined()) {
            writeArrivesIn(arena, 1);
        }
    }

    @Test
    void rdmaWriteArrivesInASharedSegment() {
        try (Arena arena = Arena.ofShared()) {
            writeArrivesIn(arena, 2);
        }
    }

    @Test
    void rdmaWriteArrivesInAnAutomaticSegment() {
        writeArrivesIn(Arena.ofAuto(), 3);
    }

    @Test
    void rdmaReadTakesTheBytesOutOfASegment() {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment source = arena.allocate(SIZE, 8);
            byte[] want = pattern(SIZE, 4);
            MemorySegment.copy(want, 0, source, ValueLayout.JAVA_BYTE, 0, SIZE);
            // read-only: the peer only reads it
            try (MemoryRegion remote = Segments.register(passive.pd, source.asReadOnly(), Access.REMOTE_READ);
                 MemoryRegion sink = active.pd.allocateMemory(SIZE, ALL)) {
                rdma(Opcode.RDMA_READ, sink, remote, SIZE);
                assertArrayEquals(want, sink.getBytes(0, SIZE));
            }
        }
    }

    @Test
    void theRegionsAccessorsAndTheViewSeeTheSameBytes() {
        try (Arena arena = Arena.ofConfined();
             MemoryRegion mr = Segments.register(active.pd, arena.allocate(4096, 8), ALL)) {
            MemorySegment view = Segments.segment(mr);
            assertEquals(mr.address(), view.address());
            assertEquals(mr.length(), view.byteSize());
            mr.putLong(8, 0x0123456789abcdefL);
            assertEquals(0x0123456789abcdefL, view.get(ValueLayout.JAVA_LONG, 8));
            view.asSlice(100, 3).copyFrom(MemorySegment.ofArray(new byte[] {7, 8, 9}));
            assertArrayEquals(new byte[] {7, 8, 9}, mr.getBytes(100, 3));
        }
    }

    @Test
    void theViewOfAnAllocatedRegionIsItsMemoryAndReadWrite() {
        try (MemoryRegion mr = active.pd.allocateMemory(8192, ALL)) {
            MemorySegment view = Segments.segment(mr);
            assertEquals(mr.address(), view.address());
            assertEquals(8192, view.byteSize());
            view.set(ValueLayout.JAVA_INT, 4096, 42);
            assertEquals(42, mr.getInt(4096));
        }
    }

    @Test
    void aHeapSegmentIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Segments.register(active.pd, MemorySegment.ofArray(new byte[64]), ALL));
        assertTrue(e.getMessage().contains("Arena"), e.getMessage());
    }

    @Test
    void aSegmentOfAClosedArenaIsRefused() {
        MemorySegment s;
        try (Arena arena = Arena.ofConfined()) {
            s = arena.allocate(64);
        }
        MemorySegment dead = s;
        assertThrows(IllegalStateException.class, () -> Segments.register(active.pd, dead, ALL));
    }

    @Test
    void anEmptySegmentAndWritesIntoAReadOnlyOneAreRefused() {
        try (Arena arena = Arena.ofConfined()) {
            assertThrows(IllegalArgumentException.class,
                    () -> Segments.register(active.pd, arena.allocate(0), Access.REMOTE_READ));
            MemorySegment readOnly = arena.allocate(64).asReadOnly();
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> Segments.register(active.pd, readOnly, Access.LOCAL_WRITE | Access.REMOTE_READ));
            assertTrue(e.getMessage().contains("LOCAL_WRITE"), e.getMessage());
            try (MemoryRegion mr = Segments.register(active.pd, readOnly, Access.REMOTE_READ)) {
                assertTrue(Segments.segment(mr).isReadOnly(), "the view of a read-only segment is read-only");
            }
        }
    }

    @Test
    void theViewOfAClosedRegionIsRefused() {
        MemoryRegion mr = active.pd.allocateMemory(4096, ALL);
        mr.close();
        assertThrows(IllegalStateException.class, () -> Segments.segment(mr));
    }

    /** Collects garbage a few times, with some churn so that the collector has work. */
    private static void collectGarbage() {
        for (int i = 0; i < 3; i++) {
            System.gc();
            assertNotNull(new byte[4 << 20]);
        }
    }

    /**
     * Registers a 1 MiB segment of an automatic arena (as {@code register} does, or by address as it does over
     * 2 GiB), keeping only a weak reference to the segment, then collects garbage: while the region is reachable
     * the segment stays reachable, so its memory stays allocated, and an RDMA WRITE into it arrives.
     */
    private static void anAutomaticSegmentSurvivesGc(Function<MemorySegment, MemoryRegion> register, int seed) {
        int size = 1 << 20;
        MemorySegment segment = Arena.ofAuto().allocate(size, 4096);
        WeakReference<MemorySegment> weak = new WeakReference<>(segment);
        MemoryRegion dst = register.apply(segment);
        segment = null;
        try (MemoryRegion src = active.pd.allocateMemory(size, Access.LOCAL_WRITE)) {
            collectGarbage();
            assertNotNull(weak.get(), "the region keeps its segment reachable");
            byte[] want = pattern(size, seed);
            src.putBytes(0, want);
            rdma(Opcode.RDMA_WRITE, src, dst, size);
            assertArrayEquals(want, dst.getBytes(0, size));
            assertArrayEquals(want, Segments.segment(dst).toArray(ValueLayout.JAVA_BYTE));
        } finally {
            dst.close();
        }
    }

    /** The control of the two tests below: a segment that nothing holds is collected (and its memory freed). */
    @Test
    void aSegmentRegisteredByRawAddressAloneIsCollected() {
        MemorySegment segment = Arena.ofAuto().allocate(4096, 4096);
        WeakReference<MemorySegment> weak = new WeakReference<>(segment);
        // the raw-address form holds nothing: the region is closed without touching the memory again
        try (MemoryRegion mr = passive.pd.registerMemory(segment.address(), 4096, ALL)) {
            segment = null;
            collectGarbage();
            assertEquals(null, weak.get(), "nothing holds the segment");
            assertNotNull(mr);
        }
    }

    @Test
    void aRegionKeepsItsAutomaticSegmentAliveThroughGc() {
        anAutomaticSegmentSurvivesGc(s -> Segments.register(passive.pd, s, ALL), 5);
    }

    @Test
    void aRegionRegisteredByAddressKeepsItsAutomaticSegmentAliveThroughGc() {
        anAutomaticSegmentSurvivesGc(s -> Segments.registerByAddress(passive.pd, s, ALL), 6);
    }

    @Test
    void theViewOfARegionWithoutABufferIsItsMemory() {
        try (Arena arena = Arena.ofShared();
             MemoryRegion mr = Segments.registerByAddress(active.pd, arena.allocate(4096, 8), ALL)) {
            assertEquals(null, mr.buffer());
            MemorySegment view = Segments.segment(mr);
            assertEquals(mr.address(), view.address());
            assertEquals(4096, view.byteSize());
            mr.putLong(0, 77);
            assertEquals(77, view.get(ValueLayout.JAVA_LONG, 0));
        }
    }

    @Test
    void aRegionOfAClosedArenaGivesNoView() {
        Arena arena = Arena.ofShared();
        try (MemoryRegion mr = Segments.register(active.pd, arena.allocate(4096, 8), ALL)) {
            arena.close();
            assertThrows(IllegalStateException.class, () -> Segments.segment(mr));
        }
    }
}
