package org.verbs4j.endpoint;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.verbs4j.api.CompletionChannel;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.Opcode;
import org.verbs4j.api.PostException;
import org.verbs4j.api.QueuePair;
import org.verbs4j.api.RdmaDevice;
import org.verbs4j.api.ReceiveRequests;
import org.verbs4j.api.SendFlags;
import org.verbs4j.api.SendRequests;
import org.verbs4j.api.WcOpcode;
import org.verbs4j.api.WorkCompletions;

/**
 * A connected reliable-connected endpoint: a queue pair, its two completion queues and registered memory
 * (send slots, receive slots, an optional RDMA region), made by {@link Endpoints#connect} or
 * {@link EndpointServer#accept}, the same way on InfiniBand, RoCE and iWARP.
 *
 * <pre>{@code
 * ep.sendSlot(0).put("hello".getBytes(US_ASCII));   // write the message into send slot 0
 * ep.send(0, 5);                                      // waits for a credit if the peer has no free receive
 * int n = peer.pollReceive(wc);
 * ByteBuffer m = peer.message(wc, 0);                 // the received bytes: limit = their length
 * peer.repostReceive((int) wc.wrId(0));               // done with it: the slot goes back, the sender gets a credit
 * }</pre>
 *
 * The {@linkplain org.verbs4j.endpoint package overview} lists the data path, send credits and immediate data.
 * Every send-queue operation is signaled; at most {@link EndpointOptions#sendDepth} are in flight, and the next
 * one throws until {@link #pollSend} reaped one. Nothing here allocates, locks or creates JNR objects: the work
 * requests are prepared native flyweights and the slot views are made once. One thread at a time may use an
 * endpoint (like a socket); {@link #close} may run on any thread.
 */
public final class RdmaEndpoint implements AutoCloseable {
    /** The work request id of the endpoint's own credit writes; {@link #write} and {@link #read} refuse it. */
    public static final long INTERNAL_WR_ID = -1L;

    private static final Logger LOG = LoggerFactory.getLogger(RdmaEndpoint.class);

    private final EndpointResources resources;
    private final String description;
    private final QueuePair qp;
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    private final CompletionChannel channel;
    private final MessageSlots sendSlots;
    private final MessageSlots recvSlots;
    private final MemoryRegion rdmaMr;
    private final ByteBuffer rdmaView;
    private final SendQueue sendQueue;
    private final Credits credits;
    /** {@link #repostReceive}'s slot, as a list of one. */
    private final int[] oneSlot = new int[1];
    private final EndpointQueuePair queuePair;
    private final int inlineLimit;
    /** Asked of the QP once connected (a software iWARP QP knows it only then); before, false. */
    private boolean immediateData;
    private final SendRequests sendWr;
    /** One request per send slot, for {@link #trySendBatch}: a chain posted at once. */
    private final SendRequests batchWr;
    private final ReceiveRequests recvWr;

    private RemoteRegion remote = new RemoteRegion(0, 0, 0);
    private int peerReceiveDepth;
    private int peerMessageSize;
    /** The connection's addresses, from its rdma_cm id once connected; null when unknown. */
    private InetSocketAddress localAddress;
    private InetSocketAddress remoteAddress;
    /** Volatile: a close on another thread is seen by the next call, and by a wait in progress. */
    private volatile boolean closed;

    /** Everything {@code r} holds belongs to the endpoint from here on. */
    RdmaEndpoint(EndpointResources r) {
        this.resources = r;
        this.description = r.description;
        this.qp = r.qp;
        this.sendCq = r.sendCq;
        this.recvCq = r.recvCq;
        this.channel = r.channel;
        this.sendSlots = r.sendSlots;
        this.recvSlots = r.recvSlots;
        this.rdmaMr = r.rdmaMr;
        this.rdmaView = r.rdmaBuffer;
        this.inlineLimit = qp.capabilities().maxInlineData();
        this.sendWr = r.own(SendRequests.allocate(1, 1));
        this.batchWr = r.own(SendRequests.allocate(sendSlots.count(), 1));
        this.recvWr = r.own(ReceiveRequests.allocate(1, 1));
        this.sendQueue = new SendQueue(r);
        this.credits = new Credits(r, sendQueue);
        this.queuePair = new EndpointQueuePair(this, r, sendQueue);
        // prepared once; the data path only changes what differs per call
        sendWr.at(0).clear().opcode(Opcode.SEND).flags(SendFlags.SIGNALED).sge(sendSlots.address(0), 0, sendSlots.lkey());
        recvWr.at(0).sge(recvSlots.address(0), recvSlots.size(), recvSlots.lkey());
    }

    // ---- set-up (package-private: Endpoints and EndpointServer drive it) ----

    void postAllReceives() {
        for (int slot = 0; slot < recvSlots.count(); slot++) {
            postReceive(slot);
        }
    }

    /** Records the connection's addresses once it is established (the id's own are gone with its close). */
    void recordAddresses(org.verbs4j.api.cm.CmId id) {
        localAddress = id.localAddress();
        remoteAddress = id.peerAddress();
    }

    Handshake localHandshake(int mtu) {
        return new Handshake(credits.enabled(), recvSlots.count(), recvSlots.size(),
                rdmaMr == null ? 0 : rdmaMr.address(), rdmaMr == null ? 0 : rdmaMr.rkey(),
                rdmaMr == null ? 0 : rdmaMr.length(), credits.wordAddress(), credits.wordRkey(), mtu);
    }

    /** Takes in what the peer told; checks that both sides agree on credits. */
    void applyPeer(Handshake peer, String peerName) {
        if (peer.credits() != credits.enabled()) {
            throw new EndpointException("send credits are " + (credits.enabled() ? "on" : "off") + " here but "
                    + (peer.credits() ? "on" : "off") + " at " + peerName + ": both endpoints must set "
                    + "EndpointOptions.credits() alike");
        }
        remote = new RemoteRegion(peer.regionAddress(), peer.regionRkey(), peer.regionLength());
        peerReceiveDepth = peer.receiveDepth();
        peerMessageSize = peer.messageSize();
        credits.target(peer);
    }

    /** The last step of every way to connect, once the QP is connected. */
    void creditHandshake(boolean active) {
        immediateData = qp.supportsImmediateData();
        credits.handshake(active);
    }

    // ---- data path ----

    /**
     * Sends the first {@code length} bytes of send slot {@code slot} (work request id = slot), inline when the
     * QP takes that much inline. With credits, waits for a credit up to the endpoint's timeout.
     * @param slot   the send slot, 0..{@code sendDepth-1}
     * @param length the message's bytes at the start of the slot, 0..{@code messageSize}
     * @throws IllegalStateException when {@link EndpointOptions#sendDepth} operations are already in flight
     * @throws EndpointException     when no credit arrived in time
     */
    public void send(int slot, int length) {
        postMessage(Opcode.SEND, slot, length, 0, true);
    }

    /**
     * {@return {@link #send} without waiting: false, nothing posted, when credits are on and the peer has no
     * free receive}
     * @param slot   the send slot, 0..{@code sendDepth-1}
     * @param length the message's bytes at the start of the slot, 0..{@code messageSize}
     * @throws IllegalStateException when {@link EndpointOptions#sendDepth} operations are already in flight
     */
    public boolean trySend(int slot, int length) {
        return postMessage(Opcode.SEND, slot, length, 0, false);
    }

    /**
     * {@link #send} with 32 bits of immediate data, which the receiver reads from its receive completion
     * ({@link WorkCompletions#immData}).
     * @param slot      the send slot, 0..{@code sendDepth-1}
     * @param length    the message's bytes at the start of the slot, 0..{@code messageSize}
     * @param immediate the 32 bits the receiver gets
     * @throws UnsupportedOperationException where the connection has no immediate data ({@link #supportsImmediateData}:
     *         iWARP but between two verbs4j peers on the software device), before anything is posted
     */
    public void sendWithImmediate(int slot, int length, int immediate) {
        postMessage(Opcode.SEND_WITH_IMM, slot, length, immediate, true);
    }

    /**
     * {@return {@link #sendWithImmediate} without waiting: false, nothing posted, when there is no credit}
     * @param slot      the send slot, 0..{@code sendDepth-1}
     * @param length    the message's bytes at the start of the slot, 0..{@code messageSize}
     * @param immediate the 32 bits the receiver gets
     */
    public boolean trySendWithImmediate(int slot, int length, int immediate) {
        return postMessage(Opcode.SEND_WITH_IMM, slot, length, immediate, false);
    }

    /**
     * Sends up to {@code count} messages with one post ({@code ibv_post_send} of a chain: one doorbell), as many as
     * the peer's credits and the free places of the send queue allow, never waiting: message {@code i} is the first
     * {@code lengths[i]} bytes of send slot {@code (firstSlot + i) % sendDepth} (work request id = its slot).
     *
     * <pre>{@code
     * int posted = ep.trySendBatch(0, lengths, 4);   // slots 0..3, or fewer without enough credits
     * }</pre>
     *
     * @param firstSlot the slot of the first message, 0..{@code sendDepth-1}
     * @param lengths   the messages' lengths, each 0..{@code messageSize}
     * @param count     how many messages of {@code lengths} to send, 0..{@code min(lengths.length, sendDepth)}
     * @return how many were posted, from the first: 0 when there is no credit or no room
     * @throws IllegalArgumentException when {@code count} or one of the first {@code count} lengths is out of range
     *                                  (nothing posted)
     * @throws IndexOutOfBoundsException when {@code firstSlot} is not a send slot
     */
    public int trySendBatch(int firstSlot, int[] lengths, int count) {
        enterCall();
        try {
            sendSlots.check(firstSlot);
            int depth = sendSlots.count();
            if (count < 0 || count > lengths.length || count > depth) {
                throw new IllegalArgumentException("count " + count + " is not in 0.." + Math.min(lengths.length, depth));
            }
            for (int i = 0; i < count; i++) {
                sendSlots.checkLength(lengths[i]);
            }
            int n = (int) Math.min(Math.min(count, credits.count()), sendQueue.room());
            if (n <= 0) {
                return 0;
            }
            for (int i = 0; i < n; i++) {
                int slot = firstSlot + i < depth ? firstSlot + i : firstSlot + i - depth;
                batchWr.at(i).wrId(slot).opcode(Opcode.SEND)
                        .flags(lengths[i] <= inlineLimit ? SendFlags.SIGNALED | SendFlags.INLINE : SendFlags.SIGNALED)
                        .immData(0).sge(sendSlots.address(slot), lengths[i], sendSlots.lkey());
            }
            batchWr.count(n);
            try {
                sendQueue.post(batchWr, n);
            } catch (PostException e) {
                for (int i = 0; i < e.failedIndex(); i++) {
                    credits.consume(); // those before the failed one went
                }
                throw e;
            }
            for (int i = 0; i < n; i++) {
                credits.consume();
            }
            return n;
        } catch (RuntimeException e) {
            throw closedDuring(e);
        } finally {
            leaveCall();
        }
    }

    private boolean postMessage(Opcode op, int slot, int length, int immediate, boolean wait) {
        enterCall();
        try {
            if (op == Opcode.SEND_WITH_IMM) {
                checkImmediateData("sendWithImmediate");
            }
            sendSlots.check(slot);
            sendSlots.checkLength(length);
            sendQueue.checkRoom(1);
            if (!credits.available()) {
                if (!wait) {
                    return false;
                }
                credits.await();
            }
            sendWr.at(0).wrId(slot).opcode(op)
                    .flags(length <= inlineLimit ? SendFlags.SIGNALED | SendFlags.INLINE : SendFlags.SIGNALED)
                    .immData(immediate).sge(sendSlots.address(slot), length, sendSlots.lkey());
            sendQueue.post(sendWr, 1);
            credits.consume();
            return true;
        } catch (RuntimeException e) {
            throw closedDuring(e);
        } finally {
            leaveCall();
        }
    }

    /**
     * RDMA WRITE of {@code length} bytes from this side's RDMA region at {@code localOffset} to the peer's
     * region at {@code remoteOffset}. Needs no receive and no credit at the peer.
     * @param localOffset  the offset in this side's RDMA region
     * @param length       the bytes to write
     * @param remoteOffset the offset in the peer's region
     * @param wrId         the id of its completion ({@link #pollSend}); not {@link #INTERNAL_WR_ID}
     */
    public void write(long localOffset, int length, long remoteOffset, long wrId) {
        rdma(Opcode.RDMA_WRITE, localOffset, length, remoteOffset, 0, wrId);
    }

    /**
     * {@link #write} that also tells the peer: the data lands in its region, then one of its receives completes
     * with opcode {@link WcOpcode#RECV_RDMA_WITH_IMM} and {@code immediate}. Takes a credit like a
     * send (and waits for one up to the endpoint's timeout).
     * @param localOffset  the offset in this side's RDMA region
     * @param length       the bytes to write
     * @param remoteOffset the offset in the peer's region
     * @param immediate    the 32 bits the peer's receive completion carries
     * @param wrId         the id of its completion; not {@link #INTERNAL_WR_ID}
     * @throws UnsupportedOperationException where the connection has no immediate data ({@link #supportsImmediateData}:
     *         iWARP but between two verbs4j peers on the software device), before anything is posted
     */
    public void writeWithImmediate(long localOffset, int length, long remoteOffset, int immediate, long wrId) {
        rdma(Opcode.RDMA_WRITE_WITH_IMM, localOffset, length, remoteOffset, immediate, wrId);
    }

    /**
     * RDMA READ of {@code length} bytes of the peer's region at {@code remoteOffset} into this side's RDMA
     * region at {@code localOffset} (registered with the access the fabric needs for a read sink: on iWARP
     * remote write as well).
     * @param localOffset  the offset in this side's RDMA region the data lands at
     * @param length       the bytes to read
     * @param remoteOffset the offset in the peer's region
     * @param wrId         the id of its completion; not {@link #INTERNAL_WR_ID}
     */
    public void read(long localOffset, int length, long remoteOffset, long wrId) {
        rdma(Opcode.RDMA_READ, localOffset, length, remoteOffset, 0, wrId);
    }

    private void rdma(Opcode op, long localOffset, int length, long remoteOffset, int immediate, long wrId) {
        enterCall();
        try {
            boolean takesReceive = op == Opcode.RDMA_WRITE_WITH_IMM;
            if (takesReceive) {
                checkImmediateData("writeWithImmediate");
            }
            MemoryRegion mr = requireRdmaRegion();
            if (wrId == INTERNAL_WR_ID) {
                throw new IllegalArgumentException("work request id " + INTERNAL_WR_ID + " is the endpoint's own");
            }
            EndpointQueuePair.checkLocal(mr, localOffset, length);
            long remoteAddress = remote.at(remoteOffset, length);
            sendQueue.checkRoom(1);
            if (takesReceive) {
                credits.await();
            }
            sendWr.at(0).wrId(wrId).opcode(op)
                    .flags(op != Opcode.RDMA_READ && length <= inlineLimit ? SendFlags.SIGNALED | SendFlags.INLINE
                            : SendFlags.SIGNALED)
                    .immData(immediate).sge(mr.address() + localOffset, length, mr.lkey())
                    .rdma(remoteAddress, remote.rkey());
            sendQueue.post(sendWr, 1);
            if (takesReceive) {
                credits.consume();
            }
        } catch (RuntimeException e) {
            throw closedDuring(e);
        } finally {
            leaveCall();
        }
    }

    /**
     * {@return how many completions of this endpoint's sends, writes and reads were put in {@code wc}, from
     * index 0 and at most its capacity} The endpoint's own credit writes are reaped here and not returned.
     * @param wc the completions to fill
     * @throws EndpointException when a credit write failed (the connection is then broken)
     */
    public int pollSend(WorkCompletions wc) {
        enterCall();
        try {
            return sendQueue.poll(wc);
        } catch (RuntimeException e) {
            throw closedDuring(e);
        } finally {
            leaveCall();
        }
    }

    /**
     * {@return how many receive completions were put in {@code wc}, from index 0} The work request id is the
     * receive slot ({@link #message} reads it).
     * @param wc the completions to fill
     */
    public int pollReceive(WorkCompletions wc) {
        enterCall();
        try {
            return recvCq.poll(wc);
        } catch (RuntimeException e) {
            throw closedDuring(e);
        } finally {
            leaveCall();
        }
    }

    /**
     * {@return the completion channel of the endpoint's send and receive completion queues, or null when the
     * endpoint has none} The endpoint owns it and closes it with itself. Only with
     * {@link EndpointOptions#completionChannel(boolean)}.
     */
    public CompletionChannel completionChannel() {
        return channel;
    }

    /**
     * Arms the send and the receive completion queue ({@code ibv_req_notify_cq} on each): the next completion
     * of either raises one event on {@link #completionChannel()}. Then poll both once more before sleeping (a
     * completion that came before the arm raises no event), and arm again after each event:
     *
     * <pre>{@code
     * ep.requestNotify();
     * if (ep.pollReceive(wc) == 0 && ep.pollSend(wc) == 0) {
     *     ep.completionChannel().awaitEvent(1, TimeUnit.SECONDS);      // or a CompletionWaitSet of many endpoints
     * }
     * }</pre>
     *
     * A peer's credit updates are RDMA WRITEs into this endpoint's memory: they raise no completion, so a thread
     * that waits for a send credit must poll {@link #sendCredits()}, not sleep. No allocation.
     *
     * @throws IllegalStateException when the endpoint has no completion channel, or is closed
     */
    public void requestNotify() {
        if (channel == null) {
            throw new IllegalStateException(description + " has no completion channel: make it with "
                    + "EndpointOptions.completionChannel(true)");
        }
        enterCall();
        try {
            sendCq.requestNotify(false);
            recvCq.requestNotify(false);
        } catch (RuntimeException e) {
            throw closedDuring(e);
        } finally {
            leaveCall();
        }
    }

    /**
     * Posts receive slot {@code slot} again ({@code ibv_post_recv}) and, with credits, tells the peer.
     * @param slot the receive slot, the {@code wrId} of its completion
     */
    public void repostReceive(int slot) {
        oneSlot[0] = slot; // one thread at a time uses an endpoint
        repostReceives(oneSlot, 0, 1);
    }

    /**
     * Posts several receive slots again and, with credits, tells the peer once, with one credit write for all of
     * them ({@link #repostReceive} writes one per slot). For a receiver that takes a batch of messages, hands them
     * on, and only then gives their slots back: its replies leave before its credit update.
     *
     * <pre>{@code
     * int n = ep.pollReceive(wc);
     * for (int i = 0; i < n; i++) { handle(ep.message(wc, i)); slots[i] = (int) wc.wrId(i); }
     * ep.repostReceives(slots, 0, n);
     * }</pre>
     *
     * @param slots the receive slots, the {@code wrId}s of their completions
     * @param from  the index in {@code slots} of the first
     * @param count how many; 0 does nothing
     * @throws IndexOutOfBoundsException when {@code from} and {@code count} are not within {@code slots}, or a slot
     *                                   is not a receive slot: then nothing is posted
     */
    public void repostReceives(int[] slots, int from, int count) {
        Objects.checkFromIndexSize(from, count, slots.length);
        for (int i = from; i < from + count; i++) {
            recvSlots.check(slots[i]);
        }
        if (count == 0) {
            return;
        }
        enterCall();
        try {
            for (int i = from; i < from + count; i++) {
                postReceive(slots[i]);
            }
            if (credits.enabled()) {
                credits.publish();
            }
        } catch (RuntimeException e) {
            throw closedDuring(e);
        } finally {
            leaveCall();
        }
    }

    private void postReceive(int slot) {
        recvWr.at(0).wrId(slot).sge(recvSlots.address(slot), recvSlots.size(), recvSlots.lkey());
        qp.postReceive(recvWr);
        credits.receivePosted();
    }

    // ---- typed access to the registered memory ----

    /**
     * The view of send slot {@code slot}: position 0, limit and capacity {@link EndpointOptions#messageSize}.
     * Put the message there, then {@link #send} its length. The same object for every call (reset each time),
     * so nothing is allocated; do not change it while its send is in flight.
     *
     * @param slot the send slot, 0..{@code sendDepth-1}
     * @return the slot's view
     * @throws IndexOutOfBoundsException when {@code slot} is not in {@code 0..sendDepth-1}
     */
    public ByteBuffer sendSlot(int slot) {
        checkOpen();
        return sendSlots.view(slot, sendSlots.size());
    }

    /**
     * The message of receive completion {@code i} of {@code wc} (from {@link #pollReceive}): the view of its
     * receive slot, position 0, limit the message's length (0 for an RDMA WRITE with immediate, whose data went
     * to the RDMA region). The same object per slot for every call; read it before {@link #repostReceive}.
     *
     * @param wc completions from {@link #pollReceive}
     * @param i  the index of the completion in {@code wc}
     * @return the slot's view, limited to the message
     * @throws IllegalArgumentException when completion {@code i} failed or is not a receive of this endpoint
     */
    public ByteBuffer message(WorkCompletions wc, int i) {
        checkOpen();
        return recvSlots.message(wc, i, description);
    }

    /**
     * {@return the view of this side's RDMA region (position 0, limit and capacity
     * {@link EndpointOptions#rdmaRegionSize})} It is what {@link #write} sends from, {@link #read} reads into, and
     * the peer's writes and reads reach. The same object for every call. Memory the NIC writes changes under
     * Java: read it after the completion (or the message) that says it arrived.
     *
     * @throws IllegalStateException when the endpoint has no RDMA region
     */
    public ByteBuffer rdmaRegion() {
        checkOpen();
        requireRdmaRegion();
        return rdmaView.clear();
    }

    /** {@return the peer's RDMA region (length 0 when it has none)} */
    public RemoteRegion remoteRegion() {
        return remote;
    }

    /** {@return the escape hatch: requests of your own through the endpoint, and the QP's attributes} */
    public EndpointQueuePair queuePair() {
        checkOpen();
        return queuePair;
    }

    // ---- checks shared with the escape hatch ----
    MemoryRegion requireRdmaRegion() {
        if (rdmaMr == null) {
            throw new IllegalStateException(description + " has no RDMA region: set EndpointOptions.rdmaRegionSize");
        }
        return rdmaMr;
    }

    private void checkImmediateData(String what) {
        if (!immediateData) {
            throw new UnsupportedOperationException(description + ": " + what + " needs immediate data, which "
                    + resources.fabric.name() + " does not have here (iWARP's RDMAP carries none; only two verbs4j "
                    + "peers on the software iWARP device add it, by RFC 7306): send the 32 bits in the "
                    + "message itself (send), or follow a write with a send that announces it");
        }
    }

    /** A call that failed because another thread closed the endpoint meanwhile says so. */
    private RuntimeException closedDuring(RuntimeException e) {
        return closed ? new IllegalStateException(description + " is closed (by another thread, during the call)", e) : e;
    }

    /** Enters a data-path call: {@link #close} waits for it before it frees the endpoint's native arrays. */
    void enterCall() {
        if (!resources.guard.tryEnter()) {
            throw new IllegalStateException(description + " is closed");
        }
    }

    void leaveCall() {
        resources.guard.leave();
    }

    void checkOpen() {
        if (closed) {
            throw new IllegalStateException(description + " is closed");
        }
    }

    // ---- what the endpoint is ----

    /** {@return the sends {@link #send} could post now without waiting (Long.MAX_VALUE without credits)} */
    public long sendCredits() {
        return credits.count();
    }

    /** {@return the sends, writes and reads posted whose completion {@link #pollSend} has not returned yet} */
    public int inFlight() {
        return sendQueue.inFlight();
    }

    /** {@return a copy of the options this endpoint was made with (message size, depths, region size, ...)} */
    public EndpointOptions options() {
        return resources.options.copy();
    }

    /** {@return the peer's receive depth, from the handshake: the most messages it takes before it reposts} */
    public int peerReceiveDepth() {
        return peerReceiveDepth;
    }

    /** {@return the peer's message size, from the handshake: the largest message it receives} */
    public int peerMessageSize() {
        return peerMessageSize;
    }

    /** {@return the name of the fabric the endpoint runs on: {@code ib}, {@code roce} or {@code iwarp}} */
    public String fabric() {
        return resources.fabric.name();
    }

    /**
     * {@return true when {@link #sendWithImmediate} and {@link #writeWithImmediate} work on this connection}: on
     * InfiniBand and RoCE; on iWARP only between two verbs4j peers on the software iWARP device, which negotiate
     * RFC 7306 ({@link org.verbs4j.api.QueuePair#supportsImmediateData})
     */
    public boolean supportsImmediateData() {
        return immediateData;
    }

    /** {@return how the endpoint connected} */
    public ConnectionMode mode() {
        return resources.mode;
    }

    /**
     * {@return this side's IP address and port of the connection, as rdma_cm reports it (for an accepted
     * endpoint: the address the peer connected to), or {@code null} when it is not known: an endpoint of
     * {@link ConnectionMode#MANUAL}, or a backend whose rdma_cm id does not report it
     * ({@link org.verbs4j.api.cm.CmId#localAddress})}
     */
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    /**
     * {@return the peer's IP address and port, as rdma_cm reports it (for a connected endpoint: the address it
     * connected to; for an accepted one: where the peer connected from), or {@code null} when it is not known:
     * an endpoint of {@link ConnectionMode#MANUAL}, or a backend whose rdma_cm id does not report it
     * ({@link org.verbs4j.api.cm.CmId#peerAddress})}
     */
    public InetSocketAddress remoteAddress() {
        return remoteAddress;
    }

    /** {@return the RDMA device the endpoint runs on} */
    public RdmaDevice device() {
        return resources.context.device();
    }

    /** {@return true once {@link #close} ran} */
    public boolean isClosed() {
        return closed;
    }

    @Override
    public String toString() {
        return description;
    }

    /**
     * Disconnects and frees everything the endpoint made, in dependency order: queue pair (with its rdma_cm id),
     * regions registered through {@link EndpointQueuePair#registerMemory}, completion queues, memory, protection
     * domain, and the device context or connection manager when this endpoint owns it. A failure does not stop
     * the rest from being freed; the first is thrown, the others suppressed. Closing twice does nothing. Any
     * thread may close: a call in progress on another thread ends first (a wait for a credit with "is closed"),
     * then anything used throws {@link IllegalStateException}; a slot view kept is plain Java memory.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        resources.guard.shut(); // a call in progress (a wait for a credit sees the guard shut) ends first
        resources.guard.awaitIdle(description);
        List<Throwable> failures = resources.release(true);
        if (!failures.isEmpty()) {
            RuntimeException e = new EndpointException(description + ": closing failed: " + failures.get(0).getMessage(),
                    failures.get(0));
            failures.subList(1, failures.size()).forEach(e::addSuppressed);
            throw e;
        }
        LOG.debug("{} closed", description);
    }
}
