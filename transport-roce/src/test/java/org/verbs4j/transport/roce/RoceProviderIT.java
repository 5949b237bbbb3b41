package org.verbs4j.transport.roce;

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
import org.verbs4j.api.AddressVector;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.Gid;
import org.verbs4j.api.GidEntry;
import org.verbs4j.api.GidType;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.Opcode;
import org.verbs4j.api.PortAttributes;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.QpAttributes;
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

    private static String env(String name) {
        String v = System.getenv(name);
        if (v == null || v.isEmpty()) {
            fail(name + " is not set: this integration test runs inside the fabric lab (lab/run -- ...) or on a "
                    + "machine where FABRIC_LAB_RXE_DEV, FABRIC_LAB_RXE_IP and FABRIC_LAB_RXE_GID_INDEX describe a "
                    + "real RoCE device");
        }
        return v;
    }

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
        String name = env("FABRIC_LAB_RXE_DEV");
        int labIndex = Integer.parseInt(env("FABRIC_LAB_RXE_GID_INDEX"));
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
            assertEquals(Gid.parse(env("FABRIC_LAB_RXE_IP")), g.gid());
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
        String name = env("FABRIC_LAB_RXE_DEV");
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
                    && e.getMessage().contains("(IPv4 " + env("FABRIC_LAB_RXE_IP") + ")"), e.getMessage());
        }
    }

    /**
     * Two RC queue pairs of rxe0, connected to each other the way two hosts would be: each side's
     * {@link QpEndpoint} goes through its wire text, the other side's provider turns it into the address
     * vector of RTR. A SEND from A must arrive in B's buffer.
     */
    @Test
    void queuePairsConnectedWithTheProvidersAddressVectorsCarryAMessage() {
        String name = env("FABRIC_LAB_RXE_DEV");
        RdmaDevice device = Rdma.device(name);
        byte[] message = "hello over RoCE v2 through the roce provider".getBytes(StandardCharsets.US_ASCII);
        try (DeviceContext ctx = device.open();
                ProtectionDomain pd = ctx.allocProtectionDomain();
                CompletionQueue cqA = ctx.createCompletionQueue(16);
                CompletionQueue cqB = ctx.createCompletionQueue(16);
                QueuePair a = pd.createQueuePair(new QpInitAttributes(QpType.RC, cqA, cqA).maxSendWr(4).maxRecvWr(4)
                        .maxSendSge(1).maxRecvSge(1));
                QueuePair b = pd.createQueuePair(new QpInitAttributes(QpType.RC, cqB, cqB).maxSendWr(4).maxRecvWr(4)
                        .maxSendSge(1).maxRecvSge(1));
                MemoryRegion mrA = pd.allocateMemory(4096, Access.LOCAL_WRITE);
                MemoryRegion mrB = pd.allocateMemory(4096, Access.LOCAL_WRITE);
                SendRequests send = SendRequests.allocate(1, 1);
                ReceiveRequests recv = ReceiveRequests.allocate(1, 1);
                WorkCompletions wc = WorkCompletions.allocate(4)) {
            PortAttributes port = ctx.queryPort(PORT);
            FabricProvider f = Fabrics.forPort(device, port, null);
            GidEntry gid = f.sourceGid(port, ctx.queryGidTable(), null);
            String wireA = f.localEndpoint(port, gid, a.qpNumber(), 0x0a0a0a).toWire();
            String wireB = f.localEndpoint(port, gid, b.qpNumber(), 0x0b0b0b).toWire();

            connect(f, port, gid, a, 0x0a0a0a, QpEndpoint.parseWire(wireB));
            connect(f, port, gid, b, 0x0b0b0b, QpEndpoint.parseWire(wireA));
            assertEquals(QpState.RTS, a.state());
            assertEquals(QpState.RTS, b.state());

            recv.at(0).wrId(2).sge(mrB.address(), 4096, mrB.lkey());
            recv.count(1);
            b.postReceive(recv);
            mrA.putBytes(0, message);
            send.at(0).wrId(1).opcode(Opcode.SEND).flags(SendFlags.SIGNALED).sge(mrA.address(), message.length, mrA.lkey());
            send.count(1);
            a.postSend(send);

            awaitOne(cqA, wc, 1, "send completion");
            awaitOne(cqB, wc, 2, "receive completion");
            assertEquals(message.length, wc.byteLength(0));
            assertArrayEquals(message, mrB.getBytes(0, message.length));
        }
    }

    private static void connect(FabricProvider f, PortAttributes port, GidEntry gid, QueuePair qp, int sqPsn, QpEndpoint remote) {
        AddressVector av = f.addressVector(port, gid, remote, null);
        assertTrue(av.isGlobal(), av.toString());
        assertEquals(64, av.hopLimit());
        qp.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(PORT).accessFlags(0));
        qp.modify(new QpAttributes().state(QpState.RTR).pathMtu(port.activeMtu()).destQpNum(remote.qpn())
                .rqPsn(remote.psn()).maxDestRdAtomic(1).minRnrTimer(12).addressVector(av));
        qp.modify(new QpAttributes().state(QpState.RTS).sqPsn(sqPsn).timeout(14).retryCount(7).rnrRetry(7).maxRdAtomic(1));
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
