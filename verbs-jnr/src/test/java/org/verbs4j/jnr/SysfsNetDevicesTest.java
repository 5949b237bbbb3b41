package org.verbs4j.jnr;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The net-device lookup on sysfs trees laid out as the kernel lays them (no device needed). */
class SysfsNetDevicesTest {
    @TempDir
    Path root;

    private void write(String rel, String content) throws IOException {
        Path p = root.resolve(rel);
        Files.createDirectories(p.getParent());
        Files.writeString(p, content);
    }

    @Test
    void roceGidTableNamesItsInterfaceOnceInPortAndIndexOrder() throws IOException {
        // mlx5 RoCE: two ports, each GID entry names the port's netdev; port 10 sorts after port 2
        write("mlx5_0/ports/1/gid_attrs/ndevs/0", "eth2\n");
        write("mlx5_0/ports/1/gid_attrs/ndevs/1", "eth2\n");
        write("mlx5_0/ports/2/gid_attrs/ndevs/0", "eth3\n");
        write("mlx5_0/ports/10/gid_attrs/ndevs/0", "eth9\n");
        Files.createDirectories(root.resolve("mlx5_0/device/net/eth2"));
        assertEquals(List.of("eth2", "eth3", "eth9"), new SysfsNetDevices(root).of("mlx5_0"));
    }

    @Test
    void unsetGidEntriesAreSkipped() throws IOException {
        // reading an unset entry fails with EINVAL in the kernel; here an empty file stands for it
        write("rxe0/ports/1/gid_attrs/ndevs/0", "fab0");
        write("rxe0/ports/1/gid_attrs/ndevs/5", "");
        write("rxe0/parent", "fab0\n");
        assertEquals(List.of("fab0"), new SysfsNetDevices(root).of("rxe0"));
    }

    @Test
    void infiniBandHcaWithIpoibIsFoundThroughItsPciFunction() throws IOException {
        // IB ports have no netdev per GID; IPoIB's ib0 hangs off the PCI function
        Files.createDirectories(root.resolve("mlx4_0/ports/1/gid_attrs/ndevs"));
        Files.createDirectories(root.resolve("mlx4_0/device/net/ib0"));
        Files.createDirectories(root.resolve("mlx4_0/device/net/ib1"));
        assertEquals(List.of("ib0", "ib1"), new SysfsNetDevices(root).of("mlx4_0"));
    }

    @Test
    void unknownDeviceHasNone() {
        assertEquals(List.of(), new SysfsNetDevices(root).of("nosuch0"));
    }
}
