package org.verbs4j.bench.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.verbs4j.examples.cli.UsageException;

class SoakOptionsTest {
    static SoakOptions parse(String... args) throws UsageException {
        return SoakOptions.of(SoakOptions.parser().parse(args), () -> "dev0",
                d -> InetAddress.getLoopbackAddress());
    }

    @Test
    void theDefaultsAreAMillionOperationsOfEachKindAndTenThousandCycles() throws UsageException {
        SoakOptions o = parse();
        assertEquals("dev0", o.device);
        assertEquals(1_000_000, o.ops);
        assertEquals(10_000, o.cycles);
        assertEquals(List.of(SoakKind.values()), o.kinds);
        assertEquals(25_000, o.interval);
        assertEquals(250, o.cycleInterval);
        assertEquals(0.05, o.tolerance, 1e-12);
        assertTrue(o.nativeCounts);
    }

    @Test
    void kindsRunInTheOrderGivenAndIntervalsAreTheirOwn() throws UsageException {
        SoakOptions o = parse("-d", "siw0", "-a", "10.77.1.1", "-k", "cycles,raw-read", "-n", "20000", "-I", "500",
                "-T", "12.5", "--no-native");
        assertEquals("siw0", o.device);
        assertEquals("10.77.1.1", o.address.getHostAddress());
        assertEquals(List.of(SoakKind.CYCLES, SoakKind.RAW_READ), o.kinds);
        assertEquals(500, o.interval);
        assertEquals(0.125, o.tolerance, 1e-12);
        assertEquals(false, o.nativeCounts);
    }

    @Test
    void badValuesAreRefusedByName() {
        UsageException k = assertThrows(UsageException.class, () -> parse("-k", "ep-send,atomics"));
        assertTrue(k.getMessage().contains("'atomics' is not a kind"), k.getMessage());
        UsageException t = assertThrows(UsageException.class, () -> parse("-T", "lots"));
        assertTrue(t.getMessage().contains("-T"), t.getMessage());
        assertThrows(UsageException.class, () -> parse("-t", "1024"));
    }
}
