package org.verbs4j.softiwarp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.Rdma;
import org.verbs4j.api.RdmaDevice;
import org.verbs4j.api.spi.Backends;

class SoftIwarpBackendTest {

    @Test
    void theBackendIsFoundAsAServiceAndAlwaysAvailable() {
        assertTrue(Backends.all().stream().anyMatch(b -> b instanceof SoftIwarpBackend), "backends: " + Backends.all());
        assertNull(new SoftIwarpBackend().unavailableReason());
        assertTrue(new SoftIwarpBackend().priority() < 100, "below libibverbs' jnr");
    }

    @Test
    void rdmaListsAndOpensTheLoopbackDevice() {
        RdmaDevice d = Rdma.device(SoftIwarp.LOOPBACK_NAME);
        assertEquals("softiwarp", d.backendName());
        assertTrue(Rdma.devices().contains(d));
        assertNull(Rdma.noDevicesReason());
        assertEquals(0, Rdma.noDevicesErrno());
        try (DeviceContext ctx = Rdma.open(SoftIwarp.LOOPBACK_NAME)) {
            assertEquals(1, ctx.queryDevice().physPortCnt());
        }
    }
}
