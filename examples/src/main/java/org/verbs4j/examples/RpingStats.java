package org.verbs4j.examples;

import java.lang.management.ManagementFactory;
import java.util.Locale;

/**
 * What one {@link RpingConnection} measured: the pings, their times (first, last, shortest, longest), and
 * with {@link RpingConnection#MEASURE_ALLOCATION} the bytes its ping loop allocated on the Java heap. It
 * allocates nothing while the loop runs.
 */
final class RpingStats {
    private final com.sun.management.ThreadMXBean threads = Boolean.getBoolean(RpingConnection.MEASURE_ALLOCATION)
            ? (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean() : null;
    private long allocatedBefore;
    private long allocated = -1;
    private long pings;
    private long firstNanos;
    private long lastNanos;
    private long minNanos = Long.MAX_VALUE;
    private long maxNanos;

    /** Before the ping loop: the allocation counter's start. */
    void loopStarts() {
        allocatedBefore = threads == null ? 0 : threads.getCurrentThreadAllocatedBytes();
    }

    /** After the ping loop, however it ended. */
    void loopEnded() {
        if (threads != null) {
            allocated = threads.getCurrentThreadAllocatedBytes() - allocatedBefore;
        }
    }

    /** When the first ping started ({@link System#nanoTime()}). */
    void firstPingAt(long nanos) {
        firstNanos = nanos;
    }

    /** One ping done; it started at {@code t0}. */
    void record(long t0) {
        long now = System.nanoTime();
        long t = now - t0;
        if (t < minNanos) {
            minNanos = t;
        }
        if (t > maxNanos) {
            maxNanos = t;
        }
        lastNanos = now;
        pings++;
    }

    /** The pings done so far. */
    long pings() {
        return pings;
    }

    /**
     * What was measured, one line for stderr, e.g. {@code rping: client: 200 pings of 1000 bytes in 1.234 s,
     * 6170.2 us per ping (min 4012.3, max 9000.1), data validated}.
     *
     * @param side "client" or "server"
     * @param bytes the ping data's size
     * @param validated what {@code -V} checked, or null without {@code -V}
     */
    String summary(String side, long bytes, String validated) {
        StringBuilder sb = new StringBuilder("rping: ").append(side).append(": ").append(pings).append(pings == 1 ? " ping" : " pings");
        if (pings > 0) {
            double total = (lastNanos - firstNanos) / 1e9;
            sb.append(String.format(Locale.ROOT, " of %d bytes in %.3f s, %.1f us per ping (min %.1f, max %.1f)",
                    bytes, total, (lastNanos - firstNanos) / 1e3 / pings, minNanos / 1e3, maxNanos / 1e3));
            if (validated != null) {
                sb.append(", ").append(validated);
            }
        }
        return sb.toString();
    }

    /** {@code verbs4j: the rping loop allocated N bytes}, or null when not measured. */
    String allocationLine() {
        return allocated < 0 ? null : "verbs4j: the rping loop allocated " + allocated + " bytes";
    }
}
