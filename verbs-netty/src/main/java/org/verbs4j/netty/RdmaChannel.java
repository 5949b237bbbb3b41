package org.verbs4j.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.AbstractChannel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelMetadata;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.ChannelInputShutdownReadComplete;
import io.netty.channel.socket.DuplexChannel;
import io.netty.util.internal.StringUtil;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ConnectionPendingException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.verbs4j.api.CompletionChannel;
import org.verbs4j.api.WcStatus;
import org.verbs4j.api.WorkCompletions;
import org.verbs4j.endpoint.EndpointOptions;
import org.verbs4j.endpoint.Endpoints;
import org.verbs4j.endpoint.RdmaEndpoint;

/**
 * A byte-stream channel over a verbs4j {@link RdmaEndpoint}: what {@code NioSocketChannel} is over a TCP socket,
 * on any RDMA fabric (the address is an rdma_cm address: an IP address of an RDMA device's net device).
 *
 * <pre>{@code
 * EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory());
 * Channel ch = new Bootstrap().group(group).channel(RdmaChannel.class)
 *         .handler(new MyHandler())
 *         .connect(new InetSocketAddress("10.0.0.1", 7471)).sync().channel();
 * ch.writeAndFlush(Unpooled.wrappedBuffer(bytes));
 * }</pre>
 *
 * <p><b>Writes.</b> {@link ByteBuf}s only. A flush copies the flushed bytes (but for the registered allocator's
 * buffers, below) into the endpoint's registered send slots, several small writes into one slot and a large write
 * over several, and posts the slots it filled as one chain of sends (one doorbell,
 * {@link RdmaEndpoint#trySendBatch}); a write's promise completes when its last byte is posted. Sends need a free
 * slot and a send credit (a posted receive at the peer); without one the bytes wait in the channel's outbound
 * buffer, whose size drives
 * {@link #isWritable()} through the write-buffer water marks: a peer that does not read makes the channel
 * unwritable, the bounded back-pressure of a TCP channel.
 *
 * <p><b>Reads.</b> Each message received becomes one {@link ByteBuf} (from the channel's {@code ALLOCATOR}), fired in
 * order; a poll's batch ends with {@code channelReadComplete}. With auto-read off, a {@code read()} delivers one
 * batch; unread messages keep their receive slots, so the peer runs out of credits and stops.
 *
 * <p><b>Closing.</b> {@code close()} and {@code shutdownOutput()} send an empty message, the end of the stream
 * (a message of this transport is never empty otherwise; a close after rendezvous writes also waits, off the loop
 * and up to the endpoint's time-out, until the peer has read them), once a send credit is there: a close without one waits
 * for it off the event loop, up to the endpoint's time-out. The peer then closes
 * ({@code channelInactive}), or with {@link io.netty.channel.ChannelOption#ALLOW_HALF_CLOSURE} fires
 * {@link ChannelInputShutdownEvent} and stays writable. A connection lost without that message (the peer's
 * process died, the link went down, the peer closed and got no credit in time) fires {@code exceptionCaught} with an
 * {@link IOException}, then {@code channelInactive}.
 *
 * <p><b>Writes without a copy.</b> With {@link RdmaChannelOption#REGISTERED_ALLOCATOR}, the channel's allocator
 * hands out direct buffers of at most a slot's bytes in free send slots of its endpoint; such a buffer, written to
 * this channel whole, is posted from its slot as is. Every other buffer is copied; both kinds go on the wire in the
 * order written. A slot lent to a buffer is free again when the buffer is released unwritten, or when its send
 * completes; reads never take one.
 *
 * <pre>{@code
 * ByteBuf b = ch.alloc().directBuffer(512);   // with REGISTERED_ALLOCATOR: a send slot
 * ch.writeAndFlush(b.writeBytes(payload));     // posted from the slot, no copy
 * }</pre>
 *
 * <p><b>Large writes by rendezvous.</b> With {@link RdmaChannelOption#RDMA_REGION_SIZE} on both sides, a write of at
 * least {@link RdmaChannelOption#RENDEZVOUS_THRESHOLD} bytes and larger than a slot is copied into the first half of
 * this side's RDMA region and announced in one message; the peer reads it with one RDMA READ into the second half of
 * its region, delivers it in order with the messages around it, and releases its place in a message back. A write
 * larger than half a region goes in pieces; a full half holds further writes back in the outbound buffer. With the
 * registered allocator as well, half of that first half is lent to large direct buffers ({@link RegionByteBuf}): such
 * a buffer, written to this channel, is announced where it is, not copied.
 *
 * <p><b>On the wire.</b> A message's first byte is its kind: data (the rest of the message), a rendezvous (the
 * sender's region offset, 8 bytes, and the length, 4 bytes, big-endian) or a release (a count, 4 bytes); the empty
 * message is the end of stream. Anything else from the peer ends the connection with a {@link ProtocolViolation}.
 *
 * <p>Not yet: reads are copied once out of the receive slots (or the region). A client's local address
 * ({@code Bootstrap.localAddress}) is bound when it connects ({@code rdma_bind_addr}).
 */
public final class RdmaChannel extends AbstractChannel implements DuplexChannel {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaChannel.class);
    private static final ChannelMetadata METADATA = new ChannelMetadata(false, 16);
    /** How long a close waits for its end-of-stream message to complete (it is acknowledged, so delivered). */
    private static final long FIN_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
    /** How long a close without a send credit sleeps between looks for one. */
    private static final long CREDIT_POLL_NANOS = TimeUnit.MICROSECONDS.toNanos(50);
    /** The first byte of a message (all but the end of stream, which is empty): data follows. */
    static final byte DATA = 0;
    /** A message announcing a rendezvous: the sender's region offset (8 bytes) and the length (4), big-endian. */
    static final byte RENDEZVOUS = 1;
    /** A message releasing the sender's oldest rendezvous buffers: their count (4 bytes, big-endian). */
    static final byte RELEASED = 2;
    /** The bytes of a message's kind, before its data. */
    static final int HEADER = 1;
    static final int RENDEZVOUS_BYTES = HEADER + 8 + 4;
    static final int RELEASED_BYTES = HEADER + 4;
    /** The smallest slot a channel works with: a rendezvous announcement must fit. */
    static final int MIN_SLOT_BYTES = 16;
    /** Rendezvous buffers a sender holds at most before the peer releases some. */
    private static final int MAX_STAGED = 64;
    /** What a loop that shuts down waits for a close off it beyond the endpoint's time-out. */
    private static final long OFF_LOOP_CLOSE_MARGIN_NANOS = TimeUnit.SECONDS.toNanos(5);
    /**
     * Connecting blocks (rdma_cm address and route resolution, the connection, the first credit exchange), so it
     * runs here and the result goes back to the channel's event loop. A close that waits for a send credit for its
     * end-of-stream message runs here as well.
     */
    private static final ExecutorService CONNECTOR = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "verbs4j-netty-connect");
        t.setDaemon(true);
        return t;
    });

    private final RdmaChannelConfig config;
    private volatile boolean open = true;
    private volatile boolean active;
    private volatile InetSocketAddress local;
    private volatile InetSocketAddress remote;
    private volatile boolean inputShutdown;
    private volatile boolean outputShutdown;

    // the rest is the event loop's
    private RdmaEndpoint endpoint;
    private final RdmaRegistration registration = new RdmaRegistration();
    private WorkCompletions sendWc;
    private WorkCompletions recvWc;
    /**
     * Netty's view of each receive slot, made at its first message: a message is copied from it into the read
     * buffer memory to memory (a copy from the slot's {@code ByteBuffer} into a buffer of Netty's adaptive allocator
     * makes a {@code ByteBuffer} slice per message).
     */
    private ByteBuf[] receiveSlots;
    /**
     * The receive slots of the messages {@link #deliver} copied out and handed to the pipeline, posted again (with
     * one credit update) when the batch ends: the replies its handlers write and flush leave before the credit
     * update, not behind it.
     */
    private int[] repostAfterBatch;
    private int repostAfterBatchCount;
    private int sendDepth;
    /** The slots a flush fills and their lengths, in the order of the writes: posted as chains. */
    private int[] slots;
    private int[] lengths;
    /** A run of {@link #lengths} from index 0, for a chain that does not start the flush. */
    private int[] runLengths;
    private int slotBytes;
    /** The data bytes a slot carries after the header. */
    private int payloadBytes;
    /**
     * Rendezvous: a write of at least {@link #threshold} bytes and more than a slot goes through this side's RDMA
     * region; the peer reads it (RDMA READ) into its own region and releases it. The region's first half stages this
     * side's messages, its second half receives the peer's. Null when either side has no region.
     */
    private RendezvousStaging staged;
    /** The largest copied piece that goes by rendezvous (this side's room for copies, the peer's receiving half). */
    private long rendezvousMax;
    /** Netty's view of this side's RDMA region, made once. */
    private ByteBuf region;
    /** The peer's rendezvous messages delivered (or dropped) and not released to it yet. */
    private int releasesOwed;
    /** A write waits for room in the staging half (a release from the peer frees it, and wakes the loop). */
    private boolean regionWait;
    /** The messages received and not delivered yet, in their order, and the reads of the peer's rendezvous. */
    private ReceiveQueue queue;
    /** A receive failed: a {@code LOST} is queued, what completes after it is ignored. */
    private boolean lostQueued;
    /** Rendezvous writes posted, and those of them announced from a lent region buffer as is: read by the tests. */
    private long rendezvousWrites;
    private long zeroCopyRendezvous;
    /** Who holds each send slot: free, the transport's, or lent to a buffer of the registered allocator. */
    private SendSlotPool slotPool;
    /** Bytes copied into send slots, and sends posted from a lent slot as is: read by the tests, on the loop. */
    private long copiedBytes;
    private long zeroCopySends;
    /** Chains of sends a flush posted (each one doorbell): read by the tests, on the loop. */
    private long sendChains;
    private boolean writePending;
    private boolean readPending;
    private boolean finPending;
    private boolean finSent;
    private boolean finReceived;
    private boolean broken;
    /** Set when a close waits off the loop for a credit (then the closing thread owns the endpoint). */
    private boolean closeWaitsForCredit;
    /** Set when a close runs off the loop; counted down once it has handed its last step back to the loop. */
    private volatile CountDownLatch offLoopClose;
    private boolean closeDone;
    /** The status of the failed receive a {@code LOST} in the queue stands for. */
    private String lostStatus;
    /** A repost (its credit update) that failed during a read: the connection is gone, maybe after the end of stream. */
    private RuntimeException repostFailure;
    private ChannelPromise connectPromise;
    /** {@code CONNECT_TIMEOUT_MILLIS}'s task while a connect is pending, or null. */
    private ScheduledFuture<?> connectTimeout;

    /** A client channel; {@code Bootstrap.channel(RdmaChannel.class)} makes it. */
    public RdmaChannel() {
        super(null);
        this.config = new RdmaChannelConfig(this);
    }

    /** An accepted channel over a connected endpoint. */
    RdmaChannel(RdmaServerChannel parent, RdmaEndpoint endpoint, InetSocketAddress local) {
        super(parent);
        this.config = new RdmaChannelConfig(this);
        this.local = endpoint.localAddress() != null ? endpoint.localAddress() : local;
        this.remote = endpoint.remoteAddress();
        attach(endpoint);
    }

    private void attach(RdmaEndpoint ep) {
        EndpointOptions o = ep.options();
        this.endpoint = ep;
        this.sendDepth = o.sendDepth();
        this.slots = new int[sendDepth];
        this.lengths = new int[sendDepth];
        this.runLengths = new int[sendDepth];
        // a message must fit this side's send slot and the peer's receive slot
        this.slotBytes = Math.min(o.messageSize(), ep.peerMessageSize());
        if (slotBytes < MIN_SLOT_BYTES) {
            throw new IllegalArgumentException(tooSmall(o.messageSize(), ep.peerMessageSize()));
        }
        this.payloadBytes = slotBytes - HEADER;
        java.nio.ByteBuffer[] memory = new java.nio.ByteBuffer[sendDepth];
        for (int i = 0; i < sendDepth; i++) {
            memory[i] = ep.sendSlot(i).slice(HEADER, payloadBytes);
        }
        this.slotPool = new SendSlotPool(memory, payloadBytes);
        long own = o.rdmaRegionSize();
        long peer = ep.remoteRegion().length();
        if (own >= 2 && peer >= 2) {
            long half = own / 2;
            stage(ep, config.isRegisteredAllocator());
            this.region = Unpooled.wrappedBuffer(ep.rdmaRegion());
            this.queue = new ReceiveQueue(o.receiveDepth(), new RegionRing(own - half, o.receiveDepth()), half,
                    Math.max(1, Math.min(o.rdAtomic(), sendDepth)));
        } else {
            this.queue = new ReceiveQueue(o.receiveDepth(), null, 0, 0);
        }
        config.slotAllocator().attach(slotPool, staged == null ? null : staged.lending());
        this.sendWc = WorkCompletions.allocate(Math.min(sendDepth, 32));
        this.recvWc = WorkCompletions.allocate(Math.min(o.receiveDepth(), 16));
        this.receiveSlots = new ByteBuf[o.receiveDepth()];
        this.repostAfterBatch = new int[o.receiveDepth()];
        config.setEndpointOptions(o);
        this.active = true;
    }

    /**
     * Makes the staging half (the first half of this side's region), lending half of it to the registered allocator
     * when {@code lend}, and the largest copied piece.
     */
    private void stage(RdmaEndpoint ep, boolean lend) {
        long half = ep.options().rdmaRegionSize() / 2;
        long peer = ep.remoteRegion().length();
        long peerHalf = Math.min(peer - peer / 2, Integer.MAX_VALUE);
        this.staged = new RendezvousStaging(ep.rdmaRegion(), half, MAX_STAGED, lend, peerHalf);
        this.rendezvousMax = Math.min(Math.min(staged.copyCapacity(), peerHalf), Integer.MAX_VALUE);
    }

    /**
     * {@link RdmaChannelOption#REGISTERED_ALLOCATOR} was set: an accepted channel gets its child options after it
     * was made (connected), before it is registered with its event loop; its staging half is split (or made whole)
     * again then. A registered channel's split stays as it was made; its slots are lent or not from now on.
     */
    void registeredAllocatorSet(boolean on) {
        RendezvousStaging s = staged;
        RdmaEndpoint ep = endpoint;
        if (s != null && ep != null && !isRegistered() && s.held() == 0 && (s.lending() != null) != on) {
            s.close();
            stage(ep, on);
            config.slotAllocator().attach(slotPool, staged.lending());
        }
    }

    /** Why a connection's slots are too small for a channel (its message size, or the peer's). */
    static String tooSmall(int own, int peer) {
        return "a message slot of " + Math.min(own, peer) + " bytes (this side's message size " + own + ", the peer's "
                + peer + "): an RdmaChannel needs at least " + MIN_SLOT_BYTES;
    }

    @Override
    public RdmaChannelConfig config() {
        return config;
    }

    @Override
    public ChannelMetadata metadata() {
        return METADATA;
    }

    @Override
    public RdmaServerChannel parent() {
        return (RdmaServerChannel) super.parent();
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public boolean isActive() {
        return open && active;
    }

    @Override
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) super.localAddress();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return (InetSocketAddress) super.remoteAddress();
    }

    @Override
    protected SocketAddress localAddress0() {
        return local;
    }

    @Override
    protected SocketAddress remoteAddress0() {
        return remote;
    }

    /** {@return the bytes a flush copied into send slots so far} Read on the event loop (waits for it elsewhere). */
    long copiedBytes() {
        return onLoop(() -> copiedBytes);
    }

    /** {@return the writes that went by rendezvous (the peer read them from this side's region), so far} */
    long rendezvousWrites() {
        return onLoop(() -> rendezvousWrites);
    }

    /** {@return the bytes of the region's lent part free now, or -1 when the channel lends none} */
    long freeLentBytes() {
        return onLoop(() -> staged == null || staged.lending() == null ? -1L
                : (long) staged.lending().freeBlocks() * staged.lending().blockBytes());
    }

    /** {@return the bytes of the region's lent part, or -1 when the channel lends none} */
    long lentBytes() {
        return onLoop(() -> staged == null || staged.lending() == null ? -1L : staged.lending().capacity());
    }

    /** {@return the rendezvous writes announced from a lent region buffer as it was (no copy), so far} */
    long zeroCopyRendezvous() {
        return onLoop(() -> zeroCopyRendezvous);
    }

    /** {@return the sends posted from a registered allocator's buffer as is, without a copy, so far} */
    long zeroCopySends() {
        return onLoop(() -> zeroCopySends);
    }

    /** {@return the chains of sends flushes posted so far, each one doorbell} */
    long sendChains() {
        return onLoop(() -> sendChains);
    }

    /** The counters are the loop's plain fields (no fence per message): another thread reads them through it. */
    private long onLoop(java.util.concurrent.Callable<Long> read) {
        try {
            return eventLoop().inEventLoop() ? read.call() : eventLoop().submit(read).get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(this + ": cannot read its counters on its event loop", e);
        }
    }

    /** {@return the send slots free now (neither lent nor in flight), or -1 before the channel connected} */
    int freeSendSlots() {
        SendSlotPool p = slotPool;
        return p == null ? -1 : p.free();
    }

    /** {@return the endpoint under the channel, or null before it connected} Use it on the event loop only. */
    RdmaEndpoint endpoint() {
        return endpoint;
    }

    @Override
    protected boolean isCompatible(EventLoop loop) {
        return RdmaRegistration.isCompatible(loop, RdmaUnsafe.class);
    }

    @Override
    protected AbstractUnsafe newUnsafe() {
        return new RdmaUnsafe();
    }

    @Override
    protected void doRegister(ChannelPromise promise) {
        registration.register(eventLoop(), (RdmaUnsafe) unsafe(), promise);
    }

    @Override
    protected void doDeregister() {
        registration.cancel();
    }

    @Override
    protected void doBind(SocketAddress localAddress) {
        throw new UnsupportedOperationException("an RdmaChannel binds its local address when it connects: give it to "
                + "connect (Bootstrap.localAddress), not to bind");
    }

    @Override
    protected void doDisconnect() throws Exception {
        doClose();
    }

    @Override
    protected void doClose() {
        boolean wasOpen = !closeDone;
        closeDone = true;
        open = false;
        active = false;
        if (connectPromise != null) {
            connectPromise.tryFailure(new ClosedChannelException());
            connectPromise = null;
        }
        if (connectTimeout != null) {
            connectTimeout.cancel(false);
            connectTimeout = null;
        }
        RdmaEndpoint ep = endpoint;
        if (slotPool != null) {
            slotPool.close(); // nothing more is lent; buffers still out keep their (plain Java) memory
        }
        if (staged != null) {
            staged.close(); // the same for the region's lent blocks
        }
        if (ep != null && !ep.isClosed()) {
            if (releasesOwed > 0 && !broken) {
                try {
                    reapSends(ep);
                    if (canSend(ep)) {
                        sendReleases(ep); // the peer may be waiting for them to close
                    }
                } catch (RuntimeException e) {
                    LOG.debug("{}: the release of rendezvous messages did not go out", this, e);
                }
            }
            if (finDue()) {
                try {
                    sendFinAndWait(ep, closeWaitsForCredit ? ep.options().timeout().toNanos() : 0);
                } catch (RuntimeException e) {
                    LOG.debug("{}: the end-of-stream message did not go out", this, e);
                }
            }
            try {
                ep.close();
            } catch (RuntimeException e) {
                LOG.debug("{}: closing its endpoint", this, e);
            }
        }
        if (sendWc != null) {
            sendWc.close();
            recvWc.close();
            sendWc = null;
            recvWc = null;
            receiveSlots = null;   // views of the endpoint's memory, freed with it
        }
        if (wasOpen && parent() != null) {
            parent().childClosed();
        }
    }

    @Override
    protected void doBeginRead() {
        readPending = true;
    }

    @Override
    protected Object filterOutboundMessage(Object msg) {
        if (msg instanceof ByteBuf) {
            return msg;
        }
        throw new UnsupportedOperationException("unsupported message type: " + StringUtil.simpleClassName(msg)
                + " (an RdmaChannel writes ByteBufs)");
    }

    @Override
    protected void doWrite(ChannelOutboundBuffer in) throws IOException {
        try {
            write(in);
        } catch (UncheckedIOException e) {
            throw e.getCause(); // an IOException: Netty fails the writes and closes the channel (auto-close)
        }
    }

    /**
     * Fills as many send slots as there are credits and places in the send queue, then posts them (one chain per run
     * of consecutive slots, in the order of the writes), until the outbound buffer is empty or nothing more may go.
     * A buffer of the registered allocator, whole and in a slot of this endpoint, is posted from its slot as is;
     * every other buffer is copied, small ones sharing a slot.
     */
    private void write(ChannelOutboundBuffer in) {
        RdmaEndpoint ep = endpoint;
        reapSends(ep);
        SendSlotPool pool = slotPool;
        regionWait = false;
        for (;;) {
            if (in.current() == null) {
                writePending = false;
                return;
            }
            int room = room(ep);
            int filled = 0;
            long copied = 0;
            while (filled < room && in.current() != null) {
                ByteBuf head = (ByteBuf) in.current();
                int size = head.readableBytes();
                if (size == 0) {
                    in.remove();
                    continue;
                }
                int lent = lentSlot(head, pool);
                if (lent >= 0) {
                    ep.sendSlot(lent).put(0, DATA);
                    slots[filled] = lent;
                    lengths[filled++] = HEADER + size;
                    zeroCopySends++;
                    in.remove(); // released: the slot stays out of the pool until the send completes
                    continue;
                }
                long lentAt = lentRegion(head, size);
                if (lentAt >= 0) {
                    if (staged.full()) {
                        regionWait = true; // the peer has not released enough yet: its release wakes the loop
                        break;
                    }
                    int slot = pool.take();
                    if (slot < 0) {
                        break;
                    }
                    RegionByteBuf big = (RegionByteBuf) LentByteBuf.of(head);
                    if (big.announcing()) {
                        staged.announceLent(big);
                        putRendezvous(ep.sendSlot(slot), lentAt + head.readerIndex(), size);
                        slots[filled] = slot;
                        lengths[filled++] = RENDEZVOUS_BYTES;
                        rendezvousWrites++;
                        zeroCopyRendezvous++;
                        in.remove(); // released: its blocks stay lent until the peer releases the rendezvous
                        continue;
                    }
                    pool.untake(slot); // announced already (written twice), or closing: copied like any buffer
                }
                int piece = rendezvousPiece(size);
                if (piece > 0) {
                    long at = staged.stageCopy(piece);
                    if (at < 0) {
                        regionWait = true; // the peer has not released enough yet: its release wakes the loop
                        break;
                    }
                    int slot = pool.take();
                    if (slot < 0) {
                        staged.dropNewestCopy();
                        break;
                    }
                    head.getBytes(head.readerIndex(), region, (int) at, piece);
                    putRendezvous(ep.sendSlot(slot), at, piece);
                    slots[filled] = slot;
                    lengths[filled++] = RENDEZVOUS_BYTES;
                    rendezvousWrites++;
                    copied += piece;
                    in.removeBytes(piece); // the write's promise completes with its last piece
                    continue;
                }
                int slot = pool.take();
                if (slot < 0) {
                    break; // every free slot is lent: wait for a completion or a release
                }
                ByteBuffer dst = ep.sendSlot(slot);
                dst.put(0, DATA);
                dst.position(HEADER);
                dst.limit(slotBytes);
                Object msg;
                while (dst.hasRemaining() && (msg = in.current()) != null) {
                    ByteBuf buf = (ByteBuf) msg;
                    int readable = buf.readableBytes();
                    if (readable == 0) {
                        in.remove();
                        continue;
                    }
                    if (dst.position() > HEADER && (isLent(buf, pool) || rendezvousPiece(readable) > 0)) {
                        break; // it goes from its own slot, or by rendezvous, after this one
                    }
                    int n = Math.min(readable, dst.remaining());
                    dst.limit(dst.position() + n);
                    buf.getBytes(buf.readerIndex(), dst);
                    dst.limit(slotBytes);
                    in.removeBytes(n);
                    copied += n;
                }
                if (dst.position() == HEADER) {
                    pool.untake(slot);
                    break; // only empty buffers were left
                }
                slots[filled] = slot;
                lengths[filled++] = dst.position();
            }
            if (copied > 0) {
                copiedBytes += copied;
            }
            if (filled == 0) {
                writePending = in.current() != null;
                return;
            }
            postBatch(ep, filled);
            if (regionWait) {
                writePending = in.current() != null;
                return;
            }
        }
    }

    /**
     * {@return the bytes of a buffer of {@code size} readable bytes that go by one rendezvous (at most half a region),
     * or 0 when it goes as sends}
     */
    private int rendezvousPiece(int size) {
        if (staged == null || size <= payloadBytes || size < config.getRendezvousThreshold()) {
            return 0;
        }
        return (int) Math.min(size, rendezvousMax);
    }

    /**
     * {@return the region offset of {@code buf}'s memory when it is announced as it is: a buffer lent by this
     * channel's registered allocator, still in its blocks, of rendezvous size; else -1}
     */
    private long lentRegion(ByteBuf buf, int size) {
        if (!(LentByteBuf.of(buf) instanceof RegionByteBuf lent) || staged == null || staged.lending() == null
                || size <= payloadBytes || size < config.getRendezvousThreshold() || size > staged.lending().largest()) {
            return -1;
        }
        return lent.regionOffset(staged.lending());
    }

    /** Writes a rendezvous announcement into a send slot: {@code length} bytes at {@code at} of this side's region. */
    private static void putRendezvous(ByteBuffer dst, long at, int length) {
        dst.put(0, RENDEZVOUS);
        putLong(dst, HEADER, at);
        putInt(dst, HEADER + 8, length);
    }

    static void putLong(ByteBuffer b, int at, long v) {
        for (int i = 0; i < 8; i++) {
            b.put(at + i, (byte) (v >>> (56 - 8 * i)));
        }
    }

    static void putInt(ByteBuffer b, int at, int v) {
        for (int i = 0; i < 4; i++) {
            b.put(at + i, (byte) (v >>> (24 - 8 * i)));
        }
    }

    static long getLong(ByteBuffer b, int at) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = v << 8 | (b.get(at + i) & 0xff);
        }
        return v;
    }

    static int getInt(ByteBuffer b, int at) {
        int v = 0;
        for (int i = 0; i < 4; i++) {
            v = v << 8 | (b.get(at + i) & 0xff);
        }
        return v;
    }

    /** {@return the sends that may be posted now: the peer's credits, bounded by the free places of the send queue} */
    private int room(RdmaEndpoint ep) {
        return (int) Math.min(sendDepth - ep.inFlight(), ep.sendCredits());
    }

    /** {@return whether {@code buf} is a registered allocator's buffer in a slot of this channel's endpoint} */
    private static boolean isLent(ByteBuf buf, SendSlotPool pool) {
        return LentByteBuf.of(buf) instanceof SendSlotByteBuf lent && lent.slotOf(pool) >= 0;
    }

    /**
     * {@return the slot {@code buf} is to be posted from as is, now marked in flight, or -1 when it is copied}: a
     * buffer of this channel's registered allocator still in its slot, read from its start, not in flight already
     */
    private int lentSlot(ByteBuf buf, SendSlotPool pool) {
        if (!(LentByteBuf.of(buf) instanceof SendSlotByteBuf lent) || buf.readerIndex() != 0
                || buf.readableBytes() > payloadBytes) {
            return -1;
        }
        int slot = lent.slotOf(pool);
        return slot >= 0 && pool.sending(slot) ? slot : -1;
    }

    /** Posts the {@code count} slots of {@link #slots}, in order: each run of consecutive slots is one chain. */
    private void postBatch(RdmaEndpoint ep, int count) {
        for (int start = 0; start < count;) {
            int end = start + 1;
            while (end < count && slots[end] == (slots[end - 1] + 1 == sendDepth ? 0 : slots[end - 1] + 1)) {
                end++;
            }
            int run = end - start;
            int[] runLength = lengths;
            if (start > 0) {
                System.arraycopy(lengths, start, runLengths, 0, run);
                runLength = runLengths;
            }
            int posted = ep.trySendBatch(slots[start], runLength, run);
            sendChains++;
            if (posted != run) {
                throw new IllegalStateException(this + ": " + posted + " of " + run + " sends posted although the "
                        + "credits and places were counted");
            }
            start = end;
        }
    }

    /** {@return whether a message of the transport's own (a copy, the end of stream) may go now} */
    private boolean canSend(RdmaEndpoint ep) {
        return room(ep) > 0 && slotPool.free() > 0;
    }

    /** {@return whether a flush may post something now: a slot and a credit, or a credit for a lent buffer} */
    private boolean canWrite(RdmaEndpoint ep) {
        if (room(ep) <= 0) {
            return false;
        }
        if (slotPool.free() > 0) {
            return true;
        }
        ChannelOutboundBuffer in = unsafe().outboundBuffer();
        Object head = in == null ? null : in.current();
        return head instanceof ByteBuf && isLent((ByteBuf) head, slotPool);
    }

    /** Posts an empty message (the end of stream) from a free slot. */
    private void postEmpty(RdmaEndpoint ep) {
        int slot = slotPool.take();
        if (slot < 0 || !ep.trySend(slot, 0)) {
            if (slot >= 0) {
                slotPool.untake(slot);
            }
            throw new IllegalStateException(this + ": no send slot or credit although one was counted");
        }
    }

    /** Frees the slots of completed sends; throws on a failed one (the connection is broken). */
    private int reapSends(RdmaEndpoint ep) {
        int n = ep.pollSend(sendWc);
        for (int i = 0; i < n; i++) {
            long id = sendWc.wrId(i);
            if (!sendWc.ok(i)) {
                throw new UncheckedIOException(new ConnectionLost(this + ": a " + (ReceiveQueue.isRead(id)
                        ? "rendezvous read" : "send") + " failed with " + status(sendWc, i)
                        + ": the connection to the peer is lost"));
            }
            if (ReceiveQueue.isRead(id)) {
                queue.readDone(id);
            } else {
                slotPool.completed((int) id);
            }
        }
        return n;
    }

    private static String status(WorkCompletions wc, int i) {
        WcStatus st = wc.status(i);
        return st == null ? "status " + wc.statusValue(i) : st.name();
    }

    /** {@return whether a close sends the end of stream: not when the connection is gone or the peer closed all of it} */
    private boolean finDue() {
        return !broken && !finSent && !(finReceived && !config.isAllowHalfClosure());
    }

    /**
     * Sends the end-of-stream (an empty message), waiting up to {@code creditWaitNanos} for a send credit (the
     * peer returns one when it reads), then waits a little for its completion. Without a credit in time, or once the
     * connection fails, it gives up: the peer will see the connection end instead.
     */
    private void sendFinAndWait(RdmaEndpoint ep, long creditWaitNanos) {
        reapSends(ep);
        dropQueue(ep);
        long creditDeadline = System.nanoTime() + creditWaitNanos;
        while (!canSend(ep)) {
            if (System.nanoTime() - creditDeadline >= 0 || receiveFailed(ep)) {
                LOG.debug("{}: no send credit for the end-of-stream message", this);
                return;
            }
            LockSupport.parkNanos(CREDIT_POLL_NANOS);
            reapSends(ep);
        }
        postEmpty(ep);
        finSent = true;
        long deadline = System.nanoTime() + FIN_WAIT_NANOS;
        while (ep.inFlight() > 0 && System.nanoTime() - deadline < 0) {
            if (reapSends(ep) == 0) {
                Thread.onSpinWait();
            }
        }
        // the peer reads this side's rendezvous messages from its region: keep it until they are released
        long releaseDeadline = System.nanoTime() + creditWaitNanos;
        while (staged != null && staged.held() > 0 && System.nanoTime() - releaseDeadline < 0) {
            if (receiveFailed(ep)) {
                return; // the peer closed: it read what it wanted
            }
            LockSupport.parkNanos(CREDIT_POLL_NANOS);
        }
        if (staged != null && staged.held() > 0) {
            LOG.debug("{}: {} rendezvous messages not released by the peer when closing", this, staged.held());
        }
    }

    /**
     * While a close waits for a credit: drops what arrives (the channel no longer reads) and reposts its slot, so
     * that a peer closing at the same time gets a credit for its own end of stream; tells whether a receive failed,
     * which means the connection is gone and no credit will come.
     */
    private boolean receiveFailed(RdmaEndpoint ep) {
        int n = ep.pollReceive(recvWc);
        for (int i = 0; i < n; i++) {
            if (!recvWc.ok(i)) {
                return true;
            }
            ByteBuffer m = ep.message(recvWc, i);
            if (staged != null && m.remaining() == RELEASED_BYTES && m.get(m.position()) == RELEASED) {
                release(Math.min(getInt(m, m.position() + HEADER), staged.held()));
            }
            ep.repostReceive((int) recvWc.wrId(i));
        }
        return false;
    }

    private void sendFin(RdmaEndpoint ep) {
        postEmpty(ep);
        finSent = true;
        finPending = false;
    }

    /**
     * Takes what the receive queue completed. A release frees this side's staged messages at once; every other
     * message (and a failed receive) joins the queue of messages to deliver, in order. A message that breaks the
     * transport's protocol ends the connection with an exception.
     *
     * @return the completions taken
     */
    private int receive(RdmaEndpoint ep) {
        int n = ep.pollReceive(recvWc);
        for (int i = 0; i < n; i++) {
            if (lostQueued) {
                continue; // the receives flushed after the first failure
            }
            if (!recvWc.ok(i)) {
                lostStatus = status(recvWc, i);
                lostQueued = true;
                queue.add(ReceiveQueue.LOST, -1, 0, 0);
                continue;
            }
            int slot = (int) recvWc.wrId(i);
            ByteBuffer m = ep.message(recvWc, i);
            int length = m.remaining();
            if (length == 0) {
                queue.add(ReceiveQueue.END, slot, 0, 0);
                continue;
            }
            receiveSlot(slot, m);
            byte kind = m.get(m.position());
            if (kind == DATA && length > HEADER) {
                queue.add(ReceiveQueue.DATA, slot, length - HEADER, 0);
            } else if (kind == RENDEZVOUS && length == RENDEZVOUS_BYTES) {
                long at = getLong(m, m.position() + HEADER);
                int size = getInt(m, m.position() + HEADER + 8);
                long peerRegion = ep.remoteRegion().length();
                long half = queue.receivingHalf();
                if (size < 1 || size > half || at < 0 || at > peerRegion - size) {
                    violation("a rendezvous of " + size + " bytes at " + at + " of its " + peerRegion
                            + "-byte region, for this side's " + (half == 0 ? "missing region"
                            : half + "-byte receiving half"));
                    return n;
                }
                queue.add(ReceiveQueue.RENDEZVOUS, slot, size, at);
            } else if (kind == RELEASED && length == RELEASED_BYTES) {
                int count = getInt(m, m.position() + HEADER);
                if (staged == null || count < 1 || count > staged.held()) {
                    violation("a release of " + count + " rendezvous messages, " + (staged == null ? 0
                            : staged.held()) + " outstanding");
                    return n;
                }
                release(count);
                repost(ep, slot);
            } else {
                violation("a " + length + "-byte message of kind " + kind);
                return n;
            }
        }
        return n;
    }

    /** The peer has read this side's {@code count} oldest rendezvous messages: their room is free again. */
    private void release(int count) {
        staged.release(count);
        regionWait = false;
    }

    private void violation(String what) {
        broken(new ProtocolViolation(this + ": the peer broke the transport's protocol with " + what
                + "; the connection is closed"));
    }

    /**
     * Delivers the queued messages in their order as far as they are there: data; a rendezvous whose read completed
     * (copied out of the region, which is then released to the peer); the end of stream; a lost connection. A batch
     * ends with {@code channelReadComplete}.
     *
     * @return the messages taken from the queue
     */
    private int deliver(RdmaEndpoint ep) {
        ChannelPipeline p = pipeline();
        boolean delivered = false;
        int taken = 0;
        while (queue.size() > 0) {
            if (!queue.headReady(inputShutdown)) {
                break; // a rendezvous whose read is not done: what came after it waits
            }
            int cell = queue.take();
            byte kind = queue.kind(cell);
            taken++;
            int slot = queue.slot(cell);
            if (kind == ReceiveQueue.END || kind == ReceiveQueue.LOST) {
                if (delivered) {
                    p.fireChannelReadComplete();
                }
                repostBatch(ep);
                if (kind == ReceiveQueue.END) {
                    endOfStream(ep, slot);
                } else {
                    lost();
                }
                return taken;
            }
            int length = queue.length(cell);
            ByteBuf buf = null;
            if (kind == ReceiveQueue.RENDEZVOUS) {
                if (queue.wasRead(cell)) {
                    if (!inputShutdown) {
                        buf = config.baseAllocator().ioBuffer(length);
                        buf.writeBytes(region, (int) queue.oldestSink(), length);
                    }
                    queue.freeSink();
                }
                releasesOwed++;
            } else if (!inputShutdown) { // shut by this side: dropped, as a socket's shut input drops
                buf = config.baseAllocator().ioBuffer(length); // never a send slot
                buf.writeBytes(receiveSlots[slot], HEADER, length);
            }
            repostAfterBatch[repostAfterBatchCount++] = slot; // copied out: free, posted when the batch ends
            if (buf != null) {
                readPending = false;
                delivered = true;
                p.fireChannelRead(buf);
                if (!open) {
                    return taken; // a handler closed the channel: the close posts the batch's slots (dropQueue)
                }
            }
        }
        if (delivered) {
            p.fireChannelReadComplete();
        }
        repostBatch(ep);
        return taken;
    }

    /**
     * Posts the slots of the batch {@link #deliver} handed on, with one credit update; a failure is kept for
     * {@link #failed}, as {@link #repost}'s.
     */
    private void repostBatch(RdmaEndpoint ep) {
        if (!open) {
            return; // a handler closed the channel in the batch: the close posts them (dropQueue), perhaps off the loop
        }
        int n = repostAfterBatchCount;
        repostAfterBatchCount = 0;
        if (n > 0 && repostFailure == null) {
            try {
                ep.repostReceives(repostAfterBatch, 0, n);
            } catch (RuntimeException e) {
                repostFailure = e;
            }
        }
    }

    /**
     * Closing: the messages received and not delivered are dropped and their slots posted again, so that a peer
     * closing at the same time gets the credit for its own end of stream.
     */
    private void dropQueue(RdmaEndpoint ep) {
        for (int i = 0; i < repostAfterBatchCount; i++) {
            repost(ep, repostAfterBatch[i]); // a handler closes the channel in the middle of a batch
        }
        repostAfterBatchCount = 0;
        while (queue != null && queue.size() > 0) { // null: the endpoint came without usable slots (attach threw)
            int slot = queue.slot(queue.take());
            if (slot >= 0) {
                repost(ep, slot);
            }
        }
    }

    /** Tells the peer that its oldest rendezvous messages were read: it may reuse their room. */
    private void sendReleases(RdmaEndpoint ep) {
        int slot = slotPool.take();
        if (slot < 0) {
            return;
        }
        ByteBuffer dst = ep.sendSlot(slot);
        dst.put(0, RELEASED);
        putInt(dst, HEADER, releasesOwed);
        if (!ep.trySend(slot, RELEASED_BYTES)) {
            slotPool.untake(slot);
            return;
        }
        releasesOwed = 0;
    }

    /** Netty's view of receive slot {@code slot}, whose message is {@code m} (the endpoint's view of the slot). */
    private ByteBuf receiveSlot(int slot, ByteBuffer m) {
        ByteBuf b = receiveSlots[slot];
        if (b == null) {
            ByteBuffer whole = m.duplicate();
            whole.clear();
            b = Unpooled.wrappedBuffer(whole);
            receiveSlots[slot] = b;
        }
        return b;
    }

    /** Posts a receive slot again; a failure is kept for {@link #failed} (reposts stop: the connection is gone). */
    private void repost(RdmaEndpoint ep, int slot) {
        if (repostFailure == null) {
            try {
                ep.repostReceive(slot);
            } catch (RuntimeException e) {
                repostFailure = e;
            }
        }
    }

    /**
     * The connection failed under this side (a credit update or a send failed). The peer may have ended the stream
     * first and closed before this side's credit updates for what it read went out: then the receive queue still
     * holds the rest of the data and the end of stream. Reads them (a bounded number of batches); only when no end of
     * stream comes is the failure the pipeline's exception.
     */
    private void failed(RdmaEndpoint ep, RuntimeException cause) {
        for (int batch = 0; open && !finReceived && batch < 64; batch++) {
            int n;
            try {
                n = receive(ep);
                if (open) {
                    deliver(ep);
                }
            } catch (RuntimeException e) {
                break;
            }
            if (n == 0) {
                break;
            }
        }
        if (!finReceived) {
            broken(cause);
        }
    }

    private void endOfStream(RdmaEndpoint ep, int slot) {
        finReceived = true;
        if (config.isAllowHalfClosure()) {
            inputShutdown = true;
            repost(ep, slot);
            pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
            pipeline().fireUserEventTriggered(ChannelInputShutdownReadComplete.INSTANCE);
            if (finSent || outputShutdown) {
                unsafe().close(voidPromise());
            }
        } else {
            unsafe().close(voidPromise());
        }
    }

    private void lost() {
        if (finReceived) {
            unsafe().close(voidPromise()); // after the peer's end of stream: its close, not a loss
        } else {
            broken(new ConnectionLost(this + ": a receive completed with " + lostStatus + " before the peer's "
                    + "end of stream: the connection to the peer is lost (its process ended, its link went down, "
                    + "or it closed with no send credit left)"));
        }
    }

    private void broken(Throwable cause) {
        if (!open) {
            return;
        }
        broken = true;
        Throwable t = cause instanceof UncheckedIOException ? cause.getCause()
                : cause instanceof IOException ? cause : new ConnectionLost(this + ": " + cause.getMessage(), cause);
        pipeline().fireExceptionCaught(t);
        unsafe().close(voidPromise());
    }

    @Override
    public boolean isInputShutdown() {
        return inputShutdown || !isActive();
    }

    @Override
    public ChannelFuture shutdownInput() {
        return shutdownInput(newPromise());
    }

    @Override
    public ChannelFuture shutdownInput(ChannelPromise promise) {
        EventLoop loop = eventLoop();
        if (loop.inEventLoop()) {
            inputShutdown = true;
            promise.setSuccess();
        } else {
            loop.execute(() -> shutdownInput(promise));
        }
        return promise;
    }

    @Override
    public boolean isOutputShutdown() {
        return outputShutdown || !isActive();
    }

    @Override
    public ChannelFuture shutdownOutput() {
        return shutdownOutput(newPromise());
    }

    @Override
    public ChannelFuture shutdownOutput(ChannelPromise promise) {
        EventLoop loop = eventLoop();
        if (loop.inEventLoop()) {
            ((AbstractUnsafe) unsafe()).shutdownOutput(promise);
        } else {
            loop.execute(() -> ((AbstractUnsafe) unsafe()).shutdownOutput(promise));
        }
        return promise;
    }

    @Override
    protected void doShutdownOutput() {
        outputShutdown = true;
        RdmaEndpoint ep = endpoint;
        if (ep == null || finSent) {
            return;
        }
        reapSends(ep);
        if (canSend(ep)) {
            sendFin(ep);
        } else {
            finPending = true;
        }
    }

    @Override
    public boolean isShutdown() {
        return isInputShutdown() && isOutputShutdown();
    }

    @Override
    public ChannelFuture shutdown() {
        return shutdown(newPromise());
    }

    @Override
    public ChannelFuture shutdown(ChannelPromise promise) {
        ChannelPromise input = newPromise();
        shutdownInput(input);
        input.addListener(f -> shutdownOutput(promise));
        return promise;
    }

    /**
     * The peer sent what this transport never sends (a message of unknown kind, a rendezvous outside its region or
     * larger than this side's receiving half, a release of more than is outstanding): the connection is closed.
     */
    public static final class ProtocolViolation extends IOException {
        private static final long serialVersionUID = 1L;

        /**
         * A violation described by {@code message}.
         *
         * @param message what the peer sent, and what was expected
         */
        public ProtocolViolation(String message) {
            super(message);
        }
    }

    /** The connection to the peer is gone. */
    static final class ConnectionLost extends IOException {
        private static final long serialVersionUID = 1L;

        ConnectionLost(String message) {
            super(message);
        }

        ConnectionLost(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private final class RdmaUnsafe extends AbstractUnsafe implements RdmaIoHandle {
        @Override
        public void connect(SocketAddress remoteAddress, SocketAddress localAddress, ChannelPromise promise) {
            if (!promise.setUncancellable() || !ensureOpen(promise)) {
                return;
            }
            if (connectPromise != null) {
                promise.setFailure(new ConnectionPendingException());
                return;
            }
            if (endpoint != null) {
                promise.setFailure(new AlreadyConnectedException());
                return;
            }
            if (!(remoteAddress instanceof InetSocketAddress)
                    || localAddress != null && !(localAddress instanceof InetSocketAddress)) {
                promise.setFailure(new UnsupportedOperationException("an RdmaChannel connects to an InetSocketAddress "
                        + "from an InetSocketAddress, not to " + remoteAddress + " from " + localAddress));
                return;
            }
            InetSocketAddress to = (InetSocketAddress) remoteAddress;
            InetSocketAddress from = (InetSocketAddress) localAddress;
            // a completion channel, so that the event loop can sleep until the endpoint has a completion
            EndpointOptions options = config.getEndpointOptions().completionChannel(true);
            connectPromise = promise;
            int timeoutMillis = config.getConnectTimeoutMillis();
            if (timeoutMillis > 0) {
                // Netty's own time-out, as NIO's: the promise fails, the channel closes, a late endpoint is closed
                connectTimeout = eventLoop().schedule(() -> {
                    if (connectPromise == promise && promise.tryFailure(new ConnectTimeoutException(
                            "connection timed out after " + timeoutMillis + " ms: " + to))) {
                        close(voidPromise());
                    }
                }, timeoutMillis, TimeUnit.MILLISECONDS);
            }
            CONNECTOR.execute(() -> {
                RdmaEndpoint ep = null;
                Throwable failure = null;
                try {
                    ep = Endpoints.connect(to, from, options);
                } catch (Throwable t) {
                    failure = t;
                }
                RdmaEndpoint made = ep;
                Throwable cause = failure;
                try {
                    eventLoop().execute(() -> connected(to, made, cause, promise));
                } catch (RejectedExecutionException e) {
                    if (made != null) {
                        made.close();
                    }
                }
            });
        }

        private void connected(InetSocketAddress to, RdmaEndpoint ep, Throwable failure, ChannelPromise promise) {
            if (connectTimeout != null && connectPromise == promise) {
                connectTimeout.cancel(false);
                connectTimeout = null;
            }
            if (connectPromise != promise || !open) {
                if (ep != null) {
                    ep.close(); // closed meanwhile
                }
                return;
            }
            connectPromise = null;
            if (failure != null) {
                promise.tryFailure(annotateConnectException(failure, to));
                closeIfClosed();
                return;
            }
            remote = ep.remoteAddress() != null ? ep.remoteAddress() : to;
            local = ep.localAddress();
            try {
                attach(ep);
            } catch (IllegalArgumentException e) {
                ep.close();
                promise.tryFailure(e);
                close(voidPromise());
                return;
            }
            boolean promiseSet = promise.trySuccess();
            pipeline().fireChannelActive();
            if (!promiseSet) {
                close(voidPromise());
            }
        }

        @Override
        public int poll() {
            RdmaEndpoint ep = endpoint;
            if (ep == null || !open) {
                return 0;
            }
            try {
                if (ep.isClosed()) {
                    broken(new ConnectionLost(RdmaChannel.this + ": its endpoint was closed under it"));
                    return 1;
                }
                int work = reapSends(ep);
                if (releasesOwed > 0 && canSend(ep)) {
                    sendReleases(ep);
                    work++;
                }
                if (finPending && canSend(ep)) {
                    sendFin(ep);
                    work++;
                }
                if (writePending && !regionWait && canWrite(ep)) {
                    work++;
                    super.flush0();
                }
                if (open) {
                    work += receive(ep); // always: a release may come (the messages wait in the queue)
                }
                if (open && queue.size() > 0) {
                    if (readPending || inputShutdown || config.isAutoRead()) {
                        work += deliver(ep);
                    }
                    if (open && queue.size() > 0) {
                        queue.startReads(ep, sendDepth, inputShutdown);
                    }
                }
                if (repostFailure != null && open) {
                    failed(ep, repostFailure);
                }
                return work;
            } catch (RuntimeException e) {
                failed(ep, e);
                return 1;
            }
        }

        /**
         * Not while a write (or the end of stream) waits with no send in flight: what it waits for, a send credit
         * (or a lent slot's release), raises no completion. Nor when the endpoint closed under the channel, or has
         * no completion channel: the next poll must look.
         */
        @Override
        public boolean canSleep() {
            RdmaEndpoint ep = endpoint;
            if (ep == null || !open) {
                return true; // not connected (the connect's result comes as a task), or closing off the loop
            }
            if (ep.isClosed() || ep.completionChannel() == null || releasesOwed > 0) {
                return false; // a release waits for a credit, which raises no completion
            }
            // a write waiting for room in the region waits for the peer's release: a receive, which raises one
            return !(writePending || finPending) || ep.inFlight() > 0 || regionWait && !finPending;
        }

        @Override
        public CompletionChannel completionChannel() {
            RdmaEndpoint ep = endpoint;
            return ep == null || !open ? null : ep.completionChannel();
        }

        @Override
        public boolean arm() {
            RdmaEndpoint ep = endpoint;
            if (ep == null || !open) {
                return true;
            }
            try {
                ep.requestNotify();
                return true;
            } catch (RuntimeException e) {
                LOG.debug("{}: arming its completion queues failed", RdmaChannel.this, e);
                return false;
            }
        }

        /**
         * A close whose end-of-stream message has no send credit yet waits for one off the event loop, bounded by
         * the endpoint's time-out: the peer reads (with auto-read off, maybe much later), returns credits, then gets
         * the end of stream after all the data. The loop no longer polls the channel meanwhile. When the loop's group
         * shuts down, the close waits on the loop instead.
         */
        @Override
        protected Executor prepareToClose() {
            RdmaEndpoint ep = endpoint;
            if (ep == null || ep.isClosed() || !finDue()) {
                return null;
            }
            try {
                reapSends(ep);
            } catch (RuntimeException e) {
                broken = true; // a send failed: no end of stream to send
                return null;
            }
            if (canSend(ep) && (staged == null || staged.held() == 0)) {
                return null; // it goes at once, on the loop
            }
            closeWaitsForCredit = true;
            if (eventLoop().isShuttingDown()) {
                // the group shuts down (it closes its channels): the loop may stop taking tasks before a close off
                // it ends, and Netty hands channelInactive back to the loop as a task; so the wait is here, on the
                // loop, which ends the shutdown up to the endpoint's time-out later
                return null;
            }
            open = false; // poll() leaves the endpoint to the closing thread from here on
            active = false;
            CountDownLatch done = new CountDownLatch(1);
            offLoopClose = done;
            // Netty's close runs the command here and hands channelInactive back to the loop at its end: counted
            // down after that, so a loop shutting down can wait for it (awaitOffLoopClose)
            return command -> CONNECTOR.execute(() -> {
                try {
                    command.run();
                } finally {
                    done.countDown();
                }
            });
        }

        /**
         * On the loop while its group shuts down: waits for a close running off the loop to hand its last step
         * (channelInactive) back to the loop, which would otherwise end first and refuse it. Bounded by the close's
         * own bound, the endpoint's time-out.
         */
        @Override
        public void awaitOffLoopClose() {
            CountDownLatch done = offLoopClose;
            RdmaEndpoint ep = endpoint;
            if (done == null || ep == null) {
                return;
            }
            try {
                if (!done.await(ep.options().timeout().toNanos() + OFF_LOOP_CLOSE_MARGIN_NANOS, TimeUnit.NANOSECONDS)) {
                    LOG.warn("{}: its close off the event loop did not end in time; the loop ends without it",
                            RdmaChannel.this);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public void close() {
            close(voidPromise());
        }
    }
}
