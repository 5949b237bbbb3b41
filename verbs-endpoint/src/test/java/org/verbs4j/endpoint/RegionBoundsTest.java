package org.verbs4j.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** The RDMA offsets of {@link RdmaEndpoint#write} and {@link RdmaEndpoint#read}: checked without overflow. */
class RegionBoundsTest {

    @Test
    void aRemoteOffsetThatOverflowsIsRefused() {
        RemoteRegion r = new RemoteRegion(0x1000, 7, 64 * 1024);
        assertEquals(0x1000 + 100, r.at(100, 8));
        assertEquals(0x1000 + 64 * 1024 - 8, r.at(64 * 1024 - 8, 8));
        assertThrows(IndexOutOfBoundsException.class, () -> r.at(Long.MAX_VALUE, 8), "Long.MAX_VALUE + 8 overflows");
        assertThrows(IndexOutOfBoundsException.class, () -> r.at(Long.MAX_VALUE - 4, 8));
        assertThrows(IndexOutOfBoundsException.class, () -> r.at(64 * 1024 - 7, 8));
        assertThrows(IndexOutOfBoundsException.class, () -> r.at(-1, 8));
        assertThrows(IndexOutOfBoundsException.class, () -> r.at(0, -1));
        assertThrows(IndexOutOfBoundsException.class, () -> new RemoteRegion(0, 0, 0).at(0, 1), "no region");
    }
}
