package org.verbs4j.transport.iwarp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.verbs4j.api.Access;
import org.verbs4j.api.AddressVector;
import org.verbs4j.api.Fabric;
import org.verbs4j.api.GidEntry;
import org.verbs4j.api.LinkLayer;
import org.verbs4j.api.NodeType;
import org.verbs4j.api.PortAttributes;
import org.verbs4j.api.QpEndpoint;
import org.verbs4j.api.RdmaDevice;
import org.verbs4j.transport.recorded.RecordedDevice;
import org.verbs4j.api.TransportType;
import org.verbs4j.api.FabricOptions;
import org.verbs4j.api.spi.FabricProvider;
import org.verbs4j.api.spi.Fabrics;
import org.verbs4j.transport.recorded.Recorded;
import org.verbs4j.transport.recorded.RecordedPort;

/**
 * Selection among all three providers, found through ServiceLoader as an application with every transport
 * on its class path finds them, on every port of every recorded {@code ibv_devinfo} file. It lives in the
 * last transport module of the build, which has the other two at test scope only.
 */
class FabricSelectionTest {

    static List<RecordedPort> allPorts() {
        return Recorded.allPorts();
    }

    @BeforeAll
    static void noOverride() {
        assertNull(System.getProperty(Fabrics.PROVIDER_PROPERTY), "-D" + Fabrics.PROVIDER_PROPERTY + " would override the choice");
    }

    @Test
    void serviceLoaderFindsTheThreeProviders() {
        Set<String> names = Fabrics.providers().stream().map(FabricProvider::name).collect(Collectors.toCollection(TreeSet::new));
        assertEquals(new TreeSet<>(List.of("ib", "iwarp", "roce")), names);
        assertEquals(3, Fabrics.providers().size(), Fabrics.providers().toString());
    }

    @ParameterizedTest
    @MethodSource("allPorts")
    void theUsersFabricAnswersWhatThePortsProviderDecides(RecordedPort p) {
        Fabric f = Fabric.of(p.device(), p.attributes(), null);
        boolean iwarp = Recorded.expectedFabric(p).equals("iwarp");
        assertEquals(Recorded.expectedFabric(p), f.name(), p.toString());
        assertEquals(!iwarp, f.supportsManualConnection(), p.toString());
        assertEquals(!iwarp, f.supportsUnreliableDatagram(), p.toString());
        assertEquals(!iwarp, f.supportsImmediateData(), p.toString());
        assertEquals(!iwarp, f.hasRnrRetry(), p.toString());
        assertEquals(iwarp, f.activeSideSendsFirst(), p.toString());
        assertEquals(iwarp ? Access.REMOTE_WRITE : 0, f.readSinkExtraAccess(), p.toString());
        FabricProvider provider = Fabrics.forPort(p.device(), p.attributes(), null);
        GidEntry expected;
        try {
            expected = provider.sourceGid(p.attributes(), p.gids(), null);
        } catch (RuntimeException e) {
            // a port that cannot carry traffic (IB port down) is refused alike, with the same words
            RuntimeException same = assertThrows(e.getClass(), () -> f.sourceGid(p.gids()), p.toString());
            assertEquals(e.getMessage(), same.getMessage());
            expected = null;
        }
        if (expected != null) {
            assertEquals(expected, f.sourceGid(p.gids()), p.toString());
        }
        assertEquals("roce", Fabric.of(p.device(), p.attributes(), FabricOptions.defaults().provider("roce")).name());
    }

    @ParameterizedTest
    @MethodSource("allPorts")
    void exactlyOneProviderServesEachPortAndItIsTheRightOne(RecordedPort p) {
        List<String> serving = Fabrics.providers().stream().filter(f -> f.serves(p.device(), p.attributes()))
                .map(FabricProvider::name).collect(Collectors.toList());
        assertEquals(List.of(Recorded.expectedFabric(p)), serving, p.toString());
        assertEquals(Recorded.expectedFabric(p), Fabrics.forPort(p.device(), p.attributes(), FabricOptions.defaults()).name(),
                p.toString());
    }

    @Test
    void theNamedHardwareGoesWhereItShould() {
        assertEquals("ib", forPort(Recorded.port(Recorded.SCORPIO, "mlx5_0", 1)));        // ConnectX-6, IB
        assertEquals("roce", forPort(Recorded.port(Recorded.SCORPIO, "mlx5_1", 1)));      // ConnectX-5, Ethernet
        assertEquals("roce", forPort(Recorded.port(Recorded.CXGB4, "mlx5_0", 1)));        // ConnectX-5, Ethernet, down
        assertEquals("ib", forPort(Recorded.port(Recorded.I40IW, "mlx5_0", 1)));          // ConnectX-5, IB
        assertEquals("iwarp", forPort(Recorded.port(Recorded.QEDR, "qedr0", 1)));         // QL41112, iWARP
        assertEquals("iwarp", forPort(Recorded.port(Recorded.CXGB4, "cxgb4_0", 2)));      // Chelsio T6
        assertEquals("iwarp", forPort(Recorded.port(Recorded.I40IW, "i40iw1", 1)));       // Intel X722
        assertEquals("ib", forPort(Recorded.port(Recorded.UCX_9908, "mlx5_1", 1)), "a down IB port is still IB");
    }

    private static String forPort(RecordedPort p) {
        return Fabrics.forPort(p.device(), p.attributes(), null).name();
    }

    @Test
    void theOptionsOrTheSystemPropertyOverrideTheChoice() {
        RecordedPort ib = Recorded.port(Recorded.SCORPIO, "mlx5_0", 1);
        assertEquals("roce", Fabrics.forPort(ib.device(), ib.attributes(), FabricOptions.defaults().provider("roce")).name());
        System.setProperty(Fabrics.PROVIDER_PROPERTY, "iwarp");
        try {
            assertEquals("iwarp", Fabrics.forPort(ib.device(), ib.attributes(), null).name());
        } finally {
            System.clearProperty(Fabrics.PROVIDER_PROPERTY);
        }
        assertEquals("ib", Fabrics.forPort(ib.device(), ib.attributes(), null).name());
    }

    @Test
    void aLinkLayerNobodyKnowsIsNotGuessed() {
        RecordedPort p = Recorded.port(Recorded.SCORPIO, "mlx5_1", 1);
        PortAttributes unknown = Recorded.withLinkLayer(p.attributes(), LinkLayer.UNKNOWN);
        String m = assertThrows(IllegalStateException.class, () -> Fabrics.forPort(p.device(), unknown, null)).getMessage();
        assertTrue(m.startsWith("no fabric provider serves mlx5_1 port 1"), m);
        // an old driver's UNSPECIFIED link layer on an IB-transport device is InfiniBand, as libibverbs reads it
        PortAttributes unspecified = Recorded.withLinkLayer(p.attributes(), LinkLayer.UNSPECIFIED);
        assertEquals("ib", Fabrics.forPort(p.device(), unspecified, null).name());
    }

    @Test
    void otherTransportsAreNotClaimed() {
        // usNIC (Cisco) reports its own transport types and an Ethernet link layer: none of the three fabrics
        RecordedPort p = Recorded.port(Recorded.QEDR, "qedr0", 1);
        for (TransportType t : List.of(TransportType.USNIC, TransportType.USNIC_UDP, TransportType.UNKNOWN)) {
            RdmaDevice usnic = new RecordedDevice(p.file(), "usnic_0", 1, NodeType.USNIC, t);
            assertEquals(List.of(), Fabrics.providers().stream().filter(f -> f.serves(usnic, p.attributes()))
                    .map(FabricProvider::name).collect(Collectors.toList()), t.toString());
            assertThrows(IllegalStateException.class, () -> Fabrics.forPort(usnic, p.attributes(), null));
        }
    }

    /** The manual-connection flow an application runs, through whichever provider the port gets. */
    @ParameterizedTest
    @MethodSource("allPorts")
    void theApplicationFlowWorksOrRefusesClearlyOnEveryPort(RecordedPort p) {
        FabricProvider f = Fabrics.forPort(p.device(), p.attributes(), null);
        boolean active = p.printed("state").startsWith("PORT_ACTIVE");
        if (!f.supportsManualConnection()) {
            assertEquals("iwarp", f.name());
            assertThrows(UnsupportedOperationException.class, () -> f.localEndpoint(p.attributes(), null, 1, 1));
            return;
        }
        if (!active) {
            assertThrows(IllegalStateException.class, () -> f.localEndpoint(p.attributes(), null, 1, 1), p.toString());
            return;
        }
        if (p.gids().isEmpty()) {
            // short ibv_devinfo output prints no GID table: RoCE cannot address, IB still can by LID
            if (f.name().equals("roce")) {
                assertThrows(IllegalArgumentException.class, () -> f.sourceGid(p.attributes(), p.gids(), null));
            } else {
                QpEndpoint me = f.localEndpoint(p.attributes(), null, 0x11, 0x22);
                assertEquals(p.attributes().lid(), me.lid());
            }
            return;
        }
        GidEntry gid = f.sourceGid(p.attributes(), p.gids(), null);
        QpEndpoint me = f.localEndpoint(p.attributes(), gid, 0x11, 0x22);
        QpEndpoint back = QpEndpoint.parseWire(me.toWire());
        assertEquals(me, back);
        AddressVector toSelf = f.addressVector(p.attributes(), gid, back, null);
        assertEquals(p.attributes().portNumber(), toSelf.port());
        if (f.name().equals("roce")) {
            assertTrue(toSelf.isGlobal());
            assertEquals(0, me.lid());
            assertEquals(gid.index(), toSelf.sgidIndex());
        } else {
            assertFalse(toSelf.isGlobal(), "same subnet as itself");
            assertEquals(p.attributes().lid(), toSelf.dlid());
        }
    }
}
