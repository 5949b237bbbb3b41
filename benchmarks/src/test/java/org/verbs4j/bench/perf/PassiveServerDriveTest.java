package org.verbs4j.bench.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.verbs4j.lab.TestPorts;

/**
 * A server that posts nothing and only waits ({@code read_lat}'s), on jsiw_lo with {@code -R}: its wait polls the
 * send CQ, so its own thread answers the client's Read Requests and the device's progress threads stay almost idle;
 * with {@code -e} it sleeps and they answer every one after a wake-up. Read from the CPU time of the progress threads
 * (both sides run in this JVM, as in {@link LocalWarmUpTest}).
 */
class PassiveServerDriveTest {
    private static final String PROGRESS = "verbs4j-siw-progress-";
    private static final int ITERS = 20_000;

    @BeforeAll
    static void softwareDevice() {
        LocalWarmUpTest.softwareDevice();
    }

    @Test
    void aReadLatencyServerAnswersTheReadsOnItsOwnThread() throws Exception {
        assumeTrue(Runtime.getRuntime().availableProcessors() > 1, "the server polls only with more than one CPU");
        long polling = progressCpuNanos(false);
        long sleeping = progressCpuNanos(true);
        String d = "progress threads' CPU: " + polling / 1_000_000 + " ms with the server polling in its wait, "
                + sleeping / 1_000_000 + " ms with -e (" + ITERS + " reads)";
        System.out.println(d);
        // the threads that answered 20,000 reads after wake-ups against threads that only looked now and then
        assertTrue(polling * 4 < sleeping, d);
    }

    /** Runs read_lat ({@code -e}: sleeping on events) and returns its progress threads' CPU time. */
    private static long progressCpuNanos(boolean events) throws Exception {
        List<String> a = LocalWarmUpTest.args("read_lat", TestPorts.next(), "-s", "64", "-n", Integer.toString(ITERS),
                "--no-warmup");
        if (events) {
            a.add("-e");
        }
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Map<Long, Long> cpu = new ConcurrentHashMap<>();
        AtomicBoolean done = new AtomicBoolean();
        // a progress thread ends with its context: its CPU time is sampled while it runs
        Thread sampler = new Thread(() -> {
            while (!done.get()) {
                for (Thread t : Thread.getAllStackTraces().keySet()) {
                    if (t.getName().startsWith(PROGRESS)) {
                        long ns = mx.getThreadCpuTime(t.getId());
                        if (ns > 0) {
                            cpu.merge(t.getId(), ns, Math::max);
                        }
                    }
                }
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "progress-cpu-sampler");
        sampler.start();
        LocalWarmUpTest.Pair p;
        try {
            p = LocalWarmUpTest.runPair(a);
        } finally {
            done.set(true);
            sampler.join();
        }
        String d = p.describe();
        assertEquals(0, p.server().exit(), d);
        assertEquals(0, p.client().exit(), d);
        VerbsPerfIT.assertLatency(VerbsPerfIT.resultLine(p.client().output(), PerfFormat.LAT_COLUMNS, d), 64, ITERS, d);
        assertTrue(cpu.size() >= 1, "no progress thread seen\n" + d);
        return cpu.values().stream().mapToLong(Long::longValue).sum();
    }
}
