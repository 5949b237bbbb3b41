package org.verbs4j.examples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.verbs4j.api.Gid;
import org.verbs4j.api.QpEndpoint;

/** The pingpong tools' text, checked against what glibc's inet_ntop and printf produce. */
class PingPongFormatTest {

    @Test
    void twoDecimalsRoundLikeGlibc() {
        assertEquals("0.12", PingPongFormat.f2(0.125));    // exactly half: to even (Java's %.2f says 0.13)
        assertEquals("0.38", PingPongFormat.f2(0.375));
        assertEquals("1.00", PingPongFormat.f2(1.005));    // 1.00499999999999989...
        assertEquals("11802.45", PingPongFormat.f2(11802.449999f));
        assertEquals("0.00", PingPongFormat.f2(0));
        assertEquals("-0.00", PingPongFormat.f2(-0.001));
        assertEquals("inf", PingPongFormat.f2(Double.POSITIVE_INFINITY));
    }

    @Test
    void resultLinesHaveTheCToolsForm() {
        String[] lines = PingPongFormat.resultLines(4096, 1000, 1_000_000);
        assertEquals("8192000 bytes in 1.00 seconds = 65.54 Mbit/sec", lines[0]);
        assertEquals("1000 iters in 1.00 seconds = 1000.00 usec/iter", lines[1]);
        // the C tools' own numbers from a lab run (20 iters of 8192 bytes in 236049 us)
        lines = PingPongFormat.resultLines(8192, 20, 236049);
        assertEquals("327680 bytes in 0.24 seconds = 11.11 Mbit/sec", lines[0]);
        assertEquals("20 iters in 0.24 seconds = 11802.45 usec/iter", lines[1]);
    }

    @Test
    void addressLines() {
        QpEndpoint e = new QpEndpoint(0, 0x12, 0x507cc7, Gid.parse("::ffff:10.77.0.1"));
        assertEquals("  local address:  LID 0x0000, QPN 0x000012, PSN 0x507cc7, GID ::ffff:10.77.0.1",
                PingPongFormat.localLine(e, false));
        assertEquals("  local address:  LID 0x0000, QPN 0x000012, PSN 0x507cc7: GID ::ffff:10.77.0.1",
                PingPongFormat.localLine(e, true));
        assertEquals("  remote address: LID 0x0000, QPN 0x000012, PSN 0x507cc7, GID ::ffff:10.77.0.1",
                PingPongFormat.remoteLine(e));
    }

    @Test
    void wireMessageIs52BytesWithTheNul() {
        QpEndpoint e = new QpEndpoint(0x1a, 0x12, 0x507cc7, Gid.parse("::ffff:10.77.0.1"));
        byte[] msg = PingPongExchange.encode(e);
        assertEquals(PingPongExchange.MESSAGE_SIZE, msg.length);
        assertEquals(0, msg[51]);
        assertArrayEquals("001a:000012:507cc7:00000000000000000000ffff0a4d0001".getBytes(StandardCharsets.US_ASCII),
                java.util.Arrays.copyOf(msg, 51));
        assertEquals(e, PingPongExchange.decode(msg, msg.length));
    }
}
