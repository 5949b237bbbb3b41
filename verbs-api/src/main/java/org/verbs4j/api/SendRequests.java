package org.verbs4j.api;

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
public final class SendRequests implements AutoCloseable {
    /** {@code sizeof(struct ibv_send_wr)}. */
    public static final int WR_SIZE = 128;
    public static final int WR_ID_OFFSET = 0;
    public static final int NEXT_OFFSET = 8;
    public static final int SG_LIST_OFFSET = 16;
    public static final int NUM_SGE_OFFSET = 24;
    public static final int OPCODE_OFFSET = 28;
    public static final int SEND_FLAGS_OFFSET = 32;
    public static final int IMM_DATA_OFFSET = 36;
    public static final int RDMA_REMOTE_ADDR_OFFSET = 40;
    public static final int RDMA_RKEY_OFFSET = 48;
    public static final int ATOMIC_REMOTE_ADDR_OFFSET = 40;
    public static final int ATOMIC_COMPARE_ADD_OFFSET = 48;
    public static final int ATOMIC_SWAP_OFFSET = 56;
    public static final int ATOMIC_RKEY_OFFSET = 64;
    public static final int UD_AH_OFFSET = 40;
    public static final int UD_REMOTE_QPN_OFFSET = 48;
    public static final int UD_REMOTE_QKEY_OFFSET = 52;
    /** {@code sizeof(struct ibv_sge)}. */
    public static final int SGE_SIZE = 16;
    public static final int SGE_ADDR_OFFSET = 0;
    public static final int SGE_LENGTH_OFFSET = 8;
    public static final int SGE_LKEY_OFFSET = 12;

    private final int capacity;
    private final int maxSge;
    private final long base;
    private final long sgeBase;
    private final SendRequest flyweight = new SendRequest(this);
    private int count;
    private boolean closed;

    private SendRequests(int capacity, int maxSge) {
        this.capacity = capacity;
        this.maxSge = maxSge;
        this.base = RawMemory.allocate((long) capacity * (WR_SIZE + (long) maxSge * SGE_SIZE));
        this.sgeBase = base + (long) capacity * WR_SIZE;
        for (int i = 0; i < capacity; i++) {
            RawMemory.putLong(base + (long) i * WR_SIZE + SG_LIST_OFFSET, sgeBase + (long) i * maxSge * SGE_SIZE);
        }
        count(1);
    }

    /** {@code capacity} requests of up to {@code maxSge} scatter/gather entries each, zeroed. */
    public static SendRequests allocate(int capacity, int maxSge) {
        if (capacity < 1 || maxSge < 0) {
            throw new IllegalArgumentException("capacity " + capacity + " and maxSge " + maxSge + ": need capacity >= 1, maxSge >= 0");
        }
        return new SendRequests(capacity, maxSge);
    }

    /** The flyweight over slot {@code i}: the same object for every call, valid until the next {@code at}. */
    public SendRequest at(int i) {
        checkOpen();
        if (i < 0 || i >= capacity) {
            throw new IndexOutOfBoundsException("slot " + i + " of " + capacity + " send requests");
        }
        flyweight.address = base + (long) i * WR_SIZE;
        flyweight.sgeAddress = sgeBase + (long) i * maxSge * SGE_SIZE;
        flyweight.maxSge = maxSge;
        return flyweight;
    }

    /** Post slots 0..n-1 as one chain from now on. */
    public SendRequests count(int n) {
        checkOpen();
        if (n < 1 || n > capacity) {
            throw new IllegalArgumentException("count " + n + ": must be 1.." + capacity);
        }
        for (int i = 0; i < n - 1; i++) {
            RawMemory.putLong(base + (long) i * WR_SIZE + NEXT_OFFSET, base + (long) (i + 1) * WR_SIZE);
        }
        RawMemory.putLong(base + (long) (n - 1) * WR_SIZE + NEXT_OFFSET, 0L);
        count = n;
        return this;
    }

    /** How many slots a post sends. */
    public int count() {
        return count;
    }

    public int capacity() {
        return capacity;
    }

    public int maxSge() {
        return maxSge;
    }

    /** Native address of slot 0: what backends pass to {@code ibv_post_send}. */
    public long address() {
        checkOpen();
        return base;
    }

    /** The slot index of a native request address inside this array (for a failed post's {@code bad_wr}). */
    public int indexOf(long wrAddress) {
        long off = wrAddress - base;
        return off >= 0 && off < (long) capacity * WR_SIZE ? (int) (off / WR_SIZE) : -1;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("SendRequests is closed");
        }
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            RawMemory.free(base);
        }
    }

    /** The view of one {@code struct ibv_send_wr}; setters return {@code this}. */
    public static final class SendRequest {
        private final SendRequests owner;
        private long address;
        private long sgeAddress;
        private int maxSge;

        SendRequest(SendRequests owner) {
            this.owner = owner;
        }

        /** The request's address, after checking that its array is still open (a closed one is freed). */
        private long wr() {
            if (owner.closed) {
                throw new IllegalStateException("SendRequests is closed");
            }
            return address;
        }

        /** Zeroes the request's fields and its entries (keeps its links). */
        public SendRequest clear() {
            long next = RawMemory.getLong(wr() + NEXT_OFFSET);
            RawMemory.zero(wr(), WR_SIZE);
            RawMemory.putLong(wr() + NEXT_OFFSET, next);
            RawMemory.putLong(wr() + SG_LIST_OFFSET, sgeAddress);
            RawMemory.zero(sgeAddress, (long) maxSge * SGE_SIZE);
            return this;
        }

        /** Comes back in the completion's {@link WorkCompletions#wrId}. */
        public SendRequest wrId(long id) {
            RawMemory.putLong(wr() + WR_ID_OFFSET, id);
            return this;
        }

        public SendRequest opcode(Opcode opcode) {
            RawMemory.putInt(wr() + OPCODE_OFFSET, opcode.value());
            return this;
        }

        /** {@link SendFlags} bits. */
        public SendRequest flags(int sendFlags) {
            RawMemory.putInt(wr() + SEND_FLAGS_OFFSET, sendFlags);
            return this;
        }

        /** Immediate data, host order (sent big endian, as {@code htonl} would). */
        public SendRequest immData(int imm) {
            RawMemory.putInt(wr() + IMM_DATA_OFFSET, Integer.reverseBytes(imm));
            return this;
        }

        /** Scatter/gather entry {@code j}: {@code length} bytes at {@code addr} of a region with {@code lkey}. */
        public SendRequest sge(int j, long addr, int length, int lkey) {
            if (j < 0 || j >= maxSge) {
                throw new IndexOutOfBoundsException("SGE " + j + " of " + maxSge);
            }
            wr(); // checks that the array is open
            long s = sgeAddress + (long) j * SGE_SIZE;
            RawMemory.putLong(s + SGE_ADDR_OFFSET, addr);
            RawMemory.putInt(s + SGE_LENGTH_OFFSET, length);
            RawMemory.putInt(s + SGE_LKEY_OFFSET, lkey);
            return this;
        }

        /** One entry: sets entry 0 and {@code num_sge = 1}. */
        public SendRequest sge(long addr, int length, int lkey) {
            return sge(0, addr, length, lkey).numSge(1);
        }

        /** How many of the entries this request uses (0 for a zero-byte send or write with immediate). */
        public SendRequest numSge(int n) {
            if (n < 0 || n > maxSge) {
                throw new IllegalArgumentException("num_sge " + n + " of at most " + maxSge);
            }
            RawMemory.putInt(wr() + NUM_SGE_OFFSET, n);
            return this;
        }

        /** Target of an RDMA write or read. */
        public SendRequest rdma(long remoteAddress, int rkey) {
            RawMemory.putLong(wr() + RDMA_REMOTE_ADDR_OFFSET, remoteAddress);
            RawMemory.putInt(wr() + RDMA_RKEY_OFFSET, rkey);
            return this;
        }

        /** Target and operands of an atomic: {@code compareAdd} is the compare value (CAS) or the addend (FAA). */
        public SendRequest atomic(long remoteAddress, int rkey, long compareAdd, long swap) {
            RawMemory.putLong(wr() + ATOMIC_REMOTE_ADDR_OFFSET, remoteAddress);
            RawMemory.putInt(wr() + ATOMIC_RKEY_OFFSET, rkey);
            RawMemory.putLong(wr() + ATOMIC_COMPARE_ADD_OFFSET, compareAdd);
            RawMemory.putLong(wr() + ATOMIC_SWAP_OFFSET, swap);
            return this;
        }

        /** Destination of a UD send. */
        public SendRequest ud(AddressHandle ah, int remoteQpn, int remoteQkey) {
            RawMemory.putLong(wr() + UD_AH_OFFSET, ah.handle());
            RawMemory.putInt(wr() + UD_REMOTE_QPN_OFFSET, remoteQpn);
            RawMemory.putInt(wr() + UD_REMOTE_QKEY_OFFSET, remoteQkey);
            return this;
        }

        public long wrId() {
            return RawMemory.getLong(wr() + WR_ID_OFFSET);
        }

        public int opcodeValue() {
            return RawMemory.getInt(wr() + OPCODE_OFFSET);
        }

        public int flags() {
            return RawMemory.getInt(wr() + SEND_FLAGS_OFFSET);
        }

        public int numSge() {
            return RawMemory.getInt(wr() + NUM_SGE_OFFSET);
        }

        /** Total bytes of the used entries. */
        public long totalLength() {
            long sum = 0;
            int n = numSge();
            for (int j = 0; j < n; j++) {
                sum += RawMemory.getUInt(sgeAddress + (long) j * SGE_SIZE + SGE_LENGTH_OFFSET);
            }
            return sum;
        }

        /** Native address of this request. */
        public long address() {
            return address;
        }
    }
}
