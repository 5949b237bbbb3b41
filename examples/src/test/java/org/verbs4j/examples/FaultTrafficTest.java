package org.verbs4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.verbs4j.examples.cli.UsageException;

class FaultTrafficTest {
    private static FaultTraffic parse(String... args) throws UsageException {
        return FaultTraffic.of(FaultTraffic.PARSER.parse(args));
    }

    @Test
    void parsesTheOptions() throws UsageException {
        FaultTraffic p = parse("-p", "5000", "-b", "10.0.0.2", "-m", "read", "-s", "4096", "-D", "7", "-t", "9",
                "10.0.0.2");
        assertEquals(5000, p.port);
        assertEquals("10.0.0.2", p.bind);
        assertTrue(p.read);
        assertEquals(4096, p.size);
        assertEquals(7, p.seconds);
        assertEquals(9, p.idle);
        assertEquals("10.0.0.2", p.server);
        assertEquals(9, p.options().timeout().toSeconds());
        FaultTraffic d = parse();
        assertNull(d.server);
        assertFalse(d.read);
        assertEquals(FaultTraffic.DEFAULT_PORT, d.port);
    }

    @Test
    void refusesBadCommandLines() {
        for (String[] bad : new String[][] {{"-m", "write"}, {"-s", "8"}, {"-s", "4097"}, {"-D", "0"}, {"a", "b"}}) {
            assertThrows(UsageException.class, () -> parse(bad), String.join(" ", bad));
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(2, FaultTraffic.run(new String[] {"-m", "x"}, new PrintStream(out), new PrintStream(err)));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("send or read"), err.toString(StandardCharsets.UTF_8));
    }

    /** The pattern differs between neighbouring messages and positions, so a stale or shifted copy is caught. */
    @Test
    void thePatternTellsMessagesAndPositionsApart() {
        for (int j = 12; j < 4096; j += 97) {
            assertNotEquals(FaultTraffic.pattern(5, j), FaultTraffic.pattern(6, j), "position " + j);
            assertNotEquals(FaultTraffic.pattern(5, j), FaultTraffic.pattern(5, j + 1), "position " + j);
        }
    }
}
