package org.verbs4j.bench.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.verbs4j.lab.Lab;

/**
 * The soak's short version on each lab device: {@value #OPS} operations of each kind (endpoint and raw send,
 * write, read) and {@value #CYCLES} endpoint connect/disconnect cycles, in this JVM, through the same code as
 * {@code verbs4j-soak}. Every operation must be completed and checked, one in 64 byte by byte; after the
 * warm-up no curve (RSS, heap after GC, fds, the kernel's pd/cq/qp/mr/cm_id/ctx) may grow more than the
 * tolerance, and verbs4j must report no leak. The tolerance is wider than the full run's 5%, and the warm-up
 * half of each phase (not 20%), because a short run is still warming up (the JIT, malloc arenas: rxe0's
 * raw-send RSS rose 11% between 20% and 50% of a 20,000-operation phase, then stayed flat): see
 * docs/reliability.md.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class SoakIT {
    static final int OPS = 20_000;
    static final int CYCLES = 200;
    static final String TOLERANCE = "10";

    static List<String> devices() {
        return Lab.devices();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("devices")
    void shortSoakStaysFlatAndLeaksNothing(String device) throws Exception {
        String[] args = {"-d", device, "-n", String.valueOf(OPS), "-c", String.valueOf(CYCLES), "-I", "2000",
            "--cycle-interval", "20", "-T", TOLERANCE, "-w", "50", "-p", device.equals(Lab.roceDevice()) ? "18700" : "18720",
            "-o", "target/soak-it-" + device + ".csv"};
        SoakOptions o = SoakOptions.of(SoakOptions.parser().parse(args), () -> device,
                org.verbs4j.bench.RawSoakLink::labAddress);
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        VerbsSoak.Result r;
        try (PrintStream out = new PrintStream(text, true, StandardCharsets.UTF_8)) {
            r = VerbsSoak.soak(o, out);
        }
        String report = text.toString(StandardCharsets.UTF_8);
        System.out.print(report);
        assertEquals(SoakKind.values().length, r.phases().size(), report);
        assertTrue(r.samples().stream().allMatch(s -> s.qp() >= 0 && s.rssKb() > 0 && s.fds() > 0),
                "every sample has the kernel's counts (rdma resource show), RSS and fds");
        for (VerbsSoak.Phase p : r.phases()) {
            long total = p.kind().operations ? OPS : CYCLES;
            assertEquals(total, p.outcome().ops(), p.kind().id + ": every operation completed and checked");
            long sampled = p.kind().operations ? total / MessagePattern.SAMPLE_EVERY : 2 * total;
            assertTrue(p.outcome().contentChecked() >= sampled, p.kind().id + ": " + p.outcome().contentChecked()
                    + " checked byte by byte, expected at least " + sampled);
            assertEquals(0, p.leaks(), p.kind().id + ": verbs4j reported leaks\n" + report);
            assertTrue(p.samples() >= 10, p.kind().id + ": " + p.samples() + " samples");
            assertTrue(p.passed(), p.kind().id + " did not stay flat:\n" + report);
        }
        assertTrue(r.passed(), report);
    }
}
