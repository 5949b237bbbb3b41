package org.verbs4j.softiwarp.wire;

/**
 * The receive side's sequencing checks (RFC 5041 §5): per untagged queue, MSN starting at 1 and incremented by a
 * last segment, MO equal to the bytes of the message already received; for tagged messages, a continuation keeps
 * the STag and continues the tagged offset. Only bookkeeping: placing bytes is the receive queue's job.
 */
final class DdpReassembly {
    private final int[] expectedMsn = new int[Ddp.QUEUES];
    private final int[] expectedOffset = new int[Ddp.QUEUES];
    private boolean taggedOpen;
    private int taggedStag;
    private long taggedNext;

    DdpReassembly() {
        java.util.Arrays.fill(expectedMsn, 1);
    }

    /** Accounts an untagged segment; null when it is in sequence. */
    WireError untagged(int queue, int msn, int offset, int length, boolean last) {
        if (msn != expectedMsn[queue]) {
            return WireError.DDP_BAD_MSN;
        }
        if (offset != expectedOffset[queue]) {
            return WireError.DDP_BAD_OFFSET;
        }
        if (last) {
            expectedMsn[queue]++;
            expectedOffset[queue] = 0;
        } else {
            expectedOffset[queue] = offset + length;
        }
        return null;
    }

    /** Accounts a tagged segment; null when it starts a message or continues the open one. */
    WireError tagged(int stag, long offset, int length, boolean last) {
        if (taggedOpen && (stag != taggedStag || offset != taggedNext)) {
            return WireError.DDP_BAD_TAGGED_CONTINUATION;
        }
        taggedOpen = !last;
        taggedStag = stag;
        taggedNext = offset + length;
        return null;
    }

    /** The MSN the next message on a queue will carry. */
    int expectedMsn(int queue) {
        return expectedMsn[queue];
    }
}
