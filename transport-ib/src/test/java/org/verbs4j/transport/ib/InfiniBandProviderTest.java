package org.verbs4j.transport.ib;

import org.verbs4j.api.QpState;
import org.verbs4j.api.QpAttributes;
import org.verbs4j.api.QpAttrMask;
import org.verbs4j.api.Mtu;
import org.verbs4j.api.Access;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.verbs4j.api.AddressVector;
import org.verbs4j.api.Gid;
import org.verbs4j.api.GidEntry;
import org.verbs4j.api.PortAttributes;
import org.verbs4j.api.PortState;
import org.verbs4j.api.QpEndpoint;
import org.verbs4j.api.FabricOptions;
import org.verbs4j.api.spi.FabricProvider;
import org.verbs4j.api.spi.Fabrics;
import org.verbs4j.api.tools.IbvDevinfo;
import org.verbs4j.transport.recorded.Recorded;
import org.verbs4j.transport.recorded.RecordedPort;

/**
 * The InfiniBand provider on ports recorded on real ConnectX-3/5/6/7 HCAs (and on the RoCE and iWARP ports
 * of the same files, which it must not claim).
 */
class InfiniBandProviderTest {
    private final InfiniBandProvider ib = new InfiniBandProvider();

    /** scorpio mlx5_0: ConnectX-6 HDR, ACTIVE, LID 62, GID[0] fe80::0c42:a103:0065:d6b6. */
    private static final RecordedPort SCORPIO_IB = Recorded.port(Recorded.SCORPIO, "mlx5_0", 1);
    /** ucx-9908 mlx5_0: ConnectX-6 HDR, ACTIVE, LID 4, GID[0] fe80::88e9:a4ff:ff25:a462. */
    private static final RecordedPort UCX_ACTIVE = Recorded.port(Recorded.UCX_9908, "mlx5_0", 1);
    /** ucx-9908 mlx5_1: PORT_DOWN, phys_state DISABLED, LID 65535. */
    private static final RecordedPort UCX_DISABLED = Recorded.port(Recorded.UCX_9908, "mlx5_1", 1);
    /** heioy-books mlx4_1 port 2 (-v): PORT_DOWN, phys_state POLLING, LID 0. */
    private static final RecordedPort HEIOY_POLLING = Recorded.port(Recorded.HEIOY_PORT2_DOWN, "mlx4_1", 2);

    static List<RecordedPort> allPorts() {
        return Recorded.allPorts();
    }

    static List<RecordedPort> infiniBandPorts() {
        return Recorded.allPorts().stream().filter(p -> Recorded.expectedFabric(p).equals("ib")).collect(Collectors.toList());
    }

    private static GidEntry gid0(RecordedPort p) {
        return p.gids().get(0);
    }

    private static QpEndpoint endpointOf(RecordedPort p, int qpn) {
        return new QpEndpoint(p.attributes().lid(), qpn, 0x424242, gid0(p).gid());
    }

    // ------------------------------------------------------------------ which ports

    @ParameterizedTest
    @MethodSource("allPorts")
    void servesExactlyTheRecordedInfiniBandPorts(RecordedPort p) {
        assertEquals(Recorded.expectedFabric(p).equals("ib"), ib.serves(p.device(), p.attributes()), p.toString());
    }

    @Test
    void isRegisteredAndClaimsNoRocePort() {
        assertTrue(Fabrics.providers().stream().anyMatch(f -> f instanceof InfiniBandProvider), Fabrics.providers().toString());
        assertTrue(Fabrics.named("ib") instanceof InfiniBandProvider);
        assertEquals("ib", Fabrics.forPort(SCORPIO_IB.device(), SCORPIO_IB.attributes(), null).name());
        RecordedPort roce = Recorded.port(Recorded.SCORPIO, "mlx5_1", 1);
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> Fabrics.forPort(roce.device(), roce.attributes(), FabricOptions.defaults()));
        assertTrue(e.getMessage().contains("mlx5_1") && e.getMessage().contains("Ethernet"), e.getMessage());
    }

    // ------------------------------------------------------------------ usable ports, refused ports

    @ParameterizedTest
    @MethodSource("infiniBandPorts")
    void everyRecordedPortIsUsableExactlyWhenItWasPrintedActiveWithALid(RecordedPort p) {
        long lid = IbvDevinfo.number(p.printed("port_lid"));
        boolean usable = p.printed("state").startsWith("PORT_ACTIVE") && lid != 0 && lid != 65535;
        if (usable) {
            QpEndpoint me = ib.localEndpoint(p.attributes(), null, 0x10, 0x20);
            assertEquals(lid, me.lid(), p.toString());
            assertEquals(Gid.ZERO, me.gid());
        } else {
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> ib.localEndpoint(p.attributes(), null, 0x10, 0x20), p.toString());
            assertTrue(e.getMessage().startsWith("port " + p.attributes().portNumber() + " is "), e.getMessage());
        }
    }

    @Test
    void disabledPortIsRefusedWithStateAndWhatToCheck() {
        PortAttributes port = UCX_DISABLED.attributes();
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> ib.requireUsable(UCX_DISABLED.device(), port));
        assertTrue(e.getMessage().startsWith(
                "port 1 of mlx5_1 is PORT_DOWN (phys_state DISABLED): check the cable / subnet manager; DISABLED means"),
                e.getMessage());
        String without = assertThrows(IllegalStateException.class,
                () -> ib.addressVector(port, gid0(UCX_DISABLED), endpointOf(UCX_ACTIVE, 7), null)).getMessage();
        assertTrue(without.startsWith("port 1 is PORT_DOWN (phys_state DISABLED): check the cable / subnet manager"), without);
        assertThrows(IllegalStateException.class, () -> ib.sourceGid(port, UCX_DISABLED.gids(), null));
        assertThrows(IllegalStateException.class, () -> ib.localEndpoint(port, gid0(UCX_DISABLED), 1, 1));
    }

    @Test
    void pollingPortIsRefusedAsHavingNoLink() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> ib.requireUsable(HEIOY_POLLING.device(), HEIOY_POLLING.attributes()));
        assertTrue(e.getMessage().startsWith("port 2 of mlx4_1 is PORT_DOWN (phys_state POLLING): check the cable / "
                + "subnet manager; POLLING means no link partner"), e.getMessage());
        assertTrue(e.getMessage().contains("ibv_devinfo -d mlx4_1 -i 2"), e.getMessage());
    }

    @Test
    void downPortOfShortOutputIsRefusedWithoutInventingAPhysState() {
        RecordedPort p = Recorded.port(Recorded.HEIOY_2HCA, "mlx4_0", 2);
        String m = assertThrows(IllegalStateException.class, () -> ib.requireUsable(p.device(), p.attributes())).getMessage();
        assertTrue(m.startsWith("port 2 of mlx4_0 is PORT_DOWN: check the cable / subnet manager"), m);
        assertFalse(m.contains("phys_state"), m);
    }

    @Test
    void activePortWithoutALidIsRefusedAsUnconfigured() {
        for (int lid : new int[] {0, 0xffff}) {
            PortAttributes port = Recorded.withLid(SCORPIO_IB.attributes(), lid);
            String m = assertThrows(IllegalStateException.class,
                    () -> ib.localEndpoint(port, gid0(SCORPIO_IB), 1, 1)).getMessage();
            assertTrue(m.contains(String.format("LID 0x%04x", lid)) && m.contains("subnet manager"), m);
        }
    }

    @Test
    void linkUpButNotActiveMeansNoSubnetManager() {
        PortAttributes init = Recorded.withState(SCORPIO_IB.attributes(), PortState.INIT, 5);
        String m = assertThrows(IllegalStateException.class, () -> ib.requireUsable(SCORPIO_IB.device(), init)).getMessage();
        assertTrue(m.startsWith("port 1 of mlx5_0 is PORT_INIT (phys_state LINK_UP)"), m);
        assertTrue(m.contains("opensm"), m);
    }

    // ------------------------------------------------------------------ source GID

    @Test
    void sourceGidIsIndexZeroUnlessAsked() {
        GidEntry g = ib.sourceGid(SCORPIO_IB.attributes(), SCORPIO_IB.gids(), null);
        assertEquals(0, g.index());
        assertEquals(Gid.parse("fe80:0000:0000:0000:0c42:a103:0065:d6b6"), g.gid());
        assertEquals(g, ib.sourceGid(SCORPIO_IB.attributes(), SCORPIO_IB.gids(), FabricOptions.defaults().gidIndex(0)));
    }

    @Test
    void aMissingGidIndexIsAClearError() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ib.sourceGid(SCORPIO_IB.attributes(), SCORPIO_IB.gids(), FabricOptions.defaults().gidIndex(5)));
        assertTrue(e.getMessage().startsWith("GID index 5 is not in the GID table of port 1 (asked for with gidIndex)"),
                e.getMessage());
        assertTrue(e.getMessage().contains("[0] fe80:0000:0000:0000:0c42:a103:0065:d6b6 IB"), e.getMessage());
        // the table of another port (port 1 of another device) does not help, and the message says so
        PortAttributes port2 = Recorded.withState(Recorded.withLid(HEIOY_POLLING.attributes(), 5), PortState.ACTIVE, 5);
        e = assertThrows(IllegalArgumentException.class, () -> ib.sourceGid(port2, SCORPIO_IB.gids(), null));
        assertTrue(e.getMessage().startsWith("GID index 0 is not in the GID table of port 2 (every active IB port has a "
                + "GID 0: was the table read from another port or device?); valid entries: none"), e.getMessage());
    }

    // ------------------------------------------------------------------ address vectors

    @Test
    void insideOneSubnetTheAddressIsTheLidAlone() {
        // both recorded ports have the default subnet prefix fe80::/64: one subnet as far as addressing goes
        QpEndpoint remote = endpointOf(UCX_ACTIVE, 0x1234);
        AddressVector av = ib.addressVector(SCORPIO_IB.attributes(), gid0(SCORPIO_IB), remote, FabricOptions.defaults());
        assertFalse(av.isGlobal(), av.toString());
        assertEquals(4, av.dlid());
        assertEquals(0, av.serviceLevel());
        assertEquals(0, av.srcPathBits());
        assertEquals(1, av.port());
        assertEquals(Gid.ZERO, av.dgid());
    }

    @Test
    void anotherSubnetPrefixAddsTheGrh() {
        Gid remoteGid = Gid.of(0xfec0000000000001L, gid0(UCX_ACTIVE).gid().interfaceId());
        QpEndpoint remote = new QpEndpoint(4, 0x1234, 1, remoteGid);
        AddressVector av = ib.addressVector(SCORPIO_IB.attributes(), gid0(SCORPIO_IB), remote, null);
        assertTrue(av.isGlobal(), av.toString());
        assertEquals(remoteGid, av.dgid());
        assertEquals(0, av.sgidIndex());
        assertEquals(64, av.hopLimit());
        assertEquals(0, av.trafficClass());
        assertEquals(4, av.dlid(), "still the LID ibv_rc_pingpong would use");

        AddressVector tuned = ib.addressVector(SCORPIO_IB.attributes(), gid0(SCORPIO_IB), remote,
                FabricOptions.defaults().hopLimit(3).trafficClass(32).serviceLevel(5));
        assertEquals(3, tuned.hopLimit());
        assertEquals(32, tuned.trafficClass());
        assertEquals(5, tuned.serviceLevel());
    }

    @Test
    void askingForAGidIndexForcesTheGrhInsideTheSubnet() {
        FabricOptions o = FabricOptions.defaults().gidIndex(0);
        GidEntry src = ib.sourceGid(SCORPIO_IB.attributes(), SCORPIO_IB.gids(), o);
        AddressVector av = ib.addressVector(SCORPIO_IB.attributes(), src, endpointOf(UCX_ACTIVE, 9), o);
        assertTrue(av.isGlobal());
        assertEquals(gid0(UCX_ACTIVE).gid(), av.dgid());
        assertEquals(64, av.hopLimit());
        assertEquals(4, av.dlid());
    }

    @Test
    void aPeerThatSentNoGidIsReachedByLidUnlessAGrhIsAskedFor() {
        QpEndpoint cTool = QpEndpoint.parseWire("0004:000123:000456:00000000000000000000000000000000");
        AddressVector av = ib.addressVector(SCORPIO_IB.attributes(), gid0(SCORPIO_IB), cTool, null);
        assertFalse(av.isGlobal());
        assertEquals(4, av.dlid());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ib.addressVector(
                SCORPIO_IB.attributes(), gid0(SCORPIO_IB), cTool, FabricOptions.defaults().gidIndex(0)));
        assertTrue(e.getMessage().contains("the peer sent no GID") && e.getMessage().contains("-g"), e.getMessage());
    }

    @Test
    void aPeerLidThatIsNotUnicastIsRefused() {
        for (int lid : new int[] {0, 0xc000, 0xffff}) {
            QpEndpoint remote = new QpEndpoint(lid, 1, 1, gid0(UCX_ACTIVE).gid());
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> ib.addressVector(SCORPIO_IB.attributes(), gid0(SCORPIO_IB), remote, null));
            assertTrue(e.getMessage().startsWith(String.format("the peer's LID 0x%04x is not a unicast LID", lid)),
                    e.getMessage());
        }
        assertEquals(0xbfff, ib.addressVector(SCORPIO_IB.attributes(), gid0(SCORPIO_IB),
                new QpEndpoint(0xbfff, 1, 1, Gid.ZERO), null).dlid());
    }

    @Test
    void serviceLevelComesFromTheOptions() {
        QpEndpoint remote = endpointOf(UCX_ACTIVE, 1);
        assertEquals(7, ib.addressVector(SCORPIO_IB.attributes(), gid0(SCORPIO_IB), remote,
                FabricOptions.defaults().serviceLevel(7)).serviceLevel());
        // a service level above 15 cannot get this far: FabricOptions refuses it (FabricOptionsTest)
        assertEquals(0, ib.addressVector(SCORPIO_IB.attributes(), gid0(SCORPIO_IB), remote,
                FabricOptions.defaults().serviceLevel(7).serviceLevel(-1)).serviceLevel(), "-1: back to the default");
    }

    @Test
    void largeLidsOfBigFabricsAreUsedAsTheyAre() {
        // deepep-397: 8 ConnectX-7 HCAs with LIDs 3697..3735 (above 255: a 16-bit LID, not a byte)
        RecordedPort local = Recorded.port(Recorded.DEEPEP, "mlx5_0", 1);
        RecordedPort peer = Recorded.port(Recorded.DEEPEP, "mlx5_11", 1);
        QpEndpoint me = ib.localEndpoint(local.attributes(), null, 0xabc, 0xdef);
        assertEquals("0e71:000abc:000def:00000000000000000000000000000000", me.toWire());
        QpEndpoint remote = ib.localEndpoint(peer.attributes(), null, 0x99, 0x1);
        AddressVector av = ib.addressVector(local.attributes(), null, remote, null);
        assertEquals(3735, av.dlid());
        assertFalse(av.isGlobal());
    }

    // ------------------------------------------------------------------ P_Key index

    @Test
    void pkeyIndexDefaultsToZeroAndMustBeInTheTable() {
        assertEquals(0, ib.pkeyIndex(SCORPIO_IB.attributes(), null));
        assertEquals(5, ib.pkeyIndex(SCORPIO_IB.attributes(), FabricOptions.defaults().pkeyIndex(5)));
        assertEquals(127, ib.pkeyIndex(SCORPIO_IB.attributes(), FabricOptions.defaults().pkeyIndex(127)));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ib.pkeyIndex(SCORPIO_IB.attributes(), FabricOptions.defaults().pkeyIndex(128)));
        assertTrue(e.getMessage().contains("128 entries"), e.getMessage());
    }

    @Test
    void initTransitionChecksThePkeyIndexAgainstTheTable() {
        // QpConnector takes INIT from the provider: an index past the 128-entry table fails before any modify
        assertEquals(127, ib.initAttributes(SCORPIO_IB.attributes(), 0, FabricOptions.defaults().pkeyIndex(127))
                .pkeyIndex());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ib.initAttributes(SCORPIO_IB.attributes(), 0, FabricOptions.defaults().pkeyIndex(128)));
        assertTrue(e.getMessage().contains("outside the P_Key table"), e.getMessage());
    }

    // ------------------------------------------------------------------ wire format

    @Test
    void localEndpointSpeaksIbvRcPingpongsWireFormat() {
        QpEndpoint me = ib.localEndpoint(SCORPIO_IB.attributes(), gid0(SCORPIO_IB), 0xabcd, 0x123456);
        // ibv_rc_pingpong: sprintf(msg, "%04x:%06x:%06x:%s", lid, qpn, psn, wire_gid), 51 characters + NUL
        String wire = "003e:00abcd:123456:fe800000000000000c42a1030065d6b6";
        assertEquals(wire, me.toWire());
        assertEquals(51, me.toWire().length());
        assertEquals(me, QpEndpoint.parseWire(wire + "\0"));
        assertEquals(new QpEndpoint(62, 0xabcd, 0x123456, Gid.ZERO),
                QpEndpoint.parseWire(ib.localEndpoint(SCORPIO_IB.attributes(), null, 0xabcd, 0x123456).toWire()));
        assertThrows(IllegalArgumentException.class, () -> ib.localEndpoint(SCORPIO_IB.attributes(), null, 0x1000000, 0));
        assertThrows(IllegalArgumentException.class, () -> ib.localEndpoint(SCORPIO_IB.attributes(), null, 1, -1));
    }

    @Test
    void twoRecordedPortsConnectByTheirWireMessages() {
        FabricProvider p = ib;
        GidEntry ga = p.sourceGid(SCORPIO_IB.attributes(), SCORPIO_IB.gids(), null);
        GidEntry gb = p.sourceGid(UCX_ACTIVE.attributes(), UCX_ACTIVE.gids(), null);
        String fromA = p.localEndpoint(SCORPIO_IB.attributes(), ga, 0x111, 0x222).toWire();
        String fromB = p.localEndpoint(UCX_ACTIVE.attributes(), gb, 0x333, 0x444).toWire();
        AddressVector atA = p.addressVector(SCORPIO_IB.attributes(), ga, QpEndpoint.parseWire(fromB), null);
        AddressVector atB = p.addressVector(UCX_ACTIVE.attributes(), gb, QpEndpoint.parseWire(fromA), null);
        assertEquals(4, atA.dlid());
        assertEquals(62, atB.dlid());
        assertFalse(atA.isGlobal() || atB.isGlobal());
    }

    // ------------------------------------------------------------------ connection traits

    @Test
    void connectionTraitsOfInfiniBand() {
        assertEquals("ib", ib.name());
        assertTrue(ib.supportsManualConnection());
        assertTrue(ib.supportsUnreliableDatagram());
        assertEquals(0, ib.readSinkExtraAccess());
        assertFalse(ib.activeSideSendsFirst());
        assertTrue(ib.hasRnrRetry());
    }

    @Test
    void nullOptionsMeanTheDefaults() {
        QpEndpoint remote = new QpEndpoint(4, 1, 1, Gid.of(0xfec0000000000001L, 1));
        assertEquals(ib.addressVector(SCORPIO_IB.attributes(), gid0(SCORPIO_IB), remote, null).toString(),
                ib.addressVector(SCORPIO_IB.attributes(), gid0(SCORPIO_IB), remote, FabricOptions.defaults()).toString());
    }

    // ------------------------------------------------------------------ the transitions of a manual connection

    /**
     * INIT/RTR/RTS between two recorded HDR HCAs of different hosts: the path MTU is the port's active MTU
     * unless the options lower it, the address is the peer's LID, and the timers are the pingpong tools'.
     */
    @Test
    void transitionAttributesBetweenRecordedHcas() {
        PortAttributes port = SCORPIO_IB.attributes();
        QpAttributes init = ib.initAttributes(port, Access.LOCAL_WRITE | Access.REMOTE_READ,
                FabricOptions.defaults().pkeyIndex(2));
        assertEquals(QpState.INIT, init.state());
        assertEquals(1, init.port());
        assertEquals(2, init.pkeyIndex());
        assertEquals(Access.LOCAL_WRITE | Access.REMOTE_READ, init.accessFlags());
        assertEquals(QpAttrMask.STATE | QpAttrMask.PORT | QpAttrMask.PKEY_INDEX | QpAttrMask.ACCESS_FLAGS, init.mask());

        QpEndpoint peer = endpointOf(UCX_ACTIVE, 0x1234);
        QpAttributes rtr = ib.readyToReceiveAttributes(port, gid0(SCORPIO_IB), peer, null, 4, null);
        assertEquals(QpState.RTR, rtr.state());
        assertEquals(port.activeMtu(), rtr.pathMtu());
        assertEquals(0x1234, rtr.destQpNum());
        assertEquals(0x424242, rtr.rqPsn());
        assertEquals(4, rtr.maxDestRdAtomic());
        assertEquals(FabricProvider.DEFAULT_MIN_RNR_TIMER, rtr.minRnrTimer());
        assertEquals(UCX_ACTIVE.attributes().lid(), rtr.addressVector().dlid());
        assertFalse(rtr.addressVector().isGlobal(), "same subnet prefix: no GRH");
        assertEquals(QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN | QpAttrMask.RQ_PSN
                | QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER, rtr.mask());

        FabricOptions lower = FabricOptions.defaults().mtu(Mtu.MTU_1024).minRnrTimer(1);
        assertEquals(Mtu.MTU_1024, ib.pathMtu(port, lower));
        PortAttributes small = Recorded.withActiveMtu(port, Mtu.MTU_2048);
        assertEquals(Mtu.MTU_2048, ib.pathMtu(small, FabricOptions.defaults().mtu(Mtu.MTU_4096)),
                "an option above the port's active MTU does not raise it");
        QpAttributes rtr2 = ib.readyToReceiveAttributes(port, gid0(SCORPIO_IB), peer, null, 1, lower);
        assertEquals(Mtu.MTU_1024, rtr2.pathMtu());
        assertEquals(1, rtr2.minRnrTimer());

        QpAttributes rts = ib.readyToSendAttributes(0xabcdef, 2, null);
        assertEquals(QpState.RTS, rts.state());
        assertEquals(0xabcdef, rts.sqPsn());
        assertEquals(2, rts.maxRdAtomic());
        assertEquals(14, rts.timeout());
        assertEquals(6, rts.retryCount(), "7 is 'retry forever' on Soft-RoCE");
        assertEquals(7, rts.rnrRetry());
        QpAttributes rts2 = ib.readyToSendAttributes(1, 1, FabricOptions.defaults().timeout(20).retryCount(3).rnrRetry(0));
        assertEquals(20, rts2.timeout());
        assertEquals(3, rts2.retryCount());
        assertEquals(0, rts2.rnrRetry());
    }
}
