package org.verbs4j.transport.roce;

import org.verbs4j.lab.Lab;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.verbs4j.api.Access;
import org.verbs4j.api.AddressHandle;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.Gid;
import org.verbs4j.api.GidEntry;
import org.verbs4j.api.GidType;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.Opcode;
import org.verbs4j.api.PortAttributes;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.QpAttrMask;
import org.verbs4j.api.QpAttributes;
import org.verbs4j.api.QpConnector;
import org.verbs4j.api.QpEndpoint;
import org.verbs4j.api.QpInitAttributes;
import org.verbs4j.api.QpState;
import org.verbs4j.api.QpType;
import org.verbs4j.api.QueuePair;
import org.verbs4j.api.Rdma;
import org.verbs4j.api.RdmaDevice;
import org.verbs4j.api.ReceiveRequests;
import org.verbs4j.api.SendFlags;
import org.verbs4j.api.SendRequests;
import org.verbs4j.api.WorkCompletions;
import org.verbs4j.api.FabricOptions;
import org.verbs4j.api.spi.FabricProvider;
import org.verbs4j.api.spi.Fabrics;

/**
 * The RoCE provider on the fabric lab's real Soft-RoCE device ({@code FABRIC_LAB_RXE_DEV}, rxe0): the port
 * and GID table come from libibverbs, the GID index must be the one the lab found in sysfs
 * ({@code FABRIC_LAB_RXE_GID_INDEX}), and two queue pairs connected with nothing but the provider's
 * endpoints (through their wire form) and address vectors must carry a message.
 */
class RoceProviderIT {
    private static final int PORT = 1;

    private static String sysfs(String device, String path) {
        try {
            return Files.readString(Path.of("/sys/class/infiniband", device, "ports", String.valueOf(PORT), path),
                    StandardCharsets.US_ASCII).trim();
        } catch (IOException e) {
            throw new AssertionError("cannot read sysfs " + path + " of " + device + ": " + e, e);
        }
    }

    @Test
    void forPortPicksRoceAndTheLabsGidIndex() {
        String name = Lab.env("FABRIC_LAB_RXE_DEV");
        int labIndex = Integer.parseInt(Lab.env("FABRIC_LAB_RXE_GID_INDEX"));
        RdmaDevice device = Rdma.device(name);
        try (DeviceContext ctx = device.open()) {
            PortAttributes port = ctx.queryPort(PORT);
            List<GidEntry> table = ctx.queryGidTable();
            FabricProvider f = Fabrics.forPort(device, port, FabricOptions.defaults());
            assertEquals("roce", f.name());
            assertTrue(f instanceof RoceProvider, f.toString());

            GidEntry g = f.sourceGid(port, table, FabricOptions.defaults());
            assertEquals(labIndex, g.index(), "table: " + table);
            assertEquals(GidType.ROCE_V2, g.type());
            assertEquals(Gid.parse(Lab.env("FABRIC_LAB_RXE_IP")), g.gid());
            // the same entry as the kernel shows it, read independently of libibverbs
            assertEquals(g.gid(), Gid.parse(sysfs(name, "gids/" + labIndex)));
            assertEquals("RoCE v2", sysfs(name, "gid_attrs/types/" + labIndex));
            assertEquals(g, ctx.queryGidEntry(PORT, labIndex));

            QpEndpoint me = f.localEndpoint(port, g, 0x123, 0x456);
            assertEquals(0, me.lid());
            assertEquals(me, QpEndpoint.parseWire(me.toWire()));
        }
    }

    @Test
    void anExplicitIndexWinsAndAMissingOneListsTheRealTable() {
        String name = Lab.env("FABRIC_LAB_RXE_DEV");
        RdmaDevice device = Rdma.device(name);
        try (DeviceContext ctx = device.open()) {
            PortAttributes port = ctx.queryPort(PORT);
            List<GidEntry> table = ctx.queryGidTable();
            RoceProvider roce = new RoceProvider();
            GidEntry zero = roce.sourceGid(port, table, FabricOptions.defaults().gidIndex(0));
            assertEquals(0, zero.index());
            assertEquals(Gid.parse(sysfs(name, "gids/0")), zero.gid());
            int missing = port.gidTableLength() - 1; // rxe: 1024 slots, 2 or 3 used
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> roce.sourceGid(port, table, FabricOptions.defaults().gidIndex(missing)));
            assertTrue(e.getMessage().contains("GID index " + missing + " is not in the GID table of port 1")
                    // the real table: rxe0's IPv4-mapped GID, as ibv_devinfo prints a RoCE v2 GID (::ffff:a.b.c.d)
                    && e.getMessage().contains("::ffff:" + Lab.env("FABRIC_LAB_RXE_IP") + " RoCE v2"), e.getMessage());
        }
    }

    /**
     * Two RC queue pairs of rxe0, connected to each other the way two hosts would be: each side's
     * {@link QpEndpoint} from {@link QpConnector} goes through its wire text, the other side's connector takes it
     * to RTS with the provider's address vector. A SEND from A must arrive in B's buffer, and an RDMA WRITE from
     * A must land in B's region.
     */
    @Test
    void queuePairsConnectedWithQpConnectorCarryASendAndAnRdmaWrite() {
        String name = Lab.env("FABRIC_LAB_RXE_DEV");
        byte[] message = "hello over RoCE v2 through QpConnector".getBytes(StandardCharsets.US_ASCII);
        byte[] written = "written by RDMA WRITE".getBytes(StandardCharsets.US_ASCII);
        int access = Access.LOCAL_WRITE | Access.REMOTE_WRITE;
        try (Two t = new Two(name, QpType.RC, access)) {
            DeviceContext ctx = t.ctx;
            QueuePair a = t.a;
            QueuePair b = t.b;
            QpConnector ca = QpConnector.prepare(ctx, a, PORT, FabricOptions.defaults());
            QpConnector cb = QpConnector.builder(ctx, b).port(PORT).access(Access.REMOTE_WRITE).psn(0x0b0b0b).prepare();
            assertEquals(QpState.INIT, a.state());
            assertEquals("roce", ca.fabricName());
            assertEquals(Integer.parseInt(Lab.env("FABRIC_LAB_RXE_GID_INDEX")), ca.sourceGid().index());
            // receives may be posted in INIT, before the peer is known
            t.recv.at(0).wrId(2).sge(t.mrB.address(), 4096, t.mrB.lkey());
            b.postReceive(t.recv);

            String wireA = ca.localEndpoint().toWire();
            String wireB = cb.localEndpoint().toWire();
            assertEquals(ctx.queryPort(PORT).activeMtu(), ca.connect(QpEndpoint.parseWire(wireB)));
            cb.connect(QpEndpoint.parseWire(wireA));
            QpAttributes q = a.query(QpAttrMask.STATE | QpAttrMask.DEST_QPN | QpAttrMask.SQ_PSN | QpAttrMask.RQ_PSN
                    | QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT | QpAttrMask.MIN_RNR_TIMER | QpAttrMask.AV);
            assertEquals(QpState.RTS, q.state());
            assertEquals(QpState.RTS, b.state());
            assertEquals(b.qpNumber(), q.destQpNum());
            assertEquals(ca.psn(), q.sqPsn());
            assertEquals(0x0b0b0b, q.rqPsn());
            assertEquals(FabricProvider.DEFAULT_TIMEOUT, q.timeout());
            assertEquals(FabricProvider.DEFAULT_RETRY, q.retryCount());
            assertEquals(FabricProvider.DEFAULT_MIN_RNR_TIMER, q.minRnrTimer());
            assertEquals(64, q.addressVector().hopLimit(), q.addressVector().toString());

            t.mrA.putBytes(0, message);
            t.send.at(0).wrId(1).opcode(Opcode.SEND).flags(SendFlags.SIGNALED).sge(t.mrA.address(), message.length, t.mrA.lkey());
            a.postSend(t.send);
            awaitOne(t.cqA, t.wc, 1, "send completion");
            awaitOne(t.cqB, t.wc, 2, "receive completion");
            assertEquals(message.length, t.wc.byteLength(0));
            assertArrayEquals(message, t.mrB.getBytes(0, message.length));

            t.mrA.putBytes(0, written);
            t.send.at(0).clear().wrId(3).opcode(Opcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                    .sge(t.mrA.address(), written.length, t.mrA.lkey()).rdma(t.mrB.address() + 4096, t.mrB.rkey());
            a.postSend(t.send);
            awaitOne(t.cqA, t.wc, 3, "RDMA WRITE completion");
            assertArrayEquals(written, t.mrB.getBytes(4096, written.length), "the write landed in B's region");
        }
    }

    /**
     * Two UD queue pairs of rxe0 prepared with the same Q_Key and moved to RTS by {@link QpConnector}: a
     * datagram through the connector's address handle arrives after the 40-byte GRH, from A's QP.
     */
    @Test
    void datagramQueuePairsConnectedWithQpConnectorCarryADatagram() {
        String name = Lab.env("FABRIC_LAB_RXE_DEV");
        byte[] message = "a datagram through QpConnector".getBytes(StandardCharsets.US_ASCII);
        int qkey = 0x0badcafe;
        try (Two t = new Two(name, QpType.UD, Access.LOCAL_WRITE)) {
            DeviceContext ctx = t.ctx;
            QueuePair a = t.a;
            QueuePair b = t.b;
            QpConnector ca = QpConnector.builder(ctx, a).port(PORT).qkey(qkey).prepare();
            QpConnector cb = QpConnector.builder(ctx, b).port(PORT).qkey(qkey).prepare();
            QpEndpoint peerB = QpEndpoint.parseWire(cb.localEndpoint().toWire());
            ca.connect(peerB);
            cb.connect(null);
            assertEquals(QpState.RTS, a.state());
            assertEquals(qkey, b.query(QpAttrMask.QKEY).qkey());
            t.recv.at(0).wrId(2).sge(t.mrB.address(), 40 + 1024, t.mrB.lkey());
            b.postReceive(t.recv);
            try (AddressHandle ah = ca.addressHandle(peerB)) {
                t.mrA.putBytes(0, message);
                t.send.at(0).wrId(1).opcode(Opcode.SEND).flags(SendFlags.SIGNALED)
                        .sge(t.mrA.address(), message.length, t.mrA.lkey()).ud(ah, peerB.qpn(), qkey);
                a.postSend(t.send);
                awaitOne(t.cqA, t.wc, 1, "send completion");
                awaitOne(t.cqB, t.wc, 2, "receive completion");
                assertEquals(40 + message.length, t.wc.byteLength(0), "byte_len counts the GRH");
                assertEquals(a.qpNumber(), t.wc.srcQp(0));
                assertArrayEquals(message, t.mrB.getBytes(40, message.length));
            }
        }
    }

    /** Two queue pairs of {@code type} on {@code device}, each with its CQ and a 8 KiB region; one request of each kind. */
    private static final class Two implements AutoCloseable {
        final DeviceContext ctx;
        final ProtectionDomain pd;
        final CompletionQueue cqA;
        final CompletionQueue cqB;
        final QueuePair a;
        final QueuePair b;
        final MemoryRegion mrA;
        final MemoryRegion mrB;
        final SendRequests send = SendRequests.allocate(1, 1);
        final ReceiveRequests recv = ReceiveRequests.allocate(1, 1);
        final WorkCompletions wc = WorkCompletions.allocate(4);

        Two(String device, QpType type, int access) {
            ctx = Rdma.open(device);
            pd = ctx.allocProtectionDomain();
            cqA = ctx.createCompletionQueue(16);
            cqB = ctx.createCompletionQueue(16);
            a = pd.createQueuePair(new QpInitAttributes(type, cqA, cqA).maxSendWr(4).maxRecvWr(4).maxSendSge(1)
                    .maxRecvSge(1));
            b = pd.createQueuePair(new QpInitAttributes(type, cqB, cqB).maxSendWr(4).maxRecvWr(4).maxSendSge(1)
                    .maxRecvSge(1));
            mrA = pd.allocateMemory(8192, access);
            mrB = pd.allocateMemory(8192, access);
        }

        @Override
        public void close() {
            for (AutoCloseable c : new AutoCloseable[] {wc, recv, send, mrB, mrA, b, a, cqB, cqA, pd, ctx}) {
                try {
                    c.close();
                } catch (Exception e) {
                    throw new AssertionError("closing " + c, e);
                }
            }
        }
    }

    private static void awaitOne(CompletionQueue cq, WorkCompletions wc, long wrId, String what) {
        long deadline = System.nanoTime() + 30_000_000_000L; // the lab VM is slow
        int n;
        while ((n = cq.poll(wc, 1)) == 0) {
            if (System.nanoTime() > deadline) {
                fail("no " + what + " within 30 s");
            }
            Thread.onSpinWait();
        }
        assertEquals(1, n);
        assertTrue(wc.ok(0), what + ": " + wc.status(0));
        assertEquals(wrId, wc.wrId(0), what);
    }
}
