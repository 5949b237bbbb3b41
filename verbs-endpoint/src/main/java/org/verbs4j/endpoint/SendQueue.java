package org.verbs4j.endpoint;

import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.PostException;
import org.verbs4j.api.QueuePair;
import org.verbs4j.api.SendRequests;
import org.verbs4j.api.WcStatus;
import org.verbs4j.api.WorkCompletions;

/**
 * The endpoint's send queue and its completions: every post to the queue pair's send queue goes through here,
 * so that the count of requests in flight stays right. The user's operations (at most {@code sendDepth}) and
 * the endpoint's own credit writes (work request id {@link RdmaEndpoint#INTERNAL_WR_ID}) share the queue and
 * its completion queue; {@link #poll} hands out the user's completions only. While the endpoint waits for a
 * credit it reaps the send CQ too: the user's completions it meets then are kept, in order, for the next
 * {@link #poll}. No allocation, no lock.
 */
final class SendQueue {
    private static final long INTERNAL = RdmaEndpoint.INTERNAL_WR_ID;

    private final String description;
    private final QueuePair qp;
    private final CompletionQueue cq;
    private final int depth;
    private final int internalDepth;
    private final long timeoutNanos;
    private final WorkCompletions reapWc;
    private final org.verbs4j.api.spi.CloseGuard guard;
    /** A ring of the user's completions met while reaping: at most {@code depth}, since that many are in flight. */
    private final WorkCompletions stash;
    private int stashHead;
    private int stashCount;
    private int outstanding;
    private int internalOutstanding;

    SendQueue(EndpointResources r) {
        this.description = r.description;
        this.qp = r.qp;
        this.cq = r.sendCq;
        this.depth = r.options.sendDepth();
        this.internalDepth = r.creditSlots;
        this.timeoutNanos = r.options.timeout().toNanos();
        this.guard = r.guard;
        this.reapWc = r.own(WorkCompletions.allocate(Math.max(16, internalDepth)));
        this.stash = r.own(WorkCompletions.allocate(depth));
    }

    /** Throws when {@code n} more of the user's operations would exceed {@code sendDepth}. */
    void checkRoom(int n) {
        if (n > depth - outstanding) {
            throw new IllegalStateException(description + ": " + outstanding + " of " + depth + " operations are in "
                    + "flight (sendDepth)" + (n > 1 ? " and " + n + " more do not fit" : "")
                    + ": poll their completions with pollSend first");
        }
    }

    /** Posts {@code n} of the user's requests (room checked); a chain that failed part way counts what was posted. */
    void post(SendRequests wrs, int n) {
        try {
            qp.postSend(wrs);
        } catch (PostException e) {
            if (e.failedIndex() > 0) {
                outstanding += e.failedIndex();
            }
            throw e;
        }
        outstanding += n;
    }

    /** Posts one of the endpoint's own requests, first waiting (up to the timeout) for one of its slots. */
    void postInternal(SendRequests wr) {
        if (internalOutstanding >= internalDepth) {
            long deadline = System.nanoTime() + timeoutNanos;
            for (int round = 0; internalOutstanding >= internalDepth; round++) {
                if (guard.isShut()) {
                    throw new IllegalStateException(description + " is closed (by another thread, during the call)");
                }
                reapInternal();
                if (System.nanoTime() - deadline > 0) {
                    throw new EndpointException(description + ": the endpoint's credit writes did not complete within "
                            + (timeoutNanos / 1_000_000) + " ms: is the connection still up?");
                }
                Backoff.pause(round);
            }
        }
        qp.postSend(wr);
        internalOutstanding++;
    }

    /** The user's completions into {@code wc} (at most its capacity); the endpoint's own are consumed. */
    int poll(WorkCompletions wc) {
        if (stashCount > 0) {
            int n = Math.min(wc.capacity(), stashCount);
            for (int i = 0; i < n; i++) {
                stash.copy(stashHead, wc, i);
                stashHead = stashHead + 1 == stash.capacity() ? 0 : stashHead + 1;
            }
            stashCount -= n;
            outstanding -= n;
            return n;
        }
        int got = cq.poll(wc);
        int kept = 0;
        for (int i = 0; i < got; i++) {
            if (wc.wrId(i) == INTERNAL) {
                internalDone(wc, i);
            } else {
                if (kept != i) {
                    wc.copy(i, wc, kept);
                }
                kept++;
            }
        }
        outstanding -= kept;
        return kept;
    }

    /** Polls the send CQ for the endpoint's own completions; the user's go to the stash. */
    void reapInternal() {
        if (internalOutstanding == 0) {
            return;
        }
        int got = cq.poll(reapWc);
        for (int i = 0; i < got; i++) {
            if (reapWc.wrId(i) == INTERNAL) {
                internalDone(reapWc, i);
            } else {
                int tail = stashHead + stashCount;
                reapWc.copy(i, stash, tail >= stash.capacity() ? tail - stash.capacity() : tail);
                stashCount++;
            }
        }
    }

    private void internalDone(WorkCompletions wc, int i) {
        internalOutstanding--;
        if (!wc.ok(i)) {
            WcStatus st = wc.status(i);
            throw new EndpointException(description + ": a credit update (RDMA WRITE to the peer's credit word) "
                    + "failed with " + (st == null ? "status " + wc.statusValue(i) : st.name() + " (" + st + ")")
                    + ": the connection is broken (peer gone, or " + (st == WcStatus.WR_FLUSH_ERR
                            ? "the queue pair was already in the error state)" : "a transport error)"));
        }
    }

    /** The user's operations in flight (posted, completion not yet returned by {@link #poll}). */
    int inFlight() {
        return outstanding;
    }

    /** How many more of the user's operations may be posted now. */
    int room() {
        return depth - outstanding;
    }
}
