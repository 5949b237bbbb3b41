package org.verbs4j.examples;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.CompilationMXBean;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/** The warm-up's end, against a compiler whose total compilation time the test sets; times in ms from 0. */
class WarmUpTest {
    private static final long MS = 1_000_000L;

    /** A compiler whose total compilation time is what the test says, counting how often it is asked. */
    private static final class FakeCompiler implements CompilationMXBean {
        long total;
        int asked;

        @Override
        public String getName() {
            return "fake";
        }

        @Override
        public boolean isCompilationTimeMonitoringSupported() {
            return true;
        }

        @Override
        public long getTotalCompilationTime() {
            asked++;
            return total;
        }

        @Override
        public ObjectName getObjectName() {
            return null;
        }
    }

    @Test
    void aQuietCompilerEndsTheWarmUpAtItsMinimum() {
        FakeCompiler jit = new FakeCompiler();
        WarmUp w = new WarmUp(0, 1000, jit);
        for (long t = 0; t < 1000; t++) {
            assertFalse(w.over(t * MS), "at " + t + " ms, before the minimum");
        }
        assertTrue(w.over(1000 * MS));
        assertTrue(w.compilerWentQuiet());
    }

    @Test
    void aCompilingCompilerHoldsTheWarmUpUntilItHasBeenQuietFor200Ms() {
        FakeCompiler jit = new FakeCompiler();
        WarmUp w = new WarmUp(0, 1000, jit);
        long t = 0;
        for (; t <= 1400; t++) {
            jit.total = t / 5; // a compilation ends every 5 ms, up to 1.4 s
            assertFalse(w.over(t * MS), "at " + t + " ms the compiler works");
        }
        for (; t < 1600; t++) {
            assertFalse(w.over(t * MS), "at " + t + " ms the compiler has been quiet for less than 200 ms");
        }
        // looked at every 10 ms: quiet is seen by the first look at or after 200 ms
        for (; !w.over(t * MS); t++) {
            assertTrue(t < 1600 + WarmUp.LOOK_MILLIS, "at " + t + " ms");
        }
        assertTrue(w.compilerWentQuiet());
    }

    @Test
    void aCompilerThatNeverStopsEndsTheWarmUpAtThreeTimesItsMinimum() {
        FakeCompiler jit = new FakeCompiler();
        WarmUp w = new WarmUp(5_000 * MS, 1000, jit);
        for (long t = 5_000; t < 5_000 + WarmUp.LIMIT * 1000; t++) {
            jit.total++;
            assertFalse(w.over(t * MS), "at " + t + " ms");
        }
        assertTrue(w.over((5_000 + WarmUp.LIMIT * 1000) * MS));
        assertFalse(w.compilerWentQuiet(), "it ended at its limit");
    }

    @Test
    void theCompilerIsAskedAtMostEvery10Ms() {
        FakeCompiler jit = new FakeCompiler();
        WarmUp w = new WarmUp(0, 1000, jit);
        for (long us = 0; us < 1_000_000; us += 3) {
            w.over(us * 1000);
        }
        assertTrue(jit.asked <= 1000 / WarmUp.LOOK_MILLIS + 1, jit.asked + " looks in a second");
    }

    @Test
    void withoutACompilerToWatchTheWarmUpLastsItsMinimum() {
        WarmUp w = new WarmUp(0, 250, null);
        assertFalse(w.over(249 * MS));
        assertTrue(w.over(250 * MS));
        assertTrue(w.compilerWentQuiet());
    }
}
