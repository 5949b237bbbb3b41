package org.verbs4j.jnr;

import org.verbs4j.lab.CmLoopback;
import org.verbs4j.lab.CmSide;

import org.verbs4j.lab.Lab;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.QpInitAttributes;
import org.verbs4j.api.QpType;
import org.verbs4j.api.Rdma;
import org.verbs4j.api.internal.RawMemory;
import org.verbs4j.api.spi.AbstractResource;
import org.verbs4j.api.cm.CmId;
import org.verbs4j.api.cm.ConnectionManager;
import org.verbs4j.api.cm.PortSpace;

/**
 * CmId and ConnectionManager follow the resource model of every verbs object: a ConnectionManager closes
 * its ids, an id its queue pair; a ConnectionManager refuses to close while a context it opened is in use;
 * use after close throws; a queue pair closed directly leaves librdmacm no dangling pointer; a forgotten
 * manager is reported as a leak. On RoCE (rxe) and iWARP (siw).
 */
class CmOwnershipIT {
    private static final Duration T = Duration.ofSeconds(20);

    static List<Integer> devices() {
        return List.of(0, 1);
    }

    private static InetAddress ip(int dev) throws Exception {
        return InetAddress.getByName(Lab.env(dev == 0 ? "FABRIC_LAB_RXE_IP" : "FABRIC_LAB_SIW_IP"));
    }

    @ParameterizedTest
    @MethodSource("devices")
    void closingTheManagerClosesItsIdsAndTheirUseThenThrows(int dev) throws Exception {
        ConnectionManager cm = Rdma.connectionManager();
        CmId listener = CmSide.listen(cm, PortSpace.TCP, new InetSocketAddress(ip(dev), 7800 + dev));
        CmId idle = cm.createId();
        cm.close();
        assertTrue(cm.isClosed() && listener.isClosed() && idle.isClosed(), "the manager closed its ids");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> idle.bind(
                new InetSocketAddress(ip(dev), 7802 + dev)));
        assertTrue(e.getMessage().contains("is closed"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> listener.awaitRequest(T), "a wait after close");
        assertThrows(IllegalStateException.class, () -> idle.awaitDisconnected(T));
        assertThrows(IllegalStateException.class, cm::createId);
        cm.close(); // harmless
        listener.close();
        // the port is free again: the listener's rdma_cm id is really gone
        try (ConnectionManager again = Rdma.connectionManager(); CmId l2 = again.createId()) {
            l2.bind(new InetSocketAddress(ip(dev), 7800 + dev));
        }
    }

    @ParameterizedTest
    @MethodSource("devices")
    void theManagerRefusesToCloseWhileItsContextIsInUse(int dev) throws Exception {
        ConnectionManager cm = Rdma.connectionManager();
        CmId id = cm.createId();
        id.bind(new InetSocketAddress(ip(dev), 7810 + dev));
        ProtectionDomain pd = id.context().allocProtectionDomain();
        IllegalStateException e = assertThrows(IllegalStateException.class, cm::close);
        assertTrue(e.getMessage().contains("ProtectionDomain"), e.getMessage());
        assertFalse(cm.isClosed() || id.isClosed(), "refused before anything closed");
        pd.close();
        cm.close();
        assertTrue(id.isClosed());
    }

    @ParameterizedTest
    @MethodSource("devices")
    void closingTheIdClosesItsQueuePairAndClosingTheQpDirectlyClearsIdQp(int dev) throws Exception {
        CompletionQueue[] cqs = new CompletionQueue[2];
        CmLoopback cm = CmLoopback.connect(ip(dev), 7820 + dev, (ctx, pd, server) -> {
            CompletionQueue cq = ctx.createCompletionQueue(16);
            cqs[server ? 1 : 0] = cq;
            return new QpInitAttributes(QpType.RC, cq, cq).maxSendWr(4).maxRecvWr(4);
        });
        try {
            long clientId = ((JnrCmId) cm.clientId()).id;
            assertTrue(RawMemory.getAddress(clientId + RdmacmLayout.ID_QP) != 0);
            // the PD knows the QP, and so does its id
            assertTrue(((AbstractResource) cm.clientId()).openChildren().contains((AbstractResource) cm.client()));
            cm.client().close();
            assertEquals(0L, RawMemory.getAddress(clientId + RdmacmLayout.ID_QP), "id->qp after the QP closed");
            assertTrue(cm.clientId().queuePair().isClosed());
            // rdma_disconnect moves id->qp to ERR (IB) or SQD (iWARP): with the QP gone it must not touch it
            cm.clientId().disconnect();
            cm.serverId().awaitDisconnected(T);
            cm.clientId().awaitDisconnected(T);
            cm.serverId().close();
            assertTrue(cm.server().isClosed(), "closing the id closed its queue pair");
        } finally {
            cm.closeWith(cqs);
        }
    }

    @Test
    void aForgottenConnectionManagerIsReportedAsALeak() throws Exception {
        long before = AbstractResource.leakCount();
        forget();
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (AbstractResource.leakCount() < before + 2 && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(100);
        }
        assertTrue(AbstractResource.leakCount() >= before + 2, "the manager and its id were not reported: "
                + (AbstractResource.leakCount() - before) + " leak reports (the event thread keeps them reachable?)");
    }

    private static void forget() {
        ConnectionManager cm = Rdma.connectionManager();
        cm.createId();
    }
}
