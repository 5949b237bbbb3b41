package org.verbs4j.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.verbs4j.api.spi.FakeBackend;
import org.verbs4j.api.spi.VerbsBackend;

class RdmaBackendsTest {
    private final VerbsBackend jnr = new FakeBackend("jnr", 100, null, "rxe0", "siw0");
    private final VerbsBackend soft = new FakeBackend("softiwarp", 10, null, "jsiw_lo");
    private final VerbsBackend empty = new FakeBackend("jnr", 100, null);

    @Test
    void devicesOfEveryBackendAreListedTogetherEachWithItsBackend() {
        List<RdmaDevice> all = Rdma.devices(List.of(jnr, soft));
        assertEquals(List.of("rxe0", "siw0", "jsiw_lo"), all.stream().map(RdmaDevice::name).toList());
        assertEquals(List.of("jnr", "jnr", "softiwarp"), all.stream().map(RdmaDevice::backendName).toList());
    }

    @Test
    void aDeviceIsFoundInWhicheverBackendHasIt() {
        assertEquals("softiwarp", Rdma.device(List.of(jnr, soft), "jsiw_lo").backendName());
        assertEquals("siw0", Rdma.device(List.of(jnr, soft), "siw0").name());
        assertEquals("softiwarp", Rdma.device(List.of(empty, soft), "jsiw_lo").backendName());
    }

    @Test
    void aMissingDeviceNamesTheDevicesOfEveryBackend() {
        NoSuchDeviceException e = assertThrows(NoSuchDeviceException.class,
                () -> Rdma.device(List.of(jnr, soft), "mlx5_0"));
        assertTrue(e.getMessage().contains("devices present: rxe0, siw0, jsiw_lo)"), e.getMessage());
    }

    @Test
    void aMissingDeviceBesideTheSoftwareOneSaysWhyLibibverbsHasNone() {
        NoSuchDeviceException e = assertThrows(NoSuchDeviceException.class,
                () -> Rdma.device(List.of(empty, soft), "mlx5_0"));
        assertEquals(Errno.ENODEV, e.errno());
        assertTrue(e.getMessage().contains("devices present: jsiw_lo; jnr: this machine has no RDMA device"),
                e.getMessage());
    }

    @Test
    void aMissingDeviceBesideTheSoftwareOneSaysWhyABackendCouldNotStart() {
        VerbsBackend broken = new FakeBackend("jnr", 100, "libibverbs.so.1 could not be loaded (no such file)");
        NoSuchDeviceException e = assertThrows(NoSuchDeviceException.class,
                () -> Rdma.device(List.of(broken, soft), List.of(soft), "rxe0"));
        assertTrue(e.getMessage().contains("devices present: jsiw_lo; jnr is not available: libibverbs.so.1 could not "
                + "be loaded (no such file)"), e.getMessage());
    }

    @Test
    void withNoDeviceAnywhereTheFirstBackendSaysWhy() {
        NoSuchDeviceException e = assertThrows(NoSuchDeviceException.class,
                () -> Rdma.device(List.of(empty), "rxe0"));
        assertEquals(Errno.ENODEV, e.errno());
        assertTrue(e.getMessage().contains("this machine has no RDMA device"), e.getMessage());
    }
}
