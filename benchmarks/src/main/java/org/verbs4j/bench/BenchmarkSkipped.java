package org.verbs4j.bench;

/**
 * Thrown by a trial's set-up when the device cannot run the benchmark at all (siw has no atomics). JMH
 * has no "skipped" outcome: it reports the parameter combination as failed, prints this message, and
 * goes on with the next one. The message starts with {@value #MARK}, which
 * {@code benchmarks/bin/jmh-gc-check} looks for, so that a skip is not counted as a missing result.
 */
public final class BenchmarkSkipped extends RuntimeException {
    private static final long serialVersionUID = 1L;
    /** What every message starts with. */
    public static final String MARK = "verbs4j benchmark skipped:";

    public BenchmarkSkipped(String reason) {
        super(MARK + " " + reason, null, false, false);
    }
}
