package org.verbs4j.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class EndpointOptionsTest {
    @Test
    void slotMemoryMustFitOneRegisteredBuffer() {
        EndpointOptions o = EndpointOptions.defaults().messageSize(1 << 30).sendDepth(2).receiveDepth(1);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, o::validate);
        assertTrue(e.getMessage().startsWith("send slots take sendDepth 2 x messageSize 1073741824"), e.getMessage());
        o.sendDepth(1).receiveDepth(3);
        e = assertThrows(IllegalArgumentException.class, o::validate);
        assertTrue(e.getMessage().contains("lower receiveDepth or messageSize"), e.getMessage());
        o.receiveDepth(1).validate();
        EndpointOptions.defaults().validate();
    }

    @Test
    void connectAndListenValidateBeforeTouchingAnyDevice() {
        EndpointOptions o = EndpointOptions.defaults().messageSize(Integer.MAX_VALUE).sendDepth(16);
        var at = new java.net.InetSocketAddress("127.0.0.1", 1);
        assertThrows(IllegalArgumentException.class, () -> Endpoints.connect(at, o));
        assertThrows(IllegalArgumentException.class, () -> Endpoints.listen(at, o));
    }

    @Test
    void rdmaRegionIsWhatOneByteBufferViews() {
        EndpointOptions o = EndpointOptions.defaults().rdmaRegionSize(EndpointOptions.MAX_REGION_SIZE);
        assertEquals(EndpointOptions.MAX_REGION_SIZE, o.rdmaRegionSize());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> o.rdmaRegionSize(EndpointOptions.MAX_REGION_SIZE + 1));
        assertTrue(e.getMessage().contains("ByteBuffer"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> o.rdmaRegionSize(-1));
    }

    @Test
    void badValuesAreRefusedAndCopiesAreIndependent() {
        EndpointOptions o = EndpointOptions.defaults();
        assertThrows(IllegalArgumentException.class, () -> o.messageSize(0));
        assertThrows(IllegalArgumentException.class, () -> o.sendDepth(0));
        assertThrows(IllegalArgumentException.class, () -> o.port(256));
        assertThrows(IllegalArgumentException.class, () -> o.timeout(Duration.ZERO));
        EndpointOptions c = o.messageSize(128).copy();
        o.messageSize(256);
        assertEquals(128, c.messageSize());
    }

    @Test
    void handshakeLimitsHaveRangesAndCopy() {
        EndpointOptions o = EndpointOptions.defaults();
        assertEquals(Duration.ofSeconds(10), o.handshakeTimeout());
        assertEquals(128, o.maxPendingHandshakes());
        assertThrows(IllegalArgumentException.class, () -> o.handshakeTimeout(Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> o.handshakeTimeout(Duration.ofMinutes(11)));
        assertThrows(NullPointerException.class, () -> o.handshakeTimeout(null));
        assertThrows(IllegalArgumentException.class, () -> o.maxPendingHandshakes(0));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> o.maxPendingHandshakes(65537)).getMessage()
                .contains("1..65536"));
        EndpointOptions c = o.handshakeTimeout(Duration.ofSeconds(3)).maxPendingHandshakes(7).copy();
        assertEquals(Duration.ofSeconds(3), c.handshakeTimeout());
        assertEquals(7, c.maxPendingHandshakes());
    }
}
