package org.verbs4j.netty;

import org.verbs4j.endpoint.RdmaEndpoint;

/**
 * The messages one {@link RdmaChannel} received and has not delivered yet, in their order (a ring of cells), and the
 * RDMA READs that bring the data of the peer's rendezvous messages into the receiving half of the channel's region.
 * A rendezvous message waits for its read and holds back what came after it. Each queued message holds its receive
 * slot, so the ring never holds more than the receive depth, and one {@link #LOST}.
 *
 * <p>A cell taken with {@link #take()} keeps its contents until the next {@link #add}. Plain fields: the channel's
 * event loop uses it.
 */
final class ReceiveQueue {
    /** A message's kind in the queue: data in its receive slot. */
    static final byte DATA = 0;
    /** The peer's data in its region, to read into this side's receiving half. */
    static final byte RENDEZVOUS = 1;
    /** The peer's end of stream. */
    static final byte END = 2;
    /** A receive failed: the connection is gone (no receive slot). */
    static final byte LOST = 3;
    /** The work request id tag of a rendezvous read (the low bits: its cell). */
    private static final long READ_WR = 1L << 40;
    /** A queued rendezvous's read: not posted yet, posted, done. */
    private static final byte NOT_READ = 0;
    private static final byte READING = 1;
    private static final byte READ = 2;

    private final int[] slot;
    private final int[] length;
    private final long[] remote;
    private final byte[] kind;
    private final byte[] read;
    private int first;
    private int count;
    /** The receiving half of this side's region (null without a region), where it starts, and the reads it allows. */
    private final RegionRing sinks;
    private final long sinkBase;
    private final int maxReads;
    private int readsInFlight;

    /**
     * @param receiveDepth the endpoint's posted receives
     * @param sinks        the receiving half's allocations, or null when either side has no region
     * @param sinkBase     the receiving half's offset in the region
     * @param maxReads     the rendezvous reads in flight at most
     */
    ReceiveQueue(int receiveDepth, RegionRing sinks, long sinkBase, int maxReads) {
        int cells = receiveDepth + 1;
        this.slot = new int[cells];
        this.length = new int[cells];
        this.remote = new long[cells];
        this.kind = new byte[cells];
        this.read = new byte[cells];
        this.sinks = sinks;
        this.sinkBase = sinkBase;
        this.maxReads = maxReads;
    }

    /** {@return the messages queued} */
    int size() {
        return count;
    }

    /** {@return the receiving half's bytes, 0 without a region} */
    long receivingHalf() {
        return sinks == null ? 0 : sinks.capacity();
    }

    /**
     * Queues a message.
     *
     * @param what         its kind
     * @param receiveSlot  the receive slot it holds, -1 for none
     * @param bytes        its data bytes
     * @param remoteOffset a rendezvous's offset in the peer's region
     */
    void add(byte what, int receiveSlot, int bytes, long remoteOffset) {
        int cell = first + count;
        if (cell >= kind.length) {
            cell -= kind.length;
        }
        kind[cell] = what;
        slot[cell] = receiveSlot;
        length[cell] = bytes;
        remote[cell] = remoteOffset;
        read[cell] = NOT_READ;
        count++;
    }

    /**
     * {@return whether the oldest message may be taken} All may but a rendezvous whose read is not done; with the
     * input shut, one whose read was not posted may (it is dropped).
     */
    boolean headReady(boolean inputShutdown) {
        return kind[first] != RENDEZVOUS || read[first] == READ || inputShutdown && read[first] == NOT_READ;
    }

    /** {@return the oldest message's cell, taken from the queue} */
    int take() {
        int cell = first;
        first = cell + 1 == kind.length ? 0 : cell + 1;
        count--;
        return cell;
    }

    byte kind(int cell) {
        return kind[cell];
    }

    /** {@return the receive slot of the message in {@code cell}; -1 for a {@link #LOST}} */
    int slot(int cell) {
        return slot[cell];
    }

    /** {@return the data bytes of the message in {@code cell}} */
    int length(int cell) {
        return length[cell];
    }

    /** {@return whether the rendezvous in {@code cell} was read: its data is at {@link #oldestSink()}} */
    boolean wasRead(int cell) {
        return read[cell] == READ;
    }

    /** {@return the region offset of the oldest read's data} */
    long oldestSink() {
        return sinkBase + sinks.oldestOffset();
    }

    /** The oldest read's data was delivered: its room is free. */
    void freeSink() {
        sinks.free();
    }

    /**
     * Posts the reads of the queued rendezvous messages, in their order, as far as the reads in flight, the send queue
     * ({@code sendDepth}) and the receiving half allow; none with the input shut.
     */
    void startReads(RdmaEndpoint ep, int sendDepth, boolean inputShutdown) {
        if (sinks == null) {
            return;
        }
        int cell = first;
        for (int k = 0; k < count && readsInFlight < maxReads; k++, cell = cell + 1 == kind.length ? 0 : cell + 1) {
            if (kind[cell] != RENDEZVOUS || read[cell] != NOT_READ) {
                continue;
            }
            if (inputShutdown || ep.inFlight() >= sendDepth) {
                return;
            }
            long at = sinks.allocate(length[cell]);
            if (at < 0) {
                return; // the deliveries before it free room
            }
            ep.read(sinkBase + at, length[cell], remote[cell], readId(cell));
            read[cell] = READING;
            readsInFlight++;
        }
    }

    /** {@return the work request id of the read of the rendezvous in {@code cell}} */
    static long readId(int cell) {
        return READ_WR | cell;
    }

    /** {@return whether the send-side completion of work request {@code wrId} is a rendezvous read's} */
    static boolean isRead(long wrId) {
        return (wrId & READ_WR) != 0;
    }

    /** The read of work request {@code wrId} completed: its message may be delivered. */
    void readDone(long wrId) {
        read[(int) (wrId & 0xffff_ffffL)] = READ;
        readsInFlight--;
    }
}
