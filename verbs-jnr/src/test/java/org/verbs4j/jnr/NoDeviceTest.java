package org.verbs4j.jnr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.verbs4j.api.Errno;
import org.verbs4j.api.NoSuchDeviceException;
import org.verbs4j.api.Rdma;

/** On a machine without RDMA devices (the build host): no devices, and a clear error, not a crash. */
class NoDeviceTest {

    @Test
    void backendIsFoundThroughServiceLoader() {
        assertTrue(org.verbs4j.api.spi.Backends.all().stream().anyMatch(b -> b instanceof JnrBackend), "backends: " + org.verbs4j.api.spi.Backends.all());
    }

    @Test
    void noDevicesMeansAnEmptyListAndANamedError() {
        assumeFalse(Files.isDirectory(Path.of("/sys/class/infiniband")) && Rdma.devices().size() > 0,
                "this machine has RDMA devices");
        assertEquals(0, Rdma.devices().size());
        NoSuchDeviceException e = assertThrows(NoSuchDeviceException.class, () -> Rdma.open("mlx5_0"));
        assertTrue(e.getMessage().contains("mlx5_0"), e.getMessage());
        assertTrue(e.getMessage().contains("no RDMA device") || e.getMessage().contains("no RDMA support")
                || e.getMessage().contains("libibverbs"), e.getMessage());
        assertEquals("ibv_get_device_list", e.verb());
    }

    @Test
    void aKernelWithoutRdmaIsENOSYSNotENODEV() {
        assumeFalse(Files.isDirectory(Path.of("/sys/class/infiniband")), "this kernel has RDMA support");
        assertEquals(Errno.ENOSYS, Rdma.noDevicesErrno());
        assertTrue(Rdma.noDevicesReason().contains("kernel has no RDMA support"), Rdma.noDevicesReason());
        NoSuchDeviceException e = assertThrows(NoSuchDeviceException.class, () -> Rdma.open("mlx5_0"));
        assertEquals(Errno.ENOSYS, e.errno(), e.getMessage());
        assertTrue(e.getMessage().contains("ENOSYS") && !e.getMessage().contains("ENODEV"), e.getMessage());
    }

    @Test
    void unknownBackendNameIsExplained() {
        String old = System.getProperty(Rdma.BACKEND_PROPERTY);
        System.setProperty(Rdma.BACKEND_PROPERTY, "ffm");
        try {
            assertEquals(0, Rdma.devices().size());
            NoSuchDeviceException e = assertThrows(NoSuchDeviceException.class, () -> Rdma.open("rxe0"));
            assertTrue(e.getMessage().contains("verbs4j.backend=ffm") && e.getMessage().contains("jnr"), e.getMessage());
        } finally {
            if (old == null) {
                System.clearProperty(Rdma.BACKEND_PROPERTY);
            } else {
                System.setProperty(Rdma.BACKEND_PROPERTY, old);
            }
        }
    }
}
