package org.verbs4j.softiwarp;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.verbs4j.api.Access;
import org.verbs4j.api.CompletionChannel;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.QpAttributes;
import org.verbs4j.api.QpInitAttributes;
import org.verbs4j.api.QpState;
import org.verbs4j.api.QpType;
import org.verbs4j.api.SharedReceiveQueue;
import org.verbs4j.api.WorkCompletions;
import org.verbs4j.softiwarp.wire.MpaConnection;
import org.verbs4j.softiwarp.wire.MpaSettings;
import org.verbs4j.lab.Async;

/**
 * Two QPs of two contexts of the loopback soft device, connected over 127.0.0.1 by an MPA handshake and
 * {@link SoftQueuePair#establish}: side A is the initiator, side B the responder.
 */
final class ConnectedPair implements AutoCloseable {
    /** One side: its context, PD, CQ, optional channel and SRQ, and QP. */
    static final class Side {
        final DeviceContext ctx;
        final ProtectionDomain pd;
        final CompletionChannel channel;
        final CompletionQueue cq;
        final SharedReceiveQueue srq;
        final SoftQueuePair qp;
        final CountDownLatch ended = new CountDownLatch(1);
        final WorkCompletions one = WorkCompletions.allocate(1);
        final java.util.concurrent.atomic.AtomicInteger endRuns = new java.util.concurrent.atomic.AtomicInteger();

        private final boolean ownsContext;

        Side(int depth, boolean withChannel, boolean withSrq, boolean signalAll) {
            this(null, depth, withChannel, withSrq, signalAll);
        }

        /** A side in {@code shared} (both sides of a pair in one context), or in a context of its own when null. */
        Side(DeviceContext shared, int depth, boolean withChannel, boolean withSrq, boolean signalAll) {
            ownsContext = shared == null;
            ctx = shared != null ? shared : SoftIwarp.devices().get(0).open();
            pd = ctx.allocProtectionDomain();
            channel = withChannel ? ctx.createCompletionChannel() : null;
            cq = ctx.createCompletionQueue(4 * depth, channel, 0);
            srq = withSrq ? pd.createSharedReceiveQueue(depth, 4, 0) : null;
            QpInitAttributes a = new QpInitAttributes(QpType.RC, cq, cq).maxSendWr(depth).maxRecvWr(depth)
                    .maxSendSge(4).maxRecvSge(4).maxInlineData(64).signalAll(signalAll);
            if (srq != null) {
                a.srq(srq);
            }
            qp = (SoftQueuePair) pd.createQueuePair(a);
            qp.modify(new QpAttributes().state(QpState.INIT));
        }

        /** Polls until {@code n} completions arrived, or fails after 10 s. */
        int await(WorkCompletions wc, int n) {
            int got = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (got < n) {
                if (cq.poll(one, 1) == 1) {
                    org.verbs4j.api.internal.RawMemory.copy(one.address(), wc.address()
                            + (long) got * org.verbs4j.api.internal.WrLayout.Wc.WC_SIZE,
                            org.verbs4j.api.internal.WrLayout.Wc.WC_SIZE);
                    got++;
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("only " + got + " of " + n + " completions in 10 s");
                }
            }
            return got;
        }

        void close() {
            one.close();
            qp.close();
            if (srq != null) {
                srq.close();
            }
            cq.close();
            if (channel != null) {
                channel.close();
            }
            pd.close();
            if (ownsContext) {
                ctx.close();
            }
        }

        /** Registers {@code length} bytes of fresh memory with the given rights. */
        org.verbs4j.api.MemoryRegion memory(int length, int access) {
            return pd.allocateMemory(length, access);
        }
    }

    static final int ALL = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ;

    final Side a;
    final Side b;

    ConnectedPair(int depth, MpaSettings settings) throws Exception {
        this(depth, settings, false, false, false);
    }

    ConnectedPair(int depth, MpaSettings settings, boolean channels, boolean srqOnB, boolean signalAll)
            throws Exception {
        this(null, depth, settings, channels, srqOnB, signalAll);
    }

    /** Both sides in {@code shared}, one context with one progress thread, when it is not null. */
    ConnectedPair(DeviceContext shared, int depth, MpaSettings settings, boolean channels, boolean srqOnB,
            boolean signalAll) throws Exception {
        a = new Side(shared, depth, channels, false, signalAll);
        b = new Side(shared, depth, channels, srqOnB, signalAll);
        try (ServerSocketChannel server = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            CompletableFuture<MpaConnection> accepted = Async.supply(() -> {
                try {
                    return MpaConnection.awaitRequest(server.accept(), settings).accept(new byte[0]);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            MpaConnection ca = MpaConnection.connect(SocketChannel.open(server.getLocalAddress()), settings,
                    new byte[0]);
            MpaConnection cb = accepted.get(10, TimeUnit.SECONDS);
            b.qp.establish(cb, () -> {
                b.endRuns.incrementAndGet();
                b.ended.countDown();
            });
            a.qp.establish(ca, () -> {
                a.endRuns.incrementAndGet();
                a.ended.countDown();
            });
        }
    }

    @Override
    public void close() {
        a.close();
        b.close();
    }
}
