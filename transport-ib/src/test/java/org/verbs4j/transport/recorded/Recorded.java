package org.verbs4j.transport.recorded;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.verbs4j.api.Gid;
import org.verbs4j.api.GidEntry;
import org.verbs4j.api.GidType;
import org.verbs4j.api.LinkLayer;
import org.verbs4j.api.Mtu;
import org.verbs4j.api.NodeType;
import org.verbs4j.api.PortAttributes;
import org.verbs4j.api.PortState;
import org.verbs4j.api.RdmaDevice;
import org.verbs4j.api.TransportType;
import org.verbs4j.api.tools.IbvDevinfo;

/**
 * RECORDED-DATA ADAPTER (test code): turns {@code ibv_devinfo} text recorded on real adapters
 * ({@code verbs-api/src/test/resources/recorded/}, see its README.md) into the API objects the fabric
 * providers decide on: {@link RdmaDevice} (a {@link RecordedDevice}), {@link PortAttributes} and
 * the port's {@link GidEntry} list.
 *
 * <p>The files reach the test class path as {@code /recorded/...}: transport-ib's pom adds
 * {@code ${project.basedir}/../verbs-api/src/test/resources} (only {@code recorded/**}) as a test resource
 * directory, and its test-jar carries them, with this class, to transport-roce and transport-iwarp.
 *
 * <p>What the text does not have: short {@code ibv_devinfo} output prints only state, MTUs, LIDs, LMC and
 * link layer; every other port field is then 0 (as a zeroed {@code struct ibv_port_attr}), {@code phys_state}
 * included (0 is no valid physical state, so a provider can tell "not reported"). {@code ibv_devinfo} does
 * not print the node type: it is taken as RNIC for an iWARP transport, CA otherwise. GIDs printed without a
 * type (InfiniBand ports) are type IB, as {@code ibv_query_gid_ex} reports them; the net device ifindex is
 * not printed and is 0.
 */
public final class Recorded {
    /** Every {@code ibv_devinfo} file in the recorded directory ({@code RecordedAdapterTest} checks the list). */
    public static final List<String> DEVINFO_FILES = List.of(
            "ibv_devinfo-v_connectx3-ib-port2-down_heioy-books.txt",
            "ibv_devinfo-v_connectx6-ib_connectx5-roce_e3sm-scorpio.txt",
            "ibv_devinfo-v_ql41112-qedr-iwarp_linux-cifs-2021.txt",
            "ibv_devinfo-vv_connectx6-ib-active-and-disabled_ucx-9908.txt",
            "ibv_devinfo_connectx3-ib-2hca_heioy-books.txt",
            "ibv_devinfo_connectx6-ib-hdr100_kaust-ibex.txt",
            "ibv_devinfo_connectx6vf-ib-hdr_azure-hbv3_azadventures.txt",
            "ibv_devinfo_connectx7-ib-8hca_deepep-397.txt",
            "ibv_devinfo_cxgb4-iwarp_connectx5-roce_intel-mfd-fixture.txt",
            "ibv_devinfo_i40iw-iwarp_connectx5-ib_linux-rdma-2021.txt");

    public static final String SCORPIO = "ibv_devinfo-v_connectx6-ib_connectx5-roce_e3sm-scorpio.txt";
    public static final String UCX_9908 = "ibv_devinfo-vv_connectx6-ib-active-and-disabled_ucx-9908.txt";
    public static final String HEIOY_PORT2_DOWN = "ibv_devinfo-v_connectx3-ib-port2-down_heioy-books.txt";
    public static final String HEIOY_2HCA = "ibv_devinfo_connectx3-ib-2hca_heioy-books.txt";
    public static final String QEDR = "ibv_devinfo-v_ql41112-qedr-iwarp_linux-cifs-2021.txt";
    public static final String CXGB4 = "ibv_devinfo_cxgb4-iwarp_connectx5-roce_intel-mfd-fixture.txt";
    public static final String I40IW = "ibv_devinfo_i40iw-iwarp_connectx5-ib_linux-rdma-2021.txt";
    public static final String DEEPEP = "ibv_devinfo_connectx7-ib-8hca_deepep-397.txt";

    /**
     * The fabric of every HCA of every file, written by hand from the files' headers and the recorded
     * README (hardware column), not computed: what a provider's {@code serves} must agree with.
     */
    public static final Map<String, Map<String, String>> EXPECTED_FABRIC = expected();

    private static final String MARKER = "# ---- verbatim output starts on the next line ----\n";

    private Recorded() {
    }

    private static Map<String, Map<String, String>> expected() {
        Map<String, Map<String, String>> m = new LinkedHashMap<>();
        m.put(HEIOY_PORT2_DOWN, hcas("mlx4_1", "ib"));
        m.put(SCORPIO, hcas("mlx5_0", "ib", "mlx5_1", "roce", "mlx5_2", "roce"));
        m.put(QEDR, hcas("qedr0", "iwarp"));
        m.put(UCX_9908, hcas("mlx5_0", "ib", "mlx5_1", "ib"));
        m.put(HEIOY_2HCA, hcas("mlx4_1", "ib", "mlx4_0", "ib"));
        m.put("ibv_devinfo_connectx6-ib-hdr100_kaust-ibex.txt", hcas("mlx5_0", "ib"));
        m.put("ibv_devinfo_connectx6vf-ib-hdr_azure-hbv3_azadventures.txt", hcas("mlx5_ib0", "ib"));
        m.put(DEEPEP, hcas("mlx5_0", "ib", "mlx5_3", "ib", "mlx5_4", "ib", "mlx5_5", "ib", "mlx5_6", "ib",
                "mlx5_9", "ib", "mlx5_10", "ib", "mlx5_11", "ib"));
        m.put(CXGB4, hcas("mlx5_0", "roce", "cxgb4_0", "iwarp"));
        m.put(I40IW, hcas("i40iw0", "iwarp", "i40iw1", "iwarp", "mlx5_0", "ib"));
        return Collections.unmodifiableMap(m);
    }

    private static Map<String, String> hcas(String... nameFabric) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < nameFabric.length; i += 2) {
            m.put(nameFabric[i], nameFabric[i + 1]);
        }
        return Collections.unmodifiableMap(m);
    }

    /** The verbatim part of a recorded file (after the marker line), from the test class path. */
    public static String text(String file) {
        try (InputStream in = Recorded.class.getResourceAsStream("/recorded/" + file)) {
            if (in == null) {
                throw new IllegalStateException("/recorded/" + file + " is not on the test class path: transport-ib's "
                        + "pom adds ../verbs-api/src/test/resources as a test resource directory, and its test-jar "
                        + "carries it to the other transport modules");
            }
            String all = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            int at = all.indexOf(MARKER);
            if (at < 0) {
                throw new IllegalStateException("no marker line in " + file);
            }
            return all.substring(at + MARKER.length());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every HCA of a recorded {@code ibv_devinfo} file, as API objects. */
    public static List<RecordedHca> load(String file) {
        List<IbvDevinfo.Hca> parsed = IbvDevinfo.parse(text(file));
        List<RecordedHca> out = new ArrayList<>();
        for (IbvDevinfo.Hca h : parsed) {
            RdmaDevice device = device(file, h);
            List<RecordedPort> ports = new ArrayList<>();
            for (IbvDevinfo.Port p : h.ports()) {
                ports.add(new RecordedPort(file, device, p, portAttributes(p), gidTable(p)));
            }
            out.add(new RecordedHca(file, h, device, List.copyOf(ports)));
        }
        return List.copyOf(out);
    }

    /** Every port of every HCA of every recorded {@code ibv_devinfo} file. */
    public static List<RecordedPort> allPorts() {
        List<RecordedPort> out = new ArrayList<>();
        for (String f : DEVINFO_FILES) {
            for (RecordedHca h : load(f)) {
                out.addAll(h.ports());
            }
        }
        return out;
    }

    /** One HCA of a file; fails when the file has no such {@code hca_id}. */
    public static RecordedHca hca(String file, String name) {
        for (RecordedHca h : load(file)) {
            if (h.device().name().equals(name)) {
                return h;
            }
        }
        throw new IllegalArgumentException(file + " has no hca_id " + name);
    }

    /** One port of one HCA of a file. */
    public static RecordedPort port(String file, String hca, int port) {
        return hca(file, hca).port(port);
    }

    /** The expected fabric ({@code ib}, {@code roce}, {@code iwarp}) of a recorded port. */
    public static String expectedFabric(RecordedPort p) {
        Map<String, String> m = EXPECTED_FABRIC.get(p.file());
        String f = m == null ? null : m.get(p.device().name());
        if (f == null) {
            throw new IllegalStateException("EXPECTED_FABRIC has no entry for " + p);
        }
        return f;
    }

    /** The device as a backend lists it: name, node GUID, transport from the text; node type inferred. */
    public static RdmaDevice device(String file, IbvDevinfo.Hca h) {
        TransportType t = TransportType.of(IbvDevinfo.codeInParens(h.get("transport")));
        long guid = h.get("node_guid") != null ? IbvDevinfo.guid(h.get("node_guid")) : 0;
        return new RecordedDevice(file, h.name(), guid, t == TransportType.IWARP ? NodeType.RNIC : NodeType.CA, t);
    }

    /** Every field {@code ibv_devinfo} printed for the port; the rest 0 (see the class comment). */
    public static PortAttributes portAttributes(IbvDevinfo.Port p) {
        return new PortAttributes(
                p.number(),
                PortState.of(code(p, "state")),
                Mtu.of(code(p, "max_mtu")),
                Mtu.of(code(p, "active_mtu")),
                (int) num(p, "gid_tbl_len"),
                (int) num(p, "port_cap_flags"),
                num(p, "max_msg_sz"),
                (int) num(p, "bad_pkey_cntr"),
                (int) num(p, "qkey_viol_cntr"),
                (int) num(p, "pkey_tbl_len"),
                (int) num(p, "port_lid"),
                (int) num(p, "sm_lid"),
                (int) num(p, "port_lmc"),
                code(p, "max_vl_num"),           // "4 (3)": the encoded value is in parentheses
                (int) num(p, "sm_sl"),
                (int) num(p, "subnet_timeout"),
                (int) num(p, "init_type_reply"),
                code(p, "active_width"),         // "4X (2)"
                code(p, "active_speed"),         // "50.0 Gbps (64)", "invalid speed (0)"
                code(p, "phys_state"),           // "LINK_UP (5)"; absent in short output: 0
                linkLayer(p.get("link_layer")),
                0,                               // flags: not printed
                (int) num(p, "port_cap_flags2"));
    }

    /** The port's GID lines: "GID[  3]:  ::ffff:10.60.32.11, RoCE v2"; no type printed means IB. */
    public static List<GidEntry> gidTable(IbvDevinfo.Port p) {
        List<GidEntry> out = new ArrayList<>();
        for (IbvDevinfo.GidLine g : p.gids()) {
            GidType type = g.type() == null ? GidType.IB : GidType.ofText(g.type());
            out.add(new GidEntry(p.number(), g.index(), Gid.parse(g.gid()), type, 0));
        }
        return List.copyOf(out);
    }

    static LinkLayer linkLayer(String text) {
        if (text == null) {
            return LinkLayer.UNSPECIFIED;
        }
        switch (text.trim()) {
            case "InfiniBand": return LinkLayer.INFINIBAND;
            case "Ethernet": return LinkLayer.ETHERNET;
            default: return LinkLayer.UNKNOWN;
        }
    }

    private static int code(IbvDevinfo.Port p, String key) {
        String v = p.get(key);
        return v == null ? 0 : Math.max(0, IbvDevinfo.codeInParens(v));
    }

    private static long num(IbvDevinfo.Port p, String key) {
        String v = p.get(key);
        return v == null ? 0 : IbvDevinfo.number(v);
    }

    /** A copy of {@code p} with another LID (for "active but no LID" cases the recordings lack). */
    public static PortAttributes withLid(PortAttributes p, int lid) {
        return new PortAttributes(p.portNumber(), p.state(), p.maxMtu(), p.activeMtu(), p.gidTableLength(),
                p.portCapFlags(), p.maxMsgSize(), p.badPkeyCounter(), p.qkeyViolationCounter(), p.pkeyTableLength(),
                lid, p.smLid(), p.lmc(), p.maxVlNum(), p.smSl(), p.subnetTimeout(), p.initTypeReply(), p.activeWidth(),
                p.activeSpeed(), p.physState(), p.linkLayer(), p.flags(), p.portCapFlags2());
    }

    /** A copy of {@code p} with another state and physical state. */
    public static PortAttributes withState(PortAttributes p, PortState state, int physState) {
        return new PortAttributes(p.portNumber(), state, p.maxMtu(), p.activeMtu(), p.gidTableLength(),
                p.portCapFlags(), p.maxMsgSize(), p.badPkeyCounter(), p.qkeyViolationCounter(), p.pkeyTableLength(),
                p.lid(), p.smLid(), p.lmc(), p.maxVlNum(), p.smSl(), p.subnetTimeout(), p.initTypeReply(),
                p.activeWidth(), p.activeSpeed(), physState, p.linkLayer(), p.flags(), p.portCapFlags2());
    }

    /** A copy of {@code p} with another link layer. */
    public static PortAttributes withLinkLayer(PortAttributes p, LinkLayer linkLayer) {
        return new PortAttributes(p.portNumber(), p.state(), p.maxMtu(), p.activeMtu(), p.gidTableLength(),
                p.portCapFlags(), p.maxMsgSize(), p.badPkeyCounter(), p.qkeyViolationCounter(), p.pkeyTableLength(),
                p.lid(), p.smLid(), p.lmc(), p.maxVlNum(), p.smSl(), p.subnetTimeout(), p.initTypeReply(),
                p.activeWidth(), p.activeSpeed(), p.physState(), linkLayer, p.flags(), p.portCapFlags2());
    }

    /** A copy of {@code p} with another active MTU. */
    public static PortAttributes withActiveMtu(PortAttributes p, org.verbs4j.api.Mtu mtu) {
        return new PortAttributes(p.portNumber(), p.state(), p.maxMtu(), mtu, p.gidTableLength(),
                p.portCapFlags(), p.maxMsgSize(), p.badPkeyCounter(), p.qkeyViolationCounter(), p.pkeyTableLength(),
                p.lid(), p.smLid(), p.lmc(), p.maxVlNum(), p.smSl(), p.subnetTimeout(), p.initTypeReply(),
                p.activeWidth(), p.activeSpeed(), p.physState(), p.linkLayer(), p.flags(), p.portCapFlags2());
    }
}
