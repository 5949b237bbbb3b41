package org.verbs4j.jnr;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.QpInitAttributes;
import org.verbs4j.api.QpState;
import org.verbs4j.api.QueuePair;
import org.verbs4j.api.Rdma;
import org.verbs4j.api.VerbsException;
import org.verbs4j.api.internal.RawMemory;

/**
 * Test fixture: two RC queue pairs in this process, connected to each other through rdma_cm on the
 * device that owns {@code ip}. iWARP QPs can only be connected this way (the kernel's iWARP CM moves
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
 * ({@link #close()} destroys the QPs, the ids and the PD).
 */
public final class CmLoopback implements AutoCloseable {
    private static final int EV_ADDR_RESOLVED = 0;
    private static final int EV_ROUTE_RESOLVED = 2;
    private static final int EV_CONNECT_REQUEST = 4;
    private static final int EV_ESTABLISHED = 9;
    private static final int EV_DISCONNECTED = 10;
    private static final int TIMEOUT_MS = 20_000;

    /** Creates the CQs for one side on the CM's device context and returns that side's QP attributes. */
    @FunctionalInterface
    public interface Setup {
        QpInitAttributes create(DeviceContext ctx, ProtectionDomain pd, boolean serverSide);
    }

    private final LibRdmacm cm = LibRdmacm.get();
    private final List<Runnable> cleanup = new ArrayList<>();
    private long channel;
    private long listenId;
    private long clientId;
    private long serverId;
    private JnrDeviceContext context;
    private JnrProtectionDomain pd;
    private JnrQueuePair client;
    private JnrQueuePair server;

    private CmLoopback() {
    }

    public static CmLoopback connect(InetAddress ip, int port, Setup setup) {
        return connect(ip, port, setup, 16, 16);
    }

    /** With the RDMA read/atomic depth each side offers (responder_resources) and uses (initiator_depth). */
    public static CmLoopback connect(InetAddress ip, int port, Setup setup, int responderResources, int initiatorDepth) {
        CmLoopback c = new CmLoopback();
        try {
            c.doConnect(ip, port, setup, responderResources, initiatorDepth);
            return c;
        } catch (RuntimeException | Error e) {
            c.close();
            throw e;
        }
    }

    private void doConnect(InetAddress ip, int port, Setup setup, int responderResources, int initiatorDepth) {
        if (!(ip instanceof Inet4Address)) {
            throw new IllegalArgumentException("IPv4 only in this fixture: " + ip);
        }
        channel = cm.createEventChannel.call(0);
        if (channel == 0) {
            throw new VerbsException("rdma_create_event_channel", NativeFunction.errno(), null);
        }
        long addr = sockaddr(ip, port);
        cleanup.add(() -> RawMemory.free(addr));
        listenId = createId();
        check(cm.bindAddr.call(listenId, addr), "rdma_bind_addr", ip.getHostAddress() + ":" + port);
        check(cm.listen.call(listenId, 4), "rdma_listen", null);

        clientId = createId();
        check(cm.resolveAddr.call(clientId, 0, addr, 5000), "rdma_resolve_addr", ip.getHostAddress());
        expect(EV_ADDR_RESOLVED, clientId);
        check(cm.resolveRoute.call(clientId, 5000), "rdma_resolve_route", ip.getHostAddress());
        expect(EV_ROUTE_RESOLVED, clientId);

        context = ((JnrBackend) org.verbs4j.api.spi.Backends.inUse()).adoptContext(RawMemory.getAddress(clientId + LibRdmacm.ID_VERBS));
        pd = (JnrProtectionDomain) context.allocProtectionDomain();
        client = JnrQueuePair.createOnCmId(pd, setup.create(context, pd, false), clientId);

        long param = RawMemory.allocate(LibRdmacm.CONN_PARAM_SIZE);
        cleanup.add(() -> RawMemory.free(param));
        RawMemory.putByte(param + LibRdmacm.CP_RESPONDER_RESOURCES, (byte) responderResources);
        RawMemory.putByte(param + LibRdmacm.CP_INITIATOR_DEPTH, (byte) initiatorDepth);
        RawMemory.putByte(param + LibRdmacm.CP_RETRY_COUNT, (byte) 7);
        RawMemory.putByte(param + LibRdmacm.CP_RNR_RETRY_COUNT, (byte) 7);
        check(cm.connect.call(clientId, param), "rdma_connect", null);

        long request = await(EV_CONNECT_REQUEST);
        serverId = RawMemory.getAddress(request + LibRdmacm.EVENT_ID);
        cm.ackCmEvent.call(request);
        if (RawMemory.getAddress(serverId + LibRdmacm.ID_VERBS) != context.address()) {
            throw new IllegalStateException("the connect request arrived on another device context");
        }
        server = JnrQueuePair.createOnCmId(pd, setup.create(context, pd, true), serverId);
        check(cm.accept.call(serverId, param), "rdma_accept", null);
        int established = 0;
        while (established < 2) {
            long ev = await(EV_ESTABLISHED);
            cm.ackCmEvent.call(ev);
            established++;
        }
        client.noteState(QpState.RTS);
        server.noteState(QpState.RTS);
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

    private long createId() {
        long out = RawMemory.allocate(8);
        try {
            check(cm.createId.call(channel, out, 0, LibRdmacm.RDMA_PS_TCP), "rdma_create_id", null);
            return RawMemory.getAddress(out);
        } finally {
            RawMemory.free(out);
        }
    }

    private static long sockaddr(InetAddress ip, int port) {
        long a = RawMemory.allocate(16); // struct sockaddr_in
        RawMemory.putShort(a, (short) 2); // AF_INET
        RawMemory.putShort(a + 2, Short.reverseBytes((short) port));
        byte[] b = ip.getAddress();
        RawMemory.copyFromArray(b, 0, 4, a + 4);
        return a;
    }

    private static void check(long rc, String verb, String detail) {
        if (rc != 0) {
            throw new VerbsException(verb, NativeFunction.errno(), detail);
        }
    }

    /** The next event on the channel, which must be {@code type}; returns it un-acked. */
    private long await(int type) {
        int fd = RawMemory.getInt(channel + LibRdmacm.CHANNEL_FD);
        if (!LibC.awaitReadable(fd, TIMEOUT_MS)) {
            throw new IllegalStateException("no rdma_cm event within " + TIMEOUT_MS + " ms (waiting for "
                    + cm.eventName(type) + ")");
        }
        long out = RawMemory.allocate(8);
        try {
            check(cm.getCmEvent.call(channel, out), "rdma_get_cm_event", null);
            long ev = RawMemory.getAddress(out);
            int got = RawMemory.getInt(ev + LibRdmacm.EVENT_EVENT);
            if (got != type) {
                int status = RawMemory.getInt(ev + LibRdmacm.EVENT_STATUS);
                cm.ackCmEvent.call(ev);
                throw new IllegalStateException("rdma_cm: expected " + cm.eventName(type) + ", got "
                        + cm.eventName(got) + " (status " + status + ")");
            }
            return ev;
        } finally {
            RawMemory.free(out);
        }
    }

    private void expect(int type, long id) {
        long ev = await(type);
        long got = RawMemory.getAddress(ev + LibRdmacm.EVENT_ID);
        cm.ackCmEvent.call(ev);
        if (got != id) {
            throw new IllegalStateException(cm.eventName(type) + " for another id");
        }
    }

    @Override
    public void close() {
        if (clientId != 0 && client != null && server != null) {
            cm.disconnect.call(clientId);
            // drain the DISCONNECTED events (one per side), but never hang on a peer that is gone
            for (int i = 0; i < 2; i++) {
                int fd = RawMemory.getInt(channel + LibRdmacm.CHANNEL_FD);
                if (!LibC.awaitReadable(fd, 2000)) {
                    break;
                }
                long out = RawMemory.allocate(8);
                try {
                    if (cm.getCmEvent.call(channel, out) == 0) {
                        long ev = RawMemory.getAddress(out);
                        int t = RawMemory.getInt(ev + LibRdmacm.EVENT_EVENT);
                        cm.ackCmEvent.call(ev);
                        if (t != EV_DISCONNECTED) {
                            i--;
                        }
                    }
                } finally {
                    RawMemory.free(out);
                }
            }
        }
        if (client != null && !client.isClosed()) {
            client.close();
        }
        if (server != null && !server.isClosed()) {
            server.close();
        }
        for (long id : new long[] {serverId, clientId, listenId}) {
            if (id != 0) {
                cm.destroyId.call(id);
            }
        }
        serverId = clientId = listenId = 0;
        if (channel != 0) {
            cm.destroyEventChannel.call(channel);
            channel = 0;
        }
        cleanup.forEach(Runnable::run);
        cleanup.clear();
    }

    /** Closes the PD and the adopted context after the caller closed what its setup created. */
    public void closeDomain() {
        if (pd != null && !pd.isClosed()) {
            pd.close();
        }
        if (context != null && !context.isClosed()) {
            context.close();
        }
    }
}
