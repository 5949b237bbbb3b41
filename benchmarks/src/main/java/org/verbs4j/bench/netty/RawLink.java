package org.verbs4j.bench.netty;

import java.nio.ByteBuffer;
import org.verbs4j.api.WorkCompletions;
import org.verbs4j.endpoint.RdmaEndpoint;

/**
 * A byte stream over an {@link RdmaEndpoint} by hand, as a program on the endpoint API writes it: the bytes go out
 * in send slots of at most the smaller message size of the two sides, one {@code trySend} per slot, round robin;
 * a receive is read, then its slot reposted at once. Busy polling, one thread. What Netty over verbs4j is measured
 * against: the same endpoint options, the same slots, no pipeline, no {@code ByteBuf}s.
 */
final class RawLink implements AutoCloseable {
    static final long STALL_SECONDS = 30;

    final RdmaEndpoint ep;
    private final WorkCompletions sendWc;
    private final WorkCompletions recvWc;
    private final int depth;
    private final int slotBytes;
    private int nextSlot;
    private int free;
    /** Receive completions polled, not yet consumed: {@link #received} hands them out one by one. */
    private int polled;
    private int consumed;
    /** {@link #releaseLater} was called: the next {@link #received} releases first. */
    private boolean releaseDue;

    RawLink(RdmaEndpoint ep) {
        this.ep = ep;
        this.depth = ep.options().sendDepth();
        this.slotBytes = Math.min(ep.options().messageSize(), ep.peerMessageSize());
        this.free = depth;
        this.sendWc = WorkCompletions.allocate(depth);
        this.recvWc = WorkCompletions.allocate(Math.max(1, ep.options().receiveDepth()));
    }

    int slotBytes() {
        return slotBytes;
    }

    /**
     * {@return the view of a free send slot to fill, or null when no slot and credit is free now} Reaps send
     * completions first. Fill at most {@link #slotBytes()} bytes from index 0, then {@link #send}.
     */
    ByteBuffer slot() {
        reap();
        if (free == 0 || ep.sendCredits() == 0) {
            return null;
        }
        return ep.sendSlot(nextSlot);
    }

    /** Sends the first {@code length} bytes of the slot {@link #slot} returned. */
    void send(int length) {
        if (!ep.trySend(nextSlot, length)) {
            throw new IllegalStateException(ep + ": no send credit although one was counted");
        }
        nextSlot = nextSlot + 1 == depth ? 0 : nextSlot + 1;
        free--;
    }

    /**
     * Sends {@code length} bytes of {@code src} from absolute index {@code at}, waiting (spinning) for slots and
     * credits.
     *
     * @throws IllegalStateException when no slot or credit came for {@value #STALL_SECONDS} s (the peer stopped reading)
     */
    void sendAll(ByteBuffer src, int at, int length) {
        int done = 0;
        long since = System.nanoTime();
        while (done < length) {
            ByteBuffer dst = slot();
            if (dst == null) {
                if (System.nanoTime() - since > STALL_SECONDS * 1_000_000_000L) {
                    throw new IllegalStateException(ep + ": no send credit for " + STALL_SECONDS + " s");
                }
                Thread.onSpinWait();
                continue;
            }
            since = System.nanoTime();
            int n = Math.min(slotBytes, length - done);
            dst.put(0, src, at + done, n);
            send(n);
            done += n;
        }
    }

    private void reap() {
        int n = ep.pollSend(sendWc);
        for (int i = 0; i < n; i++) {
            if (!sendWc.ok(i)) {
                throw new IllegalStateException(ep + ": a send failed with " + sendWc.status(i));
            }
        }
        free += n;
    }

    /**
     * {@return the next received message (position 0, limit its length), or null when none is there now} Call
     * {@link #release} when done with it, before the next call.
     *
     * @throws LinkClosed when the connection is gone (a receive failed: the peer closed)
     */
    ByteBuffer received() {
        if (releaseDue) {
            releaseDue = false;
            release();
        }
        if (consumed == polled) {
            polled = ep.pollReceive(recvWc);
            consumed = 0;
            if (polled == 0) {
                return null;
            }
        }
        if (!recvWc.ok(consumed)) {
            throw new LinkClosed(ep + ": a receive completed with " + recvWc.status(consumed));
        }
        return ep.message(recvWc, consumed);
    }

    /**
     * Reposts the slot of the message {@link #received} returned last when {@link #received} is next called: a reply
     * sent in between leaves before the credit update, as a receiver that answers at once would order them.
     */
    void releaseLater() {
        releaseDue = true;
    }

    /** Reposts the slot of the message {@link #received} returned last. */
    void release() {
        ep.repostReceive((int) recvWc.wrId(consumed));
        consumed++;
    }

    @Override
    public void close() {
        try (sendWc; recvWc) {
            ep.close();
        }
    }

    /** The connection ended under a receive. */
    static final class LinkClosed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        LinkClosed(String message) {
            super(message);
        }
    }
}
