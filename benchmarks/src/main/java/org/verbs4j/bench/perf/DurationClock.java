package org.verbs4j.bench.perf;

/**
 * perftest's duration states ({@code -D}, driven there by SIGALRM): a warm-up margin, the sample period
 * ({@code duration - 2 * margin} seconds, whose start and end times are recorded), a cool-down margin, the
 * end. A daemon thread moves the state; the test loop only reads a volatile field, so the clock costs the
 * measured loop one memory read per check.
 */
final class DurationClock {
    static final int START = 0;
    static final int SAMPLE = 1;
    static final int STOP_SAMPLE = 2;
    static final int END = 3;

    private final long marginNanos;
    private final long sampleNanos;
    private volatile int state = START;
    private volatile long sampleStart;
    private volatile long sampleEnd;
    private Thread thread;

    DurationClock(int durationSeconds, int marginSeconds) {
        this.marginNanos = marginSeconds * 1_000_000_000L;
        this.sampleNanos = (durationSeconds - 2L * marginSeconds) * 1_000_000_000L;
    }

    /** Starts the clock (at the test's start; the send_bw server starts it at its first receive). */
    void start() {
        thread = new Thread(this::run, "verbs4j-perf-duration");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        try {
            sleepNanos(marginNanos);
            sampleStart = System.nanoTime();
            state = SAMPLE;
            sleepNanos(sampleNanos);
            sampleEnd = System.nanoTime();
            state = STOP_SAMPLE;
            sleepNanos(marginNanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (sampleEnd == 0) {
                sampleEnd = System.nanoTime();
            }
            state = END;
        }
    }

    private static void sleepNanos(long nanos) throws InterruptedException {
        long deadline = System.nanoTime() + nanos;
        long left;
        while ((left = deadline - System.nanoTime()) > 0) {
            Thread.sleep(left / 1_000_000, (int) (left % 1_000_000));
        }
    }

    boolean sampling() {
        return state == SAMPLE;
    }

    boolean ended() {
        return state == END;
    }

    /** Nanoseconds of the sample period (valid once the state is past SAMPLE). */
    long sampleNanos() {
        return sampleEnd - sampleStart;
    }

    void stop() {
        if (thread != null) {
            thread.interrupt();
        }
    }
}
