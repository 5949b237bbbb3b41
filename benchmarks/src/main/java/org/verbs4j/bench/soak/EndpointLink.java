package org.verbs4j.bench.soak;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.verbs4j.api.WorkCompletions;
import org.verbs4j.endpoint.EndpointOptions;
import org.verbs4j.endpoint.EndpointServer;
import org.verbs4j.endpoint.Endpoints;
import org.verbs4j.endpoint.RdmaEndpoint;

/**
 * A {@link SoakLink} over two endpoints connected through rdma_cm in this process: the client is the
 * requester, the endpoint its server accepted is the responder. Sends go through the endpoint's credits
 * ({@link RdmaEndpoint#trySend}), writes and reads through {@link RdmaEndpoint#write} and
 * {@link RdmaEndpoint#read}, with the two RDMA regions as the memory.
 */
final class EndpointLink implements SoakLink {
    private final EndpointServer server;
    private final RdmaEndpoint client;
    private final RdmaEndpoint accepted;
    private final Layout layout;
    private final int size;

    private EndpointLink(EndpointServer server, RdmaEndpoint client, RdmaEndpoint accepted, Layout layout) {
        this.server = server;
        this.client = client;
        this.accepted = accepted;
        this.layout = layout;
        this.size = layout.messageSize();
    }

    /**
     * The endpoint options of a soak pair: {@code depth} sends in flight, as many receives, and an RDMA region
     * that holds the ring (and, on the requester's side, its slots and the fence slot).
     */
    static EndpointOptions options(Layout l, Duration timeout) {
        return EndpointOptions.defaults().messageSize(l.messageSize()).sendDepth(l.depth()).receiveDepth(l.depth())
                .rdmaRegionSize(Math.max(l.ringBytes(), l.requesterBytes())).timeout(timeout);
    }

    /** Listens at {@code at}, connects to it and accepts, on a thread of {@code acceptor}. */
    static EndpointLink open(InetSocketAddress at, Layout layout, Duration timeout, ExecutorService acceptor) {
        EndpointOptions o = options(layout, timeout);
        EndpointServer server = Endpoints.listen(at, o);
        RdmaEndpoint client = null;
        try {
            Future<RdmaEndpoint> accepted = acceptor.submit(() -> server.accept(timeout));
            client = Endpoints.connect(server.address(), o);
            return new EndpointLink(server, client, await(accepted, timeout), layout);
        } catch (RuntimeException e) {
            RdmaEndpoint c = client;
            try (server; c) {
                throw e;
            }
        }
    }

    /** The endpoint {@code accept} returned, within twice the timeout. */
    static RdmaEndpoint await(Future<RdmaEndpoint> accepted, Duration timeout) {
        try {
            return accepted.get(2 * timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            throw c instanceof RuntimeException r ? r : new IllegalStateException("accept failed: " + c, c);
        } catch (TimeoutException e) {
            accepted.cancel(true);
            throw new IllegalStateException("accept did not return in " + 2 * timeout.toMillis() + " ms", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while accepting", e);
        }
    }

    @Override
    public String description() {
        return client + " -> " + accepted;
    }

    @Override
    public Layout layout() {
        return layout;
    }

    @Override
    public ByteBuffer requesterMemory() {
        return client.rdmaRegion();
    }

    @Override
    public ByteBuffer responderMemory() {
        return accepted.rdmaRegion();
    }

    @Override
    public ByteBuffer sendSlot(int slot) {
        return client.sendSlot(slot);
    }

    @Override
    public boolean trySend(int slot) {
        return client.trySend(slot, size);
    }

    @Override
    public void write(int localSlot, int ringSlot, long wrId) {
        client.write((long) localSlot * size, size, (long) ringSlot * size, wrId);
    }

    @Override
    public void read(int localSlot, int ringSlot, long wrId) {
        client.read((long) localSlot * size, size, (long) ringSlot * size, wrId);
    }

    @Override
    public int pollRequester(WorkCompletions wc) {
        return client.pollSend(wc);
    }

    @Override
    public int pollResponder(WorkCompletions wc) {
        return accepted.pollReceive(wc);
    }

    @Override
    public ByteBuffer received(WorkCompletions wc, int i) {
        return accepted.message(wc, i);
    }

    @Override
    public void repost(WorkCompletions wc, int i) {
        accepted.repostReceive((int) wc.wrId(i));
    }

    @Override
    public void close() {
        // closed in reverse order (client first), each even when another fails; the first failure is thrown
        try (server; accepted; client) {
            return;
        }
    }

    @Override
    public String toString() {
        return description();
    }
}
