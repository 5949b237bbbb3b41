package org.verbs4j.it;

import org.verbs4j.lab.QpPair;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.verbs4j.api.Access;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.Opcode;
import org.verbs4j.api.PostException;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.QpAttributes;
import org.verbs4j.api.QpInitAttributes;
import org.verbs4j.api.QpState;
import org.verbs4j.api.QpType;
import org.verbs4j.api.QueuePair;
import org.verbs4j.api.Rdma;
import org.verbs4j.api.SendFlags;
import org.verbs4j.api.SendRequests;
import org.verbs4j.api.WcStatus;

/**
 * Nothing a user posts is lost silently, whatever the provider does: posts that do not fit the queue, or that
 * the QP's state forbids, are refused before the provider sees them, and a post the provider cuts short says
 * where. On siw each of these returned success and the requests vanished.
 */
class PostChecksIT {

    /** Request {@code i}: a signaled 8-byte RDMA WRITE from A's buffer to B's, with id {@code id}. */
    private static void write(QpPair p, SendRequests s, int i, long id) {
        s.at(i).clear().wrId(id).opcode(Opcode.RDMA_WRITE).flags(SendFlags.SIGNALED).sge(p.a.mr, 8 * (i % 64), 8)
                .rdma(p.b.mr.address(), p.b.mr.rkey());
    }

    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void aChainLongerThanTheSendQueueIsRefusedAndNothingIsPosted(String device) {
        try (QpPair p = QpPair.open(device, new QpPair.Options().queues(16, 16, 0));
                SendRequests s = SendRequests.allocate(64, 1)) {
            int depth = p.a.qp.capabilities().maxSendWr();
            int n = Math.min(64, depth + 1);
            for (int i = 0; i < n; i++) {
                write(p, s, i, i);
            }
            s.count(n);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> p.a.qp.postSend(s));
            System.out.println("OBSERVED " + device + " chain of " + n + " on max_send_wr " + depth + ": " + e.getMessage());
            assertTrue(e.getMessage().contains("longer than"), e.getMessage());
            assertEquals(List.of(), QpPair.drain(p.a.cq, 300), "nothing was posted");
            s.count(1);
            p.a.qp.postSend(s);
            // the one completion, then a while for any other (waiting the full time for one made this test 30 s)
            List<QpPair.Wc> wcs = new ArrayList<>(QpPair.take(p.a.cq, 1));
            wcs.addAll(QpPair.drain(p.a.cq, 300));
            assertEquals(1, wcs.size(), "the QP still works: " + wcs);
            assertEquals(WcStatus.SUCCESS, wcs.get(0).status());
        }
    }

    /**
     * Fills the send queue on purpose: chains of 16 KiB RDMA READs with one read outstanding at a time
     * (max_rd_atomic 1), posted without polling until a post fails. Every request a post accepted completes,
     * and the failed post names the first request it did not take. Before the bad_wr check, siw returned
     * success for the post that overflowed and dropped the rest of its chain.
     */
    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void aFullSendQueueLosesNothing(String device) {
        QpPair.Options o = new QpPair.Options().queues(16, 16, 512);
        o.rdAtomic = 1;
        try (QpPair p = QpPair.open(device, o); SendRequests s = SendRequests.allocate(16, 1)) {
            int depth = p.a.qp.capabilities().maxSendWr();
            int chain = Math.min(16, depth);
            int size = 16 * 1024;
            long posted = 0;
            PostException refused = null;
            for (int round = 0; round < 16 && refused == null; round++) {
                for (int i = 0; i < chain; i++) {
                    s.at(i).clear().wrId(posted + i).opcode(Opcode.RDMA_READ).flags(SendFlags.SIGNALED)
                            .sge(p.a.mr, (long) (i % 4) * size, size).rdma(p.b.mr.address() + (long) (i % 4) * size,
                                    p.b.mr.rkey());
                }
                s.count(chain);
                try {
                    p.a.qp.postSend(s);
                    posted += chain;
                } catch (PostException e) {
                    refused = e;
                    posted += Math.max(0, e.failedIndex());
                }
            }
            // every accepted request's completion, then a while for any other
            List<QpPair.Wc> wcs = new ArrayList<>(QpPair.take(p.a.cq, (int) posted, 10_000));
            wcs.addAll(QpPair.drain(p.a.cq, 300));
            System.out.println("OBSERVED " + device + " max_send_wr " + depth + ", chains of " + chain + " reads: posted "
                    + posted + ", completions " + wcs.size() + ", refused: " + (refused == null ? "never" : refused.getMessage()));
            if (p.transport == org.verbs4j.api.TransportType.IWARP) {
                // siw dropped the rest of the overflowing chain and returned success; rxe drains its queue in
                // the post's own system call in the lab, faster than reads can fill it, and reports ENOMEM itself
                assertTrue(refused != null, "the send queue never filled: this run did not test a full queue");
            }
            assertEquals(posted, wcs.size(), "every request a post accepted completes, and no other");
            for (QpPair.Wc wc : wcs) {
                assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
            }
        }
    }

    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void moreEntriesThanTheQueueTakesAreRefused(String device) {
        try (QpPair p = QpPair.open(device); SendRequests s = SendRequests.allocate(1, 64)) {
            int max = p.a.qp.capabilities().maxSendSge();
            int n = Math.min(64, max + 1);
            for (int j = 0; j < n; j++) {
                s.at(0).sge(j, p.a.mr, 8L * j, 8);
            }
            s.at(0).wrId(1).opcode(Opcode.RDMA_WRITE).flags(SendFlags.SIGNALED).numSge(n)
                    .rdma(p.b.mr.address(), p.b.mr.rkey());
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> p.a.qp.postSend(s));
            System.out.println("OBSERVED " + device + " " + n + " SGEs on max_send_sge " + max + ": " + e.getMessage());
            assertTrue(e.getMessage().contains("takes at most " + max), e.getMessage());
            assertEquals(List.of(), QpPair.drain(p.a.cq, 300));
        }
    }

    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void aSendOnAQueuePairInInitIsRefused(String device) {
        try (DeviceContext ctx = Rdma.open(device); ProtectionDomain pd = ctx.allocProtectionDomain();
                CompletionQueue cq = ctx.createCompletionQueue(16);
                QueuePair qp = pd.createQueuePair(new QpInitAttributes(QpType.RC, cq, cq).maxSendWr(4).maxRecvWr(4));
                MemoryRegion mr = pd.allocateMemory(4096, Access.LOCAL_WRITE);
                SendRequests s = SendRequests.allocate(1, 1)) {
            qp.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1)
                    .accessFlags(Access.LOCAL_WRITE).mask(org.verbs4j.api.QpAttrMask.STATE | org.verbs4j.api.QpAttrMask.PKEY_INDEX
                            | org.verbs4j.api.QpAttrMask.PORT | org.verbs4j.api.QpAttrMask.ACCESS_FLAGS));
            // no state() check here: siw's ibv_query_qp reports RESET whatever the state
            s.at(0).wrId(1).opcode(Opcode.SEND).flags(SendFlags.SIGNALED).sge(mr, 0, 8);
            PostException e = assertThrows(PostException.class, () -> qp.postSend(s));
            System.out.println("OBSERVED " + device + " send in INIT: " + e.getMessage());
            assertTrue(e.getMessage().contains("state INIT") && e.getMessage().contains("RTS to send"), e.getMessage());
            assertEquals(List.of(), QpPair.drain(cq, 300));
        }
    }
}
