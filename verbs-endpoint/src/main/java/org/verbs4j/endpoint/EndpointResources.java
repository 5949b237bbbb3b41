package org.verbs4j.endpoint;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.verbs4j.api.CompletionChannel;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.QueuePair;
import org.verbs4j.api.cm.CmId;
import org.verbs4j.api.cm.ConnectionManager;
import org.verbs4j.api.spi.FabricProvider;

/**
 * Everything one endpoint is made of, recorded as {@link Endpoints} and {@link EndpointServer} create it, and
 * the one place that frees it: {@link #release} closes in dependency order (queue pair and its rdma_cm id,
 * completion queues and their channel, memory regions, protection domain, native request arrays, then the connection manager or
 * device context the endpoint owns), for a failed set-up and for {@link RdmaEndpoint#close} alike.
 */
final class EndpointResources {
    private static final Logger LOG = LoggerFactory.getLogger(EndpointResources.class);

    String description;
    FabricProvider fabric;
    ConnectionMode mode;
    EndpointOptions options;
    DeviceContext context;
    boolean ownsContext;
    ConnectionManager ownedCm;
    CmId cmId;
    ProtectionDomain pd;
    /** The send and receive CQs' channel, with {@link EndpointOptions#completionChannel(boolean)}; else null. */
    CompletionChannel channel;
    CompletionQueue sendCq;
    CompletionQueue recvCq;
    QueuePair qp;
    MessageSlots sendSlots;
    MessageSlots recvSlots;
    MemoryRegion controlMr;
    MemoryRegion rdmaMr;
    ByteBuffer rdmaBuffer;
    int creditSlots;
    /** Regions the user registered through {@link EndpointQueuePair#registerMemory}: closed with the endpoint. */
    final List<MemoryRegion> userRegions = new ArrayList<>();
    /** The endpoint's calls in progress: its close waits for them before it frees anything. */
    final org.verbs4j.api.spi.CloseGuard guard = new org.verbs4j.api.spi.CloseGuard();
    /** Native work-request and completion arrays of the data path, freed last. */
    final List<AutoCloseable> natives = new ArrayList<>();

    /** {@code c}, recorded so that {@link #release} frees it. */
    <T extends AutoCloseable> T own(T c) {
        natives.add(c);
        return c;
    }

    /**
     * Frees everything made so far, in dependency order, going on past a failure; returns the failures. With
     * {@code disconnect}, an rdma_cm connection is disconnected first (a set-up that failed has none to end).
     */
    List<Throwable> release(boolean disconnect) {
        List<Throwable> failures = new ArrayList<>();
        if (cmId != null) {
            if (disconnect) {
                AutoCloseable disconnecting = cmId::disconnect;
                run(failures, disconnecting);
            }
            run(failures, cmId); // destroys its queue pair too
        } else {
            run(failures, qp);
        }
        for (int i = userRegions.size() - 1; i >= 0; i--) {
            run(failures, userRegions.get(i));
        }
        List<AutoCloseable> order = new ArrayList<>(Arrays.asList(sendCq, recvCq, channel,
                sendSlots == null ? null : sendSlots.region(), recvSlots == null ? null : recvSlots.region(),
                controlMr, rdmaMr, pd));
        order.addAll(natives);
        order.add(ownedCm);
        if (ownsContext) {
            order.add(context);
        }
        for (AutoCloseable c : order) {
            run(failures, c);
        }
        return failures;
    }

    /** After a failed set-up: frees what was made; the set-up's own exception is what the caller sees. */
    void abandon() {
        release(false).forEach(t -> LOG.debug("while freeing a failed endpoint set-up", t));
    }

    private static void run(List<Throwable> failures, AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception e) {
            failures.add(e);
        }
    }
}
