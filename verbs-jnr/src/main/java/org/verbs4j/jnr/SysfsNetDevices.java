package org.verbs4j.jnr;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The network interfaces of an RDMA device, from sysfs, as rdma-core's tools find them: the net device of
 * each GID table entry ({@code ports/N/gid_attrs/ndevs/I}: RoCE, rxe), then the PCI function's own
 * interfaces ({@code device/net/*}: IPoIB, hardware iWARP), then rxe's {@code parent}. siw shows none of
 * these ({@link GuidNetDevices} finds its interface).
 */
final class SysfsNetDevices {
    static final SysfsNetDevices SYSTEM = new SysfsNetDevices(Paths.get("/sys/class/infiniband"), Paths.get("/sys/class/net"));
    /** How many interfaces deep a stack (VLAN on a bond on the port's interface) is followed down. */
    private static final int MAX_STACK = 4;

    private final Path root;
    private final Path netRoot;

    SysfsNetDevices(Path root) {
        this(root, root.resolveSibling("net"));
    }

    SysfsNetDevices(Path root, Path netRoot) {
        this.root = root;
        this.netRoot = netRoot;
    }

    /**
     * Whether {@code netdev} is one of {@code device}'s interfaces, without reading its GID table: the device's own
     * interfaces ({@code device/net/*}, rxe's {@code parent}) and the ones stacked on them (a VLAN, a bond, a
     * macvlan: {@code /sys/class/net/NETDEV/lower_*}, followed down), which are the interfaces the kernel gives
     * RoCE GIDs to. Null when the device has no own interface in sysfs (siw, an HCA without IPoIB): then only
     * the list can say.
     */
    Boolean has(String device, String netdev) {
        Path dev = root.resolve(device);
        Set<String> own = new LinkedHashSet<>();
        for (Path net : list(dev.resolve("device").resolve("net"))) {
            own.add(net.getFileName().toString());
        }
        String parent = read(dev.resolve("parent"));
        if (parent != null) {
            own.add(parent);
        }
        if (own.isEmpty()) {
            return null;
        }
        return stackedOn(netdev, own, 0);
    }

    private boolean stackedOn(String netdev, Set<String> own, int depth) {
        if (own.contains(netdev)) {
            return true;
        }
        if (depth >= MAX_STACK || netdev.contains("/") || netdev.startsWith(".")) {
            return false;
        }
        try (DirectoryStream<Path> s = Files.newDirectoryStream(netRoot.resolve(netdev), "lower_*")) {
            for (Path lower : s) {
                if (stackedOn(lower.getFileName().toString().substring("lower_".length()), own, depth + 1)) {
                    return true;
                }
            }
        } catch (IOException | SecurityException e) {
            return false;
        }
        return false;
    }

    /** The interface names of {@code device}, each once, in the order found; empty when sysfs says nothing. */
    List<String> of(String device) {
        Path dev = root.resolve(device);
        Set<String> names = new LinkedHashSet<>();
        for (Path port : list(dev.resolve("ports"))) {
            for (Path ndev : list(port.resolve("gid_attrs").resolve("ndevs"))) {
                String name = read(ndev);   // unset entries fail with EINVAL: skipped
                if (name != null) {
                    names.add(name);
                }
            }
        }
        for (Path net : list(dev.resolve("device").resolve("net"))) {
            names.add(net.getFileName().toString());
        }
        String parent = read(dev.resolve("parent"));
        if (parent != null) {
            names.add(parent);
        }
        return List.copyOf(names);
    }

    private static List<Path> list(Path dir) {
        List<Path> out = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return out;
        }
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
            s.forEach(out::add);
        } catch (IOException | SecurityException e) {
            return out;
        }
        out.sort((a, b) -> compareNumeric(a.getFileName().toString(), b.getFileName().toString()));
        return out;
    }

    /** Numeric names (ports, GID indexes) in numeric order, others by text. */
    private static int compareNumeric(String a, String b) {
        if (a.chars().allMatch(Character::isDigit) && b.chars().allMatch(Character::isDigit)
                && a.length() < 10 && b.length() < 10) {
            return Integer.compare(Integer.parseInt(a), Integer.parseInt(b));
        }
        return a.compareTo(b);
    }

    private static String read(Path file) {
        if (!Files.isRegularFile(file)) {
            return null;
        }
        try {
            String s = new String(Files.readAllBytes(file), java.nio.charset.StandardCharsets.US_ASCII).trim();
            return s.isEmpty() ? null : s;
        } catch (IOException | SecurityException e) {
            return null;
        }
    }
}
