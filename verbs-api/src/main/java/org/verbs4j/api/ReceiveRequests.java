package org.verbs4j.api;

import static org.verbs4j.api.internal.WrLayout.RecvWr.*;

/**
 * A reusable array of receive work requests in native memory ({@code struct ibv_recv_wr[]} with their
 * {@code struct ibv_sge}s), posted with {@link QueuePair#postReceive} or
 * {@link SharedReceiveQueue#postReceive}. Works like {@link SendRequests}.
 *
 * <pre>{@code
 * try (ReceiveRequests rrs = ReceiveRequests.allocate(64, 1)) {
 *     for (int i = 0; i < 64; i++) {
 *         rrs.at(i).wrId(i).sge(buf.address() + i * 4096L, 4096, buf.lkey());
 *     }
 *     rrs.count(64);
 *     qp.postReceive(rrs);
 * }
 * }</pre>
 */
public final class ReceiveRequests extends WorkRequests {
    private final ReceiveRequest flyweight = new ReceiveRequest(this);

    private ReceiveRequests(int capacity, int maxSge) {
        super("ReceiveRequests", "receive requests", WR_SIZE, capacity, maxSge);
    }

    /**
     * {@code capacity} requests of up to {@code maxSge} scatter/gather entries each, zeroed.
     *
     * @param capacity the number of entries, at least 1
     * @param maxSge the most scatter/gather entries per request
     * @return the new receive requests, which the caller closes
     */
    public static ReceiveRequests allocate(int capacity, int maxSge) {
        return new ReceiveRequests(capacity, maxSge);
    }

    /**
     * The flyweight over slot {@code i}: the same object for every call, valid until the next {@code at}.
     *
     * @param i the index, from 0 to the count, exclusive
     * @return the flyweight, pointed at request {@code i} (the same object for every call)
     */
    public ReceiveRequest at(int i) {
        point(flyweight, i);
        return flyweight;
    }

    /**
     * Post slots 0..n-1 as one chain from now on.
     *
     * @param n how many requests to post, 1..capacity
     * @return this request
     */
    public ReceiveRequests count(int n) {
        chain(n);
        return this;
    }

    /** The view of one {@code struct ibv_recv_wr}; setters return {@code this}. */
    public static final class ReceiveRequest extends Slot {

        ReceiveRequest(ReceiveRequests owner) {
            super(owner);
        }

        /**
         * Zeroes the request's fields and its entries (keeps its links).
         *
         * @return this request
         */
        public ReceiveRequest clear() {
            zero();
            return this;
        }

        /**
         * Comes back in the completion's {@link WorkCompletions#wrId}.
         *
         * @param id the work request id
         * @return this request
         */
        public ReceiveRequest wrId(long id) {
            putWrId(id);
            return this;
        }

        /**
         * Scatter/gather entry {@code j}: {@code length} bytes at {@code offset} in {@code mr}, checked to lie
         * inside the open region. The checked way to fill an entry.
         *
         * @param j the entry, 0..{@code maxSge-1}
         * @param mr the memory region
         * @param offset the offset in bytes
         * @param length the length in bytes
         * @return this request
         */
        public ReceiveRequest sge(int j, MemoryRegion mr, long offset, int length) {
            putSge(j, mr, offset, length);
            return this;
        }

        /**
         * One checked entry: sets entry 0 to {@code length} bytes at {@code offset} in {@code mr}, and {@code num_sge =
         * 1}.
         *
         * @param mr the memory region
         * @param offset the offset in bytes
         * @param length the length in bytes
         * @return this request
         */
        public ReceiveRequest sge(MemoryRegion mr, long offset, int length) {
            putSge(0, mr, offset, length);
            putNumSge(1);
            return this;
        }

        /**
         * Scatter/gather entry {@code j}: {@code length} bytes at the raw address {@code addr} of a region with
         * {@code lkey}. Unchecked (the device checks the key when data arrives). Prefer {@link #sge(int, MemoryRegion, long, int)}.
         *
         * @param j the entry, 0..{@code maxSge-1}
         * @param addr the native address
         * @param length the length in bytes
         * @param lkey the local key ({@code lkey}) of the memory region
         * @return this request
         */
        public ReceiveRequest sge(int j, long addr, int length, int lkey) {
            putSge(j, addr, length, lkey);
            return this;
        }

        /**
         * One raw, unchecked entry (see {@link #sge(int, long, int, int)}): sets entry 0 and {@code num_sge = 1}.
         *
         * @param addr the native address
         * @param length the length in bytes
         * @param lkey the local key ({@code lkey}) of the memory region
         * @return this request
         */
        public ReceiveRequest sge(long addr, int length, int lkey) {
            putSge(0, addr, length, lkey);
            putNumSge(1);
            return this;
        }

        /**
         * How many of the entries this request uses.
         *
         * @param n the number of entries, 0..{@code maxSge}
         * @return this request
         */
        public ReceiveRequest numSge(int n) {
            putNumSge(n);
            return this;
        }

        /** {@return the WR id} */
        public long wrId() {
            return getWrId();
        }

        /** {@return the num SGE} */
        public int numSge() {
            return getNumSge();
        }

        /** {@return total bytes of the used entries: the most a receive into them can take} */
        public long totalLength() {
            return usedLength();
        }
    }
}
