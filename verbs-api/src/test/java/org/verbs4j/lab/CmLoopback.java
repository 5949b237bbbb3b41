package org.verbs4j.lab;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.QpInitAttributes;
import org.verbs4j.api.QueuePair;
import org.verbs4j.api.Rdma;
import org.verbs4j.api.cm.CmId;
import org.verbs4j.api.cm.ConnectionManager;
import org.verbs4j.api.cm.ConnectionParameters;
import org.verbs4j.api.cm.ConnectionRequest;

/**
 * Test fixture: two RC queue pairs in this process, connected to each other through rdma_cm on the
 * device that owns {@code ip}, with the {@link CmId} API (one {@link ConnectionManager}, a listener, a
 * client id and the accepted id). iWARP QPs can only be connected this way (the kernel's iWARP CM moves
 * them to RTS over a TCP connection); it works on RoCE as well.
 *
 * <pre>{@code
 * try (CmLoopback cm = CmLoopback.connect(ip, 7471, (ctx, pd, server) -> {
 *         CompletionQueue cq = ctx.createCompletionQueue(64);
 *         return new QpInitAttributes(QpType.RC, cq, cq);
 *     })) {
 *     cm.client().postSend(...);
 * }
 * }</pre>
 * The CQs and other objects the setup creates are the caller's to close, after this fixture
 * ({@link #close()} disconnects and closes the ids with their QPs; {@link #closeDomain()} the PD and the
 * connection manager, with the device context librdmacm opened).
 */
public final class CmLoopback implements AutoCloseable {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    /** Creates the CQs for one side on the CM's device context and returns that side's QP attributes. */
    @FunctionalInterface
    public interface Setup {
        public QpInitAttributes create(DeviceContext ctx, ProtectionDomain pd, boolean serverSide);
    }

    private final ConnectionManager manager = Rdma.connectionManager();
    private CmId listener;
    private CmId clientId;
    private CmId serverId;
    private DeviceContext context;
    private ProtectionDomain pd;
    private QueuePair client;
    private QueuePair server;

    private CmLoopback() {
    }

    public static CmLoopback connect(InetAddress ip, int port, Setup setup) {
        return connect(ip, port, setup, 16, 16);
    }

    /** With the RDMA read/atomic depth each side offers (responder_resources) and uses (initiator_depth). */
    public static CmLoopback connect(InetAddress ip, int port, Setup setup, int responderResources, int initiatorDepth) {
        CmLoopback c = new CmLoopback();
        try {
            c.doConnect(new InetSocketAddress(ip, port), setup, ConnectionParameters.defaults()
                    .withResponderResources(responderResources).withInitiatorDepth(initiatorDepth)
                    .withRetryCount(7).withRnrRetryCount(7));
            return c;
        } catch (RuntimeException | Error e) {
            try {
                c.close();
                c.closeDomain();
            } catch (RuntimeException alsoFailed) {
                e.addSuppressed(alsoFailed); // the setup's CQs are still open: the caller closes them
            }
            throw e;
        }
    }

    private void doConnect(InetSocketAddress address, Setup setup, ConnectionParameters params) {
        listener = manager.createId();
        listener.bind(address);
        listener.listen(4);

        clientId = manager.createId();
        clientId.resolveAddress(address, TIMEOUT);
        clientId.resolveRoute(TIMEOUT);
        context = clientId.context();
        pd = context.allocProtectionDomain();
        client = clientId.createQueuePair(pd, setup.create(context, pd, false));
        CompletableFuture<byte[]> connecting = Async.supply(() -> clientId.connect(params, TIMEOUT));

        ConnectionRequest request = listener.awaitRequest(TIMEOUT);
        serverId = request.id();
        if (serverId.context() != context) {
            throw new IllegalStateException("the connect request arrived on another device context");
        }
        server = serverId.createQueuePair(pd, setup.create(context, pd, true));
        serverId.accept(params);
        serverId.awaitEstablished(TIMEOUT);
        try {
            connecting.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } catch (InterruptedException | TimeoutException e) {
            throw new IllegalStateException("rdma_connect did not return after the accept", e);
        }
    }

    public DeviceContext context() {
        return context;
    }

    public ProtectionDomain protectionDomain() {
        return pd;
    }

    /** The active side's QP (the one that called rdma_connect: on iWARP it should send first). */
    public QueuePair client() {
        return client;
    }

    public QueuePair server() {
        return server;
    }

    /** The id of {@link #client()}. */
    public CmId clientId() {
        return clientId;
    }

    /** The accepted id, of {@link #server()}. */
    public CmId serverId() {
        return serverId;
    }

    /** Disconnects (waiting briefly for both sides' DISCONNECTED) and closes the ids, their QPs with them. */
    @Override
    public void close() {
        if (clientId != null && !clientId.isClosed() && client != null && server != null && serverId != null) {
            try {
                clientId.disconnect();
                clientId.awaitDisconnected(Duration.ofSeconds(2));
                serverId.awaitDisconnected(Duration.ofSeconds(2));
            } catch (RuntimeException e) {
                // never hang on a peer that is gone: closing the ids ends the connection anyway
            }
        }
        for (CmId id : new CmId[] {serverId, clientId, listener}) {
            if (id != null) {
                id.close();
            }
        }
    }

    /**
     * Closes everything: {@link #close()}, then what the caller's setup created ({@code setupObjects}, e.g. the
     * CQs, in order; nulls are skipped), then {@link #closeDomain()}.
     */
    public void closeWith(AutoCloseable... setupObjects) throws Exception {
        close();
        CmSide.closeAll(setupObjects);
        closeDomain();
    }

    /** Closes the PD and the connection manager (with librdmacm's device context) after the caller closed what its setup created. */
    public void closeDomain() {
        if (pd != null && !pd.isClosed()) {
            pd.close();
        }
        manager.close();
    }
}
