package org.verbs4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.verbs4j.api.AtomicCapability;
import org.verbs4j.api.DeviceAttributes;
import org.verbs4j.api.DeviceAttributesEx;
import org.verbs4j.api.Gid;
import org.verbs4j.api.GidEntry;
import org.verbs4j.api.GidType;
import org.verbs4j.api.LinkLayer;
import org.verbs4j.api.Mtu;
import org.verbs4j.api.PortAttributes;
import org.verbs4j.api.PortState;
import org.verbs4j.api.TransportType;

/**
 * {@link DevinfoFormat} against {@code ibv_devinfo -v} as it was printed on real ConnectX-5 and -6 adapters
 * (a byte-exact recording, tabs kept): the values of each recorded block are read back into the API's attribute
 * records, formatted, and the text must equal the recorded block line for line.
 */
class DevinfoFormatTest {
    private static final Pattern GID = Pattern.compile("\\t\\t\\tGID\\[ *(\\d+)\\]:\\t\\t([^,]+)(?:, (.+))?");
    private static final Pattern KEY_VALUE = Pattern.compile("\\t+([A-Za-z_][A-Za-z0-9_ ]*):\\t*(.*)");

    @ParameterizedTest
    // rdma-core's ibv_devinfo; the other -v recordings are MLNX_OFED's (other fields) or lost their tabs
    @ValueSource(strings = {"ibv_devinfo-v_connectx6-ib_connectx5-roce_e3sm-scorpio.txt"})
    void printsWhatIbvDevinfoPrintedOnRealHardware(String file) throws IOException {
        List<String> blocks = blocks(recorded(file));
        assertTrue(blocks.size() >= 1, file);
        for (String expected : blocks) {
            DevinfoFormat.Device d = device(expected);
            String actual = DevinfoFormat.format(d, true);
            String[] e = expected.split("\n", -1);
            String[] a = actual.split("\n", -1);
            for (int i = 0; i < Math.min(e.length, a.length); i++) {
                assertEquals(e[i], a[i], file + " " + d.name() + " line " + (i + 1));
            }
            assertEquals(e.length, a.length, file + " " + d.name() + ": line count");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"ibv_devinfo-v_connectx6-ib_connectx5-roce_e3sm-scorpio.txt"})
    void withoutVerboseOnlyTheShortFieldsArePrinted(String file) throws IOException {
        String block = blocks(recorded(file)).get(1);
        String shortText = DevinfoFormat.format(device(block), false);
        assertTrue(shortText.startsWith("hca_id:\tmlx5_1\n\ttransport:\t\t\tInfiniBand (0)\n"), shortText);
        assertTrue(shortText.contains("\tboard_id:\t\t\tMT_0000000012\n\tphys_port_cnt:\t\t\t1\n\t\tport:\t1\n"), shortText);
        assertTrue(shortText.endsWith("\t\t\tlink_layer:\t\tEthernet\n\n"), shortText);
        assertTrue(!shortText.contains("GID") && !shortText.contains("max_qp"), shortText);
    }

    private static String recorded(String file) throws IOException {
        try (InputStream in = DevinfoFormatTest.class.getResourceAsStream("/recorded/" + file)) {
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            String marker = "# ---- verbatim output starts on the next line ----\n";
            return text.substring(text.indexOf(marker) + marker.length());
        }
    }

    /** The {@code hca_id} blocks of a recording, each ending with its last port's blank line. */
    private static List<String> blocks(String text) {
        List<String> out = new ArrayList<>();
        int start = text.indexOf("hca_id:");
        while (start >= 0) {
            int next = text.indexOf("hca_id:", start + 1);
            out.add(text.substring(start, next < 0 ? text.length() : next));
            start = next;
        }
        return out;
    }

    /** Reads one recorded block back into what {@link DevinfoFormat} formats. */
    private static DevinfoFormat.Device device(String block) {
        Fields dev = new Fields();
        List<Fields> ports = new ArrayList<>();
        List<List<GidEntry>> gids = new ArrayList<>();
        Fields current = dev;
        String name = null;
        for (String line : block.split("\n")) {
            if (line.startsWith("hca_id:\t")) {
                name = line.substring("hca_id:\t".length());
                continue;
            }
            Matcher g = GID.matcher(line);
            if (g.matches()) {
                GidType type = g.group(3) == null ? GidType.IB : GidType.ofText(g.group(3));
                gids.get(gids.size() - 1).add(new GidEntry(ports.size(), Integer.parseInt(g.group(1)),
                        Gid.parse(g.group(2)), type, 0));
                continue;
            }
            Matcher kv = KEY_VALUE.matcher(line);
            if (kv.matches() && kv.group(1).equals("port")) {
                current = new Fields();
                ports.add(current);
                gids.add(new ArrayList<>());
                current.put("port", kv.group(2));
            } else if (kv.matches()) {
                current.put(kv.group(1), kv.group(2));
            } else if (!line.isBlank()) {
                current.flag(line.trim());
            }
        }
        DeviceAttributes a = new DeviceAttributes(dev.text("fw_ver", ""), guid(dev.text("node_guid", "0")),
                guid(dev.text("sys_image_guid", "0")), dev.num("max_mr_size"), dev.num("page_size_cap"),
                dev.i("vendor_id"), dev.i("vendor_part_id"), dev.i("hw_ver"), dev.i("max_qp"), dev.i("max_qp_wr"),
                dev.i("device_cap_flags"), dev.i("max_sge"), dev.i("max_sge_rd"), dev.i("max_cq"), dev.i("max_cqe"),
                dev.i("max_mr"), dev.i("max_pd"), dev.i("max_qp_rd_atom"), dev.i("max_ee_rd_atom"),
                dev.i("max_res_rd_atom"), dev.i("max_qp_init_rd_atom"), dev.i("max_ee_init_rd_atom"),
                AtomicCapability.of(dev.code("atomic_cap")), dev.i("max_ee"), dev.i("max_rdd"), dev.i("max_mw"),
                dev.i("max_raw_ipv6_qp"), dev.i("max_raw_ethy_qp"), dev.i("max_mcast_grp"),
                dev.i("max_mcast_qp_attach"), dev.i("max_total_mcast_qp_attach"), dev.i("max_ah"), dev.i("max_fmr"),
                dev.i("max_map_per_fmr"), dev.i("max_srq"), dev.i("max_srq_wr"), dev.i("max_srq_sge"),
                dev.i("max_pkeys"), dev.i("local_ca_ack_delay"), dev.i("phys_port_cnt"));
        String[] odp = {"SUPPORT_SEND", "SUPPORT_RECV", "SUPPORT_WRITE", "SUPPORT_READ", "SUPPORT_ATOMIC", "SUPPORT_SRQ"};
        DeviceAttributesEx x = new DeviceAttributesEx(a,
                dev.bits("general_odp_caps", "ODP_SUPPORT", "ODP_SUPPORT_IMPLICIT"),
                (int) dev.bits("rc_odp_caps", odp), (int) dev.bits("uc_odp_caps", odp),
                (int) dev.bits("ud_odp_caps", odp), (int) dev.bits("xrc_odp_caps", odp),
                dev.num("completion timestamp_mask"), dev.num("hca_core_clock"), dev.num("device_cap_flags_ex"),
                dev.i("max_tso"), dev.qpts("max_tso"), dev.i("max_rwq_indirection_tables"),
                dev.i("max_rwq_indirection_table_size"), dev.i("rx_hash_function"), dev.num("rx_hash_fields_mask"),
                dev.qpts("rx_hash_fields_mask"), dev.i("max_wq_type_rq"), dev.i("qp_rate_limit_min"),
                dev.i("qp_rate_limit_max"), dev.qpts("qp_rate_limit_max"),
                (int) dev.bits("raw packet caps", "C-VLAN stripping offload", "Scatter FCS offload", "IP csum offload",
                        "Delay drop"), dev.i("max_rndv_hdr_size"),
                dev.i("max_num_tags"), dev.has("IBV_TM_CAP_RC") ? 1 : 0, dev.i("max_ops"),
                (int) dev.nth("max_sge", 1), dev.i("max_cq_count"), dev.i("max_cq_period"),
                dev.num("maximum available device memory"));
        List<DevinfoFormat.Port> out = new ArrayList<>();
        for (int i = 0; i < ports.size(); i++) {
            Fields p = ports.get(i);
            PortAttributes pa = new PortAttributes(p.i("port"), PortState.of(p.code("state")),
                    Mtu.of(p.code("max_mtu")), Mtu.of(p.code("active_mtu")), p.i("gid_tbl_len"),
                    p.i("port_cap_flags"), p.num("max_msg_sz"), p.i("bad_pkey_cntr"), p.i("qkey_viol_cntr"),
                    p.i("pkey_tbl_len"), p.i("port_lid"), p.i("sm_lid"), p.i("port_lmc"), p.code("max_vl_num"),
                    p.i("sm_sl"), p.i("subnet_timeout"), p.i("init_type_reply"), p.code("active_width"),
                    p.code("active_speed"), p.code("phys_state"),
                    p.text("link_layer", "").equals("Ethernet") ? LinkLayer.ETHERNET : LinkLayer.INFINIBAND, 0,
                    p.i("port_cap_flags2"));
            out.add(new DevinfoFormat.Port(pa, gids.get(i)));
        }
        return new DevinfoFormat.Device(name, TransportType.of(dev.code("transport")), x, dev.text("board_id", null),
                dev.i("num_comp_vectors"), out);
    }

    private static long guid(String text) {
        return Long.parseUnsignedLong(text.replace(":", ""), 16);
    }

    /** The "key: value" lines of a block (a key may come twice: max_sge) and the flag lines under each key. */
    private static final class Fields {
        private final Map<String, List<String>> values = new LinkedHashMap<>();
        private final Map<String, List<String>> flags = new LinkedHashMap<>();
        private String last;

        void put(String key, String value) {
            // three sections have a "supported_qp:" list: name it after the line before it
            String k = key.equals("supported_qp") ? last + "/supported_qp" : key;
            values.computeIfAbsent(k, x -> new ArrayList<>()).add(value);
            last = k;
        }

        void flag(String name) {
            flags.computeIfAbsent(last, k -> new ArrayList<>()).add(name);
        }

        boolean has(String flag) {
            return flags.values().stream().anyMatch(l -> l.contains(flag));
        }

        String text(String key, String absent) {
            List<String> v = values.get(key);
            return v == null ? absent : v.get(0);
        }

        long nth(String key, int n) {
            List<String> v = values.get(key);
            return v == null || v.size() <= n ? 0 : parse(v.get(n));
        }

        long num(String key) {
            return nth(key, 0);
        }

        int i(String key) {
            return (int) num(key);
        }

        /** The number in parentheses: "PORT_ACTIVE (4)" is 4. */
        int code(String key) {
            String v = text(key, "(0)");
            return Integer.parseInt(v.substring(v.lastIndexOf('(') + 1, v.lastIndexOf(')')));
        }

        long bits(String key, String... names) {
            long b = 0;
            for (String f : flags.getOrDefault(key, List.of())) {
                for (int i = 0; i < names.length; i++) {
                    if (f.equals(names[i])) {
                        b |= 1L << i;
                    }
                }
            }
            return b;
        }

        /** The {@code 1 << qp_type} bits of the "supported_qp:" list after {@code key} (UD 4, RAW_PACKET 8). */
        int qpts(String key) {
            return (int) (bits(key + "/supported_qp", "", "", "", "", "SUPPORT_UD") | bits(key + "/supported_qp", "",
                    "", "", "", "", "", "", "", "SUPPORT_RAW_PACKET"));
        }

        private static long parse(String v) {
            String t = v.replaceAll("(kbps| us|kHZ|Bytes)$", "").trim();
            return t.startsWith("0x") ? Long.parseUnsignedLong(t.substring(2), 16) : Long.parseLong(t);
        }
    }
}
