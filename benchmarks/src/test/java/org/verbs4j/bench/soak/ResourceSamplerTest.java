package org.verbs4j.bench.soak;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ResourceSamplerTest {
    /** iproute2's {@code rdma resource show}, as printed in the fabric lab. */
    static final String SHOW = "0: rxe0: pd 3 cq 4 qp 2 cm_id 1 mr 5 ctx 2 srq 0\n"
            + "1: siw0: pd 1 cq 2 qp 1 cm_id 0 mr 1 ctx 1 srq 0\n";

    @Test
    void theDevicesLineGivesItsCounts() {
        assertArrayEquals(new long[] {3, 4, 2, 5, 1, 2}, ResourceSampler.parseResourceShow(SHOW, "rxe0"));
        assertArrayEquals(new long[] {1, 2, 1, 1, 0, 1}, ResourceSampler.parseResourceShow(SHOW, "siw0"));
    }

    @Test
    void anotherDeviceOrAPrefixOfItsNameHasNoLine() {
        assertNull(ResourceSampler.parseResourceShow(SHOW, "mlx5_0"));
        assertNull(ResourceSampler.parseResourceShow(SHOW, "rxe"));
        assertNull(ResourceSampler.parseResourceShow("", "rxe0"));
    }

    @Test
    void thisProcessHasAnRssAndFileDescriptors() {
        // /proc exists wherever the soak runs (Linux); stdin, stdout and stderr at least
        assertTrue(ResourceSampler.rssKb() > 1000, "VmRSS of a JVM is more than 1 MB");
        assertTrue(ResourceSampler.fdCount() >= 3);
    }
}
