package org.verbs4j.bench.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class CompilerQuietTest {

    @Test
    void readsUserPlusSystemTicksAfterTheName() {
        // a thread name with spaces and a ")" of its own: fields are counted after the last ")"
        String stat = "4242 (C2 Compiler)Th) S 1 4242 4242 0 -1 4194368 1000 0 0 0 137 25 0 0 20 0 1 0 100 0 0";
        assertEquals(162, CompilerQuiet.ticks(stat));
    }

    @Test
    void findsThisJvmsCompilerThreadsAndWaitsForThemToBeQuiet() {
        assertFalse(CompilerQuiet.compilerThreads().isEmpty(), "HotSpot's C1/C2 compiler threads in /proc/self/task");
        // run something for the JIT to compile, then wait: the wait lasts at least the quiet period and ends
        long sink = 0;
        for (int i = 0; i < 200_000; i++) {
            sink += Long.toString(i).hashCode();
        }
        long waited = CompilerQuiet.await();
        assertTrue(waited >= CompilerQuiet.QUIET_NANOS, "waited " + waited + " ns (sink " + sink + ")");
        assertTrue(waited < CompilerQuiet.MAX_NANOS + TimeUnit.SECONDS.toNanos(1), "waited " + waited + " ns");
    }
}
