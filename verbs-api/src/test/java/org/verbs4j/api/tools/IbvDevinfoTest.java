package org.verbs4j.api.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.verbs4j.api.Gid;
import org.verbs4j.api.GidType;

/** The parser on ibv_devinfo outputs recorded on real IB, RoCE and iWARP adapters (src/test/resources/recorded). */
class IbvDevinfoTest {

    static String recorded(String file) {
        try (InputStream in = IbvDevinfoTest.class.getResourceAsStream("/recorded/" + file)) {
            assertNotNull(in, file);
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            String marker = "# ---- verbatim output starts on the next line ----\n";
            int at = text.indexOf(marker);
            assertTrue(at >= 0, "no marker line in " + file);
            return text.substring(at + marker.length());
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void verboseOutputWithIbAndRoceHcas() {
        List<IbvDevinfo.Hca> hcas = IbvDevinfo.parse(recorded("ibv_devinfo-v_connectx6-ib_connectx5-roce_e3sm-scorpio.txt"));
        assertEquals(List.of("mlx5_0", "mlx5_1", "mlx5_2"), hcas.stream().map(IbvDevinfo.Hca::name).toList());
        IbvDevinfo.Hca ib = hcas.get(0);
        assertEquals("20.29.2002", ib.get("fw_ver"));
        assertEquals(0x0c42a1030065d6b6L, IbvDevinfo.guid(ib.get("node_guid")));
        assertEquals(4123, IbvDevinfo.number(ib.get("vendor_part_id")));
        assertEquals(262144, IbvDevinfo.number(ib.get("max_qp")));
        assertEquals(0xe97e1c36L, IbvDevinfo.number(ib.get("device_cap_flags")));
        assertTrue(ib.flags().get("device_cap_flags").contains("MANAGED_FLOW_STEERING"));
        IbvDevinfo.Port p = ib.port(1);
        assertEquals(4, IbvDevinfo.codeInParens(p.get("state")));
        assertEquals("InfiniBand", p.get("link_layer"));
        assertEquals(62, IbvDevinfo.number(p.get("port_lid")));
        assertEquals(3, IbvDevinfo.number(p.get("sm_lid")));
        assertEquals(1, p.gids().size());
        assertNull(p.gids().get(0).type(), "IB GIDs are printed without a type here");
        assertTrue(Gid.parse(p.gids().get(0).gid()).isLinkLocal());

        IbvDevinfo.Port roce = hcas.get(1).port(1);
        assertEquals("Ethernet", roce.get("link_layer"));
        assertEquals(0, IbvDevinfo.number(roce.get("port_lid")));
        assertEquals(4, roce.gids().size());
        assertTrue(roce.gids().stream().anyMatch(g -> GidType.ofText(g.type()) == GidType.ROCE_V2));
        assertTrue(roce.gids().stream().anyMatch(g -> GidType.ofText(g.type()) == GidType.ROCE_V1));
    }

    @Test
    void iwarpOutputWithMailClientWhitespace() {
        List<IbvDevinfo.Hca> hcas = IbvDevinfo.parse(recorded("ibv_devinfo-v_ql41112-qedr-iwarp_linux-cifs-2021.txt"));
        assertFalse(hcas.isEmpty());
        IbvDevinfo.Hca h = hcas.get(0);
        assertEquals(1, IbvDevinfo.codeInParens(h.get("transport")), "iWARP (1)");
        assertNotNull(h.port(1));
        assertEquals("Ethernet", h.port(1).get("link_layer"));
    }

    @Test
    void noBreakSpaceIndentedOutput() {
        List<IbvDevinfo.Hca> hcas = IbvDevinfo.parse(recorded("ibv_devinfo_i40iw-iwarp_connectx5-ib_linux-rdma-2021.txt"));
        assertTrue(hcas.size() >= 2, "hcas: " + hcas.stream().map(IbvDevinfo.Hca::name).toList());
        for (IbvDevinfo.Hca h : hcas) {
            assertNotNull(h.get("transport"), h.name());
            assertFalse(h.ports().isEmpty(), h.name());
        }
    }

    @Test
    void everyRecordedDevinfoParsesToAtLeastOneHcaWithPorts() throws IOException {
        String[] files = {
            "ibv_devinfo-vv_connectx6-ib-active-and-disabled_ucx-9908.txt",
            "ibv_devinfo_connectx6vf-ib-hdr_azure-hbv3_azadventures.txt",
            "ibv_devinfo_connectx6-ib-hdr100_kaust-ibex.txt",
            "ibv_devinfo_connectx3-ib-2hca_heioy-books.txt",
            "ibv_devinfo_connectx7-ib-8hca_deepep-397.txt",
            "ibv_devinfo-v_connectx3-ib-port2-down_heioy-books.txt",
            "ibv_devinfo_cxgb4-iwarp_connectx5-roce_intel-mfd-fixture.txt",
        };
        for (String f : files) {
            List<IbvDevinfo.Hca> hcas = IbvDevinfo.parse(recorded(f));
            assertFalse(hcas.isEmpty(), f);
            for (IbvDevinfo.Hca h : hcas) {
                assertFalse(h.ports().isEmpty(), f + " " + h.name());
                for (IbvDevinfo.Port p : h.ports()) {
                    assertTrue(IbvDevinfo.codeInParens(p.get("state")) > 0, f + " " + h.name() + " state " + p.get("state"));
                    assertNotNull(p.get("link_layer"), f + " " + h.name() + " link_layer");
                }
            }
        }
    }

    @Test
    void activeAndDisabledHcas() {
        List<IbvDevinfo.Hca> hcas = IbvDevinfo.parse(recorded("ibv_devinfo-vv_connectx6-ib-active-and-disabled_ucx-9908.txt"));
        assertEquals(2, hcas.size());
        assertEquals(4, IbvDevinfo.codeInParens(hcas.get(0).port(1).get("state")));
        assertEquals(4, IbvDevinfo.number(hcas.get(0).port(1).get("port_lid")));
        IbvDevinfo.Port down = IbvDevinfo.find(hcas, "mlx5_1").port(1);
        assertEquals(1, IbvDevinfo.codeInParens(down.get("state")));
        assertEquals(3, IbvDevinfo.codeInParens(down.get("phys_state")));
        assertEquals(65535, IbvDevinfo.number(down.get("port_lid")));
    }
}
