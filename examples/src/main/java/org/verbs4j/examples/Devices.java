package org.verbs4j.examples;

import java.util.ArrayList;
import java.util.List;
import org.verbs4j.api.DeviceAttributes;
import org.verbs4j.api.DeviceCapability;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.GidEntry;
import org.verbs4j.api.PortAttributes;
import org.verbs4j.api.Rdma;
import org.verbs4j.api.RdmaDevice;
import org.verbs4j.api.TransportType;
import org.verbs4j.examples.cli.CommandLine;
import org.verbs4j.examples.cli.Option;
import org.verbs4j.examples.cli.OptionParser;
import org.verbs4j.examples.cli.Values;

/**
 * Lists the RDMA devices with their attributes, ports and GID tables, in the layout of
 * {@code ibv_devinfo -v} (same option letters). Usage: {@code examples/bin/devices [-d DEVICE] [-i PORT] [-v]}.
 */
public final class Devices {
    static final Option<String> DEVICE = Option.of('d', "ib-dev", "DEVICE", Values.string(), null,
            "show only device DEVICE").defaultText("every device");
    static final Option<Integer> PORT = Option.of('i', "ib-port", "PORT", Values.intIn(1, 255), null,
            "show only port PORT").defaultText("every port");
    static final Option<Boolean> VERBOSE = Option.flag('v', "verbose",
            "print all the attributes and the GID table");
    static final OptionParser PARSER = new OptionParser("devices").synopsis("[options]", null)
            .add(DEVICE, PORT, VERBOSE);

    private Devices() {
    }

    public static void main(String[] args) {
        System.exit(PARSER.launch(args, System.out, System.err, c -> c, Devices::list));
    }

    private static int list(CommandLine c) {
        String only = c.get(DEVICE);
        int onlyPort = c.given(PORT) ? c.get(PORT) : 0;
        boolean verbose = c.get(VERBOSE);
        List<RdmaDevice> devices = new ArrayList<>();
        if (only != null) {
            devices.add(Rdma.device(only));
        } else {
            devices.addAll(Rdma.devices());
        }
        if (devices.isEmpty()) {
            System.out.println("No RDMA devices found (verbs4j backend: "
                    + (Rdma.backendName() == null ? "none available" : Rdma.backendName()) + ")");
            return 0;
        }
        for (RdmaDevice d : devices) {
            try (DeviceContext ctx = d.open()) {
                print(ctx, onlyPort, verbose);
            }
        }
        return 0;
    }

    static void print(DeviceContext ctx, int onlyPort, boolean verbose) {
        RdmaDevice d = ctx.device();
        DeviceAttributes a = ctx.queryDevice();
        System.out.printf("hca_id:\t%s%n", d.name());
        System.out.printf("\ttransport:\t\t\t%s (%d)%n", d.transportType().text(), d.transportType().value());
        if (!a.firmwareVersion().isEmpty()) {
            System.out.printf("\tfw_ver:\t\t\t\t%s%n", a.firmwareVersion());
        }
        System.out.printf("\tnode_guid:\t\t\t%s%n", RdmaDevice.formatGuid(a.nodeGuid()));
        System.out.printf("\tsys_image_guid:\t\t\t%s%n", RdmaDevice.formatGuid(a.sysImageGuid()));
        System.out.printf("\tvendor_id:\t\t\t0x%04x%n", a.vendorId());
        System.out.printf("\tvendor_part_id:\t\t\t%d%n", a.vendorPartId());
        System.out.printf("\thw_ver:\t\t\t\t0x%X%n", a.hwVer());
        System.out.printf("\tphys_port_cnt:\t\t\t%d%n", a.physPortCnt());
        if (verbose) {
            System.out.printf("\tmax_mr_size:\t\t\t0x%x%n", a.maxMrSize());
            System.out.printf("\tpage_size_cap:\t\t\t0x%x%n", a.pageSizeCap());
            System.out.printf("\tmax_qp:\t\t\t\t%d%n", a.maxQp());
            System.out.printf("\tmax_qp_wr:\t\t\t%d%n", a.maxQpWr());
            System.out.printf("\tdevice_cap_flags:\t\t0x%08x%n", a.deviceCapFlags());
            for (DeviceCapability c : DeviceCapability.values()) {
                if (a.has(c)) {
                    System.out.printf("\t\t\t\t\t%s%n", c.name());
                }
            }
            System.out.printf("\tmax_sge:\t\t\t%d%n", a.maxSge());
            System.out.printf("\tmax_sge_rd:\t\t\t%d%n", a.maxSgeRd());
            System.out.printf("\tmax_cq:\t\t\t\t%d%n", a.maxCq());
            System.out.printf("\tmax_cqe:\t\t\t%d%n", a.maxCqe());
            System.out.printf("\tmax_mr:\t\t\t\t%d%n", a.maxMr());
            System.out.printf("\tmax_pd:\t\t\t\t%d%n", a.maxPd());
            System.out.printf("\tmax_qp_rd_atom:\t\t\t%d%n", a.maxQpRdAtom());
            System.out.printf("\tmax_res_rd_atom:\t\t%d%n", a.maxResRdAtom());
            System.out.printf("\tmax_qp_init_rd_atom:\t\t%d%n", a.maxQpInitRdAtom());
            System.out.printf("\tatomic_cap:\t\t\t%s (%d)%n", a.atomicCap().text(), a.atomicCap().value());
            System.out.printf("\tmax_mw:\t\t\t\t%d%n", a.maxMw());
            System.out.printf("\tmax_ah:\t\t\t\t%d%n", a.maxAh());
            System.out.printf("\tmax_srq:\t\t\t%d%n", a.maxSrq());
            if (a.maxSrq() > 0) {
                System.out.printf("\tmax_srq_wr:\t\t\t%d%n", a.maxSrqWr());
                System.out.printf("\tmax_srq_sge:\t\t\t%d%n", a.maxSrqSge());
            }
            System.out.printf("\tmax_pkeys:\t\t\t%d%n", a.maxPkeys());
            System.out.printf("\tlocal_ca_ack_delay:\t\t%d%n", a.localCaAckDelay());
        }
        List<GidEntry> gids = verbose ? ctx.queryGidTable() : List.of();
        for (PortAttributes p : ctx.queryPorts()) {
            if (onlyPort != 0 && p.portNumber() != onlyPort) {
                continue;
            }
            System.out.printf("\t\tport:\t%d%n", p.portNumber());
            System.out.printf("\t\t\tstate:\t\t\t%s (%d)%n", p.state().text(), p.state().value());
            System.out.printf("\t\t\tmax_mtu:\t\t%d (%d)%n", p.maxMtu().bytes(), p.maxMtu().value());
            System.out.printf("\t\t\tactive_mtu:\t\t%d (%d)%n", p.activeMtu().bytes(), p.activeMtu().value());
            System.out.printf("\t\t\tsm_lid:\t\t\t%d%n", p.smLid());
            System.out.printf("\t\t\tport_lid:\t\t%d%n", p.lid());
            System.out.printf("\t\t\tport_lmc:\t\t0x%02x%n", p.lmc());
            System.out.printf("\t\t\tlink_layer:\t\t%s%n", p.linkLayer().text());
            if (verbose) {
                System.out.printf("\t\t\tmax_msg_sz:\t\t0x%x%n", p.maxMsgSize());
                System.out.printf("\t\t\tport_cap_flags:\t\t0x%08x%n", p.portCapFlags());
                System.out.printf("\t\t\tport_cap_flags2:\t0x%04x%n", p.portCapFlags2());
                System.out.printf("\t\t\tpkey_tbl_len:\t\t%d%n", p.pkeyTableLength());
                System.out.printf("\t\t\tgid_tbl_len:\t\t%d%n", p.gidTableLength());
                System.out.printf("\t\t\tactive_width:\t\t%sX (%d)%n", p.activeWidthText(), p.activeWidth());
                System.out.printf("\t\t\tactive_speed:\t\t%s (%d)%n", p.activeSpeedText(), p.activeSpeed());
                if (d.transportType() == TransportType.IB) {
                    System.out.printf("\t\t\tphys_state:\t\t%s (%d)%n", p.physStateText(), p.physState());
                }
                for (GidEntry g : gids) {
                    if (g.port() == p.portNumber()) {
                        System.out.printf("\t\t\tGID[%3d]:\t\t%s, %s%n", g.index(), g.gid(), g.type().text());
                    }
                }
            }
            System.out.println();
        }
    }
}
