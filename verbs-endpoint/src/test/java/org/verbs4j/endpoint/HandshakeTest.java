package org.verbs4j.endpoint;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.verbs4j.api.cm.ConnectionParameters;

class HandshakeTest {
    private final Handshake h = new Handshake(true, 64, 4096, 0x7f00_1234_5000L, 0xdeadbeef, 1 << 20,
            0x7f00_aaaa_0040L, 0x12345678, 3);

    @Test
    void roundTripsAndFitsTheSmallestPrivateData() {
        byte[] b = h.encode();
        assertEquals(Handshake.SIZE, b.length);
        assertTrue(Handshake.SIZE <= ConnectionParameters.CONNECT_PRIVATE_DATA_MAX,
                "fits rdma_connect's private data on InfiniBand/RoCE (56 bytes)");
        assertEquals(h, Handshake.decode(b, "peer"));
        // rdma_cm pads the private data with zeros on IB/RoCE: the padding is ignored
        assertEquals(h, Handshake.decode(Arrays.copyOf(b, 196), "peer"));
    }

    @Test
    void isBigEndianWithTheDocumentedOffsets() {
        byte[] b = h.encode();
        assertArrayEquals(new byte[] {'V', '4', 'J', 'E', 1, 1, 3, 0, 0, 0, 0, 64, 0, 0, 0x10, 0},
                Arrays.copyOf(b, 16));
        assertEquals((byte) 0xde, b[24]);
        assertEquals((byte) 0x78, b[47]);
    }

    @Test
    void refusesWhatIsNotAVerbs4jEndpoint() {
        EndpointException shortOne = assertThrows(EndpointException.class, () -> Handshake.decode(new byte[10], "x:1"));
        assertTrue(shortOne.getMessage().contains("10 bytes") && shortOne.getMessage().contains("x:1"),
                shortOne.getMessage());
        byte[] b = h.encode();
        b[0] = 'X';
        assertTrue(assertThrows(EndpointException.class, () -> Handshake.decode(b, "p")).getMessage()
                .contains("not a verbs4j endpoint"));
        byte[] v = h.encode();
        v[4] = 9;
        assertTrue(assertThrows(EndpointException.class, () -> Handshake.decode(v, "p")).getMessage()
                .contains("version 9"));
        byte[] d = h.encode();
        d[8] = d[9] = d[10] = d[11] = 0;
        assertThrows(EndpointException.class, () -> Handshake.decode(d, "p"));
        assertThrows(EndpointException.class, () -> Handshake.decode(null, "p"));
        byte[] m = h.encode();
        m[6] = 9;
        EndpointException mtu = assertThrows(EndpointException.class, () -> Handshake.decode(m, "p:9"));
        assertTrue(mtu.getMessage().contains("path MTU 9") && mtu.getMessage().contains("p:9"), mtu.getMessage());
        m[6] = 0;
        assertEquals(0, Handshake.decode(m, "p").mtu());
    }

    @Test
    void optionsRefuseNonsenseAndCopy() {
        EndpointOptions o = EndpointOptions.defaults();
        assertThrows(IllegalArgumentException.class, () -> o.messageSize(0));
        assertThrows(IllegalArgumentException.class, () -> o.receiveDepth(0));
        assertThrows(IllegalArgumentException.class, () -> o.sendDepth(-1));
        assertThrows(IllegalArgumentException.class, () -> o.rdmaRegionSize(-1));
        assertThrows(IllegalArgumentException.class, () -> o.timeout(Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> o.port(0));
        assertThrows(IllegalArgumentException.class, () -> o.rdAtomic(256));
        EndpointOptions c = o.messageSize(100).copy();
        o.messageSize(200);
        assertEquals(100, c.messageSize());
        assertEquals(ConnectionMode.RDMA_CM, c.mode());
        assertTrue(c.credits());
    }

    @Test
    void remoteRegionBoundsAreChecked() {
        RemoteRegion r = new RemoteRegion(1000, 5, 100);
        assertEquals(1050, r.at(50, 50));
        assertThrows(IndexOutOfBoundsException.class, () -> r.at(51, 50));
        assertThrows(IndexOutOfBoundsException.class, () -> r.at(-1, 1));
        assertTrue(assertThrows(IndexOutOfBoundsException.class, () -> new RemoteRegion(0, 0, 0).at(0, 1))
                .getMessage().contains("rdmaRegionSize"));
    }
}
