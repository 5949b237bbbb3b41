package org.verbs4j.endpoint;

import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.Opcode;
import org.verbs4j.api.SendFlags;
import org.verbs4j.api.SendRequests;

/**
 * Send credits: each side RDMA-writes its running count of posted receives into the peer's credit word, and
 * sends (and RDMA writes with immediate, which take a receive too) only while {@code sent < peer's count}. The
 * control memory holds both words: [0, 8) the peer's count (the peer writes it), [8, 16) ours, the source of
 * our credit write. With credits off only the counts are kept.
 */
final class Credits {
    /** Bytes of control memory: the two credit words, padded to a cache line. */
    static final int CONTROL_SIZE = 64;
    private static final int CREDIT_IN = 0;
    private static final int CREDIT_OUT = 8;

    private final String description;
    private final boolean enabled;
    private final MemoryRegion control;
    private final SendRequests creditWr;
    private final SendQueue sendQueue;
    private final long timeoutNanos;
    /** The rdma_cm id's DISCONNECTED, or null (TCP exchange): a credit wait ends when the peer is gone. */
    private final org.verbs4j.api.cm.CmId cmId;
    private final org.verbs4j.api.spi.CloseGuard guard;
    private long sent;
    private long posted;

    Credits(EndpointResources r, SendQueue sendQueue) {
        this.description = r.description;
        this.enabled = r.options.credits();
        this.control = r.controlMr;
        this.sendQueue = sendQueue;
        this.timeoutNanos = r.options.timeout().toNanos();
        this.cmId = r.cmId;
        this.guard = r.guard;
        this.creditWr = r.own(SendRequests.allocate(1, 1));
        boolean inline = r.qp.capabilities().maxInlineData() >= 8;
        creditWr.at(0).clear().wrId(RdmaEndpoint.INTERNAL_WR_ID).opcode(Opcode.RDMA_WRITE)
                .flags(SendFlags.SIGNALED | (inline ? SendFlags.INLINE : 0))
                .sge(control.address() + CREDIT_OUT, 8, control.lkey());
    }

    boolean enabled() {
        return enabled;
    }

    /** The address and rkey of our credit word, for the handshake. */
    long wordAddress() {
        return control.address() + CREDIT_IN;
    }

    int wordRkey() {
        return control.rkey();
    }

    /** Where our credit writes go: the peer's credit word, from its handshake. */
    void target(Handshake peer) {
        creditWr.at(0).rdma(peer.creditAddress(), peer.creditRkey());
    }

    /** True when a message may be sent now. */
    boolean available() {
        return !enabled || sent < peerPosted();
    }

    /** Sends that could be posted now ({@link Long#MAX_VALUE} without credits). */
    long count() {
        return enabled ? peerPosted() - sent : Long.MAX_VALUE;
    }

    /** A message that takes one of the peer's receives was posted. */
    void consume() {
        sent++;
    }

    /** One of our receives was posted; with credits, {@link #publish} tells the peer. */
    void receivePosted() {
        posted++;
    }

    /** RDMA-writes our posted-receive count into the peer's credit word. */
    void publish() {
        control.putLong(CREDIT_OUT, posted);
        sendQueue.postInternal(creditWr);
    }

    /** Spins (reaping the send CQ) until a credit is there; throws after the timeout. */
    void await() {
        if (!available()) {
            awaitPeerCountAbove(sent);
        }
    }

    /**
     * The first credit exchange, which also tells each side that the other is ready: the active side writes
     * first (on iWARP the side that connected must send first), the passive side waits for it and answers.
     */
    void handshake(boolean active) {
        if (!enabled) {
            return;
        }
        if (active) {
            publish();
            awaitPeerCountAbove(0);
        } else {
            awaitPeerCountAbove(0);
            publish();
        }
    }

    /** Spins until the peer's posted-receive count exceeds {@code n}; 0 is the wait for its first update. */
    private void awaitPeerCountAbove(long n) {
        long deadline = System.nanoTime() + timeoutNanos;
        for (int round = 0; peerPosted() <= n; round++) {
            if (System.nanoTime() - deadline > 0) {
                throw new EndpointException(description + (n == 0
                        ? ": the peer's first credit update did not arrive within " + (timeoutNanos / 1_000_000)
                                + " ms: is the peer a verbs4j endpoint with credits on, and still running?"
                        : ": no send credit for " + (timeoutNanos / 1_000_000) + " ms: the peer has " + sent
                                + " messages and posted " + peerPosted() + " receives in all; it must poll its "
                                + "receives and call repostReceive"));
            }
            if (guard.isShut()) {
                throw new IllegalStateException(description + " is closed (by another thread, during a wait for a credit)");
            }
            if (cmId != null && cmId.isDisconnected()) {
                throw new EndpointException(description + ": the peer disconnected (RDMA_CM_EVENT_DISCONNECTED) while "
                        + "this side waited for " + (n == 0 ? "its first credit update" : "a send credit"));
            }
            sendQueue.reapInternal();
            Backoff.pause(round);
        }
    }

    private long peerPosted() {
        return control.getLongVolatile(CREDIT_IN);
    }
}
