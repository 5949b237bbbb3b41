package org.verbs4j.endpoint;

import java.time.Duration;
import java.util.Objects;
import org.verbs4j.api.FabricOptions;

/**
 * What an {@link RdmaEndpoint} is made of and how it connects. Mutable and fluent; {@link Endpoints} copies
 * the values it needs, so one instance may serve many endpoints.
 *
 * <pre>{@code
 * EndpointOptions o = EndpointOptions.defaults().messageSize(4096).receiveDepth(64).rdmaRegionSize(1 << 20);
 * }</pre>
 */
public final class EndpointOptions {
    /** The largest message size: a single SEND carries at most 2^31 - 1 bytes. */
    public static final int MAX_MESSAGE_SIZE = Integer.MAX_VALUE;
    /**
     * The most bytes of one registered buffer of an endpoint (the RDMA region, all send slots, all receive
     * slots): what one {@link java.nio.ByteBuffer} views, less a page for alignment.
     */
    public static final long MAX_REGION_SIZE = MessageSlots.MAX_BYTES;
    /** Default of {@link #handshakeTimeout(Duration)}: 10 s. */
    public static final Duration DEFAULT_HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);
    /** The longest {@link #handshakeTimeout(Duration)}: 10 minutes. */
    public static final Duration MAX_HANDSHAKE_TIMEOUT = Duration.ofMinutes(10);
    /** Default of {@link #maxPendingHandshakes(int)}: 128. */
    public static final int DEFAULT_MAX_PENDING_HANDSHAKES = 128;
    /** The largest {@link #maxPendingHandshakes(int)}: 65536. */
    public static final int MAX_PENDING_HANDSHAKES = 65536;

    private ConnectionMode mode = ConnectionMode.RDMA_CM;
    private String device;
    private int port = 1;
    private FabricOptions fabric = FabricOptions.defaults();
    private int messageSize = 4096;
    private int sendDepth = 16;
    private int receiveDepth = 16;
    private long rdmaRegionSize;
    private int maxInlineData;
    private int rdAtomic = 1;
    private boolean credits = true;
    private boolean completionChannel;
    private Duration timeout = Duration.ofSeconds(30);
    private int backlog = 16;
    private Duration handshakeTimeout = DEFAULT_HANDSHAKE_TIMEOUT;
    private int maxPendingHandshakes = DEFAULT_MAX_PENDING_HANDSHAKES;

    /** The default options (as {@link #defaults()}); change what differs. */
    public EndpointOptions() {
    }

    /**
     * The defaults: rdma_cm, the device of the address, port 1, 16 send and 16 receive slots of 4096 bytes, no
     * RDMA region, send credits on, a 30 s timeout. Each call returns a new object, changed with the setters.
     *
     * @return new options holding the defaults
     */
    public static EndpointOptions defaults() {
        return new EndpointOptions();
    }

    /**
     * A copy, so that later changes to this instance do not reach an endpoint being built.
     *
     * @return a new, independent options object with the same values
     */
    public EndpointOptions copy() {
        EndpointOptions c = new EndpointOptions();
        c.mode = mode;
        c.device = device;
        c.port = port;
        c.fabric = fabric;
        c.messageSize = messageSize;
        c.sendDepth = sendDepth;
        c.receiveDepth = receiveDepth;
        c.rdmaRegionSize = rdmaRegionSize;
        c.maxInlineData = maxInlineData;
        c.rdAtomic = rdAtomic;
        c.credits = credits;
        c.completionChannel = completionChannel;
        c.timeout = timeout;
        c.backlog = backlog;
        c.handshakeTimeout = handshakeTimeout;
        c.maxPendingHandshakes = maxPendingHandshakes;
        return c;
    }

    /**
     * {@link ConnectionMode#RDMA_CM} (default) or {@link ConnectionMode#MANUAL}.
     *
     * @param mode how endpoints connect; not null
     * @return this options object
     */
    public EndpointOptions mode(ConnectionMode mode) {
        this.mode = Objects.requireNonNull(mode, "mode");
        return this;
    }

    /**
     * The RDMA device for {@link ConnectionMode#MANUAL} (default: the first device with an active port). With
     * rdma_cm the device is the one the address belongs to, and a name given here must match it.
     *
     * @param name the device name ({@code mlx5_0}, {@code rxe0}, ...), or null for the default
     * @return this options object
     */
    public EndpointOptions device(String name) {
        this.device = name;
        return this;
    }

    /**
     * The device port (default 1).
     *
     * @param port the port number, 1..255
     * @return this options object
     * @throws IllegalArgumentException when {@code port} is outside 1..255
     */
    public EndpointOptions port(int port) {
        if (port < 1 || port > 255) {
            throw new IllegalArgumentException("port must be 1..255, not " + port);
        }
        this.port = port;
        return this;
    }

    /**
     * The fabric options: provider, GID index/type, MTU, SL, traffic class, timers.
     *
     * @param fabric the fabric options; not null
     * @return this options object
     */
    public EndpointOptions fabric(FabricOptions fabric) {
        this.fabric = Objects.requireNonNull(fabric, "fabric");
        return this;
    }

    /**
     * Bytes of each send and receive slot, the largest message {@link RdmaEndpoint#send} carries (default 4096).
     *
     * @param bytes the slot size in bytes, at least 1
     * @return this options object
     * @throws IllegalArgumentException when {@code bytes} is below 1
     */
    public EndpointOptions messageSize(int bytes) {
        if (bytes < 1) {
            throw new IllegalArgumentException("messageSize must be at least 1 byte, not " + bytes);
        }
        this.messageSize = bytes;
        return this;
    }

    /**
     * Send slots, and the most sends, writes and reads in flight at once (default 16).
     *
     * @param n the number of send slots, at least 1
     * @return this options object
     * @throws IllegalArgumentException when {@code n} is below 1
     */
    public EndpointOptions sendDepth(int n) {
        this.sendDepth = positive("sendDepth", n);
        return this;
    }

    /**
     * Receive slots, all posted at once; with credits also the most messages the peer may have in flight (default 16).
     *
     * @param n the number of receive slots, at least 1
     * @return this options object
     * @throws IllegalArgumentException when {@code n} is below 1
     */
    public EndpointOptions receiveDepth(int n) {
        this.receiveDepth = positive("receiveDepth", n);
        return this;
    }

    /**
     * Bytes of this side's RDMA region, registered for remote read and write and announced to the peer, so that
     * it can {@link RdmaEndpoint#write} and {@link RdmaEndpoint#read} here; also the local side of this endpoint's
     * writes and reads, viewed as one {@link java.nio.ByteBuffer} ({@link RdmaEndpoint#rdmaRegion}). 0 (default):
     * none.
     *
     * @param bytes the region size in bytes, 0..{@link #MAX_REGION_SIZE}
     * @return this options object
     * @throws IllegalArgumentException when {@code bytes} is outside that range
     */
    public EndpointOptions rdmaRegionSize(long bytes) {
        if (bytes < 0 || bytes > MAX_REGION_SIZE) {
            throw new IllegalArgumentException("rdmaRegionSize must be 0.." + MAX_REGION_SIZE + " (what one ByteBuffer "
                    + "views), not " + bytes);
        }
        this.rdmaRegionSize = bytes;
        return this;
    }

    /**
     * Inline data the QP should accept (sends up to this size go inline; the device may give more). Default 0.
     *
     * @param bytes the inline data size to ask the QP for, in bytes, at least 0
     * @return this options object
     * @throws IllegalArgumentException when {@code bytes} is negative
     */
    public EndpointOptions maxInlineData(int bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("maxInlineData must not be negative: " + bytes);
        }
        this.maxInlineData = bytes;
        return this;
    }

    /**
     * RDMA READs in flight per direction (initiator depth and responder resources; default 1).
     *
     * @param n outstanding RDMA READs / atomics, 0..255
     * @return this options object
     * @throws IllegalArgumentException when {@code n} is outside 0..255
     */
    public EndpointOptions rdAtomic(int n) {
        if (n < 0 || n > 255) {
            throw new IllegalArgumentException("rdAtomic must be 0..255, not " + n);
        }
        this.rdAtomic = n;
        return this;
    }

    /**
     * Send credits (default on): a send waits until the peer has a receive posted for it, learned from the
     * peer's count of posted receives, which it RDMA-writes into this side's credit word. Required on iWARP (no
     * receiver-not-ready retry: a send that meets no receive breaks the connection); on InfiniBand and RoCE it
     * replaces RNR NAKs and their delays. Both sides must agree.
     *
     * @param on true for send credits, false for none (both sides alike)
     * @return this options object
     */
    public EndpointOptions credits(boolean on) {
        this.credits = on;
        return this;
    }

    /**
     * A completion channel for the endpoint's send and receive completion queues (default off): then a thread
     * may sleep until the endpoint has a completion instead of polling, with {@link RdmaEndpoint#requestNotify}
     * and {@link RdmaEndpoint#completionChannel} (or a {@link org.verbs4j.api.CompletionWaitSet} over several
     * endpoints' channels). On a kernel device the channel is a file descriptor per endpoint. The data path is
     * the same with or without it.
     *
     * @param on true for a completion channel, false for none (poll only)
     * @return this options object
     */
    public EndpointOptions completionChannel(boolean on) {
        this.completionChannel = on;
        return this;
    }

    /**
     * Limit of every wait while connecting, and of {@link RdmaEndpoint#send} waiting for a credit (default 30 s).
     *
     * @param timeout the limit; positive, not null
     * @return this options object
     * @throws IllegalArgumentException when {@code timeout} is zero or negative
     */
    public EndpointOptions timeout(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive: " + timeout);
        }
        this.timeout = timeout;
        return this;
    }

    /**
     * Pending connections a listener queues (default 16). With {@link ConnectionMode#MANUAL} also the most
     * endpoints a listener has connected ahead of {@link EndpointServer#accept}.
     *
     * @param n the backlog, at least 1
     * @return this options object
     * @throws IllegalArgumentException when {@code n} is below 1
     */
    public EndpointOptions backlog(int n) {
        this.backlog = positive("backlog", n);
        return this;
    }

    /**
     * With {@link ConnectionMode#MANUAL}, how long a listener gives each peer for each part of its TCP exchange:
     * its first message, from the TCP connection on, and its ready byte, from the server's answer on (the
     * server's own set-up of the endpoint in between does not count). Default
     * {@link #DEFAULT_HANDSHAKE_TIMEOUT}, at most {@link #MAX_HANDSHAKE_TIMEOUT}. A peer that is silent or slow
     * for longer is dropped with a log line; the other peers' exchanges go on meanwhile.
     *
     * @param timeout the limit per part of the exchange; not null
     * @return this options object
     */
    public EndpointOptions handshakeTimeout(Duration timeout) {
        Objects.requireNonNull(timeout, "handshakeTimeout");
        if (timeout.isNegative() || timeout.isZero() || timeout.compareTo(MAX_HANDSHAKE_TIMEOUT) > 0) {
            throw new IllegalArgumentException("handshakeTimeout must be positive and at most "
                    + MAX_HANDSHAKE_TIMEOUT + ", not " + timeout);
        }
        this.handshakeTimeout = timeout;
        return this;
    }

    /**
     * With {@link ConnectionMode#MANUAL}, the most TCP exchanges a listener holds open at once (default
     * {@link #DEFAULT_MAX_PENDING_HANDSHAKES}, 1..{@link #MAX_PENDING_HANDSHAKES}): a connection beyond it is
     * closed at once with a log line, so that half-open connections cannot pile up file descriptors.
     *
     * @param n the most exchanges at once, 1..{@link #MAX_PENDING_HANDSHAKES}
     * @return this options object
     * @throws IllegalArgumentException when {@code n} is outside that range
     */
    public EndpointOptions maxPendingHandshakes(int n) {
        if (n < 1 || n > MAX_PENDING_HANDSHAKES) {
            throw new IllegalArgumentException("maxPendingHandshakes must be 1.." + MAX_PENDING_HANDSHAKES + ", not " + n);
        }
        this.maxPendingHandshakes = n;
        return this;
    }

    /**
     * Checks what no single setter can: the send slots ({@code sendDepth × messageSize}) and the receive slots
     * ({@code receiveDepth × messageSize}) must each fit {@link #MAX_REGION_SIZE}.
     *
     * @throws IllegalArgumentException naming the product and the limit
     */
    void validate() {
        slotBytes("send", sendDepth);
        slotBytes("receive", receiveDepth);
    }

    private void slotBytes(String what, int depth) {
        long bytes = (long) depth * messageSize;
        if (bytes > MAX_REGION_SIZE) {
            throw new IllegalArgumentException(what + " slots take " + what + "Depth " + depth + " x messageSize "
                    + messageSize + " = " + bytes + " bytes, more than the " + MAX_REGION_SIZE + " one registered "
                    + "buffer holds: lower " + what + "Depth or messageSize");
        }
    }

    private static int positive(String name, int n) {
        if (n < 1) {
            throw new IllegalArgumentException(name + " must be at least 1, not " + n);
        }
        return n;
    }

    /** {@return how endpoints connect} See {@link #mode(ConnectionMode)}. */
    public ConnectionMode mode() {
        return mode;
    }

    /** {@return the device name, or null for the default} See {@link #device(String)}. */
    public String device() {
        return device;
    }

    /** {@return the device port number, 1..255} */
    public int port() {
        return port;
    }

    /** {@return the fabric options} See {@link #fabric(FabricOptions)}. */
    public FabricOptions fabric() {
        return fabric;
    }

    /** {@return the bytes of each send and receive slot} */
    public int messageSize() {
        return messageSize;
    }

    /** {@return the number of send slots, the most send-queue operations in flight} */
    public int sendDepth() {
        return sendDepth;
    }

    /** {@return the number of receive slots} */
    public int receiveDepth() {
        return receiveDepth;
    }

    /** {@return the bytes of this side's RDMA region, 0 for none} */
    public long rdmaRegionSize() {
        return rdmaRegionSize;
    }

    /** {@return the inline data size asked of the QP, in bytes} */
    public int maxInlineData() {
        return maxInlineData;
    }

    /** {@return the RDMA READs / atomics in flight per direction} */
    public int rdAtomic() {
        return rdAtomic;
    }

    /** {@return whether send credits are on} See {@link #credits(boolean)}. */
    public boolean credits() {
        return credits;
    }

    /** {@return whether endpoints get a completion channel} See {@link #completionChannel(boolean)}. */
    public boolean completionChannel() {
        return completionChannel;
    }

    /** {@return the limit of connecting and of waiting for a credit} */
    public Duration timeout() {
        return timeout;
    }

    /** {@return the pending connections a listener queues} */
    public int backlog() {
        return backlog;
    }

    /**
     * See {@link #handshakeTimeout(Duration)}.
     *
     * @return the limit per part of a peer's TCP exchange
     */
    public Duration handshakeTimeout() {
        return handshakeTimeout;
    }

    /**
     * See {@link #maxPendingHandshakes(int)}.
     *
     * @return the most TCP exchanges a listener holds open at once
     */
    public int maxPendingHandshakes() {
        return maxPendingHandshakes;
    }

    @Override
    public String toString() {
        return "EndpointOptions[mode=" + mode + ", device=" + device + ", port=" + port + ", messageSize=" + messageSize
                + ", sendDepth=" + sendDepth + ", receiveDepth=" + receiveDepth + ", rdmaRegionSize=" + rdmaRegionSize
                + ", maxInlineData=" + maxInlineData + ", rdAtomic=" + rdAtomic + ", credits=" + credits
                + ", completionChannel=" + completionChannel
                + ", timeout=" + timeout + ", backlog=" + backlog + ", handshakeTimeout=" + handshakeTimeout
                + ", maxPendingHandshakes=" + maxPendingHandshakes + "]";
    }
}
