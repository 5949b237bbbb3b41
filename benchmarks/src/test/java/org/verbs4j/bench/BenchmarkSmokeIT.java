package org.verbs4j.bench;

import org.verbs4j.lab.Lab;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Proves that every JMH benchmark runs on the lab's devices: one short measurement iteration of each, in
 * this JVM (no fork, no warm-up), one message size, one registration size. Each trial's set-up already
 * checks that its bytes arrived (a send, a write, a read, the atomics' old values), so a result means the
 * connection worked; the numbers themselves mean nothing here (one vCPU, no warm-up). Not a measurement:
 * {@code benchmarks/bin/jmh-gc-check} and docs/performance.md are.
 */
class BenchmarkSmokeIT {

    @Test
    void everyBenchmarkRunsOneIterationOnRxeAndSiw() throws RunnerException {
        String rxe = Lab.env("FABRIC_LAB_RXE_DEV");
        String siw = Lab.env("FABRIC_LAB_SIW_DEV");
        System.setProperty(LoopbackQueuePair.DEVICE_PROPERTY, rxe); // HotPathBenchmark's device (rxe only)
        Options options = new OptionsBuilder()
                .include("org\\.verbs4j\\.bench\\.")
                // the software device's (jsiw_lo), run on the host: IwarpHotPathAllocationTest
                .exclude("org\\.verbs4j\\.bench\\.IwarpHotPathBenchmark")
                .forks(0)
                .warmupIterations(0)
                .measurementIterations(1)
                .measurementTime(TimeValue.milliseconds(200))
                .param("device", rxe, siw)
                .param("size", "64")
                .param("length", "65536")
                .addProfiler(LoopAllocationProfiler.class)
                .shouldFailOnError(false)
                .build();
        long t0 = System.nanoTime();
        Collection<RunResult> results = new Runner(options).run();
        System.out.printf("%d results in %.1f s%n", results.size(), (System.nanoTime() - t0) / 1e9);

        Map<String, Double> scores = new TreeMap<>();
        for (RunResult r : results) {
            String name = r.getParams().getBenchmark().replace("org.verbs4j.bench.", "");
            String device = r.getParams().getParam("device");
            double score = r.getPrimaryResult().getScore();
            scores.put(device == null ? name : name + " @" + device, score);
            assertTrue(score > 0 && Double.isFinite(score), name + ": score " + score);
            assertTrue(r.getSecondaryResults().containsKey("alloc.loop.norm"),
                    name + " has no alloc.loop.norm: its state does not count with IterationAllocation");
        }
        scores.forEach((k, v) -> System.out.printf("  %-55s %,14.0f ns/op%n", k, v));

        Set<String> expected = new TreeSet<>(Set.of(
                "HotPathBenchmark.pollEmpty", "HotPathBenchmark.postRecv", "HotPathBenchmark.postSendPoll",
                "HotPathBenchmark.postSendUnsignaled", "RawMemoryBenchmark.fillSendRequest",
                "RawMemoryBenchmark.readCompletion", "NativeCallBenchmark.nativeCall",
                "CloseGuardBenchmark.bareCall", "CloseGuardBenchmark.guardedPost",
                "CloseGuardBenchmark.guardedPostOptedOut",
                "AtomicLatencyBenchmark.compareSwap @" + rxe, "AtomicLatencyBenchmark.fetchAdd @" + rxe));
        for (String dev : new String[] {rxe, siw}) {
            for (String b : new String[] {"sendLatency", "writeLatency", "readLatency", "writeCompletion"}) {
                expected.add("LatencyBenchmark." + b + " @" + dev);
            }
            expected.add("MemoryRegistrationBenchmark.registerDeregister @" + dev);
        }
        // siw has no atomics: those two combinations are skipped (BenchmarkSkipped), so they have no result.
        assertEquals(expected, scores.keySet());
    }
}
