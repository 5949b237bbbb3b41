package org.verbs4j.api;

import static org.verbs4j.api.internal.WrLayout.SendWr.*;

import org.verbs4j.api.internal.RawMemory;

/**
 * A reusable array of send work requests in native memory ({@code struct ibv_send_wr[]}, each with its
 * own {@code struct ibv_sge[maxSge]}), posted with {@link QueuePair#postSend}. Fill slots through the
 * flyweight {@link #at(int)}, say how many to post with {@link #count(int)}; slot {@code i}'s {@code next}
 * points at slot {@code i+1}, so the first {@code count} slots are one chain. Nothing is allocated
 * after {@link #allocate}: set a request up once and post it a million times.
 *
 * <pre>{@code
 * try (SendRequests wrs = SendRequests.allocate(16, 2)) {
 *     wrs.at(0).wrId(1).opcode(Opcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
 *             .sge(local.address(), 64, local.lkey()).rdma(remoteAddr, remoteRkey);
 *     wrs.count(1);
 *     qp.postSend(wrs);
 * }
 * }</pre>
 *
 * <p>Not thread-safe: one thread fills and posts it. The memory it points at must stay registered
 * until the request completes.
 */
public final class SendRequests extends WorkRequests {
    private final SendRequest flyweight = new SendRequest(this);

    private SendRequests(int capacity, int maxSge) {
        super("SendRequests", "send requests", WR_SIZE, capacity, maxSge);
    }

    /**
     * {@code capacity} requests of up to {@code maxSge} scatter/gather entries each, zeroed.
     *
     * @param capacity the number of entries, at least 1
     * @param maxSge the most scatter/gather entries per request
     * @return the new send requests, which the caller closes
     */
    public static SendRequests allocate(int capacity, int maxSge) {
        return new SendRequests(capacity, maxSge);
    }

    /**
     * The flyweight over slot {@code i}: the same object for every call, valid until the next {@code at}.
     *
     * @param i the index, from 0 to the count, exclusive
     * @return the flyweight, pointed at request {@code i} (the same object for every call)
     */
    public SendRequest at(int i) {
        point(flyweight, i);
        return flyweight;
    }

    /**
     * Post slots 0..n-1 as one chain from now on.
     *
     * @param n how many requests to post, 1..capacity
     * @return this request
     */
    public SendRequests count(int n) {
        chain(n);
        return this;
    }

    /** The view of one {@code struct ibv_send_wr}; setters return {@code this}. */
    public static final class SendRequest extends Slot {

        SendRequest(SendRequests owner) {
            super(owner);
        }

        /**
         * Zeroes the request's fields and its entries (keeps its links).
         *
         * @return this request
         */
        public SendRequest clear() {
            zero();
            return this;
        }

        /**
         * Comes back in the completion's {@link WorkCompletions#wrId}.
         *
         * @param id the work request id
         * @return this request
         */
        public SendRequest wrId(long id) {
            putWrId(id);
            return this;
        }

        /**
         * Sets the opcode ({@code opcode} of {@code struct ibv_send_wr}).
         *
         * @param opcode what the request does
         * @return this request
         */
        public SendRequest opcode(Opcode opcode) {
            RawMemory.putInt(wr() + OPCODE_OFFSET, opcode.value());
            return this;
        }

        /**
         * {@link SendFlags} bits.
         *
         * @param sendFlags {@link SendFlags} bits
         * @return this request
         */
        public SendRequest flags(int sendFlags) {
            RawMemory.putInt(wr() + SEND_FLAGS_OFFSET, sendFlags);
            return this;
        }

        /**
         * Immediate data, host order (sent big endian, as {@code htonl} would).
         *
         * @param imm the immediate data (host order)
         * @return this request
         */
        public SendRequest immData(int imm) {
            RawMemory.putInt(wr() + IMM_DATA_OFFSET, Integer.reverseBytes(imm));
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
        public SendRequest sge(int j, MemoryRegion mr, long offset, int length) {
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
        public SendRequest sge(MemoryRegion mr, long offset, int length) {
            putSge(0, mr, offset, length);
            putNumSge(1);
            return this;
        }

        /**
         * Scatter/gather entry {@code j}: {@code length} bytes at the raw address {@code addr} of a region with
         * {@code lkey}. Unchecked: the device checks the key, but with {@link SendFlags#INLINE} the provider
         * copies from {@code addr} at post time, and an address that is not readable memory then crashes the
         * JVM. Prefer {@link #sge(int, MemoryRegion, long, int)}.
         *
         * @param j the entry, 0..{@code maxSge-1}
         * @param addr the native address
         * @param length the length in bytes
         * @param lkey the local key ({@code lkey}) of the memory region
         * @return this request
         */
        public SendRequest sge(int j, long addr, int length, int lkey) {
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
        public SendRequest sge(long addr, int length, int lkey) {
            putSge(0, addr, length, lkey);
            putNumSge(1);
            return this;
        }

        /**
         * How many of the entries this request uses (0 for a zero-byte send or write with immediate).
         *
         * @param n the number of entries, 0..{@code maxSge}
         * @return this request
         */
        public SendRequest numSge(int n) {
            putNumSge(n);
            return this;
        }

        /**
         * Target of an RDMA write or read.
         *
         * @param remoteAddress the peer's virtual address
         * @param rkey the remote key ({@code rkey}) of the peer's memory region
         * @return this request
         */
        public SendRequest rdma(long remoteAddress, int rkey) {
            RawMemory.putLong(wr() + RDMA_REMOTE_ADDR_OFFSET, remoteAddress);
            RawMemory.putInt(wr() + RDMA_RKEY_OFFSET, rkey);
            return this;
        }

        /**
         * Target and operands of an atomic: {@code compareAdd} is the compare value (CAS) or the addend (FAA).
         *
         * @param remoteAddress the peer's virtual address
         * @param rkey the remote key ({@code rkey}) of the peer's memory region
         * @param compareAdd the compare value (compare and swap) or the addend (fetch and add)
         * @param swap the swap value (compare and swap; ignored for fetch and add)
         * @return this request
         */
        public SendRequest atomic(long remoteAddress, int rkey, long compareAdd, long swap) {
            RawMemory.putLong(wr() + ATOMIC_REMOTE_ADDR_OFFSET, remoteAddress);
            RawMemory.putInt(wr() + ATOMIC_RKEY_OFFSET, rkey);
            RawMemory.putLong(wr() + ATOMIC_COMPARE_ADD_OFFSET, compareAdd);
            RawMemory.putLong(wr() + ATOMIC_SWAP_OFFSET, swap);
            return this;
        }

        /**
         * Destination of a UD send. The request holds the address handle's native pointer, which the provider
         * reads at post time: keep {@code ah} open until the send has completed (a handle closed before the
         * post is refused here only if it is closed when this is called).
         *
         * @param ah the address handle
         * @param remoteQpn the remote queue pair number
         * @param remoteQkey the remote Q_Key
         * @return this request
         */
        public SendRequest ud(AddressHandle ah, int remoteQpn, int remoteQkey) {
            RawMemory.putLong(wr() + UD_AH_OFFSET, ah.handle());
            RawMemory.putInt(wr() + UD_REMOTE_QPN_OFFSET, remoteQpn);
            RawMemory.putInt(wr() + UD_REMOTE_QKEY_OFFSET, remoteQkey);
            return this;
        }

        /** {@return the WR id} */
        public long wrId() {
            return getWrId();
        }

        /** {@return the opcode value} */
        public int opcodeValue() {
            return RawMemory.getInt(wr() + OPCODE_OFFSET);
        }

        /** {@return the flags} */
        public int flags() {
            return RawMemory.getInt(wr() + SEND_FLAGS_OFFSET);
        }

        /** {@return the num SGE} */
        public int numSge() {
            return getNumSge();
        }

        /** {@return total bytes of the used entries} */
        public long totalLength() {
            return usedLength();
        }
    }
}
