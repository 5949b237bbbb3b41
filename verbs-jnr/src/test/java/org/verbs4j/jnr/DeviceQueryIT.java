package org.verbs4j.jnr;

import org.verbs4j.lab.Lab;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.verbs4j.api.DeviceAttributes;
import org.verbs4j.api.DeviceAttributesEx;
import org.verbs4j.api.DeviceCapability;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.Gid;
import org.verbs4j.api.GidEntry;
import org.verbs4j.api.GidType;
import org.verbs4j.api.NoSuchDeviceException;
import org.verbs4j.api.PortAttributes;
import org.verbs4j.api.Rdma;
import org.verbs4j.api.RdmaDevice;
import org.verbs4j.api.TransportType;
import org.verbs4j.api.VerbsException;
import org.verbs4j.api.tools.IbvDevinfo;

/**
 * Device, port and GID queries on the lab's real devices, compared field by field with what
 * rdma-core's {@code ibv_devinfo -v} prints for the same device in the same VM.
 */
class DeviceQueryIT {

    static List<String> devices() {
        return Lab.devices();
    }

    private static IbvDevinfo.Hca devinfo(String device) {
        List<IbvDevinfo.Hca> hcas = IbvDevinfo.parse(Lab.run("ibv_devinfo", "-v", "-d", device));
        IbvDevinfo.Hca hca = IbvDevinfo.find(hcas, device);
        assertNotNull(hca, "ibv_devinfo -v -d " + device + " printed no hca_id block for it");
        return hca;
    }

    @Test
    void listsTheLabDevicesWithTheirTransport() {
        List<RdmaDevice> devices = Rdma.devices();
        Set<String> names = devices.stream().map(RdmaDevice::name).collect(Collectors.toSet());
        assertTrue(names.containsAll(Lab.devices()), "Rdma.devices() = " + devices);
        String listed = Lab.run("ibv_devices");
        for (RdmaDevice d : devices) {
            // ibv_devices prints "    rxe0    505400fffe123456": name and GUID as 16 hex digits
            assertTrue(listed.matches("(?s).*\\b" + d.name() + "\\s+" + String.format("%016x", d.guid()) + "\\b.*"),
                    "ibv_devices does not show " + d.name() + " with GUID " + String.format("%016x", d.guid())
                            + ":\n" + listed);
            IbvDevinfo.Hca hca = devinfo(d.name());
            assertEquals(IbvDevinfo.codeInParens(hca.get("transport")), d.transportType().value(), "transport");
        }
        assertEquals(TransportType.IB, Rdma.device(Lab.roceDevice()).transportType());
        assertEquals(TransportType.IWARP, Rdma.device(Lab.iwarpDevice()).transportType());
    }

    @ParameterizedTest
    @MethodSource("devices")
    void deviceAttributesEqualIbvDevinfo(String device) {
        IbvDevinfo.Hca hca = devinfo(device);
        try (DeviceContext ctx = Rdma.open(device)) {
            DeviceAttributes a = ctx.queryDevice();
            Checker c = new Checker(device, hca.fields());
            if (hca.get("fw_ver") != null) {
                assertEquals(hca.get("fw_ver"), a.firmwareVersion(), device + " fw_ver");
            } else {
                assertEquals("", a.firmwareVersion(), device + " fw_ver (ibv_devinfo prints none when empty)");
            }
            assertEquals(IbvDevinfo.guid(hca.get("node_guid")), a.nodeGuid(), device + " node_guid");
            assertEquals(IbvDevinfo.guid(hca.get("sys_image_guid")), a.sysImageGuid(), device + " sys_image_guid");
            assertEquals(Rdma.device(device).guid(), a.nodeGuid(), "ibv_get_device_guid vs node_guid");
            c.number("vendor_id", a.vendorId());
            c.number("vendor_part_id", a.vendorPartId());
            c.number("hw_ver", a.hwVer());
            c.number("phys_port_cnt", a.physPortCnt());
            c.number("max_mr_size", a.maxMrSize());
            c.number("page_size_cap", a.pageSizeCap());
            c.number("max_qp", a.maxQp());
            c.number("max_qp_wr", a.maxQpWr());
            c.number("device_cap_flags", a.deviceCapFlags() & 0xffffffffL);
            c.number("max_sge", a.maxSge());
            c.number("max_sge_rd", a.maxSgeRd());
            c.number("max_cq", a.maxCq());
            c.number("max_cqe", a.maxCqe());
            c.number("max_mr", a.maxMr());
            c.number("max_pd", a.maxPd());
            c.number("max_qp_rd_atom", a.maxQpRdAtom());
            c.number("max_ee_rd_atom", a.maxEeRdAtom());
            c.number("max_res_rd_atom", a.maxResRdAtom());
            c.number("max_qp_init_rd_atom", a.maxQpInitRdAtom());
            c.number("max_ee_init_rd_atom", a.maxEeInitRdAtom());
            c.code("atomic_cap", a.atomicCap().value());
            assertTrue(hca.get("atomic_cap").startsWith(a.atomicCap().text()), "atomic_cap text");
            c.number("max_ee", a.maxEe());
            c.number("max_rdd", a.maxRdd());
            c.number("max_mw", a.maxMw());
            c.number("max_raw_ipv6_qp", a.maxRawIpv6Qp());
            c.number("max_raw_ethy_qp", a.maxRawEthyQp());
            c.number("max_mcast_grp", a.maxMcastGrp());
            c.number("max_mcast_qp_attach", a.maxMcastQpAttach());
            c.number("max_total_mcast_qp_attach", a.maxTotalMcastQpAttach());
            c.number("max_ah", a.maxAh());
            c.number("max_fmr", a.maxFmr());
            c.optionalNumber("max_map_per_fmr", a.maxMapPerFmr());
            c.number("max_srq", a.maxSrq());
            c.optionalNumber("max_srq_wr", a.maxSrqWr());
            c.optionalNumber("max_srq_sge", a.maxSrqSge());
            c.number("max_pkeys", a.maxPkeys());
            c.number("local_ca_ack_delay", a.localCaAckDelay());
            assertTrue(c.compared >= 36, "compared only " + c.compared + " device fields");
            // ibv_query_device_ex: the same classic attributes, and the extended ones ibv_devinfo prints
            DeviceAttributesEx x = ctx.queryDeviceEx();
            assertEquals(a, x.attributes(), device + " query_device_ex's orig_attr");
            c.number("device_cap_flags_ex", x.deviceCapFlagsEx());
            c.number("max_wq_type_rq", x.maxWqTypeRq());

            Set<String> printed = new TreeSet<>(hca.flags().getOrDefault("device_cap_flags", List.of()));
            printed.removeIf(s -> s.startsWith("Unknown flags"));
            Set<String> ours = new TreeSet<>();
            for (DeviceCapability cap : EnumSet.allOf(DeviceCapability.class)) {
                if (a.has(cap)) {
                    ours.add(cap.name());
                }
            }
            assertEquals(printed, ours, device + " device_cap_flags names");
        }
    }

    @ParameterizedTest
    @MethodSource("devices")
    void portAttributesEqualIbvDevinfo(String device) {
        IbvDevinfo.Hca hca = devinfo(device);
        try (DeviceContext ctx = Rdma.open(device)) {
            List<PortAttributes> ports = ctx.queryPorts();
            assertEquals(hca.ports().size(), ports.size(), device + " port count");
            for (PortAttributes p : ports) {
                IbvDevinfo.Port printed = hca.port(p.portNumber());
                assertNotNull(printed, device + " port " + p.portNumber() + " missing from ibv_devinfo");
                Checker c = new Checker(device + " port " + p.portNumber(), printed.fields());
                c.code("state", p.state().value());
                assertTrue(printed.get("state").startsWith(p.state().text()), "state text");
                c.code("max_mtu", p.maxMtu().value());
                assertTrue(printed.get("max_mtu").startsWith(Integer.toString(p.maxMtu().bytes())), "max_mtu bytes");
                c.code("active_mtu", p.activeMtu().value());
                assertTrue(printed.get("active_mtu").startsWith(Integer.toString(p.activeMtu().bytes())),
                        "active_mtu bytes");
                c.number("sm_lid", p.smLid());
                c.number("port_lid", p.lid());
                c.number("port_lmc", p.lmc());
                assertEquals(printed.get("link_layer"), p.linkLayer().text(), "link_layer");
                c.number("max_msg_sz", p.maxMsgSize());
                c.number("port_cap_flags", p.portCapFlags() & 0xffffffffL);
                c.number("port_cap_flags2", p.portCapFlags2());
                c.code("max_vl_num", p.maxVlNum());
                c.number("bad_pkey_cntr", p.badPkeyCounter());
                c.number("qkey_viol_cntr", p.qkeyViolationCounter());
                c.number("sm_sl", p.smSl());
                c.number("pkey_tbl_len", p.pkeyTableLength());
                c.number("gid_tbl_len", p.gidTableLength());
                c.number("subnet_timeout", p.subnetTimeout());
                c.number("init_type_reply", p.initTypeReply());
                c.code("active_width", p.activeWidth());
                assertTrue(printed.get("active_width").startsWith(p.activeWidthText() + "X"), "active_width text");
                c.code("active_speed", p.activeSpeed());
                assertTrue(printed.get("active_speed").startsWith(p.activeSpeedText()), "active_speed text");
                if (ctx.device().transportType() == TransportType.IB) {
                    c.code("phys_state", p.physState());
                }
                assertTrue(c.compared >= 19, "compared only " + c.compared + " port fields");
            }
        }
    }

    @ParameterizedTest
    @MethodSource("devices")
    void gidTableEqualsIbvDevinfoAndSysfs(String device) throws IOException {
        IbvDevinfo.Hca hca = devinfo(device);
        try (DeviceContext ctx = Rdma.open(device)) {
            List<GidEntry> table = ctx.queryGidTable();
            assertFalse(table.isEmpty(), device + ": empty GID table");
            for (IbvDevinfo.Port printed : hca.ports()) {
                // ibv_devinfo skips a GID whose interface id (last 8 bytes) is zero: siw's one GID is such
                List<GidEntry> ours = new ArrayList<>();
                for (GidEntry e : table) {
                    if (e.port() == printed.number() && e.gid().interfaceId() != 0) {
                        ours.add(e);
                    }
                }
                List<IbvDevinfo.GidLine> lines = printed.gids();
                if (ctx.device().transportType() == TransportType.IB) {
                    assertFalse(lines.isEmpty(), device + ": ibv_devinfo -v printed no GID for port " + printed.number());
                }
                assertEquals(lines.size(), ours.size(), device + " GIDs: ibv_devinfo " + lines + " vs " + ours);
                for (IbvDevinfo.GidLine line : lines) {
                    GidEntry e = ours.stream().filter(x -> x.index() == line.index()).findFirst().orElse(null);
                    assertNotNull(e, device + ": no GID entry at index " + line.index() + " in " + ours);
                    assertEquals(Gid.parse(line.gid()), e.gid(), device + " GID[" + line.index() + "]");
                    if (line.type() != null) {
                        assertEquals(GidType.ofText(line.type()), e.type(), device + " GID[" + line.index() + "] type");
                    }
                }
            }
            // every entry against the kernel's own view in sysfs, and against the single-entry verbs
            for (GidEntry e : table) {
                Path port = Path.of("/sys/class/infiniband", device, "ports", Integer.toString(e.port()));
                assertEquals(Gid.parse(Files.readString(port.resolve("gids/" + e.index())).trim()), e.gid(),
                        device + " sysfs gids/" + e.index());
                Path type = port.resolve("gid_attrs/types/" + e.index());
                if (Files.exists(type)) {
                    GidType sysfsType = GidType.ofText(Files.readString(type).trim());
                    if (sysfsType != GidType.IB) { // sysfs says "IB/RoCE v1" for both IB and RoCE v1
                        assertEquals(sysfsType, e.type(), device + " sysfs gid_attrs/types/" + e.index());
                    }
                }
                assertEquals(e.gid(), ctx.queryGid(e.port(), e.index()), "ibv_query_gid");
                assertEquals(e, ctx.queryGidEntry(e.port(), e.index()), "ibv_query_gid_ex");
            }
        }
    }

    @Test
    void emptyGidSlotIsNamedAsSuch() {
        try (DeviceContext ctx = Rdma.open(Lab.roceDevice())) {
            int len = ctx.queryPort(1).gidTableLength();
            VerbsException e = assertThrows(VerbsException.class, () -> ctx.queryGidEntry(1, len - 1));
            assertEquals("ENODATA", e.errnoName(), e.getMessage());
            assertTrue(e.getMessage().contains("empty"), e.getMessage());
            assertTrue(ctx.queryGid(1, len - 1).isZero());
        }
    }

    @Test
    void roceGidIndexOfTheLabIsTheIpv4MappedRoceV2Gid() {
        int index = Integer.parseInt(Lab.env("FABRIC_LAB_RXE_GID_INDEX"));
        try (DeviceContext ctx = Rdma.open(Lab.roceDevice())) {
            GidEntry e = ctx.queryGidEntry(1, index);
            assertEquals(GidType.ROCE_V2, e.type());
            assertTrue(e.gid().isIpv4Mapped(), e.toString());
            assertEquals(Lab.env("FABRIC_LAB_RXE_IP"), e.gid().toInetAddress().getHostAddress());
        }
    }

    @Test
    void pkeyZeroIsTheDefaultPartition() {
        try (DeviceContext ctx = Rdma.open(Lab.roceDevice())) {
            assertEquals(0xffff, ctx.queryPkey(1, 0));
        }
    }

    @Test
    void openingAMissingDeviceNamesWhatExists() {
        NoSuchDeviceException e = assertThrows(NoSuchDeviceException.class, () -> Rdma.open("mlx5_9"));
        assertTrue(e.getMessage().contains("mlx5_9") && e.getMessage().contains(Lab.roceDevice())
                && e.getMessage().contains(Lab.iwarpDevice()), e.getMessage());
    }

    @Test
    void useAfterCloseThrowsAndDoubleCloseIsHarmless() {
        DeviceContext ctx = Rdma.open(Lab.roceDevice());
        ctx.close();
        ctx.close();
        assertTrue(ctx.isClosed());
        IllegalStateException e = assertThrows(IllegalStateException.class, ctx::queryDevice);
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> ctx.queryPort(1));
        assertThrows(IllegalStateException.class, ctx::queryGidTable);
    }

    @Test
    void queryingAPortThatDoesNotExistIsAClearError() {
        try (DeviceContext ctx = Rdma.open(Lab.roceDevice())) {
            Exception e = assertThrows(RuntimeException.class, () -> ctx.queryPort(7));
            assertTrue(e.getMessage().contains("ibv_query_port") && e.getMessage().contains("port 7"), e.getMessage());
        }
    }

    /** Compares "key: value" fields of ibv_devinfo with ours and counts how many it compared. */
    private static final class Checker {
        final String what;
        final Map<String, String> printed;
        int compared;

        Checker(String what, Map<String, String> printed) {
            this.what = what;
            this.printed = printed;
        }

        void number(String key, long ours) {
            String v = printed.get(key);
            assertNotNull(v, what + ": ibv_devinfo -v printed no " + key + " (fields: " + printed.keySet() + ")");
            assertEquals(IbvDevinfo.number(v), ours, what + " " + key + " (ibv_devinfo: " + v + ")");
            compared++;
        }

        void optionalNumber(String key, long ours) {
            if (printed.containsKey(key)) {
                number(key, ours);
            }
        }

        void code(String key, int ours) {
            String v = printed.get(key);
            assertNotNull(v, what + ": ibv_devinfo -v printed no " + key);
            assertEquals(IbvDevinfo.codeInParens(v), ours, what + " " + key + " (ibv_devinfo: " + v + ")");
            compared++;
        }
    }

}
