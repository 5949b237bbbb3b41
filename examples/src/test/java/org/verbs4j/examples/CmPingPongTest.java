package org.verbs4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.verbs4j.endpoint.ConnectionMode;

class CmPingPongTest {
    @Test
    void parsesTheOptions() {
        CmPingPong p = CmPingPong.parse(new String[] {"-p", "5000", "-s64", "--iters=7", "-r", "3", "-c", "-M", "-d",
            "rxe0", "-i", "2", "-t", "9", "10.0.0.1"});
        assertEquals(5000, p.port);
        assertEquals(64, p.size);
        assertEquals(7, p.iters);
        assertEquals(3, p.rxDepth);
        assertTrue(p.validate && p.manual);
        assertEquals("rxe0", p.device);
        assertEquals(2, p.ibPort);
        assertEquals(9, p.timeoutSeconds);
        assertEquals("10.0.0.1", p.server);
        assertEquals(ConnectionMode.MANUAL, p.options().mode());
        assertEquals(3, p.options().receiveDepth());
        assertEquals(64, p.options().messageSize());
        CmPingPong d = CmPingPong.parse(new String[0]);
        assertNull(d.server);
        assertEquals(CmPingPong.DEFAULT_PORT, d.port);
        assertEquals(ConnectionMode.RDMA_CM, d.options().mode());
        assertNull(CmPingPong.parse(new String[] {"-h"}));
    }

    @Test
    void refusesBadCommandLines() {
        assertThrows(IllegalArgumentException.class, () -> CmPingPong.parse(new String[] {"-s", "0"}));
        assertThrows(IllegalArgumentException.class, () -> CmPingPong.parse(new String[] {"-n", "x"}));
        assertThrows(IllegalArgumentException.class, () -> CmPingPong.parse(new String[] {"-p"}));
        assertThrows(IllegalArgumentException.class, () -> CmPingPong.parse(new String[] {"-q", "1"}));
        assertThrows(IllegalArgumentException.class, () -> CmPingPong.parse(new String[] {"a", "b"}));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> CmPingPong.parse(new String[] {"-d", "rxe0"}))
                .getMessage().contains("-M"));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(1, CmPingPong.run(new String[] {"-s", "0"}, new PrintStream(out), new PrintStream(err)));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("-s"));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("Usage:"));
    }
}
