package org.verbs4j.examples;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.verbs4j.api.DeviceAttributesEx;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.Errno;
import org.verbs4j.api.GidEntry;
import org.verbs4j.api.NoSuchDeviceException;
import org.verbs4j.api.PortAttributes;
import org.verbs4j.api.Rdma;
import org.verbs4j.api.RdmaDevice;
import org.verbs4j.api.VerbsException;
import org.verbs4j.examples.cli.CommandLine;
import org.verbs4j.examples.cli.Option;
import org.verbs4j.examples.cli.OptionParser;
import org.verbs4j.examples.cli.Values;

/**
 * Lists the RDMA devices with their attributes, ports and GID tables, as {@code ibv_devinfo [-v]} prints them
 * (same option letters, same text). Usage: {@code examples/bin/devices [-d DEVICE] [-i PORT] [-v]}.
 *
 * <p>Exit status: 0 when every device was printed; 19 (ENODEV) when there is no device or no device
 * {@code DEVICE}; 38 (ENOSYS) when the kernel has no RDMA support; 1 when a query failed or the port does
 * not exist; 2 on a usage error. Errors are one line on standard error.
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
        try {
            if (only != null) {
                devices.add(Rdma.device(only));
            } else {
                devices.addAll(Rdma.devices());
            }
        } catch (NoSuchDeviceException e) {
            System.err.println("devices: " + e.getMessage());
            return e.errno();
        } catch (VerbsException e) {
            System.err.println("devices: " + e.getMessage());
            return e.errno() != 0 ? e.errno() : 1;
        }
        if (devices.isEmpty()) {
            System.err.println("devices: no RDMA devices found: " + Rdma.noDevicesReason());
            int errno = Rdma.noDevicesErrno();
            return errno != 0 ? errno : Errno.ENODEV;
        }
        int rc = 0;
        for (RdmaDevice d : devices) {
            try (DeviceContext ctx = d.open()) {
                if (onlyPort > ctx.queryDevice().physPortCnt()) {
                    System.err.println("devices: " + d.name() + " has no port " + onlyPort + " (ports 1.."
                            + ctx.queryDevice().physPortCnt() + ")");
                    rc = 1;
                    continue;
                }
                System.out.print(DevinfoFormat.format(describe(ctx, onlyPort, verbose), verbose));
            } catch (VerbsException e) {
                System.err.println("devices: " + e.getMessage());
                rc = 1;
            }
        }
        System.out.flush();
        return rc;
    }

    /** Everything {@code ibv_devinfo} prints of the device {@code ctx} is open on. */
    static DevinfoFormat.Device describe(DeviceContext ctx, int onlyPort, boolean verbose) {
        RdmaDevice d = ctx.device();
        DeviceAttributesEx a = ctx.queryDeviceEx();
        List<GidEntry> gids = verbose ? ctx.queryGidTable() : List.of();
        List<DevinfoFormat.Port> ports = new ArrayList<>();
        for (PortAttributes p : ctx.queryPorts()) {
            if (onlyPort == 0 || p.portNumber() == onlyPort) {
                ports.add(new DevinfoFormat.Port(p,
                        gids.stream().filter(g -> g.port() == p.portNumber())
                                .sorted(java.util.Comparator.comparingInt(GidEntry::index)).toList()));
            }
        }
        return new DevinfoFormat.Device(d.name(), d.transportType(), a, boardId(d.name()), ctx.numCompVectors(),
                ports);
    }

    /** sysfs {@code board_id} (the PSID on Mellanox cards), as ibv_devinfo reads it; null when there is none. */
    private static String boardId(String device) {
        try {
            String s = Files.readString(Path.of("/sys/class/infiniband", device, "board_id")).strip();
            return s.isEmpty() ? null : s;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
