package org.verbs4j.softiwarp.wire;

import java.io.Closeable;
import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One iWARP stream over TCP after the MPA handshake: RDMAP messages segmented into FPDUs on the way out, FPDUs
 * checked and handed to an {@link FpduSink} on the way in. The socket is non-blocking with TCP_NODELAY;
 * {@link #poll} reads what is there and never waits; sends write whole messages, waiting (bounded by the time-out)
 * only when the peer stops reading. Neither allocates. For a data path there is a non-blocking transmit side as
 * well ({@link #startSend}, {@link #startTagged}, {@link #startReadRequest}, then {@link #pump()}) that takes the
 * bytes from a {@link Gather}. Threads: one receiver at a time ({@link #poll}), and one transmitter at a time; a
 * Terminate that {@link #poll} or {@link #terminate} sends waits for the transmit side (an atomic owner flag),
 * so it never cuts into a message being written.
 *
 * <pre>{@code
 * MpaConnection c = MpaConnection.connect(SocketChannel.open(address), MpaSettings.siwDefaults(), new byte[0]);
 * c.send(ByteBuffer.wrap("hello".getBytes()));
 * while (c.poll(sink) == 0) { Thread.onSpinWait(); }
 * }</pre>
 */
public final class MpaConnection implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(MpaConnection.class);
    private static final int TERMINATE_MSN = 1;

    private final SocketChannel channel;
    private final Selector selector;
    private final SelectionKey key;
    private final long timeoutMillis;
    private final ByteBuffer rx;
    /**
     * Bytes the last {@link #poll} read from the socket (-1 at its end). Written by the thread that polled; the
     * data path's progress thread reads it right after a poll of its own.
     */
    private int lastRead;
    private final ByteBuffer tx = ByteBuffer.allocateDirect(Fpdu.MAX_FRAME + MpaFrame.MAX_FRAME).limit(0);
    /**
     * A gathered batch being written ({@link DdpSegmenter#writeTo(ByteBuffer, ByteBuffer[], ByteBuffer[])}): parts of
     * {@link #tx} and payloads in the application's memory, in wire order; {@code iov[iovAt..iovEnd)} is left.
     */
    private final ByteBuffer[] iov = new ByteBuffer[DdpSegmenter.MAX_IOV];
    private final ByteBuffer[] txParts = new ByteBuffer[DdpSegmenter.MAX_BATCH + 1];
    private int iovAt;
    private int iovEnd;
    /** The transmit side's owner: a data path's progress, or a Terminate from the receive side. */
    private final AtomicBoolean txOwner = new AtomicBoolean();
    private long written;
    private final ByteBuffer controlPayload = ByteBuffer.allocateDirect(64);
    private final FpduReceiver receiver;
    private final DdpSegmenter segmenter;
    private final int[] nextMsn = {1, 1, 1, 1};
    private final boolean crc;
    private final int ird;
    private final int ord;
    private final byte[] peerPrivateData;
    private final boolean rfc7306;

    private MpaConnection(Handshake h, boolean crc, int ird, int ord, byte[] peerPrivateData, boolean rfc7306) {
        this.channel = h.channel;
        this.selector = h.selector;
        this.key = h.key;
        this.timeoutMillis = h.settings.timeoutMillis();
        this.rx = h.rx;
        this.crc = crc;
        this.ird = ird;
        this.ord = ord;
        this.peerPrivateData = peerPrivateData;
        this.rfc7306 = rfc7306;
        this.receiver = new FpduReceiver(crc, h.settings.receiveMaxUlpdu(), rfc7306);
        this.segmenter = new DdpSegmenter(crc, Fpdu.mulpduForMss(h.settings.sendMss()));
        for (int i = 0; i < txParts.length; i++) {
            txParts[i] = tx.duplicate();
        }
    }

    /**
     * The initiator's handshake on a connected channel: sends the MPA Request, waits for the Reply.
     *
     * @param channel     a connected TCP channel; the connection owns it from now on
     * @param settings    this side's choices
     * @param privateData the ULP private data for the Request
     * @return the established connection
     * @throws WireException rejected (with the responder's private data), refused, timed out or closed
     * @throws IOException   the socket failed
     */
    public static MpaConnection connect(SocketChannel channel, MpaSettings settings, byte[] privateData)
            throws IOException {
        Handshake h = new Handshake(channel, settings);
        try {
            MpaFrame request = new MpaFrame();
            MpaNegotiation.request(settings, privateData, request);
            h.send(request);
            MpaFrame reply = h.receive(false);
            MpaNegotiation.checkReply(request, reply);
            boolean both = reply.carriesIrdOrd() && request.carriesIrdOrd();
            return new MpaConnection(h, reply.crc, both ? reply.ord : settings.ird(),
                    both ? reply.ird : settings.ord(), reply.privateDataCopy(), MpaNegotiation.rfc7306(request, reply));
        } catch (IOException | RuntimeException e) {
            h.close();
            throw e;
        }
    }

    /**
     * The responder's first half: waits for the MPA Request on an accepted channel.
     *
     * @param channel  an accepted TCP channel; the returned object owns it
     * @param settings this side's choices
     * @return the request, to accept or reject
     * @throws WireException not an acceptable Request, timed out or closed (the channel is then closed)
     * @throws IOException   the socket failed
     */
    public static Incoming awaitRequest(SocketChannel channel, MpaSettings settings) throws IOException {
        Handshake h = new Handshake(channel, settings);
        try {
            return new Incoming(h, h.receive(true));
        } catch (IOException | RuntimeException e) {
            h.close();
            throw e;
        }
    }

    /** A received MPA Request, waiting for the responder's decision. */
    public static final class Incoming implements Closeable {
        private final Handshake handshake;
        private final MpaFrame request;
        private boolean decided;

        private Incoming(Handshake handshake, MpaFrame request) {
            this.handshake = handshake;
            this.request = request;
        }

        /**
         * The initiator's ULP private data.
         *
         * @return a copy
         */
        public byte[] privateData() {
            return request.privateDataCopy();
        }

        /**
         * The MPA revision the initiator sent.
         *
         * @return 1 or 2
         */
        public int revision() {
            return request.revision;
        }

        /**
         * The initiator's IRD (0 without the enhanced words).
         *
         * @return the IRD asked for
         */
        public int ird() {
            return request.ird;
        }

        /**
         * The initiator's ORD (0 without the enhanced words).
         *
         * @return the ORD asked for
         */
        public int ord() {
            return request.ord;
        }

        /**
         * Whether the initiator asked for CRC.
         *
         * @return the C bit of the Request
         */
        public boolean crcRequested() {
            return request.crc;
        }

        /**
         * Whether the initiator offered RFC 7306 (a verbs4j peer; Linux siw never does).
         *
         * @return the offer bit of the Request
         */
        public boolean rfc7306Offered() {
            return request.rfc7306Offer;
        }

        /**
         * Sends the Reply and establishes the stream.
         *
         * @param privateData the ULP private data for the Reply
         * @return the connection
         * @throws IOException the socket failed (the channel is then closed)
         */
        public MpaConnection accept(byte[] privateData) throws IOException {
            return accept(privateData, handshake.settings.ird(), handshake.settings.ord());
        }

        /**
         * Sends the Reply offering these RDMA READ depths instead of the settings' (rdma_accept's
         * {@code responder_resources} and {@code initiator_depth}), and establishes the stream.
         *
         * @param privateData the ULP private data for the Reply
         * @param ird         reads the initiator may have outstanding at us
         * @param ord         reads we want outstanding at the initiator
         * @return the connection
         * @throws IOException the socket failed (the channel is then closed)
         */
        public MpaConnection accept(byte[] privateData, int ird, int ord) throws IOException {
            MpaFrame reply = decide(false, privateData, handshake.settings.withIrdOrd(ird, ord));
            return new MpaConnection(handshake, reply.crc, reply.ird, reply.ord, request.privateDataCopy(),
                    reply.rfc7306Accept);
        }

        /**
         * Sends a Reply with the reject bit and closes the channel.
         *
         * @param privateData the ULP private data telling the initiator why
         * @throws IOException the socket failed
         */
        public void reject(byte[] privateData) throws IOException {
            try {
                decide(true, privateData, handshake.settings);
            } finally {
                handshake.close();
            }
        }

        private MpaFrame decide(boolean reject, byte[] privateData, MpaSettings local) throws IOException {
            if (decided) {
                throw new IllegalStateException("already accepted or rejected");
            }
            decided = true;
            MpaFrame reply = new MpaFrame();
            try {
                MpaNegotiation.reply(request, local, reject, privateData, reply);
                handshake.send(reply);
            } catch (IOException | RuntimeException e) {
                handshake.close();
                throw e;
            }
            return reply;
        }

        /** Closes the channel unless the request was accepted. */
        @Override
        public void close() {
            if (!decided) {
                decided = true;
                handshake.close();
            }
        }
    }

    /**
     * Whether FPDUs carry CRC32C, as negotiated.
     *
     * @return the negotiated C bit
     */
    public boolean crcEnabled() {
        return crc;
    }

    /**
     * RDMA READs the peer may have outstanding at this side, as negotiated.
     *
     * @return the IRD
     */
    public int ird() {
        return ird;
    }

    /**
     * RDMA READs this side may have outstanding at the peer, as negotiated.
     *
     * @return the ORD
     */
    public int ord() {
        return ord;
    }

    /**
     * Whether both sides agreed on RFC 7306 (immediate data, atomics) in the handshake: only between verbs4j peers.
     * Without it the extension opcodes are refused on receive, and the data path must not send them.
     *
     * @return true when the extensions are on
     */
    public boolean rfc7306() {
        return rfc7306;
    }

    /**
     * The peer's ULP private data from its Request or Reply.
     *
     * @return a copy
     */
    public byte[] peerPrivateData() {
        return peerPrivateData.clone();
    }

    /**
     * Sends a SEND message (RDMAP opcode 3) from payload's position to its limit, segmented; the position advances.
     *
     * @param payload the message
     * @throws IOException the socket failed or the peer stopped reading for longer than the time-out
     */
    public void send(ByteBuffer payload) throws IOException {
        send(Rdmap.SEND, 0, payload);
    }

    /**
     * Sends a message of the SEND family: opcode 3 (Send), 4 (with Invalidate), 5 (with Solicited Event), 6 (both).
     *
     * @param opcode         3 to 6
     * @param invalidateStag the STag the peer is to invalidate (opcodes 4 and 6), else 0
     * @param payload        the message, position to limit
     * @throws IOException the socket failed or the peer stopped reading for longer than the time-out
     */
    public void send(int opcode, int invalidateStag, ByteBuffer payload) throws IOException {
        checkSendOpcode(opcode);
        acquireBlocking();
        try {
            segmenter.startUntagged(opcode, Ddp.QN_SEND, nextMsn[Ddp.QN_SEND]++, invalidateStag, payload);
            drain();
        } finally {
            txOwner.set(false);
        }
    }

    private static void checkSendOpcode(int opcode) {
        if (opcode < Rdmap.SEND || opcode > Rdmap.SEND_SE_INVALIDATE) {
            throw new IllegalArgumentException("not a SEND opcode: " + opcode);
        }
    }

    /**
     * Sends an RDMA WRITE into the peer's region.
     *
     * @param sinkStag     the peer's STag (its rkey)
     * @param taggedOffset where in that region
     * @param payload      the bytes, position to limit
     * @throws IOException the socket failed or the peer stopped reading for longer than the time-out
     */
    public void write(int sinkStag, long taggedOffset, ByteBuffer payload) throws IOException {
        acquireBlocking();
        try {
            segmenter.startTagged(Rdmap.WRITE, sinkStag, taggedOffset, payload);
            drain();
        } finally {
            txOwner.set(false);
        }
    }

    /**
     * Sends an RDMA READ Response for a Read Request received earlier.
     *
     * @param sinkStag     the request's sink STag
     * @param taggedOffset the request's sink tagged offset
     * @param payload      the bytes read, position to limit
     * @throws IOException the socket failed or the peer stopped reading for longer than the time-out
     */
    public void readResponse(int sinkStag, long taggedOffset, ByteBuffer payload) throws IOException {
        acquireBlocking();
        try {
            segmenter.startTagged(Rdmap.READ_RESPONSE, sinkStag, taggedOffset, payload);
            drain();
        } finally {
            txOwner.set(false);
        }
    }

    /**
     * Sends an RDMA READ Request.
     *
     * @param sinkStag     our STag the response is written to
     * @param sinkOffset   the tagged offset there
     * @param length       bytes to read
     * @param sourceStag   the peer's STag to read from
     * @param sourceOffset the tagged offset there
     * @throws IOException the socket failed or the peer stopped reading for longer than the time-out
     */
    public void readRequest(int sinkStag, long sinkOffset, int length, int sourceStag, long sourceOffset)
            throws IOException {
        acquireBlocking();
        try {
            startReadRequestOwned(sinkStag, sinkOffset, length, sourceStag, sourceOffset);
            drain();
        } finally {
            txOwner.set(false);
        }
    }

    private void startReadRequestOwned(int sinkStag, long sinkOffset, int length, int sourceStag,
                                       long sourceOffset) {
        ByteBuffer body = controlPayload.clear();
        Rdmap.putReadRequest(body, 0, sinkStag, sinkOffset, length, sourceStag, sourceOffset);
        body.limit(Rdmap.READ_REQUEST_LENGTH);
        segmenter.startUntagged(Rdmap.READ_REQUEST, Ddp.QN_READ_REQUEST, nextMsn[Ddp.QN_READ_REQUEST]++, 0, body);
    }

    // ---- the non-blocking transmit side, for the data path ----

    /**
     * Whether no message is being transmitted: the last one started is all in the socket. Only then may the next
     * one be started.
     *
     * @return true when {@code start...} may be called
     */
    public boolean transmitIdle() {
        return segmenter.done() && !tx.hasRemaining() && iovEnd == 0;
    }

    /**
     * Starts a message of the SEND family whose bytes come from {@code data}; nothing is written yet: call
     * {@link #pump()} until it returns true. Only when {@link #transmitIdle()}; never waits, never allocates.
     *
     * @param opcode         3 to 6
     * @param invalidateStag the STag the peer is to invalidate (opcodes 4 and 6), else 0
     * @param data           the message's bytes
     * @param length         the message's length, 0 or more
     * @return false when the transmit side is busy (a Terminate is being sent): try again later
     */
    public boolean startSend(int opcode, int invalidateStag, Gather data, int length) {
        checkSendOpcode(opcode);
        if (!txOwner.compareAndSet(false, true)) {
            return false;
        }
        try {
            segmenter.startUntagged(opcode, Ddp.QN_SEND, nextMsn[Ddp.QN_SEND]++, invalidateStag, data, length);
            return true;
        } finally {
            txOwner.set(false);
        }
    }

    /**
     * Starts an RDMA WRITE (or, with {@code response}, a READ Response) whose bytes come from {@code data}; then
     * {@link #pump()} as for {@link #startSend}.
     *
     * @param response     true for a Read Response (opcode 2), false for a Write (opcode 0)
     * @param sinkStag     the peer's STag
     * @param taggedOffset where in that region
     * @param data         the message's bytes
     * @param length       the message's length, 0 or more
     * @return false when the transmit side is busy: try again later
     */
    public boolean startTagged(boolean response, int sinkStag, long taggedOffset, Gather data, int length) {
        if (!txOwner.compareAndSet(false, true)) {
            return false;
        }
        try {
            segmenter.startTagged(response ? Rdmap.READ_RESPONSE : Rdmap.WRITE, sinkStag, taggedOffset, data, length);
            return true;
        } finally {
            txOwner.set(false);
        }
    }

    /**
     * Starts an RDMA READ Request; then {@link #pump()} as for {@link #startSend}.
     *
     * @param sinkStag     our STag the response is written to
     * @param sinkOffset   the tagged offset there
     * @param length       bytes to read
     * @param sourceStag   the peer's STag to read from
     * @param sourceOffset the tagged offset there
     * @return false when the transmit side is busy: try again later
     */
    public boolean startReadRequest(int sinkStag, long sinkOffset, int length, int sourceStag, long sourceOffset) {
        if (!txOwner.compareAndSet(false, true)) {
            return false;
        }
        try {
            startReadRequestOwned(sinkStag, sinkOffset, length, sourceStag, sourceOffset);
            return true;
        } finally {
            txOwner.set(false);
        }
    }

    /**
     * Starts an RFC 7306 Immediate Data message (8 bytes on queue 0: {@code immData} then {@code mark}, see
     * {@code Rdmap#IMMEDIATE_LENGTH}); then {@link #pump()} as for {@link #startSend}. Only on a connection that
     * negotiated {@link #rfc7306()}: the caller checks.
     *
     * @param solicited whether it is Immediate Data with Solicited Event (opcode 9, else 8)
     * @param immData   the verbs' 32 bits, as they go on the wire (big-endian)
     * @param mark      verbs4j's mark: 0 alone (Write with immediate), 1 for the Send that follows
     * @return false when the transmit side is busy: try again later
     */
    public boolean startImmediate(boolean solicited, int immData, int mark) {
        if (!txOwner.compareAndSet(false, true)) {
            return false;
        }
        try {
            startImmediateOwned(solicited, immData, mark);
            return true;
        } finally {
            txOwner.set(false);
        }
    }

    private void startImmediateOwned(boolean solicited, int immData, int mark) {
        ByteBuffer body = controlPayload.clear();
        Rdmap.putImmediate(body, 0, immData, mark);
        body.limit(Rdmap.IMMEDIATE_LENGTH);
        segmenter.startUntagged(solicited ? Rdmap.IMMEDIATE_SE : Rdmap.IMMEDIATE, Ddp.QN_SEND,
                nextMsn[Ddp.QN_SEND]++, 0, body);
    }

    /**
     * Starts an RFC 7306 Atomic Request (queue 1, the Read Requests' sequence); then {@link #pump()} as for
     * {@link #startSend}. Only on a connection that negotiated {@link #rfc7306()}: the caller checks.
     *
     * @param atomicOp    0 FetchAdd, 1 Swap, 2 CmpSwap
     * @param requestId   returned in the response
     * @param stag        the peer's STag of the target
     * @param to          the tagged offset of the 8-byte target
     * @param swapAdd     the add or swap data
     * @param swapAddMask the add mask (FetchAdd: carry boundaries, 0 for a plain add) or swap mask
     * @param compare     the compare data (CmpSwap)
     * @param compareMask the compare mask (CmpSwap)
     * @return false when the transmit side is busy: try again later
     */
    public boolean startAtomicRequest(int atomicOp, int requestId, int stag, long to, long swapAdd, long swapAddMask,
                                      long compare, long compareMask) {
        if (!txOwner.compareAndSet(false, true)) {
            return false;
        }
        try {
            startAtomicRequestOwned(atomicOp, requestId, stag, to, swapAdd, swapAddMask, compare, compareMask);
            return true;
        } finally {
            txOwner.set(false);
        }
    }

    private void startAtomicRequestOwned(int atomicOp, int requestId, int stag, long to, long swapAdd,
                                         long swapAddMask, long compare, long compareMask) {
        ByteBuffer body = controlPayload.clear();
        Rdmap.putAtomicRequest(body, 0, atomicOp, requestId, stag, to, swapAdd, swapAddMask, compare, compareMask);
        body.limit(Rdmap.ATOMIC_REQUEST_LENGTH);
        segmenter.startUntagged(Rdmap.ATOMIC_REQUEST, Ddp.QN_READ_REQUEST, nextMsn[Ddp.QN_READ_REQUEST]++, 0, body);
    }

    /**
     * Starts an RFC 7306 Atomic Response (queue 3); then {@link #pump()} as for {@link #startSend}.
     *
     * @param requestId     the request's identifier
     * @param originalValue the target's value before the operation
     * @return false when the transmit side is busy: try again later
     */
    public boolean startAtomicResponse(int requestId, long originalValue) {
        if (!txOwner.compareAndSet(false, true)) {
            return false;
        }
        try {
            startAtomicResponseOwned(requestId, originalValue);
            return true;
        } finally {
            txOwner.set(false);
        }
    }

    private void startAtomicResponseOwned(int requestId, long originalValue) {
        ByteBuffer body = controlPayload.clear();
        Rdmap.putAtomicResponse(body, 0, requestId, originalValue);
        body.limit(Rdmap.ATOMIC_RESPONSE_LENGTH);
        segmenter.startUntagged(Rdmap.ATOMIC_RESPONSE, Ddp.QN_ATOMIC_RESPONSE, nextMsn[Ddp.QN_ATOMIC_RESPONSE]++, 0,
                body);
    }

    /**
     * Sends an RFC 7306 Immediate Data message, waiting as {@link #send} does (for tests and bare peers: whether
     * the connection negotiated RFC 7306 is not checked, so a test can play a peer that sends it anyway).
     *
     * @param solicited with Solicited Event (opcode 9) or not (8)
     * @param immData   the 32 bits
     * @param mark      verbs4j's mark (0 alone, 1 for the Send that follows)
     * @throws IOException the socket failed or the peer stopped reading for longer than the time-out
     */
    public void immediate(boolean solicited, int immData, int mark) throws IOException {
        acquireBlocking();
        try {
            startImmediateOwned(solicited, immData, mark);
            drain();
        } finally {
            txOwner.set(false);
        }
    }

    /**
     * Sends an RFC 7306 Atomic Request, waiting as {@link #send} does (for tests and bare peers; not checked
     * against the negotiation).
     *
     * @param atomicOp    the operation code
     * @param requestId   the identifier
     * @param stag        the target's STag
     * @param to          the target's tagged offset
     * @param swapAdd     add or swap data
     * @param swapAddMask add or swap mask
     * @param compare     compare data
     * @param compareMask compare mask
     * @throws IOException the socket failed or the peer stopped reading for longer than the time-out
     */
    public void atomicRequest(int atomicOp, int requestId, int stag, long to, long swapAdd, long swapAddMask,
                              long compare, long compareMask) throws IOException {
        acquireBlocking();
        try {
            startAtomicRequestOwned(atomicOp, requestId, stag, to, swapAdd, swapAddMask, compare, compareMask);
            drain();
        } finally {
            txOwner.set(false);
        }
    }

    /**
     * Sends an RFC 7306 Atomic Response, waiting as {@link #send} does (for tests and bare peers).
     *
     * @param requestId     the identifier of the request answered
     * @param originalValue the value returned
     * @throws IOException the socket failed or the peer stopped reading for longer than the time-out
     */
    public void atomicResponse(int requestId, long originalValue) throws IOException {
        acquireBlocking();
        try {
            startAtomicResponseOwned(requestId, originalValue);
            drain();
        } finally {
            txOwner.set(false);
        }
    }

    /**
     * Writes as much of the started message as the socket takes now; never waits, never allocates.
     *
     * @return true when the message is all in the socket (or none was started), false when the socket is full
     *         (wait until it is writable) or the transmit side is busy
     * @throws IOException the socket failed or is closed
     */
    public boolean pump() throws IOException {
        if (!txOwner.compareAndSet(false, true)) {
            return false;
        }
        try {
            return pumpOwned();
        } finally {
            txOwner.set(false);
        }
    }

    /**
     * Waits, spinning, while another thread is in {@link #pump}, at most {@code maxNanos}: its {@code write} holds the
     * socket's lock, and a {@code read} meanwhile would sleep on it, woken and put back to sleep at each of the
     * writer's system calls.
     *
     * @param maxNanos the longest wait
     */
    public void awaitPump(long maxNanos) {
        if (!txOwner.get()) {
            return;
        }
        long start = System.nanoTime();
        while (txOwner.get() && System.nanoTime() - start < maxNanos) {
            Thread.onSpinWait();
        }
    }

    private boolean pumpOwned() throws IOException {
        while (true) {
            if (iovEnd > 0) {
                written += channel.write(iov, iovAt, iovEnd - iovAt);
                while (iovAt < iovEnd && !iov[iovAt].hasRemaining()) {
                    iovAt++;
                }
                if (iovAt < iovEnd) {
                    return false;
                }
                java.util.Arrays.fill(iov, 0, iovEnd, null); // holds no buffer over a region once written
                iovAt = 0;
                iovEnd = 0;
            } else if (tx.hasRemaining()) {
                written += channel.write(tx);
                if (tx.hasRemaining()) {
                    return false;
                }
            }
            if (segmenter.done()) {
                return true;
            }
            tx.clear();
            int pieces = segmenter.writeTo(tx, iov, txParts);
            tx.flip();
            if (pieces > 0) {
                tx.position(tx.limit()); // its bytes go out as parts of the batch
                iovEnd = pieces;
            }
        }
    }

    /**
     * How long a send may wait for a peer that reads nothing, as set in the {@link MpaSettings}.
     *
     * @return the time-out in milliseconds
     */
    public long timeoutMillis() {
        return timeoutMillis;
    }

    /**
     * Bytes written to the socket so far by the transmit side, to tell a slow peer from one that stopped reading.
     *
     * @return the count, growing
     */
    public long bytesWritten() {
        return written;
    }

    /**
     * Registers the socket with a selector (the data path's progress thread), besides the connection's own.
     *
     * @param selector   the selector
     * @param ops        the interest set
     * @param attachment the key's attachment
     * @return the key
     * @throws IOException the channel is closed
     */
    public SelectionKey register(Selector selector, int ops, Object attachment) throws IOException {
        return channel.register(selector, ops, attachment);
    }

    /**
     * The socket's key in a selector it was {@link #register}ed with.
     *
     * @param selector the selector
     * @return the key, or null when not registered there
     */
    public SelectionKey keyFor(Selector selector) {
        return channel.keyFor(selector);
    }

    /**
     * Whether the TCP connection is still open (not closed by {@link #close()} or after a Terminate).
     *
     * @return true while open
     */
    public boolean isOpen() {
        return channel.isOpen();
    }

    /** {@return the bytes the last {@link #poll} read from the socket, -1 at its end} */
    public int lastRead() {
        return lastRead;
    }

    /**
     * Reads what the socket has and delivers every complete FPDU to the sink; never waits.
     *
     * @param sink where segments go
     * @return segments delivered (0 if none were complete), or -1 once the peer closed or sent a Terminate
     * @throws WireException the peer's bytes were refused: a Terminate was sent and the connection closed
     * @throws IOException   the socket failed
     */
    public int poll(FpduSink sink) throws IOException {
        int read = channel.read(rx);
        lastRead = read;
        rx.flip();
        int delivered = receiver.receive(rx, sink);
        if (delivered < 0 && receiver.error() != null) {
            WireError error = receiver.error();
            sendTerminate(error.layer(), error.errorType(), error.errorCode(), rx, rx.position(),
                    Math.min(rx.remaining(), Rdmap.TERMINATE_MAX_COPY));
            close();
            throw new WireException(error, "closed after a Terminate to the peer");
        }
        rx.compact();
        return read < 0 || receiver.terminated() ? -1 : delivered;
    }

    /**
     * Sends a Terminate (RFC 5040 section 4.8) for an error the data path found (an access refused, no receive
     * posted), after the message being transmitted, if any; then closes the connection. Safe while another thread
     * transmits: the Terminate waits for the transmit side's owner flag (held only for non-blocking steps). When a
     * message is half out and the socket takes no more of it now, no Terminate is sent: the peer sees the close.
     *
     * @param layer     0 RDMAP, 1 DDP, 2 LLP
     * @param errorType the error type within the layer
     * @param errorCode the error code
     * @param offending the headers of the offending segment from position to limit (at most the first 48 bytes
     *                  are copied), or null
     */
    public void terminate(int layer, int errorType, int errorCode, ByteBuffer offending) {
        int at = offending == null ? 0 : offending.position();
        int copy = offending == null ? 0 : Math.min(offending.remaining(), Rdmap.TERMINATE_MAX_COPY);
        sendTerminate(layer, errorType, errorCode, offending == null ? controlPayload : offending, at, copy);
        close();
    }

    private void sendTerminate(int layer, int errorType, int errorCode, ByteBuffer offending, int at, int copy) {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        while (!txOwner.compareAndSet(false, true)) {
            if (System.nanoTime() - deadline >= 0) {
                LOG.debug("Terminate not sent: the transmit side stayed busy");
                return;
            }
            Thread.yield();
        }
        try {
            if (!pumpOwned()) {
                // a message is half out and the socket takes no more now: waiting for this peer could hold up the
                // thread (a data path's progress thread serves other connections too); it sees the close instead
                LOG.debug("Terminate (layer {}, type {}, code {}) not sent: a message is half out", layer, errorType,
                        errorCode);
                return;
            }
            byte[] headers = new byte[copy];
            for (int i = 0; i < copy; i++) {
                headers[i] = offending.get(at + i);
            }
            int n = Rdmap.putTerminate(controlPayload.clear(), 0, layer, errorType, errorCode,
                    ByteBuffer.wrap(headers), 0, copy);
            controlPayload.limit(n);
            segmenter.startUntagged(Rdmap.TERMINATE, Ddp.QN_TERMINATE, TERMINATE_MSN, 0, controlPayload);
            drain();
        } catch (IOException | RuntimeException e) {
            LOG.debug("Terminate (layer {}, type {}, code {}) not delivered: {}", layer, errorType, errorCode,
                    e.toString());
        } finally {
            txOwner.set(false);
        }
    }

    private void acquireBlocking() {
        while (!txOwner.compareAndSet(false, true)) {
            Thread.yield(); // a Terminate is on its way out; the connection closes after it
        }
    }

    /** Writes the open message out, waiting (at most the time-out without progress) while the socket is full. */
    private void drain() throws IOException {
        long deadline = 0;
        long seen = written;
        while (!pumpOwned()) {
            long now = System.nanoTime();
            if (written != seen || deadline == 0) {
                seen = written;
                deadline = now + timeoutMillis * 1_000_000L;
            } else if (now - deadline >= 0) {
                throw new WireException(WireError.PEER_NOT_READING,
                        "nothing could be written for " + timeoutMillis + " ms");
            }
            interest(key, SelectionKey.OP_WRITE);
            selector.select(Math.max(1, (deadline - now) / 1_000_000L));
            selector.selectedKeys().clear();
            interest(key, 0);
        }
    }

    /**
     * Sets {@code key}'s interest; a key cancelled because another thread closed the channel (a close racing the
     * handshake or a blocked write) is that close, as an I/O error the callers already handle.
     */
    static void interest(SelectionKey key, int ops) throws ClosedChannelException {
        try {
            key.interestOps(ops);
        } catch (CancelledKeyException e) {
            throw new ClosedChannelException();
        }
    }

    /** Closes the TCP connection (iWARP's teardown). */
    @Override
    public void close() {
        Handshake.close(channel, selector);
    }

    /** The socket work of the handshake, shared by both sides. */
    private static final class Handshake {
        final SocketChannel channel;
        final MpaSettings settings;
        final Selector selector;
        final SelectionKey key;
        final ByteBuffer rx = ByteBuffer.allocateDirect(2 * Fpdu.MAX_FRAME).order(ByteOrder.BIG_ENDIAN);
        final long deadline;

        Handshake(SocketChannel channel, MpaSettings settings) throws IOException {
            this.channel = channel;
            this.settings = settings;
            this.deadline = System.nanoTime() + settings.timeoutMillis() * 1_000_000L;
            Selector s = null;
            try {
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                channel.configureBlocking(false);
                s = Selector.open();
                this.selector = s;
                this.key = channel.register(s, 0);
            } catch (IOException | RuntimeException e) {
                close(channel, s);
                throw e;
            }
        }

        void send(MpaFrame frame) throws IOException {
            ByteBuffer out = ByteBuffer.allocate(frame.encodedLength());
            frame.encode(out);
            flush(channel, selector, key, out.flip(), settings.timeoutMillis());
        }

        /** Reads until one frame decodes; bytes after it stay in rx for the FPDU receiver. */
        MpaFrame receive(boolean request) throws IOException {
            MpaFrame frame = new MpaFrame();
            while (true) {
                rx.flip();
                int n = frame.decode(rx, request);
                rx.compact();
                if (n > 0) {
                    return frame;
                }
                long left = (deadline - System.nanoTime()) / 1_000_000L;
                if (left <= 0) {
                    throw new WireException(WireError.MPA_TIMEOUT, "no complete MPA "
                            + (request ? "Request" : "Reply") + " within " + settings.timeoutMillis() + " ms");
                }
                interest(key, SelectionKey.OP_READ);
                selector.select(left);
                selector.selectedKeys().clear();
                if (channel.read(rx) < 0) {
                    throw new WireException(WireError.CONNECTION_CLOSED, "the peer closed during the handshake");
                }
            }
        }

        static void flush(SocketChannel channel, Selector selector, SelectionKey key, ByteBuffer out,
                          long timeoutMillis) throws IOException {
            long deadline = 0;
            while (out.hasRemaining()) {
                if (channel.write(out) > 0) {
                    deadline = 0;
                    continue;
                }
                long now = System.nanoTime();
                if (deadline == 0) {
                    deadline = now + timeoutMillis * 1_000_000L;
                } else if (now - deadline >= 0) {
                    throw new WireException(WireError.PEER_NOT_READING,
                            "nothing could be written for " + timeoutMillis + " ms");
                }
                interest(key, SelectionKey.OP_WRITE);
                selector.select(Math.max(1, (deadline - now) / 1_000_000L));
                selector.selectedKeys().clear();
                interest(key, 0);
            }
        }

        void close() {
            close(channel, selector);
        }

        static void close(SocketChannel channel, Selector selector) {
            try {
                channel.close();
                if (selector != null) {
                    selector.close();
                }
            } catch (IOException e) {
                LOG.debug("close: {}", e.toString());
            }
        }
    }
}
