package org.verbs4j.bench.soak;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.verbs4j.api.WcOpcode;
import org.verbs4j.api.WorkCompletions;
import org.verbs4j.endpoint.EndpointOptions;
import org.verbs4j.endpoint.EndpointServer;
import org.verbs4j.endpoint.Endpoints;
import org.verbs4j.endpoint.RdmaEndpoint;

/**
 * The soak's connect/disconnect cycles: one {@link EndpointServer} listening through rdma_cm for the whole
 * phase; per cycle, {@link Endpoints#connect} and {@link EndpointServer#accept} (on another thread), one
 * message each way with its content checked, then both endpoints closed. The samples are taken between
 * cycles, when nothing but the listener is open.
 */
final class ConnectCycles {
    private final InetSocketAddress at;
    private final int size;
    private final Duration timeout;
    private final ExecutorService acceptor;

    ConnectCycles(InetSocketAddress at, int size, Duration timeout, ExecutorService acceptor) {
        this.at = at;
        this.size = size;
        this.timeout = timeout;
        this.acceptor = acceptor;
    }

    /**
     * Runs {@code cycles} cycles; {@code progress} is told after each.
     *
     * @return the cycles done (all of them, or it throws) and the messages checked byte by byte
     */
    SoakLoop.Outcome run(long cycles, SoakLoop.Progress progress) {
        EndpointOptions o = EndpointOptions.defaults().messageSize(size).sendDepth(2).receiveDepth(2).timeout(timeout);
        long t0 = System.nanoTime();
        long checked = 0;
        try (EndpointServer server = Endpoints.listen(at, o); WorkCompletions wc = WorkCompletions.allocate(2)) {
            for (long c = 0; c < cycles; c++) {
                Future<RdmaEndpoint> accepted = acceptor.submit(() -> server.accept(timeout));
                try (RdmaEndpoint client = Endpoints.connect(server.address(), o)) {
                    try (RdmaEndpoint peer = EndpointLink.await(accepted, timeout)) {
                        checked += exchange(client, peer, 2 * c, wc, c);
                        checked += exchange(peer, client, 2 * c + 1, wc, c);
                    }
                } finally {
                    accepted.cancel(true);
                }
                progress.at(c + 1);
            }
        }
        return new SoakLoop.Outcome(cycles, checked, (System.nanoTime() - t0) / 1e9);
    }

    /** Sends message {@code seq} from {@code from} to {@code to} and checks every byte of it; returns 1. */
    private int exchange(RdmaEndpoint from, RdmaEndpoint to, long seq, WorkCompletions wc, long cycle) {
        ByteBuffer slot = from.sendSlot(0);
        slot.putLong(0, seq);
        for (int i = 8; i < size; i++) {
            slot.put(i, MessagePattern.at(seq, i));
        }
        from.send(0, size);
        await(from, wc, true, cycle);
        if (wc.opcode(0) != WcOpcode.SEND) {
            throw new IllegalStateException(from + ": cycle " + cycle + ": send completion " + wc.toString(0));
        }
        await(to, wc, false, cycle);
        ByteBuffer m = to.message(wc, 0);
        if (m.remaining() != size || m.getLong(0) != seq) {
            throw new IllegalStateException(to + ": cycle " + cycle + ": received " + m.remaining() + " bytes, message "
                    + (m.remaining() >= 8 ? m.getLong(0) : -1) + ", expected " + size + " bytes of message " + seq);
        }
        for (int i = 8; i < size; i++) {
            if (m.get(i) != MessagePattern.at(seq, i)) {
                throw new IllegalStateException(to + ": cycle " + cycle + ": byte " + i + " of message " + seq + " is "
                        + m.get(i) + ", expected " + MessagePattern.at(seq, i));
            }
        }
        to.repostReceive((int) wc.wrId(0));
        return 1;
    }

    private void await(RdmaEndpoint ep, WorkCompletions wc, boolean send, long cycle) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while ((send ? ep.pollSend(wc) : ep.pollReceive(wc)) == 0) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(ep + ": cycle " + cycle + ": no " + (send ? "send" : "receive")
                        + " completion in " + timeout.toMillis() + " ms");
            }
            Thread.onSpinWait();
        }
        if (!wc.ok(0)) {
            throw new IllegalStateException(ep + ": cycle " + cycle + ": " + wc.toString(0));
        }
    }
}
