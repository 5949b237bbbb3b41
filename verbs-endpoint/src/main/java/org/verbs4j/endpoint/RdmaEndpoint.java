package org.verbs4j.endpoint;

import java.util.ArrayList;
import java.util.List;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.Opcode;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.QueuePair;
import org.verbs4j.api.ReceiveRequests;
import org.verbs4j.api.SendFlags;
import org.verbs4j.api.SendRequests;
import org.verbs4j.api.WcStatus;
import org.verbs4j.api.WorkCompletions;
import org.verbs4j.api.cm.CmId;
import org.verbs4j.api.cm.ConnectionManager;
import org.verbs4j.api.internal.RawMemory;
import org.verbs4j.api.spi.FabricProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A connected reliable-connected endpoint: a queue pair, its two completion queues and registered memory
 * (send slots, receive slots, an optional RDMA region), made by {@link Endpoints#connect} or
 * {@link EndpointServer#accept}, the same way on InfiniBand, RoCE and iWARP.
 *
 * <h2>Data path</h2>
 * <ul>
 * <li>{@link #send}: the {@code length} first bytes of send slot {@code slot} ({@link #sendAddress}) become one
 * message; the work request id of its completion is the slot.</li>
 * <li>{@link #pollReceive}: receive completions; the work request id is the receive slot the message is in
 * ({@link #receiveAddress}), {@code byteLength} its size. Give the slot back with {@link #repostReceive}
 * when done with it.</li>
 * <li>{@link #write} / {@link #read}: RDMA WRITE from / RDMA READ into this side's RDMA region, at an offset of
 * the peer's region ({@link #remoteRegion}); the work request id is the caller's.</li>
 * <li>{@link #pollSend}: completions of sends, writes and reads (and only those: the endpoint's own credit
 * updates are taken out).</li>
 * </ul>
 * Every send-queue operation is signaled; at most {@link EndpointOptions#sendDepth} are in flight, and the
 * next one throws until {@link #pollSend} reaped one. Nothing here allocates, locks or creates JNR objects:
 * the work requests are prepared native flyweights, filled and posted again and again. One thread at a time
 * may use an endpoint (like a socket).
 *
 * <h2>Send credits</h2>
 * With {@link EndpointOptions#credits} (the default), each side RDMA-writes its running count of posted
 * receives into the peer's credit word after every {@link #repostReceive}. {@link #send} sends only while
 * {@code sent < peer's posted count}, so no send ever meets a missing receive: on iWARP, which has no
 * receiver-not-ready retry, that would break the connection; on InfiniBand and RoCE it would cost an RNR NAK
 * and a retry delay. When a credit is missing, {@link #send} spins until one arrives or the endpoint's timeout
 * passes; {@link #trySend} returns false at once.
 *
 * <h2>Closing</h2>
 * {@link #close} disconnects, then frees the queue pair, completion queues, memory and protection domain, in
 * that order. Anything used after close throws {@link IllegalStateException}.
 */
public final class RdmaEndpoint implements AutoCloseable {
    /** The work request id of the endpoint's own credit writes; {@link #write} and {@link #read} refuse it. */
    public static final long INTERNAL_WR_ID = -1L;

    private static final Logger LOG = LoggerFactory.getLogger(RdmaEndpoint.class);
    private static final int WC = WorkCompletions.WC_SIZE;
    /** Control memory: [0, 8) the peer's posted-receive count (the peer writes it); [8, 16) ours, the write's source. */
    static final int CONTROL_SIZE = 64;
    private static final int CREDIT_IN = 0;
    private static final int CREDIT_OUT = 8;

    private final String description;
    private final FabricProvider fabric;
    private final ConnectionMode mode;
    private final DeviceContext context;
    private final boolean ownsContext;
    private final ConnectionManager ownedCm;
    private final CmId cmId;
    private final ProtectionDomain pd;
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    private final QueuePair qp;
    private final MemoryRegion sendMr;
    private final MemoryRegion recvMr;
    private final MemoryRegion controlMr;
    private final MemoryRegion rdmaMr;
    private final int messageSize;
    private final int sendDepth;
    private final int receiveDepth;
    private final int inlineLimit;
    private final int creditSlots;
    private final long timeoutNanos;
    private final boolean credits;
    private final long sendBase;
    private final long recvBase;
    private final long controlBase;
    private final int sendLkey;
    private final int recvLkey;

    private final SendRequests sendWr = SendRequests.allocate(1, 1);
    private final SendRequests creditWr = SendRequests.allocate(1, 1);
    private final ReceiveRequests recvWr = ReceiveRequests.allocate(1, 1);
    private final WorkCompletions reapWc;
    private final WorkCompletions stash;
    private int stashHead;
    private int stashCount;

    private RemoteRegion remote = new RemoteRegion(0, 0, 0);
    private long remoteCreditAddress;
    private int remoteCreditRkey;
    private int peerReceiveDepth;
    private int peerMessageSize;

    private long sent;
    private long posted;
    private int outstanding;
    private int internalOutstanding;
    private boolean closed;

    /** Everything {@link Setup} created; the endpoint owns it from here on. */
    RdmaEndpoint(Setup s) {
        this.description = s.description;
        this.fabric = s.fabric;
        this.mode = s.mode;
        this.context = s.context;
        this.ownsContext = s.ownsContext;
        this.ownedCm = s.ownedCm;
        this.cmId = s.cmId;
        this.pd = s.pd;
        this.sendCq = s.sendCq;
        this.recvCq = s.recvCq;
        this.qp = s.qp;
        this.sendMr = s.sendMr;
        this.recvMr = s.recvMr;
        this.controlMr = s.controlMr;
        this.rdmaMr = s.rdmaMr;
        this.messageSize = s.options.messageSize();
        this.sendDepth = s.options.sendDepth();
        this.receiveDepth = s.options.receiveDepth();
        this.creditSlots = s.creditSlots;
        this.timeoutNanos = s.options.timeout().toNanos();
        this.credits = s.options.credits();
        this.inlineLimit = qp.capabilities().maxInlineData();
        this.sendBase = sendMr.address();
        this.recvBase = recvMr.address();
        this.controlBase = controlMr.address();
        this.sendLkey = sendMr.lkey();
        this.recvLkey = recvMr.lkey();
        this.reapWc = WorkCompletions.allocate(Math.max(16, creditSlots));
        this.stash = WorkCompletions.allocate(sendDepth);
        // prepared once; the data path only changes what differs per call
        sendWr.at(0).clear().opcode(Opcode.SEND).flags(SendFlags.SIGNALED).sge(sendBase, 0, sendLkey);
        creditWr.at(0).clear().wrId(INTERNAL_WR_ID).opcode(Opcode.RDMA_WRITE)
                .flags(SendFlags.SIGNALED | (inlineLimit >= 8 ? SendFlags.INLINE : 0))
                .sge(controlBase + CREDIT_OUT, 8, controlMr.lkey());
        recvWr.at(0).sge(recvBase, messageSize, recvLkey);
    }

    // ---- set-up (package-private: Endpoints and EndpointServer drive it) ----

    /** Posts every receive slot; before the peer can send. */
    void postAllReceives() {
        for (int slot = 0; slot < receiveDepth; slot++) {
            postReceive(slot);
        }
    }

    /** What this side tells the peer. */
    Handshake localHandshake(int mtu) {
        return new Handshake(credits, receiveDepth, messageSize, rdmaMr == null ? 0 : rdmaMr.address(),
                rdmaMr == null ? 0 : rdmaMr.rkey(), rdmaMr == null ? 0 : rdmaMr.length(),
                controlBase + CREDIT_IN, controlMr.rkey(), mtu);
    }

    /** Takes in what the peer told; checks that both sides agree on credits. */
    void applyPeer(Handshake peer, String peerName) {
        if (peer.credits() != credits) {
            throw new EndpointException("send credits are " + (credits ? "on" : "off") + " here but "
                    + (peer.credits() ? "on" : "off") + " at " + peerName + ": both endpoints must set "
                    + "EndpointOptions.credits() alike");
        }
        remote = new RemoteRegion(peer.regionAddress(), peer.regionRkey(), peer.regionLength());
        remoteCreditAddress = peer.creditAddress();
        remoteCreditRkey = peer.creditRkey();
        peerReceiveDepth = peer.receiveDepth();
        peerMessageSize = peer.messageSize();
        creditWr.at(0).rdma(remoteCreditAddress, remoteCreditRkey);
    }

    /**
     * The first credit exchange, which also tells each side that the other is ready: the active side writes
     * first (on iWARP the side that connected must send first), the passive side waits for it and answers.
     */
    void creditHandshake(boolean active) {
        if (!credits) {
            return;
        }
        if (active) {
            postCreditUpdate();
            awaitPeerCredits();
        } else {
            awaitPeerCredits();
            postCreditUpdate();
        }
    }

    private void awaitPeerCredits() {
        long deadline = System.nanoTime() + timeoutNanos;
        while (RawMemory.getLongVolatile(controlBase + CREDIT_IN) == 0) {
            if (System.nanoTime() - deadline > 0) {
                throw new EndpointException(description + ": the peer's first credit update did not arrive within "
                        + (timeoutNanos / 1_000_000) + " ms: is the peer a verbs4j endpoint with credits on, and "
                        + "still running?");
            }
            reapInternal();
            Thread.onSpinWait();
        }
    }

    // ---- data path ----

    /**
     * Sends the first {@code length} bytes of send slot {@code slot} (work request id = slot), inline when the
     * QP takes that much inline. With credits, waits for a credit up to the endpoint's timeout.
     *
     * @throws IllegalStateException when {@link EndpointOptions#sendDepth} operations are already in flight
     * @throws EndpointException     when no credit arrived in time
     */
    public void send(int slot, int length) {
        if (!trySend(slot, length)) {
            long deadline = System.nanoTime() + timeoutNanos;
            do {
                if (System.nanoTime() - deadline > 0) {
                    throw new EndpointException(description + ": no send credit for " + (timeoutNanos / 1_000_000)
                            + " ms: the peer has " + sent + " messages and posted " + peerPosted() + " receives "
                            + "in all; it must poll its receives and call repostReceive");
                }
                reapInternal();
                Thread.onSpinWait();
            } while (!trySend(slot, length));
        }
    }

    /**
     * {@link #send} without waiting: false when credits are on and the peer has no free receive.
     *
     * @throws IllegalStateException when {@link EndpointOptions#sendDepth} operations are already in flight
     */
    public boolean trySend(int slot, int length) {
        checkOpen();
        if (slot < 0 || slot >= sendDepth) {
            throw new IndexOutOfBoundsException("send slot " + slot + " is not in 0.." + (sendDepth - 1));
        }
        if (length < 0 || length > messageSize) {
            throw new IllegalArgumentException("message length " + length + " is not in 0.." + messageSize
                    + " (the endpoint's messageSize)");
        }
        checkSendQueue();
        if (credits && sent >= peerPosted()) {
            return false;
        }
        SendRequests.SendRequest r = sendWr.at(0);
        r.wrId(slot).opcode(Opcode.SEND)
                .flags(length <= inlineLimit ? SendFlags.SIGNALED | SendFlags.INLINE : SendFlags.SIGNALED)
                .sge(sendBase + (long) slot * messageSize, length, sendLkey);
        qp.postSend(sendWr);
        sent++;
        outstanding++;
        return true;
    }

    /**
     * RDMA WRITE of {@code length} bytes from this side's RDMA region at {@code localOffset} to the peer's
     * region at {@code remoteOffset}. Needs no receive and no credit at the peer.
     */
    public void write(long localOffset, int length, long remoteOffset, long wrId) {
        rdma(Opcode.RDMA_WRITE, localOffset, length, remoteOffset, wrId);
    }

    /**
     * RDMA READ of {@code length} bytes of the peer's region at {@code remoteOffset} into this side's RDMA
     * region at {@code localOffset} (registered with the access the fabric needs for a read sink: on iWARP
     * remote write as well).
     */
    public void read(long localOffset, int length, long remoteOffset, long wrId) {
        rdma(Opcode.RDMA_READ, localOffset, length, remoteOffset, wrId);
    }

    private void rdma(Opcode op, long localOffset, int length, long remoteOffset, long wrId) {
        checkOpen();
        if (rdmaMr == null) {
            throw new IllegalStateException(description + " has no RDMA region: set EndpointOptions.rdmaRegionSize");
        }
        if (wrId == INTERNAL_WR_ID) {
            throw new IllegalArgumentException("work request id " + INTERNAL_WR_ID + " is the endpoint's own");
        }
        if (localOffset < 0 || length < 0 || localOffset + length > rdmaMr.length()) {
            throw new IndexOutOfBoundsException("local offset " + localOffset + " + " + length + " bytes is outside "
                    + "this side's " + rdmaMr.length() + "-byte RDMA region");
        }
        long remoteAddress = remote.at(remoteOffset, length);
        checkSendQueue();
        SendRequests.SendRequest r = sendWr.at(0);
        r.wrId(wrId).opcode(op)
                .flags(op == Opcode.RDMA_WRITE && length <= inlineLimit ? SendFlags.SIGNALED | SendFlags.INLINE
                        : SendFlags.SIGNALED)
                .sge(rdmaMr.address() + localOffset, length, rdmaMr.lkey()).rdma(remoteAddress, remote.rkey());
        qp.postSend(sendWr);
        outstanding++;
    }

    /**
     * Completions of this endpoint's sends, writes and reads, into {@code wc} (at most its capacity); returns
     * how many. The endpoint's own credit writes are reaped here and not returned.
     *
     * @throws EndpointException when a credit write failed (the connection is then broken)
     */
    public int pollSend(WorkCompletions wc) {
        checkOpen();
        int cap = wc.capacity();
        if (stashCount > 0) {
            int n = Math.min(cap, stashCount);
            for (int i = 0; i < n; i++) {
                RawMemory.copy(stash.address() + (long) stashHead * WC, wc.address() + (long) i * WC, WC);
                stashHead = stashHead + 1 == stash.capacity() ? 0 : stashHead + 1;
            }
            stashCount -= n;
            outstanding -= n;
            return n;
        }
        int got = sendCq.poll(wc);
        int kept = 0;
        for (int i = 0; i < got; i++) {
            if (wc.wrId(i) == INTERNAL_WR_ID) {
                internalDone(wc, i);
            } else {
                if (kept != i) {
                    RawMemory.copy(wc.address() + (long) i * WC, wc.address() + (long) kept * WC, WC);
                }
                kept++;
            }
        }
        outstanding -= kept;
        return kept;
    }

    /** Receive completions into {@code wc}; the work request id is the receive slot. Returns how many. */
    public int pollReceive(WorkCompletions wc) {
        checkOpen();
        return recvCq.poll(wc);
    }

    /** Posts receive slot {@code slot} again and (with credits) tells the peer. */
    public void repostReceive(int slot) {
        checkOpen();
        if (slot < 0 || slot >= receiveDepth) {
            throw new IndexOutOfBoundsException("receive slot " + slot + " is not in 0.." + (receiveDepth - 1));
        }
        postReceive(slot);
        if (credits) {
            postCreditUpdate();
        }
    }

    private void postReceive(int slot) {
        recvWr.at(0).wrId(slot).sge(recvBase + (long) slot * messageSize, messageSize, recvLkey);
        qp.postReceive(recvWr);
        posted++;
    }

    /** RDMA-writes our posted-receive count into the peer's credit word. */
    private void postCreditUpdate() {
        if (internalOutstanding >= creditSlots) {
            long deadline = System.nanoTime() + timeoutNanos;
            while (internalOutstanding >= creditSlots) {
                reapInternal();
                if (System.nanoTime() - deadline > 0) {
                    throw new EndpointException(description + ": the endpoint's credit writes did not complete within "
                            + (timeoutNanos / 1_000_000) + " ms: is the connection still up?");
                }
            }
        }
        RawMemory.putLong(controlBase + CREDIT_OUT, posted);
        qp.postSend(creditWr);
        internalOutstanding++;
    }

    /** Polls the send CQ; credit completions are consumed, the others kept for {@link #pollSend}. */
    private void reapInternal() {
        if (internalOutstanding == 0) {
            return;
        }
        // the stash cannot overflow: it holds user completions, of which at most sendDepth are in flight
        int got = sendCq.poll(reapWc);
        for (int i = 0; i < got; i++) {
            if (reapWc.wrId(i) == INTERNAL_WR_ID) {
                internalDone(reapWc, i);
            } else {
                int tail = stashHead + stashCount;
                if (tail >= stash.capacity()) {
                    tail -= stash.capacity();
                }
                RawMemory.copy(reapWc.address() + (long) i * WC, stash.address() + (long) tail * WC, WC);
                stashCount++;
            }
        }
    }

    private void internalDone(WorkCompletions wc, int i) {
        internalOutstanding--;
        if (!wc.ok(i)) {
            WcStatus st = wc.status(i);
            throw new EndpointException(description + ": a credit update (RDMA WRITE to the peer's credit word) "
                    + "failed with " + (st == null ? "status " + wc.statusValue(i) : st.name() + " (" + st + ")")
                    + ": the connection is broken (peer gone, or " + (st == WcStatus.WR_FLUSH_ERR
                            ? "the queue pair was already in the error state)" : "a transport error)"));
        }
    }

    private void checkSendQueue() {
        if (outstanding >= sendDepth) {
            throw new IllegalStateException(description + ": " + sendDepth + " operations are in flight (sendDepth): "
                    + "poll their completions with pollSend first");
        }
    }

    private long peerPosted() {
        return RawMemory.getLongVolatile(controlBase + CREDIT_IN);
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException(description + " is closed");
        }
    }

    // ---- accessors ----

    /** Address of send slot {@code slot}: write the message there, then {@link #send}. */
    public long sendAddress(int slot) {
        checkOpen();
        if (slot < 0 || slot >= sendDepth) {
            throw new IndexOutOfBoundsException("send slot " + slot + " is not in 0.." + (sendDepth - 1));
        }
        return sendBase + (long) slot * messageSize;
    }

    /** Address of receive slot {@code slot}, where the message of a receive completion with that wr_id is. */
    public long receiveAddress(int slot) {
        checkOpen();
        if (slot < 0 || slot >= receiveDepth) {
            throw new IndexOutOfBoundsException("receive slot " + slot + " is not in 0.." + (receiveDepth - 1));
        }
        return recvBase + (long) slot * messageSize;
    }

    /** The registered memory of the send slots (slot {@code i} at offset {@code i * messageSize}). */
    public MemoryRegion sendRegion() {
        return sendMr;
    }

    /** The registered memory of the receive slots (slot {@code i} at offset {@code i * messageSize}). */
    public MemoryRegion receiveRegion() {
        return recvMr;
    }

    /** This side's RDMA region, or {@code null} when {@link EndpointOptions#rdmaRegionSize} was 0. */
    public MemoryRegion rdmaRegion() {
        return rdmaMr;
    }

    /** The peer's RDMA region (length 0 when it has none). */
    public RemoteRegion remoteRegion() {
        return remote;
    }

    /** Sends {@link #send} could post now without waiting (Long.MAX_VALUE without credits). */
    public long sendCredits() {
        return credits ? peerPosted() - sent : Long.MAX_VALUE;
    }

    public int messageSize() {
        return messageSize;
    }

    public int sendDepth() {
        return sendDepth;
    }

    public int receiveDepth() {
        return receiveDepth;
    }

    /** The peer's receive depth and message size, from the handshake. */
    public int peerReceiveDepth() {
        return peerReceiveDepth;
    }

    public int peerMessageSize() {
        return peerMessageSize;
    }

    /** The fabric provider that set this endpoint up ({@code ib}, {@code roce}, {@code iwarp}). */
    public FabricProvider fabric() {
        return fabric;
    }

    public ConnectionMode mode() {
        return mode;
    }

    public DeviceContext context() {
        return context;
    }

    public ProtectionDomain protectionDomain() {
        return pd;
    }

    public QueuePair queuePair() {
        return qp;
    }

    public CompletionQueue sendCompletionQueue() {
        return sendCq;
    }

    public CompletionQueue receiveCompletionQueue() {
        return recvCq;
    }

    public boolean isClosed() {
        return closed;
    }

    @Override
    public String toString() {
        return description;
    }

    /**
     * Disconnects and frees everything, in dependency order: queue pair (with its rdma_cm id), completion
     * queues, memory, protection domain, and the device context or connection manager when this endpoint
     * owns it. Closing twice does nothing.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        List<Throwable> failures = new ArrayList<>();
        if (cmId != null) {
            run(failures, cmId::disconnect);
            run(failures, cmId::close);
        } else {
            run(failures, qp::close);
        }
        run(failures, sendCq::close);
        run(failures, recvCq::close);
        run(failures, sendMr::close);
        run(failures, recvMr::close);
        run(failures, controlMr::close);
        if (rdmaMr != null) {
            run(failures, rdmaMr::close);
        }
        run(failures, pd::close);
        run(failures, sendWr::close);
        run(failures, creditWr::close);
        run(failures, recvWr::close);
        run(failures, reapWc::close);
        run(failures, stash::close);
        if (ownedCm != null) {
            run(failures, ownedCm::close);
        }
        if (ownsContext) {
            run(failures, context::close);
        }
        if (!failures.isEmpty()) {
            RuntimeException e = new EndpointException(description + ": closing failed: " + failures.get(0).getMessage(),
                    failures.get(0));
            failures.subList(1, failures.size()).forEach(e::addSuppressed);
            throw e;
        }
        LOG.debug("{} closed", description);
    }

    private static void run(List<Throwable> failures, Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            failures.add(e);
        }
    }

    /** What an endpoint is built from; {@link Endpoints} fills it step by step and frees it on failure. */
    static final class Setup {
        String description;
        FabricProvider fabric;
        ConnectionMode mode;
        EndpointOptions options;
        DeviceContext context;
        boolean ownsContext;
        ConnectionManager ownedCm;
        CmId cmId;
        ProtectionDomain pd;
        CompletionQueue sendCq;
        CompletionQueue recvCq;
        QueuePair qp;
        MemoryRegion sendMr;
        MemoryRegion recvMr;
        MemoryRegion controlMr;
        MemoryRegion rdmaMr;
        int creditSlots;

        /** Frees what was created so far, in dependency order (a failed set-up). */
        void abandon() {
            List<Throwable> ignored = new ArrayList<>();
            if (cmId != null) {
                run(ignored, cmId::close);
            } else if (qp != null) {
                run(ignored, qp::close);
            }
            for (AutoCloseable c : new AutoCloseable[] {sendCq, recvCq, sendMr, recvMr, controlMr, rdmaMr, pd}) {
                if (c != null) {
                    run(ignored, () -> {
                        try {
                            c.close();
                        } catch (Exception e) {
                            throw new RuntimeException(e);
                        }
                    });
                }
            }
            if (ownedCm != null) {
                run(ignored, ownedCm::close);
            }
            if (ownsContext && context != null) {
                run(ignored, context::close);
            }
            ignored.forEach(t -> LOG.debug("while freeing a failed endpoint set-up", t));
        }
    }
}
