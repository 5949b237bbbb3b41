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
    private final int size;
    private final int depth;
    private final int ring;

    private EndpointLink(EndpointServer server, RdmaEndpoint client, RdmaEndpoint accepted, int size, int depth,
            int ring) {
        this.server = server;
        this.client = client;
        this.accepted = accepted;
        this.size = size;
        this.depth = depth;
        this.ring = ring;
    }

    /**
     * The endpoint options of a soak pair: {@code depth} sends in flight, as many receives, and an RDMA region
     * that holds the ring (and, on the requester's side, its slots and the fence slot).
     */
    static EndpointOptions options(int size, int depth, int ring, Duration timeout) {
        return EndpointOptions.defaults().messageSize(size).sendDepth(depth).receiveDepth(depth)
                .rdmaRegionSize((long) Math.max(ring, depth + 1) * size).timeout(timeout);
    }

    /** Listens at {@code at}, connects to it and accepts, on a thread of {@code acceptor}. */
    static EndpointLink open(InetSocketAddress at, int size, int depth, int ring, Duration timeout,
            ExecutorService acceptor) {
        EndpointOptions o = options(size, depth, ring, timeout);
        EndpointServer server = Endpoints.listen(at, o);
        RdmaEndpoint client = null;
        try {
            Future<RdmaEndpoint> accepted = acceptor.submit(() -> server.accept(timeout));
            client = Endpoints.connect(server.address(), o);
            return new EndpointLink(server, client, await(accepted, timeout), size, depth, ring);
        } catch (RuntimeException e) {
            if (client != null) {
                closeQuietly(client, e);
            }
            closeQuietly(server, e);
            throw e;
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

    static void closeQuietly(AutoCloseable c, Throwable into) {
        try {
            c.close();
        } catch (Exception e) {
            into.addSuppressed(e);
        }
    }

    @Override
    public String description() {
        return client + " -> " + accepted;
    }

    @Override
    public int depth() {
        return depth;
    }

    @Override
    public int messageSize() {
        return size;
    }

    @Override
    public int ringSlots() {
        return ring;
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
        IllegalStateException failure = new IllegalStateException("closing " + description());
        closeQuietly(client, failure);
        closeQuietly(accepted, failure);
        closeQuietly(server, failure);
        if (failure.getSuppressed().length > 0) {
            throw failure;
        }
    }

    @Override
    public String toString() {
        return description();
    }
}
