package org.verbs4j.api;

import static org.verbs4j.api.internal.WrLayout.Wc.*;

import org.verbs4j.api.internal.RawMemory;

/**
 * A reusable array of work completions in native memory ({@code struct ibv_wc[]}), filled by
 * {@link CompletionQueue#poll}. Read slot {@code i} of the last poll with the indexed getters; nothing is
 * allocated.
 *
 * <pre>{@code
 * try (WorkCompletions wc = WorkCompletions.allocate(16)) {
 *     int n = cq.poll(wc);
 *     for (int i = 0; i < n; i++) {
 *         if (wc.status(i) != WcStatus.SUCCESS) {
 *             throw new IllegalStateException("wr " + wc.wrId(i) + ": " + wc.status(i).text());
 *         }
 *         handle(wc.wrId(i), wc.opcode(i), wc.byteLength(i));
 *     }
 * }
 * }</pre>
 */
public final class WorkCompletions implements AutoCloseable {
    private final int capacity;
    private final long base;
    /** Polls in progress on other threads: {@link #close} waits for them before it frees the memory. */
    private final org.verbs4j.api.spi.CloseGuard guard = new org.verbs4j.api.spi.CloseGuard();

    private WorkCompletions(int capacity) {
        this.capacity = capacity;
        this.base = RawMemory.allocate((long) capacity * WC_SIZE);
    }

    /**
     * Allocates native memory for {@code capacity} {@code struct ibv_wc}s (48 bytes each); {@link #close} frees it.
     *
     * @param capacity the number of completions, at least 1
     * @return the new array, which the caller closes
     * @throws IllegalArgumentException when {@code capacity} is below 1
     */
    public static WorkCompletions allocate(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity " + capacity + ": need at least 1");
        }
        return new WorkCompletions(capacity);
    }

    /** {@return how many completions the array holds: the most one poll returns} */
    public int capacity() {
        return capacity;
    }

    /** {@return native address of slot 0: what backends pass to {@code ibv_poll_cq}} */
    public long address() {
        checkOpen();
        return base;
    }

    /**
     * For backends: enters a poll that writes this array and returns the address of slot 0; the memory is
     * not freed until {@link #leave()}, which must follow in a {@code finally}, even when {@link #close()}
     * runs on another thread meanwhile. Throws {@link IllegalStateException} when the array is closed.
     *
     * @return the native address of slot 0
     */
    public long enter() {
        if (!guard.tryEnter()) {
            throw closed();
        }
        return base;
    }

    /** For backends: leaves the poll {@link #enter() entered}. */
    public void leave() {
        guard.leave();
    }

    private void checkOpen() {
        if (guard.isShut()) {
            throw closed();
        }
    }

    private static IllegalStateException closed() {
        return new IllegalStateException("WorkCompletions is closed");
    }

    private long slot(int i) {
        checkOpen();
        if (i < 0 || i >= capacity) {
            throw new IndexOutOfBoundsException("completion " + i + " of " + capacity);
        }
        return base + (long) i * WC_SIZE;
    }

    /**
     * {@return {@code wr_id} of completion {@code i}}
     * @param i the completion's index, 0 to the count the poll returned, exclusive
     */
    public long wrId(int i) {
        return RawMemory.getLong(slot(i) + WR_ID_OFFSET);
    }

    /**
     * The raw status value; {@link #status(int)} maps it.
     *
     * @param i the index, from 0 to the count, exclusive
     * @return the native {@code status} value
     */
    public int statusValue(int i) {
        return RawMemory.getInt(slot(i) + STATUS_OFFSET);
    }

    /**
     * {@return {@code status} of completion {@code i}}
     * @param i the completion's index, 0 to the count the poll returned, exclusive
     */
    public WcStatus status(int i) {
        return WcStatus.of(statusValue(i));
    }

    /**
     * True for {@link WcStatus#SUCCESS}.
     *
     * @param i the index, from 0 to the count, exclusive
     * @return true when completion {@code i} succeeded
     */
    public boolean ok(int i) {
        return statusValue(i) == 0;
    }

    /**
     * Only valid for a successful completion (libibverbs leaves it undefined otherwise).
     *
     * @param i the index, from 0 to the count, exclusive
     * @return the opcode, or null for an unknown value
     */
    public WcOpcode opcode(int i) {
        return WcOpcode.of(opcodeValue(i));
    }

    /**
     * {@return {@code opcode} of completion {@code i}}
     * @param i the completion's index, 0 to the count the poll returned, exclusive
     */
    public int opcodeValue(int i) {
        return RawMemory.getInt(slot(i) + OPCODE_OFFSET);
    }

    /**
     * {@return {@code vendor_err} of completion {@code i}}
     * @param i the completion's index, 0 to the count the poll returned, exclusive
     */
    public int vendorError(int i) {
        return RawMemory.getInt(slot(i) + VENDOR_ERR_OFFSET);
    }

    /**
     * Bytes received (receive completions; for UD it includes the 40-byte GRH).
     *
     * @param i the index, from 0 to the count, exclusive
     * @return {@code byte_len}
     */
    public int byteLength(int i) {
        return RawMemory.getInt(slot(i) + BYTE_LEN_OFFSET);
    }

    /**
     * Immediate data in host order, valid when {@link #flags(int)} has {@link WcFlags#WITH_IMM}.
     *
     * @param i the index, from 0 to the count, exclusive
     * @return {@code imm_data}, host order
     */
    public int immData(int i) {
        return Integer.reverseBytes(RawMemory.getInt(slot(i) + IMM_DATA_OFFSET));
    }

    /**
     * {@return whether completion {@code i} carries immediate data ({@code IBV_WC_WITH_IMM} in {@code wc_flags})}
     * @param i the completion's index, 0 to the count the poll returned, exclusive
     */
    public boolean hasImmData(int i) {
        return (flags(i) & WcFlags.WITH_IMM) != 0;
    }

    /**
     * {@return {@code qp_num} of completion {@code i}}
     * @param i the completion's index, 0 to the count the poll returned, exclusive
     */
    public int qpNum(int i) {
        return RawMemory.getInt(slot(i) + QP_NUM_OFFSET);
    }

    /**
     * The sender's QP number (UD receives).
     *
     * @param i the index, from 0 to the count, exclusive
     * @return {@code src_qp}
     */
    public int srcQp(int i) {
        return RawMemory.getInt(slot(i) + SRC_QP_OFFSET);
    }

    /**
     * {@link WcFlags} bits.
     *
     * @param i the index, from 0 to the count, exclusive
     * @return {@code wc_flags}
     */
    public int flags(int i) {
        return RawMemory.getInt(slot(i) + WC_FLAGS_OFFSET);
    }

    /**
     * {@return {@code pkey_index} of completion {@code i}}
     * @param i the completion's index, 0 to the count the poll returned, exclusive
     */
    public int pkeyIndex(int i) {
        return RawMemory.getUShort(slot(i) + PKEY_INDEX_OFFSET);
    }

    /**
     * The sender's LID (UD on InfiniBand).
     *
     * @param i the index, from 0 to the count, exclusive
     * @return {@code slid}
     */
    public int slid(int i) {
        return RawMemory.getUShort(slot(i) + SLID_OFFSET);
    }

    /**
     * {@return {@code sl} of completion {@code i}}
     * @param i the completion's index, 0 to the count the poll returned, exclusive
     */
    public int sl(int i) {
        return RawMemory.getUByte(slot(i) + SL_OFFSET);
    }

    /**
     * {@return {@code dlid_path_bits} of completion {@code i}}
     * @param i the completion's index, 0 to the count the poll returned, exclusive
     */
    public int dlidPathBits(int i) {
        return RawMemory.getUByte(slot(i) + DLID_PATH_BITS_OFFSET);
    }

    /**
     * Copies completion {@code i} into slot {@code j} of {@code to} (which may be this array), for code that
     * filters completions or keeps some for later. Allocation-free.
     *
     * @param i the index, from 0 to the count, exclusive
     * @param to the array to copy into
     * @param j the index in {@code to}
     */
    public void copy(int i, WorkCompletions to, int j) {
        RawMemory.copy(slot(i), to.slot(j), WC_SIZE);
    }

    /**
     * One line for logs and assertion messages (allocates).
     *
     * @param i the index, from 0 to the count, exclusive
     * @return the line
     */
    public String toString(int i) {
        WcStatus s = status(i);
        return "wc[wr_id " + wrId(i) + ", status " + (s == null ? statusValue(i) : s + " (" + s.text() + ")")
                + (ok(i) ? ", opcode " + (opcode(i) != null ? opcode(i) : "0x" + Integer.toHexString(opcodeValue(i)))
                        + ", byte_len " + byteLength(i) : ", vendor_err 0x"
                        + Integer.toHexString(vendorError(i)))
                + ", qp 0x" + Integer.toHexString(qpNum(i)) + (hasImmData(i) ? ", imm 0x" + Integer.toHexString(immData(i)) : "")
                + "]";
    }

    /**
     * Frees the native memory, once the polls in progress on other threads have returned. Idempotent.
     * Reading the completions is not thread-safe: close the array from the thread that reads it, or after
     * that thread is done.
     */
    @Override
    public void close() {
        if (guard.shut()) {
            guard.awaitIdle("WorkCompletions");
            RawMemory.free(base);
        }
    }
}
