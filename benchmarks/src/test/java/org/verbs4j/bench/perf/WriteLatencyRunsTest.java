package org.verbs4j.bench.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.verbs4j.lab.TestPorts;
import org.verbs4j.lab.Async;

/**
 * write_lat's runs of one size, back to back on jsiw_lo ({@code --warmup}'s unmeasured runs, then the measured one):
 * each waits for the peer's byte at the same place of the buffer, counting from 1 again. A run that found the last
 * run's final byte equal to its own first wanted one passed its first wait without the peer's Write, so the two
 * sides ran a step apart; the peer's next two Writes could then land before the waiting side looked, the second
 * overwriting the byte it waited for, and both sides spun forever (seen on the host: the software device places
 * every Write its poll reads at once).
 *
 * <p>Both warm-ups below end their last run on byte 1, the measured run's first wanted byte: {@code --warmup=2}
 * (two runs of one iteration) and {@code --warmup=1285} (five runs of 257). The pairs run in this JVM (as
 * {@link LocalWarmUpTest}'s); a hang fails the pair after {@link #PAIR_SECONDS}.
 */
class WriteLatencyRunsTest {
    private static final int PAIRS = 6;
    private static final int ITERS = 20_000;
    private static final long PAIR_SECONDS = 60;

    @BeforeAll
    static void softwareDevice() {
        LocalWarmUpTest.softwareDevice();
    }

    @ParameterizedTest(name = "--warmup={0}")
    @ValueSource(ints = {2, 1285})
    void runsAfterAWarmUpThatEndsOnTheFirstWantedByteWaitForThePeer(int warmup) throws Exception {
        for (int i = 0; i < PAIRS; i++) {
            List<String> a = LocalWarmUpTest.args("write_lat", TestPorts.next(), "-s", "2", "-n",
                    Integer.toString(ITERS), "--warmup=" + warmup);
            CompletableFuture<LocalWarmUpTest.Pair> run = Async.supply(() -> {
                try {
                    return LocalWarmUpTest.runPair(a);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            LocalWarmUpTest.Pair p;
            try {
                p = run.get(PAIR_SECONDS, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                // the two loops spin on; the JVM exits at the end of the tests (surefire), taking them with it
                fail("pair " + (i + 1) + " of " + PAIRS + " (write_lat -n " + ITERS + " --warmup=" + warmup
                        + ") did not end within " + PAIR_SECONDS + " s: the two sides wait for each other's Write");
                return;
            }
            String d = "pair " + (i + 1) + "\n" + p.describe();
            assertEquals(0, p.server().exit(), d);
            assertEquals(0, p.client().exit(), d);
            for (LocalWarmUpTest.Side s : List.of(p.server(), p.client())) {
                // stdout without the stderr lines that share its stream (the JIT wait's may fall inside the table)
                String out = s.output().lines().filter(l -> !l.startsWith("verbs4j-perf: "))
                        .collect(Collectors.joining("\n", "", "\n"));
                VerbsPerfIT.assertLatency(VerbsPerfIT.resultLine(out, PerfFormat.LAT_COLUMNS, d), 2, ITERS, d);
            }
        }
    }
}
