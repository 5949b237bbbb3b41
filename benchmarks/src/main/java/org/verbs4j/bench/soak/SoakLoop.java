package org.verbs4j.bench.soak;

import java.nio.ByteBuffer;
import java.time.Duration;
import org.verbs4j.api.WcOpcode;
import org.verbs4j.api.WorkCompletions;

/**
 * The three data-path loops of the soak, over any {@link SoakLink}: sends, RDMA writes and RDMA reads, up to
 * {@link SoakLink.Layout#depth} in flight, every completion checked (status, opcode, work request id in order), every
 * operation's sequence number checked where it lands and, for one operation in {@value MessagePattern#SAMPLE_EVERY},
 * every byte. Writes are checked in rounds of one ring: after the round, an RDMA READ fences them (on iWARP a
 * write's completion says nothing about its placement at the peer; a read is served only after the writes
 * before it were placed), then every ring slot is read. Nothing in the loops allocates; {@link Progress} is
 * told how far the loop got after each round of polls, so that the sampler can take its samples.
 */
final class SoakLoop {
    /** The work request id of the fence read. */
    static final long FENCE = Long.MAX_VALUE;
    /** The first 8 bytes of ring slot {@code j} before the reads: this tag with {@code j} in the low bits. */
    static final long READ_TAG = 0x5EAD_0000_0000_0000L;

    /** Told the number of operations done so far, once per round of polls. */
    @FunctionalInterface
    interface Progress {
        /** @param done operations completed and checked so far */
        void at(long done);
    }

    /**
     * What a loop did.
     *
     * @param ops operations completed and checked
     * @param contentChecked operations whose every byte was checked
     * @param seconds wall time of the loop
     */
    record Outcome(long ops, long contentChecked, double seconds) {
    }

    private final SoakLink link;
    private final WorkCompletions wc;
    private final WorkCompletions rwc;
    private final long stallNanos;
    private final Progress progress;
    private final int depth;
    private final int size;
    private final int ring;
    private final String receiveWhat;
    private final String writeWhat;
    private final String readWhat;
    private long lastMove;

    SoakLoop(SoakLink link, WorkCompletions wc, WorkCompletions rwc, Duration stall, Progress progress) {
        this.link = link;
        this.wc = wc;
        this.rwc = rwc;
        this.stallNanos = stall.toNanos();
        this.progress = progress;
        this.depth = link.layout().depth();
        this.size = link.layout().messageSize();
        this.ring = link.layout().ringSlots();
        // made once: the loops build no string unless they fail
        this.receiveWhat = link + " receive";
        this.writeWhat = link + " write target";
        this.readWhat = link + " read sink";
    }

    /** {@code ops} sends of one message each, received, checked and reposted by the responder. */
    Outcome send(long ops) {
        long t0 = System.nanoTime();
        lastMove = t0;
        long sent = 0;
        long completed = 0;
        long received = 0;
        long checked = 0;
        while (received < ops || completed < ops) {
            boolean moved = false;
            while (sent < ops && sent - completed < depth) {
                int slot = (int) (sent % depth);
                MessagePattern.stamp(link.sendSlot(slot), 0, size, sent);
                if (!link.trySend(slot)) {
                    break;
                }
                sent++;
                moved = true;
            }
            int n = link.pollRequester(wc);
            for (int i = 0; i < n; i++) {
                expect(wc, i, WcOpcode.SEND, completed % depth, "send", completed);
                completed++;
            }
            int m = link.pollResponder(rwc);
            for (int i = 0; i < m; i++) {
                if (!rwc.ok(i) || rwc.opcode(i) != WcOpcode.RECV || rwc.byteLength(i) != size) {
                    throw fail("receive " + received + ": " + rwc.toString(i) + ", expected a " + size
                            + "-byte receive");
                }
                ByteBuffer message = link.received(rwc, i);
                if (MessagePattern.check(message, 0, size, received, receiveWhat)) {
                    checked++;
                }
                received++;
                link.repost(rwc, i);
            }
            if (stalled(moved || n > 0 || m > 0)) {
                throw stall("sends: " + sent + " posted, " + completed + " completed, " + received + " received of "
                        + ops);
            }
            progress.at(received);
        }
        return new Outcome(received, checked, (System.nanoTime() - t0) / 1e9);
    }

    /** {@code ops} RDMA writes into the responder's ring, checked there after each round's fence. */
    Outcome write(long ops) {
        long t0 = System.nanoTime();
        lastMove = t0;
        ByteBuffer local = link.requesterMemory();
        ByteBuffer remote = link.responderMemory();
        long checked = 0;
        for (long base = 0; base < ops; base += ring) {
            long end = Math.min(ops, base + ring);
            long posted = base;
            long completed = base;
            while (completed < end) {
                boolean moved = false;
                while (posted < end && posted - completed < depth) {
                    int slot = (int) (posted % depth);
                    MessagePattern.stamp(local, slot * size, size, posted);
                    link.write(slot, (int) (posted % ring), posted);
                    posted++;
                    moved = true;
                }
                int n = link.pollRequester(wc);
                for (int i = 0; i < n; i++) {
                    expect(wc, i, WcOpcode.RDMA_WRITE, completed, "write", completed);
                    completed++;
                }
                if (stalled(moved || n > 0)) {
                    throw stall("writes: " + posted + " posted, " + completed + " completed of " + ops);
                }
                progress.at(completed);
            }
            fence();
            for (long seq = base; seq < end; seq++) {
                if (MessagePattern.check(remote, (int) (seq % ring) * size, size, seq, writeWhat)) {
                    checked++;
                }
            }
        }
        return new Outcome(ops, checked, (System.nanoTime() - t0) / 1e9);
    }

    /** {@code ops} RDMA reads of the responder's ring into slots cleared first, checked at their completion. */
    Outcome read(long ops) {
        ByteBuffer local = link.requesterMemory();
        ByteBuffer remote = link.responderMemory();
        for (int j = 0; j < ring; j++) {
            MessagePattern.stamp(remote, j * size, size, READ_TAG | j);
        }
        long t0 = System.nanoTime();
        lastMove = t0;
        long posted = 0;
        long completed = 0;
        long checked = 0;
        while (completed < ops) {
            boolean moved = false;
            while (posted < ops && posted - completed < depth) {
                int slot = (int) (posted % depth);
                local.putLong(slot * size, -1L);
                link.read(slot, (int) (posted % ring), posted);
                posted++;
                moved = true;
            }
            int n = link.pollRequester(wc);
            for (int i = 0; i < n; i++) {
                expect(wc, i, WcOpcode.RDMA_READ, completed, "read", completed);
                if (MessagePattern.check(local, (int) (completed % depth) * size, size, READ_TAG | (completed % ring),
                        readWhat)) {
                    checked++;
                }
                completed++;
            }
            if (stalled(moved || n > 0)) {
                throw stall("reads: " + posted + " posted, " + completed + " completed of " + ops);
            }
            progress.at(completed);
        }
        return new Outcome(ops, checked, (System.nanoTime() - t0) / 1e9);
    }

    /** An RDMA READ of ring slot 0 into the fence slot, and its completion: every write before it is placed. */
    private void fence() {
        link.read(depth, 0, FENCE);
        lastMove = System.nanoTime();
        while (link.pollRequester(wc) == 0) {
            if (stalled(false)) {
                throw stall("the fence read after a round of writes");
            }
        }
        expect(wc, 0, WcOpcode.RDMA_READ, FENCE, "fence read", -1);
    }

    private void expect(WorkCompletions c, int i, WcOpcode opcode, long wrId, String what, long seq) {
        if (!c.ok(i) || c.opcode(i) != opcode || c.wrId(i) != wrId) {
            throw fail(what + " " + seq + ": completion " + c.toString(i) + ", expected a successful " + opcode
                    + " with wr_id " + wrId);
        }
    }

    /** Notes progress; true when nothing moved for the stall limit (the caller throws: a soak never hangs). */
    private boolean stalled(boolean moved) {
        long now = System.nanoTime();
        if (moved) {
            lastMove = now;
            return false;
        }
        return now - lastMove > stallNanos;
    }

    private IllegalStateException stall(String state) {
        return fail("nothing moved for " + stallNanos / 1_000_000 + " ms: " + state);
    }

    private IllegalStateException fail(String what) {
        return new IllegalStateException(link + ": " + what);
    }
}
