package org.verbs4j.it;

import org.verbs4j.lab.Lab;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.verbs4j.api.Access;
import org.verbs4j.api.AddressVector;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.Opcode;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.QpAttributes;
import org.verbs4j.api.QpConnector;
import org.verbs4j.api.QpInitAttributes;
import org.verbs4j.api.QpState;
import org.verbs4j.api.QpType;
import org.verbs4j.api.QueuePair;
import org.verbs4j.api.Rdma;
import org.verbs4j.api.ReceiveRequests;
import org.verbs4j.api.SendFlags;
import org.verbs4j.api.SendRequests;
import org.verbs4j.api.TransportType;
import org.verbs4j.api.VerbsException;
import org.verbs4j.api.WaitStrategy;
import org.verbs4j.api.WcOpcode;
import org.verbs4j.api.WcStatus;
import org.verbs4j.api.WorkCompletions;

/** Unreliable connected QPs: the transitions UC needs (no atomics/read attributes), SEND and WRITE_WITH_IMM. */
class CoreVerbsUcIT {
    private static final long TIMEOUT = 10_000_000_000L;

    /**
     * The run's device with UC queue pairs: the first of an InfiniBand transport (rxe0 in the lab). A run whose
     * devices are all iWARP (RC only) skips the UC tests; the lab has rxe0, so there they always run.
     */
    private static String ucDevice() {
        for (String d : Lab.devices()) {
            if (Rdma.device(d).transportType() != TransportType.IWARP) {
                return d;
            }
        }
        Assumptions.abort("no device of this run has UC queue pairs (iWARP devices have RC only): " + Lab.devices());
        return null;
    }

    @Test
    void ucQueuePairsSendAndWriteWithImmediate() {
        try (DeviceContext ctx = Rdma.open(ucDevice()); ProtectionDomain pd = ctx.allocProtectionDomain();
                CompletionQueue cq = ctx.createCompletionQueue(32);
                MemoryRegion mr = pd.allocateMemory(8192, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
                QueuePair a = pd.createQueuePair(new QpInitAttributes(QpType.UC, cq, cq).maxSendWr(8).maxRecvWr(8));
                QueuePair b = pd.createQueuePair(new QpInitAttributes(QpType.UC, cq, cq).maxSendWr(8).maxRecvWr(8));
                SendRequests wrs = SendRequests.allocate(1, 1); ReceiveRequests rrs = ReceiveRequests.allocate(1, 1);
                WorkCompletions wc = WorkCompletions.allocate(4)) {
            // UC through QpConnector: INIT with remote write, RTR/RTS without the read, atomic and timer attributes
            QpConnector ca = QpConnector.builder(ctx, a).psn(0x123).prepare();
            QpConnector cb = QpConnector.builder(ctx, b).psn(0x123).prepare();
            ca.connect(cb.localEndpoint());
            cb.connect(ca.localEndpoint());
            assertEquals(QpState.RTS, a.state());
            assertEquals(QpState.RTS, b.state());
            assertEquals(QpType.UC, a.type());

            byte[] msg = "unreliable connected".getBytes(StandardCharsets.US_ASCII);
            mr.putBytes(0, msg);
            rrs.at(0).wrId(10).sge(mr.address() + 4096, 1024, mr.lkey());
            b.postReceive(rrs);
            wrs.at(0).wrId(1).opcode(Opcode.SEND).flags(SendFlags.SIGNALED).sge(mr.address(), msg.length, mr.lkey());
            a.postSend(wrs);
            int seen = 0;
            boolean sent = false;
            boolean received = false;
            while (seen < 2) {
                int n = WaitStrategy.busySpin().await(cq, wc, TIMEOUT);
                assertTrue(n > 0, "no completion within 10 s");
                for (int i = 0; i < n; i++, seen++) {
                    assertEquals(WcStatus.SUCCESS, wc.status(i), wc.toString(i));
                    if (wc.opcode(i) == WcOpcode.RECV) {
                        assertEquals(msg.length, wc.byteLength(i));
                        assertEquals(b.qpNumber(), wc.qpNum(i));
                        received = true;
                    } else {
                        assertEquals(WcOpcode.SEND, wc.opcode(i));
                        sent = true;
                    }
                }
            }
            assertTrue(sent && received);
            assertArrayEquals(msg, mr.getBytes(4096, msg.length));

            // RDMA write with immediate: data lands at the target, the immediate consumes a receive
            rrs.at(0).wrId(11).sge(mr.address() + 4096, 16, mr.lkey());
            b.postReceive(rrs);
            wrs.at(0).wrId(2).opcode(Opcode.RDMA_WRITE_WITH_IMM).flags(SendFlags.SIGNALED).immData(0xc0ffee)
                    .sge(mr.address(), msg.length, mr.lkey()).rdma(mr.address() + 6144, mr.rkey());
            a.postSend(wrs);
            seen = 0;
            while (seen < 2) {
                int n = WaitStrategy.busySpin().await(cq, wc, TIMEOUT);
                assertTrue(n > 0, "no completion within 10 s");
                for (int i = 0; i < n; i++, seen++) {
                    assertEquals(WcStatus.SUCCESS, wc.status(i), wc.toString(i));
                    if (wc.opcode(i) == WcOpcode.RECV_RDMA_WITH_IMM) {
                        assertEquals(0xc0ffee, wc.immData(i));
                        assertEquals(msg.length, wc.byteLength(i));
                    }
                }
            }
            assertArrayEquals(msg, mr.getBytes(6144, msg.length));
        }
    }

    /** UC has no RDMA read, atomics or their attributes: asking for max_rd_atomic at RTS is refused. */
    @Test
    void ucRefusesReadAttributes() {
        try (DeviceContext ctx = Rdma.open(ucDevice()); ProtectionDomain pd = ctx.allocProtectionDomain();
                CompletionQueue cq = ctx.createCompletionQueue(8);
                QueuePair a = pd.createQueuePair(new QpInitAttributes(QpType.UC, cq, cq))) {
            a.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(Access.REMOTE_WRITE));
            VerbsException e = assertThrows(VerbsException.class, () -> a.modify(new QpAttributes().state(QpState.RTR)
                    .pathMtu(ctx.queryPort(1).activeMtu()).destQpNum(a.qpNumber()).rqPsn(0).maxDestRdAtomic(1)
                    .addressVector(AddressVector.global(1, ctx.queryGid(1, 1), 1))));
            assertEquals("EINVAL", e.errnoName(), e.getMessage());
            assertTrue(e.getMessage().contains("ibv_modify_qp") && e.getMessage().contains("max_dest_rd_atomic"),
                    e.getMessage());
        }
    }

    @Test
    void iwarpHasNoUnreliableConnectedQueuePairs() {
        try (DeviceContext ctx = Rdma.open(Lab.iwarpDevice()); ProtectionDomain pd = ctx.allocProtectionDomain();
                CompletionQueue cq = ctx.createCompletionQueue(8)) {
            VerbsException e = assertThrows(VerbsException.class,
                    () -> pd.createQueuePair(new QpInitAttributes(QpType.UC, cq, cq)).close());
            assertTrue(e.getMessage().startsWith("ibv_create_qp failed (UC on " + Lab.iwarpDevice()), e.getMessage());
        }
    }
}
