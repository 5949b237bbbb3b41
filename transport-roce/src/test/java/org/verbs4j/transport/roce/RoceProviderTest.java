package org.verbs4j.transport.roce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.verbs4j.api.AddressVector;
import org.verbs4j.api.Gid;
import org.verbs4j.api.GidEntry;
import org.verbs4j.api.GidType;
import org.verbs4j.api.QpEndpoint;
import org.verbs4j.api.FabricOptions;
import org.verbs4j.api.spi.Fabrics;
import org.verbs4j.api.tools.IbvDevinfo;
import org.verbs4j.transport.recorded.Recorded;
import org.verbs4j.transport.recorded.RecordedPort;

/**
 * The RoCE provider on ports recorded on real adapters: the two ConnectX-5 Ethernet ports of the scorpio
 * file (GID tables with RoCE v1 and v2, link-local and IPv4-mapped entries), and every other recorded port,
 * which it must not claim.
 */
class RoceProviderTest {
    private final RoceProvider roce = new RoceProvider();

    /** scorpio mlx5_1: GID[0] v1 link-local, [1] v2 link-local, [2] v1 140.221.60.11, [3] v2 140.221.60.11. */
    private static final RecordedPort MLX5_1 = Recorded.port(Recorded.SCORPIO, "mlx5_1", 1);
    /** scorpio mlx5_2: the same layout with 10.60.32.11. */
    private static final RecordedPort MLX5_2 = Recorded.port(Recorded.SCORPIO, "mlx5_2", 1);

    static List<RecordedPort> allPorts() {
        return Recorded.allPorts();
    }

    static List<RecordedPort> rocePortsWithGids() {
        return Recorded.allPorts().stream().filter(p -> Recorded.expectedFabric(p).equals("roce") && !p.gids().isEmpty())
                .collect(Collectors.toList());
    }

    private static List<GidEntry> only(List<GidEntry> table, int... indexes) {
        List<GidEntry> out = new ArrayList<>();
        for (GidEntry e : table) {
            for (int i : indexes) {
                if (e.index() == i) {
                    out.add(e);
                }
            }
        }
        return out;
    }

    private GidEntry pick(List<GidEntry> table, FabricOptions o) {
        return roce.sourceGid(MLX5_1.attributes(), table, o);
    }

    // ------------------------------------------------------------------ which ports

    @ParameterizedTest
    @MethodSource("allPorts")
    void servesExactlyTheRecordedRocePorts(RecordedPort p) {
        assertEquals(Recorded.expectedFabric(p).equals("roce"), roce.serves(p.device(), p.attributes()), p.toString());
    }

    @Test
    void isRegisteredAndClaimsNoInfiniBandOrIwarpPort() {
        assertTrue(Fabrics.named("roce") instanceof RoceProvider);
        assertEquals("roce", Fabrics.forPort(MLX5_1.device(), MLX5_1.attributes(), null).name());
        RecordedPort ib = Recorded.port(Recorded.SCORPIO, "mlx5_0", 1);
        assertThrows(IllegalStateException.class, () -> Fabrics.forPort(ib.device(), ib.attributes(), null));
        RecordedPort qedr = Recorded.port(Recorded.QEDR, "qedr0", 1);
        String m = assertThrows(IllegalStateException.class,
                () -> Fabrics.forPort(qedr.device(), qedr.attributes(), null)).getMessage();
        assertTrue(m.contains("qedr0") && m.contains("iWARP"), m);
    }

    // ------------------------------------------------------------------ GID choice

    @ParameterizedTest
    @MethodSource("rocePortsWithGids")
    void defaultIsTheRoceV2Ipv4MappedEntryAsPrinted(RecordedPort p) {
        // the expectation is read off the text: the line printed as "::ffff:a.b.c.d, RoCE v2"
        IbvDevinfo.GidLine printed = p.raw().gids().stream()
                .filter(g -> "RoCE v2".equals(g.type()) && g.gid().startsWith("::ffff:")).findFirst().orElseThrow();
        GidEntry g = roce.sourceGid(p.attributes(), p.gids(), FabricOptions.defaults());
        assertEquals(printed.index(), g.index(), p.toString());
        assertEquals(GidType.ROCE_V2, g.type());
        assertEquals(printed.gid().substring("::ffff:".length()), g.gid().toInetAddress().getHostAddress());
    }

    @Test
    void scorpioPortsPickIndex3() {
        GidEntry a = roce.sourceGid(MLX5_1.attributes(), MLX5_1.gids(), null);
        GidEntry b = roce.sourceGid(MLX5_2.attributes(), MLX5_2.gids(), null);
        assertEquals(3, a.index());
        assertEquals(Gid.parse("140.221.60.11"), a.gid());
        assertEquals(3, b.index());
        assertEquals(Gid.parse("10.60.32.11"), b.gid());
    }

    @Test
    void withoutAnIpv4AddressTheRoceV2LinkLocalEntryIsUsed() {
        // the table the same port has before its net device gets an IPv4 address: only the link-local pair
        GidEntry g = pick(only(MLX5_1.gids(), 0, 1), null);
        assertEquals(1, g.index());
        assertEquals(GidType.ROCE_V2, g.type());
        assertTrue(g.gid().isLinkLocal());
    }

    @Test
    void aGlobalIpv6RoceV2EntryComesBeforeLinkLocalAndAfterIpv4() {
        // the port once its net device has a global IPv6 address too; the kernel gives that GID the index
        // freed by an address removed earlier, so it sorts before the IPv4 entry (index order is no preference)
        List<GidEntry> table = new ArrayList<>(only(MLX5_1.gids(), 0, 1, 3));
        GidEntry global6 = new GidEntry(1, 2, Gid.parse("2001:db8:60::11"), GidType.ROCE_V2, 0);
        table.add(global6);
        assertEquals(3, pick(table, null).index(), "IPv4 first by default");
        assertEquals(global6, pick(table, FabricOptions.defaults().preferIpv4(false)));
        List<GidEntry> noIpv4 = only(table, 0, 1, 2);
        assertEquals(global6, pick(noIpv4, null), "no IPv4: global IPv6 before link-local");
        assertEquals(global6, pick(noIpv4, FabricOptions.defaults().preferIpv4(false)));
    }

    @Test
    void preferringIpv6OnATableWithoutGlobalIpv6TakesTheLinkLocalOne() {
        GidEntry g = pick(MLX5_1.gids(), FabricOptions.defaults().preferIpv4(false));
        assertEquals(1, g.index());
    }

    @Test
    void roceV1IsUsedOnlyWhenAskedFor() {
        List<GidEntry> v1Only = only(MLX5_1.gids(), 0, 2);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> pick(v1Only, null));
        assertTrue(e.getMessage().startsWith("port 1 has no RoCE v2 GID; entries: [0] fe80:0000:0000:0000:0e42:a1ff:fe2b:07a4 "
                + "RoCE v1, [2] 0000:0000:0000:0000:0000:ffff:8cdd:3c0b RoCE v1 (IPv4 140.221.60.11). RoCE v1 is used only "
                + "when asked for, with gidType(GidType.ROCE_V1)"), e.getMessage());
        FabricOptions v1 = FabricOptions.defaults().gidType(GidType.ROCE_V1);
        assertEquals(2, pick(v1Only, v1).index());
        assertEquals(2, pick(MLX5_1.gids(), v1).index(), "asked for v1: v1 even where v2 exists");
        assertEquals(0, pick(MLX5_1.gids(), FabricOptions.defaults().gidType(GidType.ROCE_V1).preferIpv4(false)).index());
    }

    @Test
    void anExplicitIndexWins() {
        assertEquals(MLX5_1.gids().get(0), pick(MLX5_1.gids(), FabricOptions.defaults().gidIndex(0)));
        assertEquals(MLX5_1.gids().get(2), pick(MLX5_1.gids(), FabricOptions.defaults().gidIndex(2).gidType(GidType.ROCE_V2)));
    }

    @Test
    void aMissingIndexListsTheValidEntriesWithTypes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> pick(MLX5_1.gids(), FabricOptions.defaults().gidIndex(4)));
        assertTrue(e.getMessage().startsWith("GID index 4 is not in the GID table of port 1; valid entries: "
                // each GID as the recorded ibv_devinfo -v printed it
                + "[0] fe80:0000:0000:0000:0e42:a1ff:fe2b:07a4 RoCE v1, [1] fe80::e42:a1ff:fe2b:7a4 RoCE v2, "
                + "[2] 0000:0000:0000:0000:0000:ffff:8cdd:3c0b RoCE v1 (IPv4 140.221.60.11), "
                + "[3] ::ffff:140.221.60.11 RoCE v2 ("), e.getMessage());
    }

    @Test
    void onlyTheEntriesOfThisPortCount() {
        List<GidEntry> table = new ArrayList<>(only(MLX5_1.gids(), 0, 1));
        table.add(new GidEntry(2, 3, Gid.parse("10.0.0.2"), GidType.ROCE_V2, 0));
        assertEquals(1, pick(table, null).index(), "port 2's IPv4 entry is not port 1's");
        assertThrows(IllegalArgumentException.class, () -> pick(table, FabricOptions.defaults().gidIndex(3)));
    }

    @Test
    void anEmptyTableOrAnIbTypeIsAClearError() {
        String m = assertThrows(IllegalArgumentException.class, () -> pick(List.of(), null)).getMessage();
        assertTrue(m.startsWith("port 1 has no RoCE v2 GID: its GID table is empty") && m.contains("ip addr"), m);
        m = assertThrows(IllegalArgumentException.class,
                () -> pick(MLX5_1.gids(), FabricOptions.defaults().gidType(GidType.IB))).getMessage();
        assertTrue(m.startsWith("a RoCE port's GIDs are RoCE v1 or RoCE v2, not IB"), m);
    }

    // ------------------------------------------------------------------ address vectors

    @Test
    void addressVectorIsAlwaysGlobalWithHopLimit64() {
        GidEntry src = roce.sourceGid(MLX5_1.attributes(), MLX5_1.gids(), null);
        GidEntry peerGid = roce.sourceGid(MLX5_2.attributes(), MLX5_2.gids(), null);
        QpEndpoint peer = roce.localEndpoint(MLX5_2.attributes(), peerGid, 0x77, 0x88);
        // 140.221.60.11 to 10.60.32.11: another IP subnet, so a router is on the way: hop limit 1 would not do
        AddressVector av = roce.addressVector(MLX5_1.attributes(), src, peer, null);
        assertTrue(av.isGlobal());
        assertEquals(Gid.parse("10.60.32.11"), av.dgid());
        assertEquals(3, av.sgidIndex());
        assertEquals(64, av.hopLimit());
        assertEquals(0, av.trafficClass());
        assertEquals(0, av.dlid());
        assertEquals(0, av.serviceLevel());
        assertEquals(1, av.port());
    }

    @Test
    void trafficClassHopLimitAndSlFromTheOptions() {
        GidEntry src = MLX5_1.gids().get(3);
        QpEndpoint peer = new QpEndpoint(0, 1, 1, MLX5_2.gids().get(3).gid());
        // DSCP 26 (AF31) << 2 | ECN 0b10: what a lossless-RoCE QoS set-up typically asks for
        AddressVector av = roce.addressVector(MLX5_1.attributes(), src, peer,
                FabricOptions.defaults().trafficClass(26 << 2 | 2).hopLimit(8).serviceLevel(3));
        assertEquals(106, av.trafficClass());
        assertEquals(8, av.hopLimit());
        assertEquals(3, av.serviceLevel());
        assertEquals(0, av.dlid(), "RoCE has no LIDs");
        assertTrue(av.isGlobal());
    }

    @Test
    void aPeerWithoutGidOrSourceWithoutGidIsRefused() {
        GidEntry src = MLX5_1.gids().get(3);
        QpEndpoint noGid = QpEndpoint.parseWire("0000:000123:000456:00000000000000000000000000000000");
        String m = assertThrows(IllegalArgumentException.class,
                () -> roce.addressVector(MLX5_1.attributes(), src, noGid, null)).getMessage();
        assertTrue(m.startsWith("the peer sent no GID") && m.contains("ibv_rc_pingpong -g"), m);
        QpEndpoint peer = new QpEndpoint(0, 1, 1, MLX5_2.gids().get(3).gid());
        assertThrows(IllegalArgumentException.class, () -> roce.addressVector(MLX5_1.attributes(), null, peer, null));
        assertThrows(IllegalArgumentException.class, () -> roce.localEndpoint(MLX5_1.attributes(), null, 1, 1));
    }

    @Test
    void ipv4AndIpv6RoceV2GidsCannotTalk() {
        GidEntry v4 = MLX5_1.gids().get(3);
        QpEndpoint linkLocalPeer = new QpEndpoint(0, 1, 1, MLX5_2.gids().get(1).gid());
        String m = assertThrows(IllegalArgumentException.class,
                () -> roce.addressVector(MLX5_1.attributes(), v4, linkLocalPeer, null)).getMessage();
        assertTrue(m.startsWith("IP family mismatch: our GID[3] 0000:0000:0000:0000:0000:ffff:8cdd:3c0b is IPv4 but the "
                + "peer's fe80:0000:0000:0000:0e42:a1ff:fe2b:07a5 is IPv6"), m);
        // same family: fine
        GidEntry v6 = MLX5_1.gids().get(1);
        assertEquals(linkLocalPeer.gid(), roce.addressVector(MLX5_1.attributes(), v6, linkLocalPeer, null).dgid());
    }

    // ------------------------------------------------------------------ endpoints and the wire

    @Test
    void localEndpointHasLidZeroAndTheGidInIbvRcPingpongsWireForm() {
        GidEntry src = roce.sourceGid(MLX5_1.attributes(), MLX5_1.gids(), null);
        QpEndpoint me = roce.localEndpoint(MLX5_1.attributes(), src, 0xabc, 0xdef0);
        assertEquals(0, me.lid());
        // what ibv_rc_pingpong -g 3 on this port would send
        String wire = "0000:000abc:00def0:00000000000000000000ffff8cdd3c0b";
        assertEquals(wire, me.toWire());
        assertEquals(me, QpEndpoint.parseWire(wire + "\0"));
    }

    @Test
    void theLidSentIsZeroWhateverThePortReports() {
        // Ethernet ports may report a LID anyway (the recorded i40iw ports say port_lid 1): RoCE has none
        GidEntry src = MLX5_1.gids().get(3);
        assertEquals(0, roce.localEndpoint(Recorded.withLid(MLX5_1.attributes(), 1), src, 1, 1).lid());
        QpEndpoint peer = new QpEndpoint(7, 1, 1, MLX5_2.gids().get(3).gid());
        assertEquals(0, roce.addressVector(MLX5_1.attributes(), src, peer, null).dlid(), "dlid 0 even if the peer sent a LID");
    }

    @Test
    void aCToolsMessageBecomesAnAddressVector() {
        // ibv_rc_pingpong -g 3 on mlx5_2 sends this (its GID[3] is ::ffff:10.60.32.11)
        QpEndpoint peer = QpEndpoint.parseWire("0000:0001a4:5c3e91:00000000000000000000ffff0a3c200b\0");
        AddressVector av = roce.addressVector(MLX5_1.attributes(), MLX5_1.gids().get(3), peer, null);
        assertEquals(MLX5_2.gids().get(3).gid(), av.dgid());
        assertEquals(0x1a4, peer.qpn());
        assertEquals(0x5c3e91, peer.psn());
    }

    // ------------------------------------------------------------------ down ports

    @Test
    void aDownRocePortIsRefused() {
        // intel-mfd fixture: a ConnectX-5 Ethernet port, PORT_DOWN (short output: no phys_state, no GIDs)
        RecordedPort down = Recorded.port(Recorded.CXGB4, "mlx5_0", 1);
        assertTrue(roce.serves(down.device(), down.attributes()));
        String m = assertThrows(IllegalStateException.class,
                () -> roce.requireUsable(down.device(), down.attributes())).getMessage();
        assertTrue(m.startsWith("port 1 of mlx5_0 is PORT_DOWN: the Ethernet link is down"), m);
        assertThrows(IllegalStateException.class, () -> roce.sourceGid(down.attributes(), down.gids(), null));
        assertThrows(IllegalStateException.class,
                () -> roce.localEndpoint(down.attributes(), MLX5_1.gids().get(3), 1, 1));
    }

    @Test
    void connectionTraitsOfRoce() {
        assertEquals("roce", roce.name());
        assertTrue(roce.supportsManualConnection());
        assertTrue(roce.supportsUnreliableDatagram());
        assertEquals(0, roce.readSinkExtraAccess());
        assertFalse(roce.activeSideSendsFirst());
        assertTrue(roce.hasRnrRetry());
    }
}
