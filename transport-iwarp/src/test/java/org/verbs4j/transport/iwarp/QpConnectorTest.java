package org.verbs4j.transport.iwarp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.verbs4j.api.Access;
import org.verbs4j.api.AddressVector;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.FabricOptions;
import org.verbs4j.api.Gid;
import org.verbs4j.api.Mtu;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.QpAttrMask;
import org.verbs4j.api.QpAttributes;
import org.verbs4j.api.QpConnector;
import org.verbs4j.api.QpEndpoint;
import org.verbs4j.api.QpState;
import org.verbs4j.api.QpType;
import org.verbs4j.api.QueuePair;
import org.verbs4j.api.spi.FabricProvider;
import org.verbs4j.transport.recorded.Recorded;
import org.verbs4j.transport.recorded.RecordedPort;

/**
 * {@link QpConnector} on recorded ports of each fabric, against a queue pair that records every
 * {@code modify}: the exact attributes and mask of each transition of RC, UC and UD, the fabric's defaults
 * and the options that override them, and the refusals (iWARP, a QP not in RESET).
 */
class QpConnectorTest {
    /** scorpio mlx5_1: ConnectX-5, RoCE, ACTIVE, MTU 1024 active; IPv4-mapped RoCE v2 GIDs. */
    private static final RecordedPort ROCE = Recorded.port(Recorded.SCORPIO, "mlx5_1", 1);
    /** scorpio mlx5_0: ConnectX-6, InfiniBand, ACTIVE, LID 62. */
    private static final RecordedPort IB = Recorded.port(Recorded.SCORPIO, "mlx5_0", 1);
    /** QL41112 qedr0: iWARP. */
    private static final RecordedPort IWARP = Recorded.port(Recorded.QEDR, "qedr0", 1);
    private static final QpEndpoint ROCE_PEER = new QpEndpoint(0, 0x99, 0x777, Gid.parse("::ffff:10.1.2.3"));
    private static final QpEndpoint IB_PEER = new QpEndpoint(7, 0x99, 0x777, Gid.parse("fe80::1"));

    private static final int RC_INIT = QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.ACCESS_FLAGS;
    private static final int RC_RTR = QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN
            | QpAttrMask.RQ_PSN | QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER;
    private static final int RC_RTS = QpAttrMask.STATE | QpAttrMask.SQ_PSN | QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT
            | QpAttrMask.RNR_RETRY | QpAttrMask.MAX_QP_RD_ATOMIC;

    /** A queue pair that records what it is asked to become. */
    static final class FakeQp {
        final List<QpAttributes> modified = new ArrayList<>();
        final List<AddressVector> handles = new ArrayList<>();
        QpState state = QpState.RESET;
        final QueuePair qp;

        FakeQp(QpType type, int qpn) {
            ProtectionDomain pd = (ProtectionDomain) Proxy.newProxyInstance(getClass().getClassLoader(),
                    new Class<?>[] {ProtectionDomain.class}, (self, m, args) -> {
                        if (m.getName().equals("createAddressHandle")) {
                            handles.add((AddressVector) args[0]);
                            return null;
                        }
                        throw new UnsupportedOperationException(m.getName());
                    });
            qp = (QueuePair) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {QueuePair.class},
                    (self, m, args) -> {
                        switch (m.getName()) {
                            case "type": return type;
                            case "qpNumber": return qpn;
                            case "state": return state;
                            case "protectionDomain": return pd;
                            case "modify":
                                QpAttributes a = (QpAttributes) args[0];
                                modified.add(a);
                                state = a.state();
                                return null;
                            case "toString": return "fake QP";
                            default: throw new UnsupportedOperationException(m.getName());
                        }
                    });
        }
    }

    private static DeviceContext context(RecordedPort p) {
        return (DeviceContext) Proxy.newProxyInstance(QpConnectorTest.class.getClassLoader(),
                new Class<?>[] {DeviceContext.class}, (self, m, args) -> {
                    switch (m.getName()) {
                        case "device": return p.device();
                        case "queryPort": return p.attributes();
                        case "queryGidTable": return p.gids();
                        default: throw new UnsupportedOperationException(m.getName());
                    }
                });
    }

    @Test
    void rcOnRoceUsesTheProvidersDefaultsInEachTransition() {
        FakeQp f = new FakeQp(QpType.RC, 0x42);
        QpConnector c = QpConnector.builder(context(ROCE), f.qp).psn(0xabcdef).prepare();
        assertEquals(1, f.modified.size(), "prepare moves to INIT only");
        QpAttributes init = f.modified.get(0);
        assertEquals(RC_INIT, init.mask(), init.toString());
        assertEquals(QpState.INIT, init.state());
        assertEquals(1, init.port());
        assertEquals(0, init.pkeyIndex());
        assertEquals(Access.REMOTE_WRITE | Access.REMOTE_READ, init.accessFlags());
        assertSame(init, c.initAttributes());

        QpEndpoint me = c.localEndpoint();
        assertEquals(new QpEndpoint(0, 0x42, 0xabcdef, c.sourceGid().gid()), me);
        assertTrue(me.gid().isIpv4Mapped(), "RoCE v2, IPv4-mapped by default: " + c.sourceGid());
        assertEquals("roce", c.fabricName());

        c.connect(ROCE_PEER);
        assertEquals(3, f.modified.size());
        QpAttributes rtr = f.modified.get(1);
        assertEquals(RC_RTR, rtr.mask(), rtr.toString());
        assertEquals(QpState.RTR, rtr.state());
        assertEquals(0x99, rtr.destQpNum());
        assertEquals(0x777, rtr.rqPsn());
        assertEquals(ROCE.attributes().activeMtu(), rtr.pathMtu());
        assertEquals(FabricProvider.DEFAULT_RD_ATOMIC, rtr.maxDestRdAtomic());
        assertEquals(FabricProvider.DEFAULT_MIN_RNR_TIMER, rtr.minRnrTimer());
        AddressVector av = rtr.addressVector();
        assertTrue(av.isGlobal(), av.toString());
        assertEquals(ROCE_PEER.gid(), av.dgid());
        assertEquals(c.sourceGid().index(), av.sgidIndex());
        QpAttributes rts = f.modified.get(2);
        assertEquals(RC_RTS, rts.mask(), rts.toString());
        assertEquals(QpState.RTS, rts.state());
        assertEquals(0xabcdef, rts.sqPsn());
        assertEquals(FabricProvider.DEFAULT_TIMEOUT, rts.timeout());
        assertEquals(FabricProvider.DEFAULT_RETRY, rts.retryCount());
        assertEquals(FabricProvider.DEFAULT_RNR_RETRY, rts.rnrRetry());
        assertEquals(FabricProvider.DEFAULT_RD_ATOMIC, rts.maxRdAtomic());
    }

    @Test
    void optionsAndSettingsOverrideTheDefaults() {
        FakeQp f = new FakeQp(QpType.RC, 0x42);
        FabricOptions o = FabricOptions.defaults().timeout(20).retryCount(3).rnrRetry(0).minRnrTimer(1).pkeyIndex(2)
                .hopLimit(1).serviceLevel(3).mtu(Mtu.MTU_512);
        QpConnector c = QpConnector.builder(context(ROCE), f.qp).options(o)
                .access(Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_ATOMIC).rdAtomic(4).prepare();
        QpAttributes init = f.modified.get(0);
        assertEquals(Access.REMOTE_WRITE | Access.REMOTE_ATOMIC, init.accessFlags(), "LOCAL_WRITE is an MR flag");
        assertEquals(2, init.pkeyIndex());
        assertTrue(c.psn() >= 0 && c.psn() <= 0xffffff, "a random 24-bit PSN: " + c.psn());
        assertEquals(Mtu.MTU_512, c.pathMtu(), "the options lower the port's MTU");

        c.connect(ROCE_PEER, Mtu.MTU_256);
        QpAttributes rtr = f.modified.get(1);
        assertEquals(Mtu.MTU_256, rtr.pathMtu(), "the peer's smaller MTU wins");
        assertEquals(4, rtr.maxDestRdAtomic());
        assertEquals(1, rtr.minRnrTimer());
        assertEquals(1, rtr.addressVector().hopLimit());
        assertEquals(3, rtr.addressVector().serviceLevel());
        QpAttributes rts = f.modified.get(2);
        assertEquals(c.psn(), rts.sqPsn());
        assertEquals(20, rts.timeout());
        assertEquals(3, rts.retryCount());
        assertEquals(0, rts.rnrRetry());
        assertEquals(4, rts.maxRdAtomic());

        FakeQp g = new FakeQp(QpType.RC, 0x43);
        QpConnector.builder(context(ROCE), g.qp).prepare().connect(ROCE_PEER, Mtu.MTU_4096);
        assertEquals(ROCE.attributes().activeMtu(), g.modified.get(1).pathMtu(), "a larger peer MTU does not raise it");
    }

    @Test
    void ucTakesNoReadAtomicOrTimerAttributes() {
        FakeQp f = new FakeQp(QpType.UC, 0x50);
        QpConnector c = QpConnector.prepare(context(ROCE), f.qp, 1, null);
        assertEquals(RC_INIT, f.modified.get(0).mask());
        assertEquals(Access.REMOTE_WRITE, f.modified.get(0).accessFlags());
        c.connect(ROCE_PEER);
        assertEquals(QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN | QpAttrMask.RQ_PSN,
                f.modified.get(1).mask(), f.modified.get(1).toString());
        assertEquals(QpAttrMask.STATE | QpAttrMask.SQ_PSN, f.modified.get(2).mask(), f.modified.get(2).toString());
        assertEquals(c.psn(), f.modified.get(2).sqPsn());
    }

    @Test
    void udTakesTheQkeyAtInitAndNoPeerInItsTransitions() {
        FakeQp f = new FakeQp(QpType.UD, 0x60);
        QpConnector c = QpConnector.builder(context(ROCE), f.qp).qkey(0x1234).psn(5).prepare();
        QpAttributes init = f.modified.get(0);
        assertEquals(QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.QKEY, init.mask(),
                init.toString());
        assertEquals(0x1234, init.qkey());
        c.connect(null);
        assertEquals(QpAttrMask.STATE, f.modified.get(1).mask());
        assertEquals(QpState.RTR, f.modified.get(1).state());
        assertEquals(QpAttrMask.STATE | QpAttrMask.SQ_PSN, f.modified.get(2).mask());
        assertEquals(5, f.modified.get(2).sqPsn());

        assertNull(c.addressHandle(ROCE_PEER), "the fake PD makes no handle");
        assertEquals(1, f.handles.size());
        assertEquals(ROCE_PEER.gid(), f.handles.get(0).dgid());
        assertEquals(QpConnector.DEFAULT_QKEY, 0x11111111);
    }

    @Test
    void infiniBandAddressesByLid() {
        FakeQp f = new FakeQp(QpType.RC, 0x70);
        QpConnector c = QpConnector.prepare(context(IB), f.qp, 1, FabricOptions.defaults());
        assertEquals(IB.attributes().lid(), c.localEndpoint().lid());
        c.connect(IB_PEER);
        AddressVector av = f.modified.get(1).addressVector();
        assertFalse(av.isGlobal(), av.toString());
        assertEquals(7, av.dlid());
        assertEquals(QpState.RTS, f.state);
    }

    @Test
    void iwarpIsRefusedWithTheWayToConnectIt() {
        FakeQp f = new FakeQp(QpType.RC, 0x80);
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
                () -> QpConnector.prepare(context(IWARP), f.qp, 1, null));
        assertTrue(e.getMessage().contains("qedr0 port 1") && e.getMessage().contains("iwarp")
                && e.getMessage().contains("rdma_cm") && e.getMessage().contains("endpoint"), e.getMessage());
        assertEquals(List.of(), f.modified, "nothing modified");
    }

    @Test
    void aQueuePairNotInResetIsRefused() {
        FakeQp f = new FakeQp(QpType.RC, 0x90);
        f.state = QpState.RTS;
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> QpConnector.prepare(context(ROCE), f.qp, 1, null));
        assertTrue(e.getMessage().contains("QP 0x90 is in RTS") && e.getMessage().contains("RESET"), e.getMessage());
        assertEquals(List.of(), f.modified);
    }

    @Test
    void badSettingsAreRefusedWhenSet() {
        FakeQp f = new FakeQp(QpType.RC, 1);
        QpConnector.Builder b = QpConnector.builder(context(ROCE), f.qp);
        assertThrows(IllegalArgumentException.class, () -> b.psn(1 << 24));
        assertThrows(IllegalArgumentException.class, () -> b.port(0));
        assertThrows(IllegalArgumentException.class, () -> b.rdAtomic(-1));
        assertThrows(NullPointerException.class, () -> b.prepare().connect(null));
    }
}
