package org.verbs4j.it;

import org.verbs4j.lab.CmLoopback;
import org.verbs4j.lab.QpPair;

import org.verbs4j.lab.Lab;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.verbs4j.api.Access;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.Opcode;
import org.verbs4j.api.QpInitAttributes;
import org.verbs4j.api.QpState;
import org.verbs4j.api.QpType;
import org.verbs4j.api.ReceiveRequests;
import org.verbs4j.api.SendFlags;
import org.verbs4j.api.SendRequests;
import org.verbs4j.api.TransportType;
import org.verbs4j.api.WaitStrategy;
import org.verbs4j.api.WcOpcode;
import org.verbs4j.api.WcStatus;
import org.verbs4j.api.WorkCompletions;

/** The rdma_cm fixture itself: QPs it connects are in RTS and move data, on RoCE and on iWARP. */
class CmLoopbackIT {

    static List<String> ips() {
        return Lab.hasFabric("roce") ? List.of(Lab.env("FABRIC_LAB_RXE_IP"), Lab.env("FABRIC_LAB_SIW_IP"))
                : List.of(Lab.env("FABRIC_LAB_SIW_IP"));
    }

    @ParameterizedTest
    @MethodSource("ips")
    void connectsTwoQueuePairsThatSendAndWrite(String ip) throws Exception {
        CompletionQueue[] cqs = new CompletionQueue[2];
        CmLoopback cm = CmLoopback.connect(InetAddress.getByName(ip), 7471, (ctx, pd, server) -> {
            CompletionQueue cq = ctx.createCompletionQueue(16);
            cqs[server ? 1 : 0] = cq;
            return new QpInitAttributes(QpType.RC, cq, cq).maxSendWr(8).maxRecvWr(8);
        });
        try (MemoryRegion mr = cm.protectionDomain().allocateMemory(4096, Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ);
                SendRequests wrs = SendRequests.allocate(1, 1);
                ReceiveRequests rrs = ReceiveRequests.allocate(1, 1);
                WorkCompletions wc = WorkCompletions.allocate(4)) {
            if (cm.context().device().transportType() == TransportType.IB) {
                assertEquals(QpState.RTS, cm.client().state());
                assertEquals(QpState.RTS, cm.server().state());
            }
            // siw before Linux 6.3 leaves qp_state out of ibv_query_qp (always RESET): the data below proves RTS
            byte[] msg = ("over rdma_cm on " + ip).getBytes(StandardCharsets.US_ASCII);
            mr.putBytes(0, msg);
            rrs.at(0).wrId(2).sge(mr.address() + 1024, 1024, mr.lkey());
            cm.server().postReceive(rrs);
            wrs.at(0).wrId(1).opcode(Opcode.SEND).flags(SendFlags.SIGNALED).sge(mr.address(), msg.length, mr.lkey());
            cm.client().postSend(wrs);
            assertEquals(1, WaitStrategy.busySpin().await(cqs[0], wc, 10_000_000_000L));
            assertEquals(WcStatus.SUCCESS, wc.status(0), wc.toString(0));
            assertEquals(WcOpcode.SEND, wc.opcode(0));
            assertEquals(1, WaitStrategy.busySpin().await(cqs[1], wc, 10_000_000_000L));
            assertEquals(WcStatus.SUCCESS, wc.status(0), wc.toString(0));
            assertEquals(WcOpcode.RECV, wc.opcode(0));
            assertEquals(msg.length, wc.byteLength(0));
            assertArrayEquals(msg, mr.getBytes(1024, msg.length));

            wrs.at(0).wrId(3).opcode(Opcode.RDMA_WRITE).flags(SendFlags.SIGNALED).sge(mr.address(), msg.length, mr.lkey())
                    .rdma(mr.address() + 2048, mr.rkey());
            cm.client().postSend(wrs);
            assertEquals(1, WaitStrategy.busySpin().await(cqs[0], wc, 10_000_000_000L));
            assertEquals(WcStatus.SUCCESS, wc.status(0), wc.toString(0));
            // on iWARP the write's completion does not mean placement: a read behind it does
            QpPair.awaitWritesPlaced(cm.client(), cqs[0], mr, 3072, mr.address(), mr.rkey());
            assertArrayEquals(msg, mr.getBytes(2048, msg.length));
        } finally {
            cm.closeWith(cqs);
        }
        assertTrue(cm.protectionDomain().isClosed());
    }
}
