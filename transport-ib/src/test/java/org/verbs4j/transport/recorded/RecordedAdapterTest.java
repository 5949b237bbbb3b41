package org.verbs4j.transport.recorded;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.verbs4j.api.Gid;
import org.verbs4j.api.GidEntry;
import org.verbs4j.api.GidType;
import org.verbs4j.api.LinkLayer;
import org.verbs4j.api.Mtu;
import org.verbs4j.api.NodeType;
import org.verbs4j.api.PortAttributes;
import org.verbs4j.api.PortState;
import org.verbs4j.api.TransportType;

/** The recorded-data adapter against values read off the recorded files by eye. */
class RecordedAdapterTest {

    static List<String> files() {
        return Recorded.DEVINFO_FILES;
    }

    @Test
    void theListNamesEveryRecordedIbvDevinfoFileAndTheExpectationsCoverThem() throws IOException, URISyntaxException {
        URL readme = Recorded.class.getResource("/recorded/README.md");
        assertNotNull(readme, "the recorded directory is not on the test class path");
        Path dir = Paths.get(readme.toURI()).getParent();
        Set<String> onDisk;
        try (Stream<Path> s = Files.list(dir)) {
            onDisk = s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("ibv_devinfo"))
                    .collect(Collectors.toCollection(TreeSet::new));
        }
        assertEquals(onDisk, new TreeSet<>(Recorded.DEVINFO_FILES), "Recorded.DEVINFO_FILES vs " + dir);
        assertEquals(onDisk, new TreeSet<>(Recorded.EXPECTED_FABRIC.keySet()), "Recorded.EXPECTED_FABRIC files");
    }

    @ParameterizedTest
    @MethodSource("files")
    void everyFileYieldsExactlyTheExpectedHcasEachWithPortsAndAState(String file) {
        List<RecordedHca> hcas = Recorded.load(file);
        assertEquals(List.copyOf(Recorded.EXPECTED_FABRIC.get(file).keySet()),
                hcas.stream().map(h -> h.device().name()).toList(), file);
        for (RecordedHca h : hcas) {
            assertTrue(!h.ports().isEmpty(), h + " has no port");
            for (RecordedPort p : h.ports()) {
                assertTrue(p.attributes().state() != PortState.UNKNOWN, p + " state " + p.printed("state"));
                assertTrue(p.attributes().linkLayer() == LinkLayer.INFINIBAND
                        || p.attributes().linkLayer() == LinkLayer.ETHERNET, p + " link layer " + p.printed("link_layer"));
                assertEquals(h.device(), p.device(), p + " belongs to its HCA");
            }
        }
    }

    @Test
    void verboseInfiniBandPortHasEveryField() {
        RecordedPort rp = Recorded.port(Recorded.SCORPIO, "mlx5_0", 1);
        PortAttributes p = rp.attributes();
        assertEquals(1, p.portNumber());
        assertEquals(PortState.ACTIVE, p.state());
        assertEquals(Mtu.MTU_4096, p.maxMtu());
        assertEquals(Mtu.MTU_4096, p.activeMtu());
        assertEquals(8, p.gidTableLength());
        assertEquals(0x2251e848, p.portCapFlags());
        assertEquals(0x40000000L, p.maxMsgSize());
        assertEquals(0, p.badPkeyCounter());
        assertEquals(0, p.qkeyViolationCounter());
        assertEquals(128, p.pkeyTableLength());
        assertEquals(62, p.lid());
        assertEquals(3, p.smLid());
        assertEquals(0, p.lmc());
        assertEquals(3, p.maxVlNum(), "printed '4 (3)'");
        assertEquals(0, p.smSl());
        assertEquals(18, p.subnetTimeout());
        assertEquals(0, p.initTypeReply());
        assertEquals(2, p.activeWidth());
        assertEquals("4", p.activeWidthText());
        assertEquals(64, p.activeSpeed());
        assertEquals("50.0 Gbps", p.activeSpeedText());
        assertEquals(5, p.physState());
        assertEquals("LINK_UP", p.physStateText());
        assertEquals(LinkLayer.INFINIBAND, p.linkLayer());
        assertEquals(0x0032, p.portCapFlags2());
        assertEquals(List.of(new GidEntry(1, 0, Gid.of(0xfe80000000000000L, 0x0c42a1030065d6b6L), GidType.IB, 0)), rp.gids());

        assertEquals(TransportType.IB, rp.device().transportType());
        assertEquals(NodeType.CA, rp.device().nodeType());
        assertEquals(0x0c42a1030065d6b6L, rp.device().guid());
        assertThrows(UnsupportedOperationException.class, rp.device()::open);
    }

    @Test
    void roceGidTypesComeFromTheSuffixAndCompressedFormsParse() {
        List<GidEntry> gids = Recorded.port(Recorded.SCORPIO, "mlx5_1", 1).gids();
        assertEquals(List.of(0, 1, 2, 3), gids.stream().map(GidEntry::index).toList());
        assertEquals(List.of(GidType.ROCE_V1, GidType.ROCE_V2, GidType.ROCE_V1, GidType.ROCE_V2),
                gids.stream().map(GidEntry::type).toList());
        // v1 printed in full, v2 compressed ("fe80::e42:a1ff:fe2b:7a4"): the same address
        assertEquals(gids.get(0).gid(), gids.get(1).gid());
        assertEquals(Gid.parse("::ffff:140.221.60.11"), gids.get(3).gid());
        assertEquals(gids.get(2).gid(), gids.get(3).gid(), "8cdd:3c0b is 140.221.60.11");
        assertEquals(LinkLayer.ETHERNET, Recorded.port(Recorded.SCORPIO, "mlx5_1", 1).attributes().linkLayer());
        assertEquals(0, Recorded.port(Recorded.SCORPIO, "mlx5_1", 1).attributes().lid());
    }

    @Test
    void downPortsKeepWhatWasPrinted() {
        PortAttributes disabled = Recorded.port(Recorded.UCX_9908, "mlx5_1", 1).attributes();
        assertEquals(PortState.DOWN, disabled.state());
        assertEquals(3, disabled.physState());
        assertEquals(65535, disabled.lid());
        assertEquals(0, disabled.activeSpeed(), "printed 'invalid speed (0)'");

        PortAttributes polling = Recorded.port(Recorded.HEIOY_PORT2_DOWN, "mlx4_1", 2).attributes();
        assertEquals(2, polling.portNumber());
        assertEquals(PortState.DOWN, polling.state());
        assertEquals(2, polling.physState());
        assertEquals(0, polling.lid());

        PortAttributes shortForm = Recorded.port(Recorded.HEIOY_2HCA, "mlx4_0", 2).attributes();
        assertEquals(PortState.DOWN, shortForm.state());
        assertEquals(0, shortForm.physState(), "short output prints no phys_state");
    }

    @Test
    void iwarpDevicesFromMangledWhitespace() {
        RecordedHca i40iw1 = Recorded.hca(Recorded.I40IW, "i40iw1");
        assertEquals(TransportType.IWARP, i40iw1.device().transportType());
        assertEquals(NodeType.RNIC, i40iw1.device().nodeType());
        assertEquals(PortState.ACTIVE, i40iw1.port(1).attributes().state());
        assertEquals(LinkLayer.ETHERNET, i40iw1.port(1).attributes().linkLayer());
        assertEquals(1, i40iw1.port(1).attributes().lid(), "i40iw reports port_lid 1");

        RecordedHca cxgb4 = Recorded.hca(Recorded.CXGB4, "cxgb4_0");
        assertEquals(List.of(1, 2), cxgb4.ports().stream().map(p -> p.attributes().portNumber()).toList());
        assertEquals(TransportType.IWARP, cxgb4.device().transportType());

        RecordedPort qedr = Recorded.port(Recorded.QEDR, "qedr0", 1);
        assertEquals(1, qedr.attributes().gidTableLength());
        assertEquals(List.of(), qedr.gids(), "the post ends before the GID lines");
    }
}
