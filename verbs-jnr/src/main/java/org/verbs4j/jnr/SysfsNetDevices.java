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
    static final SysfsNetDevices SYSTEM = new SysfsNetDevices(Paths.get("/sys/class/infiniband"));

    private final Path root;

    SysfsNetDevices(Path root) {
        this.root = root;
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
