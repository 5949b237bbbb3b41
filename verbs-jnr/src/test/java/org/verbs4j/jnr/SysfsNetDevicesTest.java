package org.verbs4j.jnr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

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

    /** A sysfs tree with infiniband/ and net/ side by side, as under /sys/class. */
    private SysfsNetDevices sysfs() throws IOException {
        return new SysfsNetDevices(Files.createDirectories(root.resolve("class/infiniband")),
                Files.createDirectories(root.resolve("class/net")));
    }

    @Test
    void ownershipIsAnsweredWithoutTheGidTable() throws IOException {
        SysfsNetDevices sysfs = sysfs();
        // rxe0 on fab0, with a VLAN on fab0 and a bond over eth2 that carries a VLAN; fab1 is siw's, unrelated
        write("class/infiniband/rxe0/parent", "fab0\n");
        write("class/infiniband/rxe0/ports/1/gid_attrs/ndevs/0", "fab0");
        Files.createDirectories(root.resolve("class/net/fab0"));
        Files.createDirectories(root.resolve("class/net/fab1"));
        Files.createDirectories(root.resolve("class/net/fab0.7/lower_fab0"));
        Files.createDirectories(root.resolve("class/infiniband/mlx5_0/device/net/eth2"));
        Files.createDirectories(root.resolve("class/net/bond0/lower_eth2"));
        Files.createDirectories(root.resolve("class/net/bond0/lower_eth3"));
        Files.createDirectories(root.resolve("class/net/bond0.5/lower_bond0"));
        assertEquals(Boolean.TRUE, sysfs.has("rxe0", "fab0"));
        assertEquals(Boolean.TRUE, sysfs.has("rxe0", "fab0.7"));
        assertEquals(Boolean.FALSE, sysfs.has("rxe0", "fab1"));
        assertEquals(Boolean.FALSE, sysfs.has("rxe0", "nosuch"));
        assertEquals(Boolean.TRUE, sysfs.has("mlx5_0", "eth2"));
        assertEquals(Boolean.TRUE, sysfs.has("mlx5_0", "bond0.5"));
        assertEquals(Boolean.FALSE, sysfs.has("mlx5_0", "eth3"));
        assertEquals(Boolean.FALSE, sysfs.has("mlx5_0", "../net/eth2"));
    }

    @Test
    void aDeviceWithoutItsOwnInterfaceLeavesItToTheList() throws IOException {
        // siw names its interface nowhere in sysfs; an IB HCA without IPoIB has none
        SysfsNetDevices sysfs = sysfs();
        Files.createDirectories(root.resolve("class/infiniband/siw0/ports/1/gid_attrs/ndevs"));
        assertNull(sysfs.has("siw0", "fab1"));
        assertNull(sysfs.has("nosuch0", "fab1"));
    }

    @Test
    void unknownDeviceHasNone() {
        assertEquals(List.of(), new SysfsNetDevices(root).of("nosuch0"));
    }
}
