package org.verbs4j.bench.perf;

import org.verbs4j.api.cm.CmEventType;
import org.verbs4j.api.cm.CmException;

/**
 * When a client's rdma_cm connection attempt failed, whether to try again: a refused or failed attempt while
 * {@link PerfChannel#CONNECT_RETRY_MILLIS} last (the server may still be starting), and an attempt that got no
 * answer at all (no event within its time-out, or {@code RDMA_CM_EVENT_UNREACHABLE}: the device's own time-out)
 * once more even after that: its request may have been lost before the server's listener saw it, and the server
 * then still waits for one (seen once in the lab with C perftest's {@code -R} server on siw0, which waited until it
 * was killed).
 */
final class CmConnectRetry {
    private final long deadline;
    private final long started = System.nanoTime();
    private int attempts;
    private boolean unansweredRetried;

    CmConnectRetry(long windowMillis) {
        this.deadline = started + windowMillis * 1_000_000L;
    }

    /** Whether to make another attempt after {@code failed}; counts the attempt that failed. */
    boolean again(CmException failed) {
        attempts++;
        if (System.nanoTime() - deadline <= 0) {
            return true;
        }
        if (unanswered(failed) && !unansweredRetried) {
            unansweredRetried = true;
            return true;
        }
        return false;
    }

    /** For the message of the last failure: how many attempts failed in how long. */
    String describe() {
        return attempts + (attempts == 1 ? " attempt" : " attempts") + " in "
                + (System.nanoTime() - started) / 1_000_000 + " ms";
    }

    /** An attempt that no answer ended: its wait's time-out (no event), or the device's (unreachable). */
    static boolean unanswered(CmException e) {
        return e.event() == null || e.event() == CmEventType.UNREACHABLE;
    }
}
