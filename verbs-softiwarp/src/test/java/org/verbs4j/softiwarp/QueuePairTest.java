package org.verbs4j.softiwarp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.verbs4j.api.Access;
import org.verbs4j.api.AsyncEvent;
import org.verbs4j.api.AsyncEventType;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.Opcode;
import org.verbs4j.api.PostException;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.QpAttrMask;
import org.verbs4j.api.QpAttributes;
import org.verbs4j.api.QpInitAttributes;
import org.verbs4j.api.QpState;
import org.verbs4j.api.QpType;
import org.verbs4j.api.QueuePair;
import org.verbs4j.api.ReceiveRequests;
import org.verbs4j.api.SendFlags;
import org.verbs4j.api.SendRequests;
import org.verbs4j.api.VerbsException;
import org.verbs4j.api.WcOpcode;
import org.verbs4j.api.WcStatus;
import org.verbs4j.api.WorkCompletions;
import org.verbs4j.api.internal.RawMemory;
import org.verbs4j.api.internal.WrLayout;

class QueuePairTest {
    private final DeviceContext ctx = SoftIwarp.devices().get(0).open();
    private final ProtectionDomain pd = ctx.allocProtectionDomain();
    private final CompletionQueue scq = ctx.createCompletionQueue(64);
    private final CompletionQueue rcq = ctx.createCompletionQueue(64);
    private final MemoryRegion mr = pd.allocateMemory(4096, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
    private final SendRequests sends = SendRequests.allocate(8, 4);
    private final ReceiveRequests recvs = ReceiveRequests.allocate(8, 4);
    private final WorkCompletions wc = WorkCompletions.allocate(32);
    private QueuePair qp;

    @AfterEach
    void close() {
        if (qp != null) {
            qp.close();
        }
        sends.close();
        recvs.close();
        wc.close();
        mr.close();
        scq.close();
        rcq.close();
        pd.close();
        ctx.close();
    }

    private QueuePair qp(int depth) {
        qp = pd.createQueuePair(new QpInitAttributes(QpType.RC, scq, rcq).maxSendWr(depth).maxRecvWr(depth)
                .maxSendSge(2).maxRecvSge(2).maxInlineData(64));
        return qp;
    }

    private void to(QpState... states) {
        for (QpState s : states) {
            qp.modify(new QpAttributes().state(s));
        }
    }

    private static int errno(Runnable r) {
        return assertThrows(VerbsException.class, r::run).errno();
    }

    private void sends(int n) {
        sends.count(n);
        for (int i = 0; i < n; i++) {
            sends.at(i).clear().wrId(100 + i).opcode(Opcode.SEND).sge(mr, 0, 16);
        }
    }

    @Test
    void aNewQpIsAnRcQpInResetWithTheCapabilitiesAsked() {
        qp(16);
        assertEquals(QpState.RESET, qp.state());
        assertFalse(qp.supportsImmediateData(), "no immediate data before a peer negotiated RFC 7306");
        assertEquals(QpType.RC, qp.type());
        assertEquals(16, qp.capabilities().maxSendWr());
        assertEquals(64, qp.capabilities().maxInlineData());
        assertNotEquals(0, qp.qpNumber());
        assertSame(scq, qp.sendCq());
        assertEquals(95, errno(() -> pd.createQueuePair(new QpInitAttributes(QpType.UD, scq, rcq))), "EOPNOTSUPP");
        VerbsException uc = assertThrows(VerbsException.class,
                () -> pd.createQueuePair(new QpInitAttributes(QpType.UC, scq, rcq)));
        assertTrue(uc.getMessage().startsWith("ibv_create_qp failed (UC on " + ctx.device().name()), uc.getMessage());
        assertTrue(uc.hint().contains("does not support UC"), uc.getMessage());
        assertEquals(22, errno(() -> pd.createQueuePair(new QpInitAttributes(QpType.RC, scq, rcq).maxSendSge(7))));
        assertEquals(22, errno(() -> pd.createQueuePair(new QpInitAttributes(QpType.RC, scq, rcq).maxInlineData(257))));
        assertThrows(IllegalStateException.class, scq::close, "the QP uses its CQ");
    }

    @Test
    void theStateMachineGoesThroughEveryStateAndQueryTellsIt() {
        qp(4);
        qp.modify(new QpAttributes().state(QpState.INIT).port(1).accessFlags(Access.REMOTE_WRITE | Access.LOCAL_WRITE));
        qp.modify(new QpAttributes().state(QpState.RTR).maxDestRdAtomic(16));
        qp.modify(new QpAttributes().state(QpState.RTS).maxRdAtomic(8));
        QpAttributes a = qp.query(QpAttrMask.ALL);
        assertEquals(QpState.RTS, a.state());
        assertEquals(Access.REMOTE_WRITE | Access.LOCAL_WRITE, a.accessFlags());
        assertEquals(16, a.maxDestRdAtomic());
        assertEquals(8, a.maxRdAtomic());
        assertEquals(qp.capabilities(), a.capabilities());
        assertFalse(a.sqDraining());
        to(QpState.SQD, QpState.SQD, QpState.RTS, QpState.RTS, QpState.ERR, QpState.ERR, QpState.RESET,
                QpState.RESET, QpState.INIT, QpState.INIT, QpState.ERR, QpState.RESET);
        assertEquals(QpState.RESET, qp.state());
        assertEquals(0, qp.query(QpAttrMask.ACCESS_FLAGS).accessFlags(), "RESET forgets the attributes");
    }

    @Test
    void aTransitionOutsideTheTableIsEinval() {
        qp(4);
        assertEquals(22, errno(() -> to(QpState.RTR)), "RESET -> RTR");
        assertEquals(22, errno(() -> to(QpState.RTS)), "RESET -> RTS");
        assertEquals(22, errno(() -> to(QpState.SQE)), "RESET -> SQE");
        to(QpState.INIT);
        assertEquals(22, errno(() -> to(QpState.RTS)), "INIT -> RTS");
        assertEquals(22, errno(() -> to(QpState.SQD)), "INIT -> SQD");
        to(QpState.RTR);
        assertEquals(22, errno(() -> to(QpState.INIT)), "RTR -> INIT");
        assertEquals(22, errno(() -> to(QpState.RTR)), "RTR -> RTR");
        to(QpState.RTS);
        assertEquals(22, errno(() -> to(QpState.SQE)), "RTS -> SQE is the device's, not the user's");
        assertEquals(22, errno(() -> to(QpState.INIT)), "RTS -> INIT");
        to(QpState.ERR);
        assertEquals(22, errno(() -> to(QpState.RTS)), "ERR -> RTS");
        assertEquals(QpState.ERR, qp.state(), "a refused modify changes nothing");
    }

    @Test
    void anAttributeTheTransitionDoesNotTakeOrAValueOutOfRangeIsEinval() {
        qp(4);
        VerbsException e = assertThrows(VerbsException.class,
                () -> qp.modify(new QpAttributes().state(QpState.INIT).sqPsn(1)));
        assertEquals(22, e.errno());
        assertTrue(e.getMessage().contains("IBV_QP_SQ_PSN"), e.getMessage());
        assertEquals(22, errno(() -> qp.modify(new QpAttributes().state(QpState.INIT).port(2))));
        assertEquals(22, errno(() -> qp.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(1))));
        assertEquals(22, errno(() -> qp.modify(new QpAttributes().state(QpState.INIT).accessFlags(Access.MW_BIND))));
        to(QpState.INIT);
        assertEquals(22, errno(() -> qp.modify(new QpAttributes().state(QpState.RTR).maxDestRdAtomic(129))));
        to(QpState.RTR);
        assertEquals(22, errno(() -> qp.modify(new QpAttributes().state(QpState.RTS).maxRdAtomic(129))));
        assertEquals(22, errno(() -> qp.modify(new QpAttributes().state(QpState.RTS).currentState(QpState.INIT))),
                "a wrong cur_state");
        qp.modify(new QpAttributes().state(QpState.RTS).currentState(QpState.RTR));
        assertEquals(QpState.RTS, qp.state());
    }

    @Test
    void postingChecksTheStateFirst() {
        qp(4);
        sends(1);
        recvs.at(0).clear().wrId(1).sge(mr, 0, 64);
        assertEquals(22, assertThrows(PostException.class, () -> qp.postReceive(recvs)).errno(), "RESET");
        for (QpState s : new QpState[] {QpState.RESET, QpState.INIT, QpState.RTR}) {
            if (s != QpState.RESET) {
                to(s);
                qp.postReceive(recvs); // INIT and RTR take receives
            }
            PostException e = assertThrows(PostException.class, () -> qp.postSend(sends));
            assertEquals(22, e.errno());
            assertEquals(0, e.failedIndex());
        }
        to(QpState.RTS);
        qp.postSend(sends);
        assertEquals(0, scq.poll(wc), "queued, for the data path");
    }

    @Test
    void aChainLongerThanTheQueueOrWithTooManySgesIsRefusedUpFront() {
        qp(4);
        to(QpState.INIT, QpState.RTR, QpState.RTS);
        sends(5);
        assertThrows(IllegalArgumentException.class, () -> qp.postSend(sends));
        sends(1);
        sends.at(0).numSge(3);
        assertThrows(IllegalArgumentException.class, () -> qp.postSend(sends));
        assertEquals(0, ((SoftQueuePair) qp).sendQueue().size(), "nothing queued");
    }

    @Test
    void aFullQueueIsEnomemAndABadRequestStopsTheChainWhereItIs() {
        qp(4);
        to(QpState.INIT, QpState.RTR, QpState.RTS);
        sends(3);
        qp.postSend(sends);
        PostException full = assertThrows(PostException.class, () -> qp.postSend(sends));
        assertEquals(12, full.errno());
        assertEquals(3, ((SoftQueuePair) qp).sendQueue().size());
        qp.modify(new QpAttributes().state(QpState.ERR));
        assertEquals(3, scq.poll(wc));
        to(QpState.RESET, QpState.INIT, QpState.RTR, QpState.RTS);
        sends(3);
        sends.at(1).opcode(Opcode.RDMA_READ).numSge(2);
        PostException bad = assertThrows(PostException.class, () -> qp.postSend(sends));
        assertEquals(22, bad.errno());
        assertEquals(1, bad.failedIndex());
        assertTrue(bad.getMessage().contains("exactly one"), bad.getMessage());
        assertEquals(1, ((SoftQueuePair) qp).sendQueue().size(), "the one before it is posted");
        sends(1);
        sends.at(0).opcode(Opcode.TSO);
        assertEquals(22, assertThrows(PostException.class, () -> qp.postSend(sends)).errno());
        sends.at(0).opcode(Opcode.SEND).flags(SendFlags.INLINE).sge(0, mr, 0, 65);
        assertEquals(22, assertThrows(PostException.class, () -> qp.postSend(sends)).errno(), "inline > 64");
        // as siw: immediate data and atomics are refused at post, not queued to fail later
        for (Opcode op : new Opcode[] {Opcode.SEND_WITH_IMM, Opcode.RDMA_WRITE_WITH_IMM, Opcode.ATOMIC_CMP_AND_SWP,
                Opcode.ATOMIC_FETCH_AND_ADD}) {
            sends(1);
            sends.at(0).opcode(op);
            PostException e = assertThrows(PostException.class, () -> qp.postSend(sends), op.name());
            assertEquals(22, e.errno(), e.getMessage());
            assertEquals(0, e.failedIndex(), e.getMessage());
            assertTrue(e.getMessage().contains(op.name()), e.getMessage());
        }
        assertEquals(1, ((SoftQueuePair) qp).sendQueue().size(), "nothing more queued");
    }

    @Test
    void errorFlushesEveryQueuedRequestToItsCqWithWrFlushErr() {
        qp(8);
        to(QpState.INIT);
        recvs.count(2);
        recvs.at(0).clear().wrId(1).sge(mr, 0, 64);
        recvs.at(1).clear().wrId(2).sge(mr, 64, 64);
        qp.postReceive(recvs);
        to(QpState.RTR, QpState.RTS);
        sends(2);
        sends.at(1).opcode(Opcode.RDMA_WRITE).rdma(mr.address(), mr.rkey()); // unsignaled: still completes in error
        qp.postSend(sends);
        to(QpState.ERR);
        assertEquals(2, scq.poll(wc));
        assertEquals(100, wc.wrId(0));
        assertEquals(WcStatus.WR_FLUSH_ERR, wc.status(0));
        assertEquals(WcOpcode.SEND, wc.opcode(0));
        assertEquals(WcOpcode.RDMA_WRITE, wc.opcode(1));
        assertEquals(qp.qpNumber(), wc.qpNum(1));
        assertEquals(2, rcq.poll(wc));
        assertEquals(1, wc.wrId(0));
        assertEquals(WcOpcode.RECV, wc.opcode(1));
        assertEquals(WcStatus.WR_FLUSH_ERR, wc.status(1));

        qp.postSend(sends); // in ERR: flushed at once, as siw does for a drain
        qp.postReceive(recvs);
        assertEquals(2, scq.poll(wc));
        assertEquals(2, rcq.poll(wc));
        assertEquals(WcStatus.WR_FLUSH_ERR, wc.status(0));
    }

    @Test
    void resetForgetsTheQueuedRequestsWithoutCompletions() {
        qp(8);
        to(QpState.INIT, QpState.RTR, QpState.RTS);
        sends(2);
        qp.postSend(sends);
        to(QpState.RESET);
        assertEquals(0, ((SoftQueuePair) qp).sendQueue().size());
        to(QpState.ERR);
        assertEquals(0, scq.poll(wc));
    }

    @Test
    void aPostCopiesTheRequestsSoTheyCanBeReusedAtOnce() {
        qp(8);
        to(QpState.INIT, QpState.RTR, QpState.RTS);
        mr.putBytes(0, "inline!".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        sends(1);
        sends.at(0).flags(SendFlags.INLINE).sge(0, mr, 0, 7);
        qp.postSend(sends);
        sends.at(0).clear().wrId(999);
        mr.fill(0, 7, (byte) 0);
        WorkQueue sq = ((SoftQueuePair) qp).sendQueue();
        assertTrue(sq.tryConsume());
        try {
            long slot = sq.peek();
            assertEquals(100, RawMemory.getLong(slot + WrLayout.Wr.WR_ID));
            assertEquals(1, RawMemory.getInt(slot + WrLayout.Wr.NUM_SGE));
            long sge = RawMemory.getAddress(slot + WrLayout.Wr.SG_LIST);
            assertEquals(7, RawMemory.getInt(sge + WrLayout.Wr.SGE_LENGTH));
            byte[] copy = new byte[7];
            RawMemory.copyToArray(RawMemory.getLong(sge + WrLayout.Wr.SGE_ADDR), copy, 0, 7);
            assertEquals("inline!", new String(copy, java.nio.charset.StandardCharsets.US_ASCII));
        } finally {
            sq.endConsume();
        }
    }

    @Test
    void enteringSqdWithNotificationRaisesSqDrained() throws Exception {
        BlockingQueue<AsyncEvent> events = new ArrayBlockingQueue<>(4);
        ctx.setAsyncEventListener(events::add);
        qp(4);
        to(QpState.INIT, QpState.RTR, QpState.RTS);
        QpAttributes sqd = new QpAttributes().state(QpState.SQD);
        sqd.mask(sqd.mask() | QpAttrMask.EN_SQD_ASYNC_NOTIFY);
        qp.modify(sqd);
        AsyncEvent e = events.poll(5, TimeUnit.SECONDS);
        assertEquals(AsyncEventType.SQ_DRAINED, e.type());
        assertSame(qp, e.queuePair());
    }

    @Test
    void postingAllocatesNothing() {
        java.lang.management.ThreadMXBean bean = java.lang.management.ManagementFactory.getThreadMXBean();
        org.junit.jupiter.api.Assumptions.assumeTrue(bean instanceof com.sun.management.ThreadMXBean);
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) bean;
        org.junit.jupiter.api.Assumptions.assumeTrue(mx.isThreadAllocatedMemorySupported());
        mx.setThreadAllocatedMemoryEnabled(true);
        qp(8);
        to(QpState.INIT, QpState.RTR, QpState.RTS);
        sends(4);
        recvs.count(4);
        for (int i = 0; i < 4; i++) {
            recvs.at(i).clear().wrId(i).sge(mr, 64L * i, 64);
        }
        WorkQueue sq = ((SoftQueuePair) qp).sendQueue();
        WorkQueue rq = ((SoftQueuePair) qp).receiveQueue();
        for (int round = 0; round < 3; round++) {
            long before = mx.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 50_000; i++) {
                qp.postSend(sends);
                qp.postReceive(recvs);
                take(sq); // the data path's part
                take(rq);
            }
            long bytes = mx.getCurrentThreadAllocatedBytes() - before;
            if (round == 2) {
                assertTrue(bytes < 4096, bytes + " bytes allocated by 50 000 posts of 4 sends and 4 receives");
            }
        }
    }

    private static void take(WorkQueue q) {
        assertTrue(q.tryConsume());
        while (q.peek() != 0) {
            q.pop();
        }
        q.endConsume();
    }

    @Test
    void aClosedQpRefusesEverything() {
        qp(4);
        qp.close();
        assertThrows(IllegalStateException.class, () -> qp.postSend(sends));
        assertThrows(IllegalStateException.class, () -> to(QpState.INIT));
        assertThrows(IllegalStateException.class, qp::state);
        qp.close();
        qp = null;
    }
}
