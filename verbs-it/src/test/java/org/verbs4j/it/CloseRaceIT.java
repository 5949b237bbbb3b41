package org.verbs4j.it;

import org.verbs4j.lab.ClosedChecks;

import org.verbs4j.lab.QpPair;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.verbs4j.api.Access;
import org.verbs4j.api.AddressVector;
import org.verbs4j.api.CompletionChannel;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.Errno;
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
import org.verbs4j.api.Rdma;
import org.verbs4j.api.ReceiveRequests;
import org.verbs4j.api.SendFlags;
import org.verbs4j.api.SendRequests;
import org.verbs4j.api.SharedReceiveQueue;
import org.verbs4j.api.TransportType;
import org.verbs4j.api.VerbsException;
import org.verbs4j.api.WorkCompletions;
import org.verbs4j.api.spi.AbstractResource;
import org.verbs4j.lab.Race;

/**
 * Closing an object while another thread uses it, on the lab devices: for every kind of verbs object, one
 * thread calls its verbs in a tight loop and another closes it at a random moment, {@link Race#REPS} times
 * per kind and device. Each call either returns or throws {@link IllegalStateException} saying closed, the
 * close returns (a parent refused while the racer's child is open is tried again), nothing hangs, and the JVM
 * lives. Completion-channel waits are in {@link ChannelCloseRaceIT}, rdma_cm in {@link CmCloseRaceIT}.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class CloseRaceIT {
    /** A refused close: the parent still has a child the racer made (documented; the driver retries). */
    static final java.util.function.Predicate<Throwable> STILL_IN_USE = Race.is(IllegalStateException.class,
            "cannot close");

    /** Alternates the steps of a racer: each call runs the next. */
    static final class Rotation {
        private int next;

        int next(int n) {
            return next++ % n;
        }
    }

    // ---------------------------------------------------------------- completion queue

    record Cq(CompletionQueue cq, WorkCompletions wc) {
    }

    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void completionQueuePollAndNotifyRaceClose(String device) {
        try (DeviceContext ctx = Rdma.open(device); WorkCompletions wc = WorkCompletions.allocate(4);
                CompletionChannel channel = ctx.createCompletionChannel()) {
            Rotation turn = new Rotation();
            Race.of(device + " CompletionQueue.poll/requestNotify vs close",
                    () -> new Cq(ctx.createCompletionQueue(16, channel, 0), wc))
                    .racer(c -> {
                        if (turn.next(2) == 0) {
                            c.cq.requestNotify(false);
                        } else {
                            c.cq.poll(c.wc);
                        }
                    })
                    .closer(c -> c.cq.close())
                    .afterClose(c -> {
                        ClosedChecks.closedFor(c.cq, () -> c.cq.poll(c.wc));
                        ClosedChecks.closedFor(c.cq, () -> c.cq.requestNotify(true));
                    })
                    .run();
        }
    }

    // ---------------------------------------------------------------- queue pair

    /** A fresh QP of a shared context: query and modify (RESET <-> INIT) race its close. */
    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void queuePairQueryAndModifyRaceClose(String device) {
        try (DeviceContext ctx = Rdma.open(device); ProtectionDomain pd = ctx.allocProtectionDomain();
                CompletionQueue cq = ctx.createCompletionQueue(16)) {
            Rotation turn = new Rotation();
            QpAttributes toInit = new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(QpPair.PORT)
                    .accessFlags(Access.REMOTE_WRITE);
            QpAttributes toReset = new QpAttributes().state(QpState.RESET);
            Race.of(device + " QueuePair.query/modify vs close",
                    () -> pd.createQueuePair(new QpInitAttributes(QpType.RC, cq, cq).maxSendWr(4).maxRecvWr(4)))
                    .racer(qp -> {
                        switch (turn.next(3)) {
                            case 0 -> qp.query(QpAttrMask.STATE | QpAttrMask.CAP);
                            case 1 -> qp.modify(toInit);
                            default -> qp.modify(toReset);
                        }
                    })
                    .closer(QueuePair::close)
                    .afterClose(qp -> {
                        ClosedChecks.closedFor(qp, () -> qp.query(QpAttrMask.STATE));
                        assertEquals(List.of(), ((AbstractResource) cq).openChildren(), "the CQ's users");
                    })
                    .cleanup(qp -> QpPair.closeAllQuietly(null, qp))
                    .reps(Race.REPS / 2)
                    .run();
        }
    }

    /** One connected pair per repetition; the racer posts sends and receives on A's QP, which is closed. */
    record Posting(QpPair pair, SendRequests write, ReceiveRequests recv, WorkCompletions wc, Rotation turn) {
        void step() {
            QueuePair qp = pair.a.qp;
            if (turn.next(2) == 0) {
                try {
                    qp.postSend(write);
                } catch (PostException full) {
                    return; // the send queue is full: a verb that returned its documented error
                }
                // wait for the write's completion, unless the QP is closed under it (then it may never come)
                while (pair.a.cq.poll(wc) == 0 && !qp.isClosed()) {
                    Thread.onSpinWait();
                }
            } else {
                try {
                    qp.postReceive(recv);
                } catch (PostException full) {
                    // the receive queue is full (nothing consumes them): the documented error
                }
            }
        }
    }

    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void queuePairPostsRaceClose(String device) {
        QpPair.Options o = new QpPair.Options().queues(16, 16, 48).buffers(64, 4096);
        o.channels = false;
        try (SendRequests write = SendRequests.allocate(1, 1); ReceiveRequests recv = ReceiveRequests.allocate(1, 1);
                WorkCompletions wc = WorkCompletions.allocate(4)) {
            Race.of(device + " QueuePair.postSend/postReceive vs close", () -> {
                QpPair p = QpPair.open(device, o);
                write.at(0).clear().wrId(1).opcode(Opcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                        .sge(p.a.mr.address(), 64, p.a.mr.lkey()).rdma(p.b.mr.address(), p.b.mr.rkey());
                recv.at(0).clear().wrId(2).sge(p.a.mr.address() + 1024, 64, p.a.mr.lkey());
                return new Posting(p, write, recv, wc, new Rotation());
            })
                    .racer(Posting::step)
                    .closer(s -> s.pair.a.qp.close())
                    .afterClose(s -> {
                        ClosedChecks.closedFor(s.pair.a.qp, () -> s.pair.a.qp.postSend(s.write));
                        ClosedChecks.closedFor(s.pair.a.qp, () -> s.pair.a.qp.postReceive(s.recv));
                    })
                    .cleanup(s -> s.pair.close())
                    .reps(Race.REPS / 2)
                    .run();
        }
    }

    // ---------------------------------------------------------------- shared receive queue

    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void sharedReceiveQueuePostRacesClose(String device) {
        try (DeviceContext ctx = Rdma.open(device); ProtectionDomain pd = ctx.allocProtectionDomain();
                MemoryRegion mr = pd.allocateMemory(4096, Access.LOCAL_WRITE);
                ReceiveRequests recv = ReceiveRequests.allocate(1, 1)) {
            assumeTrue(ctx.queryDevice().supportsSrq(), device + " has no SRQ");
            recv.at(0).wrId(3).sge(mr.address(), 64, mr.lkey());
            boolean queries = queries(pd);
            Rotation turn = new Rotation();
            Race.of(device + " SharedReceiveQueue.postReceive vs close", () -> pd.createSharedReceiveQueue(64, 1, 0))
                    .racer(srq -> {
                        if (turn.next(4) == 3 && queries) {
                            srq.query();
                            return;
                        }
                        try {
                            srq.postReceive(recv);
                        } catch (PostException full) {
                            // 64 posted and nothing consumes them: the documented error
                        }
                    })
                    .closer(SharedReceiveQueue::close)
                    .afterClose(srq -> ClosedChecks.closedFor(srq, () -> srq.postReceive(recv)))
                    .cleanup(srq -> QpPair.closeAllQuietly(null, srq))
                    .run();
        }
    }

    /** Whether the device answers ibv_query_srq (siw does not: EOPNOTSUPP). */
    private static boolean queries(ProtectionDomain pd) {
        try (SharedReceiveQueue probe = pd.createSharedReceiveQueue(4, 1, 0)) {
            probe.query();
            return true;
        } catch (VerbsException e) {
            assertEquals(Errno.EOPNOTSUPP, e.errno(), e.getMessage());
            return false;
        }
    }

    // ---------------------------------------------------------------- protection domain

    /** Each racer call makes one child of the PD (MR allocated, MR over a buffer, QP, AH) and closes it. */
    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void protectionDomainCreationsRaceClose(String device) {
        try (DeviceContext ctx = Rdma.open(device); CompletionQueue cq = ctx.createCompletionQueue(16)) {
            ByteBuffer buffer = ByteBuffer.allocateDirect(4096);
            AddressVector av = ctx.device().transportType() == TransportType.IB ? QpPair.ownAddress(ctx) : null;
            int kinds = av != null ? 4 : 3;
            Rotation turn = new Rotation();
            // the address handle only where the device has one (not on iWARP)
            Race.of(device + " ProtectionDomain.allocateMemory/registerMemory/createQueuePair/createAddressHandle"
                    + " vs close", ctx::allocProtectionDomain)
                    .racer(pd -> {
                        AutoCloseable child = switch (turn.next(kinds)) {
                            case 0 -> pd.allocateMemory(4096, Access.LOCAL_WRITE);
                            case 1 -> pd.registerMemory(buffer, Access.LOCAL_WRITE);
                            case 2 -> pd.createQueuePair(new QpInitAttributes(QpType.RC, cq, cq).maxSendWr(2)
                                    .maxRecvWr(2));
                            default -> pd.createAddressHandle(av);
                        };
                        child.close();
                    })
                    .closer(ProtectionDomain::close)
                    .closeMayBeRefusedWith(STILL_IN_USE)
                    .afterClose(pd -> {
                        ClosedChecks.closedFor(pd, () -> pd.allocateMemory(4096, Access.LOCAL_WRITE));
                        assertEquals(List.of(cq), ((AbstractResource) ctx).openChildren(), "the context's children");
                        assertEquals(List.of(), ((AbstractResource) cq).openChildren(), "the CQ's users");
                    })
                    .cleanup(pd -> QpPair.closeAllQuietly(null, pd))
                    .run();
        }
    }

    // ---------------------------------------------------------------- memory region

    /** The accessors, and the ByteBuffer view, of a region that allocated its memory. */
    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void memoryRegionAccessRacesClose(String device) {
        try (DeviceContext ctx = Rdma.open(device); ProtectionDomain pd = ctx.allocProtectionDomain()) {
            byte[] out = QpPair.pattern(256, 7);
            byte[] in = new byte[256];
            Rotation turn = new Rotation();
            Race.of(device + " MemoryRegion.putBytes/getBytes/putLong/getLong/buffer vs close",
                    () -> pd.allocateMemory(8192, Access.LOCAL_WRITE | Access.REMOTE_WRITE))
                    .racer(mr -> {
                        int k = turn.next(3);
                        if (k == 0) {
                            mr.putBytes(512, out);
                            mr.getBytes(512, in, 0, in.length);
                            assertArrayEquals(out, in, "what was put is what is read");
                        } else if (k == 1) {
                            mr.putLong(8, 0x1122334455667788L);
                            assertEquals(0x1122334455667788L, mr.getLong(8));
                        } else {
                            // the view is plain Java memory the region keeps: it stays valid after close
                            mr.buffer().put(16, (byte) 42);
                            assertEquals(42, mr.getBytes(16, 1)[0]);
                        }
                    })
                    .closer(MemoryRegion::close)
                    .afterClose(mr -> {
                        ClosedChecks.closedFor(mr, () -> mr.getBytes(0, 8));
                        ClosedChecks.closedFor(mr, () -> mr.putLong(0, 1));
                    })
                    .cleanup(mr -> QpPair.closeAllQuietly(null, mr))
                    .run();
        }
    }

    // ---------------------------------------------------------------- device context

    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void deviceContextQueriesAndCreationsRaceClose(String device) {
        Rotation turn = new Rotation();
        Race.of(device + " DeviceContext.queryDevice/queryPort/queryGid/createCompletionQueue/allocProtectionDomain "
                + "vs close", () -> Rdma.open(device))
                .racer(ctx -> {
                    switch (turn.next(5)) {
                        case 0 -> ctx.queryDevice();
                        case 1 -> ctx.queryPort(QpPair.PORT);
                        case 2 -> ctx.queryGid(QpPair.PORT, 0);
                        case 3 -> ctx.createCompletionQueue(4).close();
                        default -> ctx.allocProtectionDomain().close();
                    }
                })
                .closer(DeviceContext::close)
                .closeMayBeRefusedWith(STILL_IN_USE)
                .afterClose(ctx -> {
                    ClosedChecks.closedFor(ctx, ctx::queryDevice);
                    ClosedChecks.closedFor(ctx, ctx::allocProtectionDomain);
                })
                .cleanup(ctx -> QpPair.closeAllQuietly(null, ctx))
                .run();
    }

    // ---------------------------------------------------------------- request and completion arrays

    /**
     * One connected pair for the whole race; each repetition's array is new, filled by the setup, posted with
     * (or polled into) by the racer, and closed by the closer. Filling or reading an array stays on one thread
     * (the documented contract of these single-thread objects); the post and the poll race the close.
     */
    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void requestAndCompletionArraysRaceClose(String device) {
        QpPair.Options o = new QpPair.Options().queues(16, 16, 48).buffers(64, 8192);
        o.channels = false;
        try (QpPair p = QpPair.open(device, o); SendRequests ownSend = SendRequests.allocate(1, 1);
                WorkCompletions ownWc = WorkCompletions.allocate(4)) {
            ownSend.at(0).wrId(10).opcode(Opcode.SEND).flags(SendFlags.SIGNALED).sge(p.a.mr.address(), 32,
                    p.a.mr.lkey());
            Race.of(device + " SendRequests closed while posted", () -> {
                SendRequests s = SendRequests.allocate(1, 1);
                s.at(0).wrId(11).opcode(Opcode.RDMA_WRITE).flags(SendFlags.SIGNALED).sge(p.a.mr.address(), 64,
                        p.a.mr.lkey()).rdma(p.b.mr.address(), p.b.mr.rkey());
                return s;
            })
                    .racer(s -> {
                        p.a.qp.postSend(s);
                        QpPair.takeOne(p.a.cq);
                    })
                    .closer(SendRequests::close)
                    .afterClose(s -> assertThrows(IllegalStateException.class, () -> p.a.qp.postSend(s)))
                    .cleanup(s -> assertEquals(List.of(), QpPair.drain(p.a.cq, 0), "no completion left"))
                    .run();
            Race.of(device + " ReceiveRequests closed while posted", () -> {
                ReceiveRequests r = ReceiveRequests.allocate(1, 1);
                r.at(0).wrId(12).sge(p.b.mr.address(), 64, p.b.mr.lkey());
                return r;
            })
                    .racer(r -> {
                        p.b.qp.postReceive(r);
                        // the receive is posted: consume it (on iWARP a send needs a posted receive)
                        p.a.qp.postSend(ownSend);
                        QpPair.takeOne(p.a.cq);
                        QpPair.takeOne(p.b.cq);
                    })
                    .closer(ReceiveRequests::close)
                    .afterClose(r -> assertThrows(IllegalStateException.class, () -> p.b.qp.postReceive(r)))
                    .cleanup(r -> assertEquals(List.of(), QpPair.drain(p.b.cq, 0), "no completion left"))
                    .run();
            int[] unreaped = new int[1];
            Race.of(device + " WorkCompletions closed while polled", () -> WorkCompletions.allocate(4))
                    .racer(wc -> {
                        p.a.qp.postSend(writeOf(p, ownSend));
                        unreaped[0]++;
                        while (p.a.cq.poll(wc) == 0) {
                            Thread.onSpinWait();
                        }
                        unreaped[0]--;
                    })
                    .closer(WorkCompletions::close)
                    .afterClose(wc -> assertThrows(IllegalStateException.class, () -> p.a.cq.poll(wc)))
                    .cleanup(wc -> {
                        // the write whose completion the closed array did not take: reap it here
                        QpPair.take(p.a.cq, unreaped[0]).forEach(c -> assertTrue(c.ok(), c.toString()));
                        unreaped[0] = 0;
                    })
                    .run();
        }
    }

    /** {@code s} as a signaled RDMA WRITE of A's first 64 bytes to B's region. */
    private static SendRequests writeOf(QpPair p, SendRequests s) {
        s.at(0).clear().wrId(13).opcode(Opcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                .sge(p.a.mr.address(), 64, p.a.mr.lkey()).rdma(p.b.mr.address(), p.b.mr.rkey());
        return s;
    }

    // ---------------------------------------------------------------- post-close state

    /** After the race: the object says closed, and {@code call} throws IllegalStateException saying closed. */
}
