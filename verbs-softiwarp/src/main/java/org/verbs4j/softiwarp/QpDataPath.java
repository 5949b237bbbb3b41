package org.verbs4j.softiwarp;

import static org.verbs4j.api.internal.WrLayout.Wr.NUM_SGE;
import static org.verbs4j.api.internal.WrLayout.Wr.SGE_ADDR;
import static org.verbs4j.api.internal.WrLayout.Wr.SGE_LENGTH;
import static org.verbs4j.api.internal.WrLayout.Wr.SGE_LKEY;
import static org.verbs4j.api.internal.WrLayout.Wr.SGE_SIZE;
import static org.verbs4j.api.internal.WrLayout.Wr.SG_LIST;
import static org.verbs4j.api.internal.WrLayout.Wr.WR_ID;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.verbs4j.api.Access;
import org.verbs4j.api.AsyncEvent;
import org.verbs4j.api.AsyncEventType;
import org.verbs4j.api.Opcode;
import org.verbs4j.api.SendFlags;
import org.verbs4j.api.WcFlags;
import org.verbs4j.api.WcOpcode;
import org.verbs4j.api.WcStatus;
import org.verbs4j.api.internal.RawMemory;
import org.verbs4j.api.internal.WrLayout.RecvWr;
import org.verbs4j.api.internal.WrLayout.SendWr;
import org.verbs4j.softiwarp.wire.BufferAddress;
import org.verbs4j.softiwarp.wire.FpduSink;
import org.verbs4j.softiwarp.wire.Gather;
import org.verbs4j.softiwarp.wire.MpaConnection;
import org.verbs4j.softiwarp.wire.WireException;

/**
 * The data path of one connected {@link SoftQueuePair}: it moves the QP's work requests over its
 * {@link MpaConnection} and places what the peer sends into registered memory.
 *
 * <h2>Progress design</h2>
 * <ul>
 * <li><b>Transmit</b> is owned by whoever holds the send queue's consumer token ({@link WorkQueue#tryConsume()}, one
 * compare-and-set, never waited for): a post, the receive side (to answer a Read Request or after a Read Response
 * freed an ORD slot), a CQ poll, or the progress thread when the socket became writable. The holder writes into the
 * non-blocking socket what it takes and returns: a full socket leaves the message half out, the QP is marked
 * {@linkplain #wantsWrite() wanting write}, and the next CQ poll resumes it, or the progress thread when nobody
 * polls ({@link ProgressEngine}). A poster never waits; a peer that
 * reads nothing for the connection's time-out ends the QP (ERR, flush).</li>
 * <li><b>Receive</b> is owned by whoever wins {@code rxOwner} (compare-and-set, never waited for): a
 * {@link SoftCompletionQueue#poll} of a CQ the QP completes into, or the context's {@link ProgressEngine} thread
 * when the socket is readable, so one-sided targets (Write and Read Request) are served with no application
 * thread involved, and completion channels fire while nobody polls.</li>
 * <li>Errors found while a token is held are only recorded; the Terminate, the move to ERR and the flush happen
 * after the tokens are given back, so a flush (which takes the tokens, send before receive) never waits for its
 * own thread.</li>
 * </ul>
 * The steady state allocates nothing: the queues, ORQ, IRQ and the current receive live in preallocated arrays
 * and native memory, the payloads are copied between the connection's direct buffers and the regions.
 */
final class QpDataPath implements FpduSink {
    private static final Logger LOG = LoggerFactory.getLogger(QpDataPath.class);

    /** RDMAP opcodes (RFC 5040). */
    static final int OP_WRITE = 0;
    static final int OP_READ_RESPONSE = 2;
    static final int OP_SEND = 3;
    static final int OP_SEND_INVALIDATE = 4;
    static final int OP_SEND_SE = 5;
    static final int OP_SEND_SE_INVALIDATE = 6;
    /** RFC 7306 opcodes, only on a connection that negotiated them (verbs4j peers). */
    static final int OP_IMMEDIATE = 8;
    static final int OP_IMMEDIATE_SE = 9;
    /** RFC 7306 atomic operation codes. */
    static final int ATOMIC_FETCH_ADD = 0;
    static final int ATOMIC_SWAP = 1;
    static final int ATOMIC_COMPARE_SWAP = 2;
    /** verbs4j's mark in bytes 4-7 of Immediate Data: alone (a Write with immediate) or for the next Send. */
    static final int IMMEDIATE_ALONE = 0;
    static final int IMMEDIATE_FOR_SEND = 1;

    /** Terminate layers, error types and codes (RFC 5040 section 4.8, RFC 5041 section 7, siw's iwarp.h). */
    static final int LAYER_RDMAP = 0;
    static final int LAYER_DDP = 1;
    static final int RDMAP_REMOTE_PROTECTION = 1;
    static final int RDMAP_REMOTE_OPERATION = 2;
    static final int RDMAP_UNEXPECTED_OPCODE = 0x06;
    static final int RDMAP_CATASTROPHIC_STREAM = 0x07;
    static final int DDP_CATASTROPHIC = 0;
    static final int DDP_TAGGED = 1;
    static final int DDP_UNTAGGED = 2;
    /** Also what siw sends for a Send longer than the receive (RFC 5041's 0x05 "too long" is not used by siw). */
    static final int DDP_UT_NO_BUFFER = 0x02;
    static final int RDMAP_CANNOT_INVALIDATE = 0x09;
    static final int RDMAP_LOCAL_CATASTROPHIC = 0;
    static final int RDMAP_UNSPECIFIED = 0xFF;

    /**
     * Every Atomic Request of the JVM executes under this lock, so atomics on one region are atomic with respect
     * to each other (ATOMIC_HCA: not with respect to the CPU's own accesses). Not the posting hot path.
     */
    private static final Object ATOMICS = new Object();
    /** How long a woken read waits for another thread's write to the socket to end (a 64 KiB write: about 20 µs). */
    private static final long PUMP_WAIT_NANOS = 100_000;

    private static final int OK = WcStatus.SUCCESS.value();
    private static final int FLUSH = WcStatus.WR_FLUSH_ERR.value();

    /** The longest message this data path sends: 2 GiB - 1 (DDP allows 4 GiB - 1; lengths here are ints). */
    private static final long MAX_MESSAGE = Integer.MAX_VALUE;

    private static final int TX_NONE = 0;
    private static final int TX_WQE = 1;
    private static final int TX_READ_REQUEST = 2;
    private static final int TX_READ_RESPONSE = 3;
    private static final int TX_ATOMIC_REQUEST = 4;
    private static final int TX_ATOMIC_RESPONSE = 5;
    /** The first of a request's two messages: Write then Immediate Data, or Immediate Data then Send. */
    private static final int TX_WQE_FIRST = 6;

    private final SoftQueuePair qp;
    private final SoftProtectionDomain pd;
    private final StagTable stags;
    private final MpaConnection connection;
    private final Runnable onEnd;
    private final WorkQueue sq;
    private final WorkQueue rq;
    private final SoftSharedReceiveQueue srq;
    private final SoftCompletionQueue sendCq;
    private final SoftCompletionQueue recvCq;
    private final int qpNumber;
    private final int ord;
    private final long timeoutNanos;
    /** Whether the connection negotiated RFC 7306: immediate data and atomics. */
    private final boolean rfc7306;

    private final AtomicBoolean rxOwner = new AtomicBoolean();
    private final AtomicBoolean ended = new AtomicBoolean();
    private final AtomicBoolean endRan = new AtomicBoolean();
    /** Set when the QP is being destroyed: CQ polls and the progress thread leave it alone. */
    volatile boolean closing;
    /** The progress thread's key for this connection. */
    volatile SelectionKey key;
    /**
     * CQ polls that drove this QP and waited for what it receives ({@link #polledWaiting}), counted racily (only a
     * change matters): the progress thread leaves the socket to a QP's pollers while this grows ({@link ProgressEngine}).
     */
    private final AtomicInteger polls = new AtomicInteger();
    /** The progress thread's count of {@link #polls} at its last look (its own). */
    int pollsSeen;
    /**
     * Set by the progress thread while the peer streams to this socket faster than it is read: the thread then reads
     * it after short naps, without the selector, so that the sender's every segment does not wake it
     * ({@link ProgressEngine}). Read by tests.
     */
    volatile boolean napping;
    /** Naps taken for this QP (the progress thread's count, read by tests). */
    volatile int naps;
    /**
     * Set by the progress thread while it does not watch the socket for reading because an application thread
     * polls; an arm of either CQ then wakes the progress thread ({@link SoftCompletionQueue#requestNotify}).
     */
    volatile boolean unwatched;
    /**
     * Waits of threads that sleep on this QP's socket for a channel's event ({@link SocketWaiter}), counted racily:
     * the progress thread leaves the socket to them while this grows, even while a CQ is armed.
     */
    private final AtomicInteger waits = new AtomicInteger();
    /** The progress thread's count of {@link #waits} at its last look (its own). */
    int waitsSeen;
    /** Threads asleep on this QP's socket in a {@link SocketWaiter} now. */
    private final AtomicInteger waitersBlocked = new AtomicInteger();
    /**
     * Set by the progress thread when it left the socket to such waiters ({@link #unwatched} too): an arm of a CQ
     * then does not wake it, since the waiter that follows the arm reads the socket.
     */
    volatile boolean leftToWaiter;
    /**
     * CQ polls that drove this QP, empty or not, counted racily: each resumes a stalled transmit, so the progress
     * thread does not wait for the socket to be writable while this grows ({@link ProgressEngine}).
     */
    private final AtomicInteger allPolls = new AtomicInteger();
    /** The progress thread's count of {@link #allPolls} at its last look (its own). */
    int allPollsSeen;
    /** When the progress thread last saw {@link #allPolls} change (its own; long ago at first). */
    long polledAt = System.nanoTime() - (1L << 62);
    /**
     * Set by the progress thread while it leaves resuming a stalled transmit to the threads polling the QP's CQs: a
     * transmit that stalls then does not wake it, and an arm of either CQ does.
     */
    volatile boolean txUnwatched;
    /** Transmits that found the socket full (written by the send token's holder, read by tests). */
    volatile int stalls;
    /** Times the progress thread was woken because the socket turned writable (its own count, read by tests). */
    volatile int writableWakeups;
    /** The progress thread's reads of this socket that delivered segments (its own count, read by tests). */
    volatile int engineReceives;

    // ---- transmit: holder of the send queue's token ----
    private int txKind = TX_NONE;
    private final long[] sgeAddr;
    private final int[] sgeLen;
    private final SoftMemoryRegion[] sgeRegion;
    private int sgeCount;
    private int txLength;
    /**
     * The payload of the message being sent: the bytes of its SGEs, copied into the connection's transmit buffer, or
     * written from the region without a copy when there is one SGE and its region has a direct buffer.
     */
    private final Gather gather = new Gather() {
        @Override
        public void copy(long messageOffset, long destination, int length) {
            gatherCopy(messageOffset, destination, length);
        }

        @Override
        public ByteBuffer view(long messageOffset, int length, int slot) {
            return gatherView(messageOffset, length, slot);
        }
    };
    /**
     * The views of the message being sent without a copy ({@link #gatherView}), borrowed from its region when the
     * first one is needed and given back to it when the message is all written ({@link #finishTransmit}): the QP
     * holds no buffer over a region between messages, so a region's memory is freed once it is closed and dropped.
     */
    private ByteBuffer[] lentViews;

    // ---- receive: holder of the receive token ----
    /** The address of the connection's receive buffer, which holds every segment the QP is handed. */
    private final BufferAddress payloadAddress = new BufferAddress();
    private volatile boolean wantWrite;
    /** The head request's second message is still to start (after {@link #TX_WQE_FIRST}). */
    private boolean secondPending;
    private long stalledSince;
    private long stalledAt;

    // ---- ORQ: Reads outstanding at the peer; the transmit side adds, the receive side completes ----
    private final long[] orqWrId;
    private final int[] orqFlags;
    private final int[] orqLength;
    private final int[] orqSinkStag;
    /** What the entry completes as: RDMA_READ, or an atomic (COMP_SWAP, FETCH_ADD). */
    private final int[] orqWcOpcode;
    /** An atomic's local 8 bytes for the original value, and the request id its response carries. */
    private final long[] orqLocalAddr;
    private final int[] orqLocalKey;
    private final int[] orqRequestId;
    private final AtomicLong orqHead = new AtomicLong();
    private final AtomicLong orqTail = new AtomicLong();

    // ---- IRQ: the peer's Read Requests to answer; the receive side adds, the transmit side answers ----
    private final int ird;
    private final int[] irqSinkStag;
    private final long[] irqSinkOffset;
    private final int[] irqLength;
    private final int[] irqSourceStag;
    private final long[] irqSourceOffset;
    /** RFC 7306: an entry is an Atomic Request (source STag and offset are its target) rather than a Read. */
    private final boolean[] irqAtomic;
    private final int[] irqAtomicOp;
    private final int[] irqRequestId;
    private final long[] irqSwapAdd;
    private final long[] irqSwapAddMask;
    private final long[] irqCompare;
    private final long[] irqCompareMask;
    /** An atomic executed (once) whose response is not out yet, and its original value. */
    private final boolean[] irqExecuted;
    private final long[] irqOriginal;
    private final AtomicLong irqHead = new AtomicLong();
    private final AtomicLong irqTail = new AtomicLong();

    // ---- receive: holder of rxOwner ----
    /** The receive request being filled, copied out of the RQ or SRQ: {@code ibv_recv_wr} then its SGEs. */
    private final long currentReceive;
    private boolean receiveActive;
    private long receiveCapacity;
    /** Bytes of the RDMA Write being received, and the length of the last complete one (for write with imm). */
    private long writeLength;
    private long lastWriteLength;
    /** Immediate Data marked for the Send that follows, in the completion's byte order. */
    private boolean pendingImm;
    private int pendingImmData;
    /** An error found by the receive side, reported after the token is given back. */
    private int termLayer = -1;
    private int termType;
    private int termCode;
    /** The async event siw raises for that error, or null. */
    private AsyncEventType termEvent;
    private final ByteBuffer termHeader = ByteBuffer.allocateDirect(64);
    /** A Terminate the peer sent: its layer, type and code; -1 when none. */
    private int peerTermLayer = -1;
    private int peerTermType;
    private int peerTermCode;
    /** An error found by the transmit side, handled after the token is given back. */
    private String txFailure;
    /** The async event for {@link #txFailure}, or null. */
    private AsyncEventType txEvent;

    QpDataPath(SoftQueuePair qp, MpaConnection connection, Runnable onEnd, long timeoutMillis) {
        this.qp = qp;
        this.pd = (SoftProtectionDomain) qp.protectionDomain();
        this.stags = pd.softContext().softDevice().stags();
        this.connection = connection;
        this.onEnd = onEnd;
        this.sq = qp.sendQueue();
        this.srq = (SoftSharedReceiveQueue) qp.srq();
        this.rq = srq != null ? srq.queue() : qp.receiveQueue();
        this.sendCq = (SoftCompletionQueue) qp.sendCq();
        this.recvCq = (SoftCompletionQueue) qp.recvCq();
        this.qpNumber = qp.qpNumber();
        this.ord = connection.ord();
        this.ird = connection.ird();
        this.timeoutNanos = timeoutMillis * 1_000_000L;
        this.rfc7306 = connection.rfc7306();
        int sges = Math.max(1, qp.capabilities().maxSendSge());
        this.sgeAddr = new long[sges];
        this.sgeLen = new int[sges];
        this.sgeRegion = new SoftMemoryRegion[sges];
        int orq = Math.max(1, ord);
        this.orqWrId = new long[orq];
        this.orqFlags = new int[orq];
        this.orqLength = new int[orq];
        this.orqSinkStag = new int[orq];
        this.orqWcOpcode = new int[orq];
        this.orqLocalAddr = new long[orq];
        this.orqLocalKey = new int[orq];
        this.orqRequestId = new int[orq];
        int irq = Math.max(1, ird);
        this.irqSinkStag = new int[irq];
        this.irqSinkOffset = new long[irq];
        this.irqLength = new int[irq];
        this.irqSourceStag = new int[irq];
        this.irqSourceOffset = new long[irq];
        this.irqAtomic = new boolean[irq];
        this.irqAtomicOp = new int[irq];
        this.irqRequestId = new int[irq];
        this.irqSwapAdd = new long[irq];
        this.irqSwapAddMask = new long[irq];
        this.irqCompare = new long[irq];
        this.irqCompareMask = new long[irq];
        this.irqExecuted = new boolean[irq];
        this.irqOriginal = new long[irq];
        int recvSges = srq != null ? srq.query().maxSge() : qp.capabilities().maxRecvSge();
        this.currentReceive = RawMemory.allocate(RecvWr.WR_SIZE + (long) Math.max(1, recvSges) * SGE_SIZE);
    }

    MpaConnection connection() {
        return connection;
    }

    /** {@return whether the connection negotiated RFC 7306, so immediate data and atomics may be posted} */
    boolean rfc7306() {
        return rfc7306;
    }

    boolean ended() {
        return ended.get();
    }

    boolean wantsWrite() {
        return wantWrite;
    }

    /** Enters the QP's guard for a progress step; false when the QP is being destroyed. */
    boolean enterQp() {
        try {
            qp.enter();
            return true;
        } catch (IllegalStateException e) {
            return false;
        }
    }

    void leaveQp() {
        qp.leave();
    }

    /**
     * The read of a thread that woke because the socket is readable (the progress thread, a {@link SocketWaiter}):
     * inside the QP's guard, after any write to the socket in progress on another thread has ended.
     *
     * @return the segments delivered, 0 when none or another thread receives, -1 when the QP is being destroyed
     */
    int waitingReceive() {
        if (closing || !enterQp()) {
            return -1;
        }
        try {
            connection.awaitPump(PUMP_WAIT_NANOS);
            return progressReceive();
        } finally {
            qp.leave();
        }
    }

    /** A CQ poll's progress step: receive, and resume a stalled transmit. Never waits, never allocates. */
    void pollStep() {
        if (closing || ended.get() || !enterQp()) {
            return;
        }
        try {
            allPolls.setOpaque(allPolls.getPlain() + 1); // no fence, as polledWaiting
            progressReceive();
            if (wantWrite) {
                progressSend();
            }
        } finally {
            qp.leave();
        }
    }

    /**
     * Counts a poll of one of this QP's CQs that found nothing, or took a completion that receiving made (a receive,
     * a Read, an atomic): its thread waits on the CQ for what arrives, so it will receive it (a Read requester or a
     * receiver that is behind the stream seldom finds the CQ empty, and a second thread reading its socket would only
     * take a CPU from it). A poll that took only completions of sends and Writes does not count: its thread may go on
     * to wait elsewhere (for memory a Write fills, as perftest's write_lat does), so the progress thread must keep
     * receiving for it.
     */
    void polledWaiting() {
        polls.setOpaque(polls.getPlain() + 1); // no fence: the progress thread only needs to see it change, later
    }

    /**
     * {@return whether a thread holds this QP's receive or send token now} For the progress thread, whose own calls
     * hold them only while they run: another thread is receiving or writing (a long write of a large message, or a
     * poll inside one), and it polls again when it is done. A hint, read without the tokens.
     */
    boolean worked() {
        return rxOwner.get() || sq.consumed();
    }

    /** Counts a {@link SocketWaiter}'s wait on this QP's socket. */
    void waited() {
        waits.setOpaque(waits.getPlain() + 1); // no fence, as polledWaiting
    }

    /** {@return the count of waits on this QP's socket by channel waiters, so far} For the progress thread. */
    int waits() {
        return waits.getOpaque();
    }

    /** A {@link SocketWaiter}'s thread goes to sleep on this QP's socket (+1) or wakes (-1). */
    void waiterBlocked(int delta) {
        waitersBlocked.addAndGet(delta);
    }

    /** {@return whether a channel waiter sleeps on this QP's socket now} */
    boolean waiterAsleep() {
        return waitersBlocked.get() > 0;
    }

    /** {@return the count of CQ polls that drove this QP and waited for what it receives, so far} For the progress thread. */
    int polls() {
        return polls.getOpaque();
    }

    /** {@return the count of CQ polls that drove this QP, empty or not} For the progress thread. */
    int allPolls() {
        return allPolls.getOpaque();
    }

    /** {@return whether the send or the receive CQ is armed: its channel waits for the progress thread} */
    boolean cqArmed() {
        return sendCq.armed() || recvCq.armed();
    }

    /** Frees the native memory; once, when the QP is destroyed and nothing can reach this object. */
    void free() {
        lentViews = null;
        RawMemory.free(currentReceive);
    }

    // =====================================================================================================
    // transmit
    // =====================================================================================================

    /**
     * Moves queued work onto the wire while this thread can take the send queue's token; never waits.
     *
     * @return false when another thread held the token (it does the work)
     */
    boolean progressSend() {
        boolean took = false;
        while (!ended.get() && sq.tryConsume()) {
            took = true;
            try {
                transmit();
            } catch (IOException | RuntimeException e) {
                txFailure = "transmit failed: " + e;
                txEvent = AsyncEventType.QP_FATAL;
            } finally {
                sq.endConsume();
            }
            if (txFailure != null) { // this thread's own failure (the receive side handles its own)
                afterTokens();
                return true;
            }
            if (!sendWorkWaiting()) {
                return true;
            }
        }
        return took || ended.get();
    }

    /** A hint, read without the token: whether work arrived that the last holder may not have seen. */
    private boolean sendWorkWaiting() {
        if (wantWrite || ended.get()) {
            return false;
        }
        if (irqHead.get() != irqTail.get()) {
            return true;
        }
        long slot = sq.peek();
        return slot != 0 && !blocked(slot);
    }

    private boolean blocked(long slot) {
        int opcode = RawMemory.getInt(slot + SendWr.OPCODE_OFFSET);
        int flags = RawMemory.getInt(slot + SendWr.SEND_FLAGS_OFFSET);
        long outstanding = orqTail.get() - orqHead.get();
        return (opcode == Opcode.RDMA_READ.value() || atomic(opcode)) && ord > 0 && outstanding >= ord
                || (flags & SendFlags.FENCE) != 0 && outstanding > 0;
    }

    private static boolean atomic(int opcode) {
        return opcode == Opcode.ATOMIC_CMP_AND_SWP.value() || opcode == Opcode.ATOMIC_FETCH_AND_ADD.value();
    }

    /** The work of the token holder. */
    private void transmit() throws IOException {
        while (true) {
            if (txKind != TX_NONE) {
                if (!connection.pump()) {
                    stalled();
                    return;
                }
                finishTransmit();
            }
            stalledSince = 0;
            wantWrite = false;
            if (termLayer >= 0) {
                return;
            }
            if (secondPending) {
                if (!startSecond()) {
                    return;
                }
                continue;
            }
            long ih = irqHead.get();
            if (ih != irqTail.get()) {
                int i = (int) (ih % irqLength.length);
                if (!(irqAtomic[i] ? startAtomicResponse(i) : startReadResponse(i))) {
                    return;
                }
                // the response's transmission holds what it needs: the request's IRD place is free now, as siw
                // frees it when it activates the response. Freed only after the last byte went out, a requester
                // quick to post its next Read after the response's completion would exceed IRD here.
                irqExecuted[i] = false;
                irqHead.set(ih + 1);
                continue;
            }
            long slot = sq.peek();
            if (slot == 0 || blocked(slot)) {
                return;
            }
            if (!startRequest(slot)) {
                return;
            }
        }
    }

    private void stalled() {
        long now = System.nanoTime();
        long w = connection.bytesWritten();
        if (stalledSince == 0 || w != stalledAt) {
            stalledSince = now;
            stalledAt = w;
        }
        if (!wantWrite) {
            stalls++; // the token's holder only
            wantWrite = true;
            // a transmit the progress thread left to the QP's pollers: they resume it (pollStep), and a look that
            // finds them gone watches the socket for writing (this thread writes wantWrite before it reads
            // txUnwatched, the progress thread writes txUnwatched before it reads wantWrite)
            ProgressEngine e = qp.softContext().progress();
            if (e != null && (!txUnwatched || cqArmed())) {
                e.wakeup(); // armed: its pollers may have gone to sleep on a channel (see requestNotify)
            }
        }
    }

    /** For the progress thread: whether a stalled transmit made no progress for longer than the time-out. */
    boolean stalledTooLong(long now) {
        long s = stalledSince;
        return wantWrite && s != 0 && connection.bytesWritten() == stalledAt && now - s > timeoutNanos;
    }

    /** Starts the request at the head of the send queue; false when it must wait (transmit side busy). */
    private boolean startRequest(long slot) {
        int opcode = RawMemory.getInt(slot + SendWr.OPCODE_OFFSET);
        int flags = RawMemory.getInt(slot + SendWr.SEND_FLAGS_OFFSET);
        long wrId = RawMemory.getLong(slot + WR_ID);
        if (opcode == Opcode.LOCAL_INV.value()) {
            int stag = RawMemory.getInt(slot + SendWr.IMM_DATA_OFFSET);
            int status = invalidation(stag) == 0 ? OK : WcStatus.LOC_PROT_ERR.value();
            retireHead(wrId, status, WcCodes.LOCAL_INV, 0, status != OK || (flags & SendFlags.SIGNALED) != 0);
            return true;
        }
        boolean read = opcode == Opcode.RDMA_READ.value();
        boolean atomic = atomic(opcode);
        boolean writeImm = opcode == Opcode.RDMA_WRITE_WITH_IMM.value();
        boolean sendImm = opcode == Opcode.SEND_WITH_IMM.value();
        boolean send = opcode == Opcode.SEND.value() || opcode == Opcode.SEND_WITH_INV.value() || sendImm;
        boolean extension = atomic || writeImm || sendImm;
        if (!read && !send && !atomic && !writeImm && opcode != Opcode.RDMA_WRITE.value() || (read || atomic) && ord == 0
                || extension && !rfc7306) {
            // immediate data and atomics are RFC 7306, refused at post unless negotiated; a Read or atomic needs
            // an ORD
            retireHead(wrId, WcStatus.LOC_QP_OP_ERR.value(), SendChecks.completionOpcode(opcode), 0, true);
            return true;
        }
        long sges = RawMemory.getAddress(slot + SG_LIST);
        int n = RawMemory.getInt(slot + NUM_SGE);
        if (atomic) {
            return startAtomicRequest(slot, opcode, flags, wrId, sges);
        }
        if (read) {
            long sinkAddr = RawMemory.getLong(sges + SGE_ADDR);
            int length = RawMemory.getInt(sges + SGE_LENGTH);
            int sinkStag = RawMemory.getInt(sges + SGE_LKEY);
            long remote = RawMemory.getLong(slot + SendWr.RDMA_REMOTE_ADDR_OFFSET);
            int rkey = RawMemory.getInt(slot + SendWr.RDMA_RKEY_OFFSET);
            if (!connection.startReadRequest(sinkStag, sinkAddr, length, rkey, remote)) {
                return false;
            }
            long t = orqTail.get();
            int i = (int) (t % orqWrId.length);
            orqWrId[i] = wrId;
            orqFlags[i] = flags;
            orqLength[i] = length;
            orqSinkStag[i] = sinkStag;
            orqWcOpcode[i] = WcCodes.READ;
            orqTail.set(t + 1); // published before the request can be answered: pump() has not written it yet
            sq.pop();
            txKind = TX_READ_REQUEST;
            return true;
        }
        long total = 0;
        sgeCount = 0;
        boolean inline = (flags & SendFlags.INLINE) != 0;
        for (int j = 0; j < n; j++) {
            long sge = sges + (long) j * SGE_SIZE;
            long addr = RawMemory.getLong(sge + SGE_ADDR);
            int len = RawMemory.getInt(sge + SGE_LENGTH);
            if (len == 0) {
                continue;
            }
            SoftMemoryRegion mr = null;
            if (!inline) {
                try {
                    mr = stags.resolve(RawMemory.getInt(sge + SGE_LKEY), addr, len, 0, pd);
                    addr = mr.addressOf(addr);
                } catch (TaggedAccessException e) {
                    releaseSges();
                    retireHead(wrId, WcStatus.LOC_PROT_ERR.value(), SendChecks.completionOpcode(opcode), 0, true);
                    txFailure = "local protection error: " + e.getMessage();
                    txEvent = AsyncEventType.QP_FATAL; // as siw for a failed send WQE
                    return false;
                }
            }
            sgeAddr[sgeCount] = addr;
            sgeLen[sgeCount] = len;
            sgeRegion[sgeCount] = mr;
            sgeCount++;
            total += len;
        }
        if (total > MAX_MESSAGE) {
            releaseSges();
            retireHead(wrId, WcStatus.LOC_LEN_ERR.value(), SendChecks.completionOpcode(opcode), 0, true);
            return true;
        }
        txLength = (int) total;
        boolean started;
        int kind = TX_WQE;
        if (sendImm) {
            // Immediate Data marked for the Send, then the Send (which takes the receive and carries the bits)
            started = connection.startImmediate(false,
                    Integer.reverseBytes(RawMemory.getInt(slot + SendWr.IMM_DATA_OFFSET)), IMMEDIATE_FOR_SEND);
            kind = TX_WQE_FIRST;
        } else if (send) {
            boolean solicited = (flags & SendFlags.SOLICITED) != 0;
            boolean inv = opcode == Opcode.SEND_WITH_INV.value();
            int rdmap = inv ? (solicited ? OP_SEND_SE_INVALIDATE : OP_SEND_INVALIDATE)
                    : (solicited ? OP_SEND_SE : OP_SEND);
            started = connection.startSend(rdmap, inv ? RawMemory.getInt(slot + SendWr.IMM_DATA_OFFSET) : 0, gather,
                    txLength);
        } else {
            // a Write; with immediate, the Immediate Data follows it (RFC 7306's RDMA Write with Immediate Data)
            started = connection.startTagged(false, RawMemory.getInt(slot + SendWr.RDMA_RKEY_OFFSET),
                    RawMemory.getLong(slot + SendWr.RDMA_REMOTE_ADDR_OFFSET), gather, txLength);
            kind = writeImm ? TX_WQE_FIRST : TX_WQE;
        }
        if (!started) {
            releaseSges();
            return false;
        }
        txKind = kind;
        return true;
    }

    /** Starts the second message of the head request (its SGEs still held); false when it must wait. */
    private boolean startSecond() {
        long slot = sq.peek();
        int opcode = RawMemory.getInt(slot + SendWr.OPCODE_OFFSET);
        boolean solicited = (RawMemory.getInt(slot + SendWr.SEND_FLAGS_OFFSET) & SendFlags.SOLICITED) != 0;
        boolean started;
        if (opcode == Opcode.RDMA_WRITE_WITH_IMM.value()) {
            started = connection.startImmediate(solicited,
                    Integer.reverseBytes(RawMemory.getInt(slot + SendWr.IMM_DATA_OFFSET)), IMMEDIATE_ALONE);
        } else {
            started = connection.startSend(solicited ? OP_SEND_SE : OP_SEND, 0, gather, txLength);
        }
        if (!started) {
            return false;
        }
        secondPending = false;
        txKind = TX_WQE;
        return true;
    }

    /**
     * Starts an RFC 7306 Atomic Request for the head request: its one local SGE (8 bytes for the original value)
     * is checked now, as a Send's are; the ORQ entry waits for the Atomic Response.
     */
    private boolean startAtomicRequest(long slot, int opcode, int flags, long wrId, long sges) {
        long localAddr = RawMemory.getLong(sges + SGE_ADDR);
        int lkey = RawMemory.getInt(sges + SGE_LKEY);
        int wcOpcode = SendChecks.completionOpcode(opcode);
        try {
            stags.resolve(lkey, localAddr, 8, Access.LOCAL_WRITE, pd).leave();
        } catch (TaggedAccessException e) {
            retireHead(wrId, WcStatus.LOC_PROT_ERR.value(), wcOpcode, 0, true);
            txFailure = "local protection error: " + e.getMessage();
            txEvent = AsyncEventType.QP_FATAL;
            return false;
        }
        long t = orqTail.get();
        int requestId = (int) t;
        long remote = RawMemory.getLong(slot + SendWr.ATOMIC_REMOTE_ADDR_OFFSET);
        int rkey = RawMemory.getInt(slot + SendWr.ATOMIC_RKEY_OFFSET);
        long compareAdd = RawMemory.getLong(slot + SendWr.ATOMIC_COMPARE_ADD_OFFSET);
        boolean started = opcode == Opcode.ATOMIC_CMP_AND_SWP.value()
                ? connection.startAtomicRequest(ATOMIC_COMPARE_SWAP, requestId, rkey, remote,
                        RawMemory.getLong(slot + SendWr.ATOMIC_SWAP_OFFSET), -1L, compareAdd, -1L)
                : connection.startAtomicRequest(ATOMIC_FETCH_ADD, requestId, rkey, remote, compareAdd, 0L, 0L, 0L);
        if (!started) {
            return false;
        }
        int i = (int) (t % orqWrId.length);
        orqWrId[i] = wrId;
        orqFlags[i] = flags;
        orqLength[i] = 8;
        orqSinkStag[i] = 0;
        orqWcOpcode[i] = wcOpcode;
        orqLocalAddr[i] = localAddr;
        orqLocalKey[i] = lkey;
        orqRequestId[i] = requestId;
        orqTail.set(t + 1); // published before the response can arrive: pump() has not written the request yet
        sq.pop();
        txKind = TX_ATOMIC_REQUEST;
        return true;
    }

    /**
     * Executes the Atomic Request of IRQ entry {@code i} (once; checked when it arrived, re-checked now in case
     * the region went) and starts its Atomic Response. As for a Read, the target is touched when the response is
     * due, after the Read Responses queued before it.
     */
    private boolean startAtomicResponse(int i) {
        if (!irqExecuted[i]) {
            SoftMemoryRegion mr;
            try {
                mr = stags.resolve(irqSourceStag[i], irqSourceOffset[i], 8, Access.REMOTE_ATOMIC, pd);
            } catch (TaggedAccessException e) {
                termLayer = LAYER_RDMAP;
                termType = RDMAP_REMOTE_PROTECTION;
                termCode = e.error().rdmapCode();
                termEvent = AsyncEventType.QP_REQ_ERR;
                termHeader.clear().limit(0);
                txFailure = "Atomic Request refused: " + e.getMessage();
                return false;
            }
            try {
                irqOriginal[i] = execute(mr.addressOf(irqSourceOffset[i]), irqAtomicOp[i], irqSwapAdd[i],
                        irqSwapAddMask[i], irqCompare[i], irqCompareMask[i]);
            } finally {
                mr.leave();
            }
            irqExecuted[i] = true;
        }
        if (!connection.startAtomicResponse(irqRequestId[i], irqOriginal[i])) {
            return false;
        }
        txKind = TX_ATOMIC_RESPONSE;
        return true;
    }

    /**
     * One RFC 7306 atomic operation on the 8 bytes at {@code address} (native byte order, as the CPU and the
     * verbs see them); returns the original value.
     */
    static long execute(long address, int op, long swapAdd, long swapAddMask, long compare, long compareMask) {
        synchronized (ATOMICS) {
            long old = RawMemory.getLong(address);
            long value;
            if (op == ATOMIC_FETCH_ADD) {
                value = add(old, swapAdd, swapAddMask);
            } else if (op == ATOMIC_SWAP || ((old ^ compare) & compareMask) == 0) {
                value = old & ~swapAddMask | swapAdd & swapAddMask;
            } else {
                value = old;
            }
            RawMemory.putLong(address, value);
            return old;
        }
    }

    /**
     * RFC 7306's FetchAdd with an Add Mask: a set bit ends a field, the carry out of it is dropped; mask 0 is a
     * plain 64-bit add (what the verbs send).
     */
    static long add(long a, long b, long mask) {
        if (mask == 0) {
            return a + b;
        }
        long sum = 0;
        long carry = 0;
        for (int bit = 0; bit < 64; bit++) {
            long s = (a >>> bit & 1) + (b >>> bit & 1) + carry;
            sum |= (s & 1) << bit;
            carry = (mask >>> bit & 1) != 0 ? 0 : s >>> 1;
        }
        return sum;
    }

    private boolean startReadResponse(int i) {
        int length = irqLength[i];
        SoftMemoryRegion mr = null;
        long addr = 0;
        if (length > 0) {
            try {
                mr = stags.resolve(irqSourceStag[i], irqSourceOffset[i], length, Access.REMOTE_READ, pd);
                addr = mr.addressOf(irqSourceOffset[i]);
            } catch (TaggedAccessException e) {
                // deregistered since the request was checked
                termLayer = LAYER_RDMAP;
                termType = RDMAP_REMOTE_PROTECTION;
                termCode = e.error().rdmapCode();
                termEvent = AsyncEventType.QP_REQ_ERR;
                termHeader.clear().limit(0);
                txFailure = "Read Request refused: " + e.getMessage();
                return false;
            }
        }
        sgeAddr[0] = addr;
        sgeLen[0] = length;
        sgeRegion[0] = mr;
        sgeCount = length > 0 ? 1 : 0;
        if (!connection.startTagged(true, irqSinkStag[i], irqSinkOffset[i], gather, length)) {
            releaseSges();
            return false;
        }
        txKind = TX_READ_RESPONSE;
        return true;
    }

    private void finishTransmit() {
        int kind = txKind;
        txKind = TX_NONE;
        if (kind == TX_WQE_FIRST) {
            secondPending = true; // the SGEs stay held for the second message
            return;
        }
        if (lentViews != null) {
            sgeRegion[0].takeBackViews(lentViews); // all written: no part of the socket's batch names them now
        }
        releaseSges();
        if (kind == TX_WQE) {
            long slot = sq.peek();
            int opcode = RawMemory.getInt(slot + SendWr.OPCODE_OFFSET);
            boolean signaled = (RawMemory.getInt(slot + SendWr.SEND_FLAGS_OFFSET) & SendFlags.SIGNALED) != 0;
            retireHead(RawMemory.getLong(slot + WR_ID), OK, SendChecks.completionOpcode(opcode), txLength, signaled);
        }
    }

    /**
     * Frees the head request's slot, then completes it if {@code complete}: in that order, since a poller that
     * takes the completion may post into the slot at once (a send queue kept full, as perftest keeps it). The
     * caller has read from the slot all it needs.
     */
    private void retireHead(long wrId, int status, int wcOpcode, int length, boolean complete) {
        sq.pop();
        if (complete) {
            sendCq.complete(wrId, status, wcOpcode, length, 0, qpNumber, 0, false);
        }
    }

    private void releaseSges() {
        for (int j = 0; j < sgeCount; j++) {
            SoftMemoryRegion mr = sgeRegion[j];
            if (mr != null) {
                mr.leave();
                sgeRegion[j] = null;
            }
        }
        sgeCount = 0;
        lentViews = null; // given back by finishTransmit, else (a message cut short) dropped
    }

    private void gatherCopy(long messageOffset, long destination, int length) {
        long off = messageOffset;
        long to = destination;
        int left = length;
        for (int j = 0; j < sgeCount && left > 0; j++) {
            int l = sgeLen[j];
            if (off >= l) {
                off -= l;
                continue;
            }
            int n = (int) Math.min(l - off, left);
            RawMemory.copy(sgeAddr[j] + off, to, n);
            to += n;
            left -= n;
            off = 0;
        }
    }

    /** {@link Gather#view}: the bytes when the message is one SGE over a region that has a direct buffer, else null. */
    private ByteBuffer gatherView(long messageOffset, int length, int slot) {
        SoftMemoryRegion mr = sgeCount == 1 ? sgeRegion[0] : null;
        ByteBuffer whole = mr != null ? mr.ioView() : null;
        if (whole == null) {
            return null;
        }
        ByteBuffer[] of = lentViews;
        if (of == null) {
            of = mr.lendViews(Gather.MAX_VIEWS);
            lentViews = of;
        }
        ByteBuffer v = of[slot];
        if (v == null) {
            v = whole.duplicate();
            of[slot] = v;
        }
        int at = (int) (sgeAddr[0] - mr.address() + messageOffset);
        v.limit(v.capacity()).position(at);
        v.limit(at + length);
        return v;
    }

    /**
     * Invalidates a region of this QP's PD by its STag.
     *
     * @return 0 when done, 1 when no region has the STag, 2 when it is another PD's
     */
    private int invalidation(int stag) {
        try {
            SoftMemoryRegion mr = stags.resolve(stag, 0, 0, 0, pd);
            mr.leave();
        } catch (TaggedAccessException e) {
            if (e.error() == TaggedAccessError.STAG_NOT_ASSOCIATED) {
                return 2;
            }
            if (e.error() != TaggedAccessError.BASE_BOUNDS) {
                return 1;
            }
            // a region registered at an address: offset 0 is outside it, but the STag and PD matched
        }
        stags.remove(stag);
        return 0;
    }

    // =====================================================================================================
    // receive
    // =====================================================================================================

    /**
     * Delivers what the socket has, if this thread can take the receive side; never waits.
     *
     * @return the segments delivered, 0 when there were none or another thread receives
     */
    int progressReceive() {
        if (ended.get() || !rxOwner.compareAndSet(false, true)) {
            return 0;
        }
        int r;
        String why = null;
        try {
            r = connection.poll(this);
        } catch (WireException e) {
            r = -1;
            why = "refused the peer's bytes: " + e.getMessage();
            termLayer = -2; // sent already by the connection
            txEvent = AsyncEventType.QP_FATAL;
        } catch (IOException | RuntimeException e) {
            r = -1;
            why = "the connection failed: " + e;
        } finally {
            rxOwner.set(false);
        }
        if (r < 0 && why == null) {
            why = peerTermLayer >= 0 ? "the peer sent a Terminate (layer " + peerTermLayer + ", type " + peerTermType
                    + ", code 0x" + Integer.toHexString(peerTermCode) + ")" : "the peer closed the connection";
        }
        if (r < 0 || termLayer != -1) {
            if (why != null && txFailure == null) {
                txFailure = why;
            }
            afterTokens();
            return Math.max(r, 0);
        }
        if (r > 0) {
            progressSend();
        }
        return r;
    }

    @Override
    public void onTagged(int opcode, boolean last, int stag, long taggedOffset, ByteBuffer payload) {
        if (termLayer != -1 || ended.get()) {
            return;
        }
        int length = payload.remaining();
        boolean response = opcode == OP_READ_RESPONSE;
        long orq = orqHead.get();
        if (response && (orq == orqTail.get() || orqSinkStag[(int) (orq % orqWrId.length)] != stag
                || orqWcOpcode[(int) (orq % orqWrId.length)] != WcCodes.READ)) {
            error(LAYER_RDMAP, RDMAP_REMOTE_OPERATION, RDMAP_UNEXPECTED_OPCODE, payload, 16, AsyncEventType.QP_FATAL);
            return;
        }
        if (length > 0) {
            SoftMemoryRegion mr;
            try {
                mr = stags.resolve(stag, taggedOffset, length, response ? Access.LOCAL_WRITE : Access.REMOTE_WRITE,
                        pd);
            } catch (TaggedAccessException e) {
                LOG.debug("{}: {} refused: {}", qp, response ? "Read Response" : "Write", e.getMessage());
                if (response) { // our own sink: the Read fails locally, as in siw
                    int i = (int) (orq % orqWrId.length);
                    sendCq.complete(orqWrId[i], WcStatus.LOC_PROT_ERR.value(), WcCodes.READ, 0, 0, qpNumber, 0, false);
                    orqHead.set(orq + 1);
                }
                error(LAYER_DDP, DDP_TAGGED, e.error().ddpCode(), payload, 16, AsyncEventType.QP_ACCESS_ERR);
                return;
            }
            try {
                RawMemory.copy(payloadAddress.of(payload) + payload.position(), mr.addressOf(taggedOffset), length);
            } finally {
                mr.leave();
            }
        }
        if (!response) {
            writeLength += length;
            if (last) {
                lastWriteLength = writeLength;
                writeLength = 0;
            }
        }
        if (response && last) {
            int i = (int) (orq % orqWrId.length);
            if ((orqFlags[i] & SendFlags.SIGNALED) != 0) {
                sendCq.complete(orqWrId[i], OK, WcCodes.READ, orqLength[i], 0, qpNumber, 0, false);
            }
            orqHead.set(orq + 1);
        }
    }

    @Override
    public void onUntagged(int opcode, boolean last, int queue, int msn, int messageOffset, int invalidateStag,
            ByteBuffer payload) {
        if (termLayer != -1 || ended.get()) {
            return;
        }
        if (opcode == OP_IMMEDIATE || opcode == OP_IMMEDIATE_SE) { // only delivered once RFC 7306 is negotiated
            onImmediate(opcode, payload);
            return;
        }
        if (opcode < OP_SEND || opcode > OP_SEND_SE_INVALIDATE) {
            error(LAYER_RDMAP, RDMAP_REMOTE_OPERATION, RDMAP_UNEXPECTED_OPCODE, payload, 20, AsyncEventType.QP_FATAL);
            return;
        }
        int length = payload.remaining();
        if (messageOffset == 0 && !takeReceive()) {
            LOG.debug("{}: a Send found no receive posted", qp);
            error(LAYER_DDP, DDP_UNTAGGED, DDP_UT_NO_BUFFER, payload, 20, null);
            return;
        }
        long wrId = RawMemory.getLong(currentReceive + WR_ID);
        if ((long) messageOffset + length > receiveCapacity) {
            receiveActive = false;
            recvCq.complete(wrId, WcStatus.LOC_LEN_ERR.value(), WcCodes.RECV, 0, 0, qpNumber, 0, false);
            error(LAYER_DDP, DDP_UNTAGGED, DDP_UT_NO_BUFFER, payload, 20, AsyncEventType.QP_FATAL);
            return;
        }
        if (length > 0 && !place(messageOffset, payload, length)) {
            receiveActive = false;
            recvCq.complete(wrId, WcStatus.LOC_PROT_ERR.value(), WcCodes.RECV, 0, 0, qpNumber, 0, false);
            error(LAYER_DDP, DDP_CATASTROPHIC, 0, payload, 20, AsyncEventType.QP_ACCESS_ERR);
            return;
        }
        if (last) {
            receiveActive = false;
            int flags = 0;
            int inv = 0;
            int status = OK;
            if (pendingImm) {
                pendingImm = false;
                flags = WcFlags.WITH_IMM;
                inv = pendingImmData;
                if (opcode == OP_SEND_INVALIDATE || opcode == OP_SEND_SE_INVALIDATE) {
                    // the verbs have no Send with immediate and invalidate: a peer that sends it is broken
                    recvCq.complete(wrId, WcStatus.REM_OP_ERR.value(), WcCodes.RECV, 0, 0, qpNumber, 0, false);
                    error(LAYER_RDMAP, RDMAP_REMOTE_OPERATION, RDMAP_UNEXPECTED_OPCODE, payload, 20,
                            AsyncEventType.QP_FATAL);
                    return;
                }
            }
            if (opcode == OP_SEND_INVALIDATE || opcode == OP_SEND_SE_INVALIDATE) {
                int why = invalidation(invalidateStag);
                if (why == 0) {
                    flags = WcFlags.WITH_INV;
                    inv = invalidateStag;
                } else {
                    // as siw: the receive fails, the peer gets "cannot invalidate" (protection: another PD's)
                    status = WcStatus.REM_INV_REQ_ERR.value();
                    error(LAYER_RDMAP, why == 2 ? RDMAP_REMOTE_PROTECTION : RDMAP_REMOTE_OPERATION,
                            RDMAP_CANNOT_INVALIDATE, payload, 20, null);
                }
            }
            recvCq.complete(wrId, status, WcCodes.RECV, messageOffset + length, inv, qpNumber, flags,
                    opcode == OP_SEND_SE || opcode == OP_SEND_SE_INVALIDATE);
        }
    }

    /**
     * RFC 7306 Immediate Data (8 bytes, one segment, checked by the receiver): marked for the Send that follows,
     * its 32 bits wait for that Send's completion; alone (after a Write), it takes a receive and completes it as
     * RECV_RDMA_WITH_IMM with the length of the Write before it, as libibverbs reports a write with immediate.
     */
    private void onImmediate(int opcode, ByteBuffer payload) {
        int p = payload.position();
        int imm = Integer.reverseBytes(payload.getInt(p)); // the completion's imm_data is in network order too
        int mark = payload.getInt(p + 4);
        if (mark == IMMEDIATE_FOR_SEND && !pendingImm && opcode == OP_IMMEDIATE) {
            pendingImm = true;
            pendingImmData = imm;
            return;
        }
        if (mark != IMMEDIATE_ALONE || pendingImm) {
            LOG.debug("{}: Immediate Data with mark {} (one pending: {})", qp, mark, pendingImm);
            error(LAYER_RDMAP, RDMAP_REMOTE_OPERATION, RDMAP_UNEXPECTED_OPCODE, payload, 20, AsyncEventType.QP_FATAL);
            return;
        }
        if (!takeReceive()) {
            LOG.debug("{}: Immediate Data found no receive posted", qp);
            error(LAYER_DDP, DDP_UNTAGGED, DDP_UT_NO_BUFFER, payload, 20, null);
            return;
        }
        receiveActive = false;
        recvCq.complete(RawMemory.getLong(currentReceive + WR_ID), OK, WcCodes.RECV_RDMA_WITH_IMM,
                (int) Math.min(lastWriteLength, Integer.MAX_VALUE), imm, qpNumber, WcFlags.WITH_IMM,
                opcode == OP_IMMEDIATE_SE);
    }

    /** Takes the oldest receive of the RQ or SRQ into {@link #currentReceive}; false when there is none. */
    private boolean takeReceive() {
        while (!rq.tryConsume()) {
            Thread.onSpinWait(); // a flush of the queue, short
        }
        try {
            long slot = rq.peek();
            if (slot == 0) {
                return false;
            }
            int n = RawMemory.getInt(slot + NUM_SGE);
            RawMemory.copy(slot, currentReceive, RecvWr.WR_SIZE + (long) n * SGE_SIZE);
            if (srq != null) {
                srq.pop();
            } else {
                rq.pop();
            }
            long capacity = 0;
            for (int j = 0; j < n; j++) {
                capacity += RawMemory.getInt(currentReceive + RecvWr.WR_SIZE + (long) j * SGE_SIZE + SGE_LENGTH)
                        & 0xffffffffL;
            }
            receiveCapacity = capacity;
            receiveActive = true;
            return true;
        } finally {
            rq.endConsume();
        }
    }

    /** Copies a Send segment into the current receive's SGEs; false when an SGE's lkey is refused. */
    private boolean place(int messageOffset, ByteBuffer payload, int length) {
        long from = payloadAddress.of(payload) + payload.position();
        long off = messageOffset;
        int left = length;
        int n = RawMemory.getInt(currentReceive + NUM_SGE);
        for (int j = 0; j < n && left > 0; j++) {
            long sge = currentReceive + RecvWr.WR_SIZE + (long) j * SGE_SIZE;
            long l = RawMemory.getInt(sge + SGE_LENGTH) & 0xffffffffL;
            if (off >= l) {
                off -= l;
                continue;
            }
            int c = (int) Math.min(l - off, left);
            long addr = RawMemory.getLong(sge + SGE_ADDR) + off;
            SoftMemoryRegion mr;
            try {
                mr = stags.resolve(RawMemory.getInt(sge + SGE_LKEY), addr, c, Access.LOCAL_WRITE, pd);
            } catch (TaggedAccessException e) {
                LOG.debug("{}: receive SGE refused: {}", qp, e.getMessage());
                return false;
            }
            try {
                RawMemory.copy(from, mr.addressOf(addr), c);
            } finally {
                mr.leave();
            }
            from += c;
            left -= c;
            off = 0;
        }
        return true;
    }

    @Override
    public void onReadRequest(int msn, int sinkStag, long sinkOffset, int length, int sourceStag,
            long sourceOffset) {
        if (termLayer != -1 || ended.get()) {
            return;
        }
        long t = irqTail.get();
        if (t - irqHead.get() >= Math.max(ird, 0) || ird == 0) {
            LOG.debug("{}: Read Request beyond IRD {}", qp, ird);
            error(LAYER_RDMAP, RDMAP_REMOTE_OPERATION, RDMAP_CATASTROPHIC_STREAM, null, 0, null);
            return;
        }
        if (length > 0) {
            try {
                stags.resolve(sourceStag, sourceOffset, length, Access.REMOTE_READ, pd).leave();
            } catch (TaggedAccessException e) {
                LOG.debug("{}: Read Request refused: {}", qp, e.getMessage());
                error(LAYER_RDMAP, RDMAP_REMOTE_PROTECTION, e.error().rdmapCode(), null, 0,
                        AsyncEventType.QP_REQ_ERR);
                return;
            }
        }
        int i = (int) (t % irqLength.length);
        irqAtomic[i] = false;
        irqSinkStag[i] = sinkStag;
        irqSinkOffset[i] = sinkOffset;
        irqLength[i] = length;
        irqSourceStag[i] = sourceStag;
        irqSourceOffset[i] = sourceOffset;
        irqTail.set(t + 1);
    }

    /**
     * An RFC 7306 Atomic Request: it counts against IRD as a Read does, its target must be 8-byte aligned, in a
     * region with REMOTE_ATOMIC access, of this QP's PD; any refusal is a Terminate and nothing is touched.
     */
    @Override
    public void onAtomicRequest(int msn, int atomicOp, int requestId, int stag, long taggedOffset, long swapAdd,
            long swapAddMask, long compare, long compareMask) {
        if (termLayer != -1 || ended.get()) {
            return;
        }
        long t = irqTail.get();
        if (t - irqHead.get() >= Math.max(ird, 0) || ird == 0) {
            LOG.debug("{}: Atomic Request beyond IRD {}", qp, ird);
            error(LAYER_RDMAP, RDMAP_REMOTE_OPERATION, RDMAP_CATASTROPHIC_STREAM, null, 0, null);
            return;
        }
        if (atomicOp != ATOMIC_FETCH_ADD && atomicOp != ATOMIC_SWAP && atomicOp != ATOMIC_COMPARE_SWAP
                || (taggedOffset & 7) != 0) {
            LOG.debug("{}: Atomic Request refused: operation {}, offset 0x{}", qp, atomicOp,
                    Long.toHexString(taggedOffset));
            error(LAYER_RDMAP, RDMAP_REMOTE_OPERATION, RDMAP_UNSPECIFIED, null, 0, AsyncEventType.QP_REQ_ERR);
            return;
        }
        try {
            stags.resolve(stag, taggedOffset, 8, Access.REMOTE_ATOMIC, pd).leave();
        } catch (TaggedAccessException e) {
            LOG.debug("{}: Atomic Request refused: {}", qp, e.getMessage());
            error(LAYER_RDMAP, RDMAP_REMOTE_PROTECTION, e.error().rdmapCode(), null, 0, AsyncEventType.QP_REQ_ERR);
            return;
        }
        int i = (int) (t % irqLength.length);
        irqAtomic[i] = true;
        irqSourceStag[i] = stag;
        irqSourceOffset[i] = taggedOffset;
        irqLength[i] = 8;
        irqAtomicOp[i] = atomicOp;
        irqRequestId[i] = requestId;
        irqSwapAdd[i] = swapAdd;
        irqSwapAddMask[i] = swapAddMask;
        irqCompare[i] = compare;
        irqCompareMask[i] = compareMask;
        irqExecuted[i] = false;
        irqTail.set(t + 1);
    }

    /** An RFC 7306 Atomic Response: the original value goes to the local 8 bytes of the oldest outstanding atomic. */
    @Override
    public void onAtomicResponse(int msn, int requestId, long originalValue) {
        if (termLayer != -1 || ended.get()) {
            return;
        }
        long h = orqHead.get();
        int i = (int) (h % orqWrId.length);
        if (h == orqTail.get() || orqWcOpcode[i] == WcCodes.READ || orqRequestId[i] != requestId) {
            LOG.debug("{}: an Atomic Response no request waits for (id {})", qp, requestId);
            error(LAYER_RDMAP, RDMAP_REMOTE_OPERATION, RDMAP_UNEXPECTED_OPCODE, null, 0, AsyncEventType.QP_FATAL);
            return;
        }
        SoftMemoryRegion mr;
        try {
            mr = stags.resolve(orqLocalKey[i], orqLocalAddr[i], 8, Access.LOCAL_WRITE, pd);
        } catch (TaggedAccessException e) { // deregistered since the post
            LOG.debug("{}: the atomic's local buffer went: {}", qp, e.getMessage());
            sendCq.complete(orqWrId[i], WcStatus.LOC_PROT_ERR.value(), orqWcOpcode[i], 0, 0, qpNumber, 0, false);
            orqHead.set(h + 1);
            error(LAYER_RDMAP, RDMAP_LOCAL_CATASTROPHIC, 0, null, 0, AsyncEventType.QP_ACCESS_ERR);
            return;
        }
        try {
            RawMemory.putLong(mr.addressOf(orqLocalAddr[i]), originalValue);
        } finally {
            mr.leave();
        }
        if ((orqFlags[i] & SendFlags.SIGNALED) != 0) {
            sendCq.complete(orqWrId[i], OK, orqWcOpcode[i], 8, 0, qpNumber, 0, false);
        }
        orqHead.set(h + 1);
    }

    @Override
    public void onTerminate(int layer, int errorType, int errorCode, ByteBuffer headerCopy) {
        peerTermLayer = layer;
        peerTermType = errorType;
        peerTermCode = errorCode;
    }

    /** Records an error to report to the peer once the receive side is given back. */
    private void error(int layer, int type, int code, ByteBuffer payload, int header, AsyncEventType event) {
        termLayer = layer;
        termType = type;
        termCode = code;
        termEvent = event;
        termHeader.clear();
        if (payload != null) {
            int from = payload.position() - header - 2;
            if (from >= 0) {
                for (int k = 0; k < header + 2 && termHeader.hasRemaining(); k++) {
                    termHeader.put(payload.get(from + k));
                }
            }
        }
        termHeader.flip();
    }

    // =====================================================================================================
    // the end
    // =====================================================================================================

    /** Handles what a token holder recorded: sends the Terminate, if any, and ends the QP. */
    private void afterTokens() {
        int layer = termLayer;
        if (layer >= 0) {
            LOG.debug("{}: Terminate to the peer: layer {}, type {}, code 0x{}", qp, layer, termType,
                    Integer.toHexString(termCode));
            connection.terminate(layer, termType, termCode, termHeader); // never waits behind a half-sent message
            end(termEvent, "sent a Terminate (layer " + layer + ", type " + termType + ", code 0x"
                    + Integer.toHexString(termCode) + ")");
        } else {
            String why = txFailure;
            end(txEvent, why == null ? "error" : why);
        }
    }

    /** The time-out of a stalled transmit (for the progress thread). */
    void endStalled() {
        end(null, "the peer read nothing for " + timeoutNanos / 1_000_000L + " ms");
    }

    /**
     * Ends the connection once: closes it, moves the QP to ERR (which flushes its work), raises the async event
     * siw raises for the cause (QP_FATAL for a local failure or a malformed stream, QP_ACCESS_ERR for a refused
     * placement, QP_REQ_ERR for a refused Read Request; none for a close or a Terminate received), runs the
     * connection manager's {@code onEnd}.
     *
     * @param event the async event to raise, or null
     * @param why   for the log
     */
    void end(AsyncEventType event, String why) {
        end(event, why, true);
    }

    /**
     * Ends the connection for a move to RESET: as {@link #end}, but the QP's queues are left to the reset, which
     * forgets them without completions.
     */
    void endForReset() {
        end(null, "the QP was reset", false);
    }

    private void end(AsyncEventType event, String why, boolean toError) {
        if (!ended.compareAndSet(false, true)) {
            return;
        }
        if (LOG.isDebugEnabled()) {
            LOG.debug("{}: connection ends: {} (progress until then: {} transmits stalled; the progress thread's {}"
                    + " writable wake-ups, {} receives and {} naps; {} polls waiting, {} polls in all)", qp, why,
                    stalls, writableWakeups, engineReceives, naps, polls.get(), allPolls.get());
        }
        connection.close();
        ProgressEngine e = qp.softContext().progress();
        if (e != null) {
            e.wakeup();
        }
        if (toError) {
            qp.failFromDataPath();
        } else {
            while (!sq.tryConsume()) {
                Thread.onSpinWait();
            }
            try {
                releaseSges(); // the regions of a message half sent
                txKind = TX_NONE;
                secondPending = false;
            } finally {
                sq.endConsume();
            }
        }
        if (event != null) {
            qp.softContext().raise(new AsyncEvent(event, qp, 0));
        }
        sendCq.detach(this);
        recvCq.detach(this);
        if (endRan.compareAndSet(false, true) && onEnd != null) {
            try {
                onEnd.run();
            } catch (RuntimeException ex) {
                LOG.warn("{}: the connection's onEnd failed", qp, ex);
            }
        }
    }

    /**
     * For the flush of the send queue (holder of its token): gives back the regions of the message being sent,
     * then completes the outstanding Reads with {@code WR_FLUSH_ERR} (the first with a remote error when the
     * peer's Terminate was about it).
     */
    void flushSendSide() {
        releaseSges();
        txKind = TX_NONE;
        secondPending = false;
        while (!rxOwner.compareAndSet(false, true)) {
            Thread.onSpinWait(); // a receive in progress, short
        }
        try {
            boolean first = true;
            for (long h = orqHead.get(); h != orqTail.get(); h++) {
                int i = (int) (h % orqWrId.length);
                int status = FLUSH;
                if (first && peerTermLayer >= 0) {
                    status = peerTermLayer == LAYER_RDMAP && peerTermType == RDMAP_REMOTE_PROTECTION
                            || peerTermLayer == LAYER_DDP && peerTermType == DDP_TAGGED
                            ? WcStatus.REM_ACCESS_ERR.value() : WcStatus.REM_OP_ERR.value();
                }
                first = false;
                sendCq.complete(orqWrId[i], status, orqWcOpcode[i], 0, 0, qpNumber, 0, false);
            }
            orqHead.set(orqTail.get());
            irqHead.set(irqTail.get());
        } finally {
            rxOwner.set(false);
        }
    }

    /** For the flush of the receive side: completes the receive being filled, if any, with WR_FLUSH_ERR. */
    void flushReceiveSide() {
        while (!rxOwner.compareAndSet(false, true)) {
            Thread.onSpinWait();
        }
        try {
            if (receiveActive) {
                receiveActive = false;
                recvCq.complete(RawMemory.getLong(currentReceive + WR_ID), FLUSH, WcCodes.RECV, 0, 0, qpNumber, 0,
                        false);
            }
        } finally {
            rxOwner.set(false);
        }
    }
}
