package org.verbs4j.examples;

import java.util.List;
import java.util.Locale;
import org.verbs4j.api.DeviceAttributes;
import org.verbs4j.api.DeviceAttributesEx;
import org.verbs4j.api.DeviceCapability;
import org.verbs4j.api.GidEntry;
import org.verbs4j.api.GidType;
import org.verbs4j.api.LinkLayer;
import org.verbs4j.api.Mtu;
import org.verbs4j.api.PortAttributes;
import org.verbs4j.api.PortState;
import org.verbs4j.api.RdmaDevice;
import org.verbs4j.api.TransportType;

/**
 * The text rdma-core's {@code ibv_devinfo [-v]} prints for one device, character for character: the same
 * fields in the same order, the same tabs, the same flag names and the same conditional lines.
 */
final class DevinfoFormat {
    private static final String FLAG = "\t\t\t\t\t";
    private static final long ODP_TRANSPORT_KNOWN = 0x3f;
    private static final String[] ODP_TRANSPORT = {
        "SUPPORT_SEND", "SUPPORT_RECV", "SUPPORT_WRITE", "SUPPORT_READ", "SUPPORT_ATOMIC", "SUPPORT_SRQ"};
    private static final long RAW_SCATTER_FCS = 1L << 34;
    private static final long PCI_WRITE_END_PADDING = 1L << 36;
    private static final int QPT_UD = 4;
    private static final int QPT_RAW_PACKET = 8;

    /** One port as {@code ibv_devinfo} sees it: its attributes and its GID table, in index order. */
    record Port(PortAttributes attributes, List<GidEntry> gids) {
    }

    /** What one {@code hca_id} block is made of. {@code boardId} is null when sysfs has none. */
    record Device(String name, TransportType transport, DeviceAttributesEx attributes, String boardId,
            int numCompVectors, List<Port> ports) {
    }

    private final StringBuilder out = new StringBuilder(4096);

    private DevinfoFormat() {
    }

    /** The {@code hca_id} block of {@code d}, with every port in {@code d.ports()}. */
    static String format(Device d, boolean verbose) {
        DevinfoFormat f = new DevinfoFormat();
        f.device(d, verbose);
        for (Port p : d.ports()) {
            f.port(d.transport(), p, verbose);
        }
        return f.out.toString();
    }

    private void line(String format, Object... args) {
        out.append(String.format(Locale.ROOT, format, args)).append('\n');
    }

    private void device(Device d, boolean verbose) {
        DeviceAttributes a = d.attributes().attributes();
        line("hca_id:\t%s", d.name());
        line("\ttransport:\t\t\t%s (%d)", d.transport().text(), d.transport().value());
        if (!a.firmwareVersion().isEmpty()) {
            line("\tfw_ver:\t\t\t\t%s", a.firmwareVersion());
        }
        line("\tnode_guid:\t\t\t%s", RdmaDevice.formatGuid(a.nodeGuid()));
        line("\tsys_image_guid:\t\t\t%s", RdmaDevice.formatGuid(a.sysImageGuid()));
        line("\tvendor_id:\t\t\t0x%04x", a.vendorId());
        line("\tvendor_part_id:\t\t\t%d", a.vendorPartId());
        line("\thw_ver:\t\t\t\t0x%X", a.hwVer());
        if (d.boardId() != null && !d.boardId().isEmpty()) {
            line("\tboard_id:\t\t\t%s", d.boardId());
        }
        line("\tphys_port_cnt:\t\t\t%d", a.physPortCnt());
        if (verbose) {
            classic(a);
            extended(d.attributes());
            line("\tnum_comp_vectors:\t\t%d", d.numCompVectors());
        }
    }

    private void classic(DeviceAttributes a) {
        line("\tmax_mr_size:\t\t\t0x%x", a.maxMrSize());
        line("\tpage_size_cap:\t\t\t0x%x", a.pageSizeCap());
        line("\tmax_qp:\t\t\t\t%d", a.maxQp());
        line("\tmax_qp_wr:\t\t\t%d", a.maxQpWr());
        line("\tdevice_cap_flags:\t\t0x%08x", a.deviceCapFlags());
        int known = 0;
        for (DeviceCapability c : DeviceCapability.values()) {
            known |= c.mask();
            if (a.has(c)) {
                line(FLAG + "%s", c.name());
            }
        }
        if ((a.deviceCapFlags() & ~known) != 0) {
            line(FLAG + "Unknown flags: 0x%X", a.deviceCapFlags() & ~known);
        }
        line("\tmax_sge:\t\t\t%d", a.maxSge());
        line("\tmax_sge_rd:\t\t\t%d", a.maxSgeRd());
        line("\tmax_cq:\t\t\t\t%d", a.maxCq());
        line("\tmax_cqe:\t\t\t%d", a.maxCqe());
        line("\tmax_mr:\t\t\t\t%d", a.maxMr());
        line("\tmax_pd:\t\t\t\t%d", a.maxPd());
        line("\tmax_qp_rd_atom:\t\t\t%d", a.maxQpRdAtom());
        line("\tmax_ee_rd_atom:\t\t\t%d", a.maxEeRdAtom());
        line("\tmax_res_rd_atom:\t\t%d", a.maxResRdAtom());
        line("\tmax_qp_init_rd_atom:\t\t%d", a.maxQpInitRdAtom());
        line("\tmax_ee_init_rd_atom:\t\t%d", a.maxEeInitRdAtom());
        line("\tatomic_cap:\t\t\t%s (%d)", a.atomicCap().text(), a.atomicCap().value());
        line("\tmax_ee:\t\t\t\t%d", a.maxEe());
        line("\tmax_rdd:\t\t\t%d", a.maxRdd());
        line("\tmax_mw:\t\t\t\t%d", a.maxMw());
        line("\tmax_raw_ipv6_qp:\t\t%d", a.maxRawIpv6Qp());
        line("\tmax_raw_ethy_qp:\t\t%d", a.maxRawEthyQp());
        line("\tmax_mcast_grp:\t\t\t%d", a.maxMcastGrp());
        line("\tmax_mcast_qp_attach:\t\t%d", a.maxMcastQpAttach());
        line("\tmax_total_mcast_qp_attach:\t%d", a.maxTotalMcastQpAttach());
        line("\tmax_ah:\t\t\t\t%d", a.maxAh());
        line("\tmax_fmr:\t\t\t%d", a.maxFmr());
        if (a.maxFmr() != 0) {
            line("\tmax_map_per_fmr:\t\t%d", a.maxMapPerFmr());
        }
        line("\tmax_srq:\t\t\t%d", a.maxSrq());
        if (a.maxSrq() != 0) {
            line("\tmax_srq_wr:\t\t\t%d", a.maxSrqWr());
            line("\tmax_srq_sge:\t\t\t%d", a.maxSrqSge());
        }
        line("\tmax_pkeys:\t\t\t%d", a.maxPkeys());
        line("\tlocal_ca_ack_delay:\t\t%d", a.localCaAckDelay());
    }

    private void extended(DeviceAttributesEx x) {
        line("\tgeneral_odp_caps:");
        if ((x.odpGeneralCaps() & DeviceAttributesEx.ODP_SUPPORT) != 0) {
            line(FLAG + "ODP_SUPPORT");
        }
        if ((x.odpGeneralCaps() & DeviceAttributesEx.ODP_SUPPORT_IMPLICIT) != 0) {
            line(FLAG + "ODP_SUPPORT_IMPLICIT");
        }
        long unknownGeneral = x.odpGeneralCaps() & ~(DeviceAttributesEx.ODP_SUPPORT | DeviceAttributesEx.ODP_SUPPORT_IMPLICIT);
        if (unknownGeneral != 0) {
            line(FLAG + "Unknown flags: 0x%X", unknownGeneral);
        }
        odpTransport("rc", x.rcOdpCaps());
        odpTransport("uc", x.ucOdpCaps());
        odpTransport("ud", x.udOdpCaps());
        odpTransport("xrc", x.xrcOdpCaps());
        if (x.completionTimestampMask() != 0) {
            line("\tcompletion timestamp_mask:\t\t\t0x%016x", x.completionTimestampMask());
        } else {
            line("\tcompletion_timestamp_mask not supported");
        }
        if (x.hcaCoreClock() != 0) {
            line("\thca_core_clock:\t\t\t%skHZ", Long.toUnsignedString(x.hcaCoreClock()));
        } else {
            line("\tcore clock not supported");
        }
        if (x.rawPacketCaps() != 0) {
            line("\traw packet caps:");
            String[] names = {"C-VLAN stripping offload", "Scatter FCS offload", "IP csum offload", "Delay drop"};
            for (int i = 0; i < names.length; i++) {
                if ((x.rawPacketCaps() & (1 << i)) != 0) {
                    line(FLAG + "%s", names[i]);
                }
            }
        }
        line("\tdevice_cap_flags_ex:\t\t0x%X", x.deviceCapFlagsEx());
        long ex = x.deviceCapFlagsEx() & 0xffffffff00000000L;
        if ((ex & RAW_SCATTER_FCS) != 0) {
            line(FLAG + "RAW_SCATTER_FCS");
        }
        if ((ex & PCI_WRITE_END_PADDING) != 0) {
            line(FLAG + "PCI_WRITE_END_PADDING");
        }
        if ((ex & ~(RAW_SCATTER_FCS | PCI_WRITE_END_PADDING)) != 0) {
            line(FLAG + "Unknown flags: 0x%X", ex & ~(RAW_SCATTER_FCS | PCI_WRITE_END_PADDING));
        }
        line("\ttso_caps:");
        line("\t\tmax_tso:\t\t\t%d", x.maxTso());
        if (x.maxTso() != 0) {
            supportedQpts(x.tsoSupportedQpts());
        }
        line("\trss_caps:");
        line("\t\tmax_rwq_indirection_tables:\t\t\t%s", Integer.toUnsignedString(x.maxRwqIndirectionTables()));
        line("\t\tmax_rwq_indirection_table_size:\t\t\t%s", Integer.toUnsignedString(x.maxRwqIndirectionTableSize()));
        line("\t\trx_hash_function:\t\t\t\t0x%x", x.rxHashFunction());
        line("\t\trx_hash_fields_mask:\t\t\t\t0x%X", x.rxHashFieldsMask());
        if (x.rssSupportedQpts() != 0) {
            supportedQpts(x.rssSupportedQpts());
        }
        line("\tmax_wq_type_rq:\t\t\t%s", Integer.toUnsignedString(x.maxWqTypeRq()));
        line("\tpacket_pacing_caps:");
        line("\t\tqp_rate_limit_min:\t%skbps", Integer.toUnsignedString(x.qpRateLimitMin()));
        line("\t\tqp_rate_limit_max:\t%skbps", Integer.toUnsignedString(x.qpRateLimitMax()));
        if (x.qpRateLimitMax() != 0) {
            supportedQpts(x.packetPacingSupportedQpts());
        }
        if (x.tmMaxNumTags() != 0) {
            line("\tmax_rndv_hdr_size:\t\t%s", Integer.toUnsignedString(x.tmMaxRndvHdrSize()));
            line("\tmax_num_tags:\t\t\t%s", Integer.toUnsignedString(x.tmMaxNumTags()));
            line("\tmax_ops:\t\t\t%s", Integer.toUnsignedString(x.tmMaxOps()));
            line("\tmax_sge:\t\t\t%s", Integer.toUnsignedString(x.tmMaxSge()));
            line("\tflags:");
            if ((x.tmFlags() & 1) != 0) {
                line(FLAG + "IBV_TM_CAP_RC");
            }
        } else {
            line("\ttag matching not supported");
        }
        if (x.maxCqCount() != 0 && x.maxCqPeriod() != 0) {
            line("\n\tcq moderation caps:");
            line("\t\tmax_cq_count:\t%d", x.maxCqCount());
            line("\t\tmax_cq_period:\t%d us\n", x.maxCqPeriod());
        }
        if (x.maxDmSize() != 0) {
            line("\tmaximum available device memory:\t%sBytes\n", Long.toUnsignedString(x.maxDmSize()));
        }
    }

    private void odpTransport(String transport, int caps) {
        line("\t%s_odp_caps:", transport);
        if (caps == 0) {
            line(FLAG + "NO SUPPORT");
            return;
        }
        for (int i = 0; i < ODP_TRANSPORT.length; i++) {
            if ((caps & (1 << i)) != 0) {
                line(FLAG + "%s", ODP_TRANSPORT[i]);
            }
        }
        if ((caps & ~ODP_TRANSPORT_KNOWN) != 0) {
            line(FLAG + "Unknown flags: 0x%X", caps & ~ODP_TRANSPORT_KNOWN);
        }
    }

    private void supportedQpts(int qpts) {
        line("\t\tsupported_qp:");
        if ((qpts & (1 << QPT_RAW_PACKET)) != 0) {
            line(FLAG + "SUPPORT_RAW_PACKET");
        }
        if ((qpts & (1 << QPT_UD)) != 0) {
            line(FLAG + "SUPPORT_UD");
        }
        int unknown = qpts & ~((1 << QPT_RAW_PACKET) | (1 << QPT_UD));
        if (unknown != 0) {
            line(FLAG + "Unknown flags: 0x%X", unknown);
        }
    }

    private void port(TransportType transport, Port port, boolean verbose) {
        PortAttributes p = port.attributes();
        line("\t\tport:\t%d", p.portNumber());
        line("\t\t\tstate:\t\t\t%s (%d)", stateText(p.state()), p.state().value());
        line("\t\t\tmax_mtu:\t\t%s (%d)", mtuText(p.maxMtu()), p.maxMtu() == null ? 0 : p.maxMtu().value());
        line("\t\t\tactive_mtu:\t\t%s (%d)", mtuText(p.activeMtu()), p.activeMtu() == null ? 0 : p.activeMtu().value());
        line("\t\t\tsm_lid:\t\t\t%d", p.smLid());
        line("\t\t\tport_lid:\t\t%d", p.lid());
        line("\t\t\tport_lmc:\t\t0x%02x", p.lmc());
        line("\t\t\tlink_layer:\t\t%s", linkLayerText(p.linkLayer()));
        if (verbose) {
            line("\t\t\tmax_msg_sz:\t\t0x%x", p.maxMsgSize());
            line("\t\t\tport_cap_flags:\t\t0x%08x", p.portCapFlags());
            line("\t\t\tport_cap_flags2:\t0x%04x", p.portCapFlags2());
            line("\t\t\tmax_vl_num:\t\t%s (%d)", vlText(p.maxVlNum()), p.maxVlNum());
            line("\t\t\tbad_pkey_cntr:\t\t0x%x", p.badPkeyCounter());
            line("\t\t\tqkey_viol_cntr:\t\t0x%x", p.qkeyViolationCounter());
            line("\t\t\tsm_sl:\t\t\t%d", p.smSl());
            line("\t\t\tpkey_tbl_len:\t\t%d", p.pkeyTableLength());
            line("\t\t\tgid_tbl_len:\t\t%d", p.gidTableLength());
            line("\t\t\tsubnet_timeout:\t\t%d", p.subnetTimeout());
            line("\t\t\tinit_type_reply:\t%d", p.initTypeReply());
            line("\t\t\tactive_width:\t\t%sX (%d)", p.activeWidthText(), p.activeWidth());
            line("\t\t\tactive_speed:\t\t%s (%d)", p.activeSpeedText(), p.activeSpeed());
            if (transport == TransportType.IB) {
                line("\t\t\tphys_state:\t\t%s (%d)", p.physStateText(), p.physState());
            }
            for (GidEntry g : port.gids()) {
                gid(g, p.linkLayer());
            }
        }
        out.append('\n');
    }

    /** A GID line; like ibv_devinfo, none for an entry whose interface id is zero or whose type is unknown. */
    private void gid(GidEntry g, LinkLayer linkLayer) {
        if (g.gid().interfaceId() == 0 || g.type() == GidType.UNKNOWN) {
            return;
        }
        // libibverbs' ibv_query_gid_type folds IB into "IB/RoCE v1", which ibv_devinfo prints as "RoCE v1"
        String suffix = linkLayer == LinkLayer.ETHERNET ? (g.type() == GidType.ROCE_V2 ? ", RoCE v2" : ", RoCE v1") : "";
        line("\t\t\tGID[%3d]:\t\t%s%s", g.index(), g.gid().toString(g.type()), suffix);
    }

    private static String stateText(PortState s) {
        return s == PortState.NOP || s == PortState.ACTIVE_DEFER ? "invalid state" : s.text();
    }

    private static String mtuText(Mtu m) {
        return m == null ? "invalid MTU" : Integer.toString(m.bytes());
    }

    private static String linkLayerText(LinkLayer l) {
        return l == LinkLayer.UNSPECIFIED ? "Unspecified" : l.text();
    }

    private static String vlText(int vl) {
        switch (vl) {
            case 1: return "1";
            case 2: return "2";
            case 3: return "4";
            case 4: return "8";
            case 5: return "15";
            default: return "invalid value";
        }
    }
}
