package org.verbs4j.netty;

import io.netty.channel.ChannelOption;
import org.verbs4j.endpoint.EndpointOptions;

/**
 * Channel options of {@link RdmaChannel} and {@link RdmaServerChannel}: the shape of the endpoint under the
 * channel. They take effect when the endpoint is made: on a client channel before {@code connect}, on a server
 * channel before {@code bind} (its accepted channels get the server's endpoints, so set them with
 * {@code ServerBootstrap.option}, not {@code childOption}).
 *
 * <pre>{@code
 * new Bootstrap().group(group).channel(RdmaChannel.class)
 *         .option(RdmaChannelOption.MESSAGE_SIZE, 64 * 1024)
 *         .option(RdmaChannelOption.RECEIVE_DEPTH, 32);
 * }</pre>
 *
 * @param <T> the option's value type
 */
public final class RdmaChannelOption<T> extends ChannelOption<T> {
    /**
     * All the endpoint's options at once (device, mode, time-outs, ...); the three below change one of them.
     * Default: {@link EndpointOptions#defaults()}.
     */
    public static final ChannelOption<EndpointOptions> ENDPOINT_OPTIONS = valueOf(RdmaChannelOption.class,
            "VERBS4J_ENDPOINT_OPTIONS");
    /** Bytes of one send or receive slot ({@link EndpointOptions#messageSize}), at least 16; larger writes go in
     * several (or by rendezvous, {@link #RENDEZVOUS_THRESHOLD}). A message's first byte is the transport's. */
    public static final ChannelOption<Integer> MESSAGE_SIZE = valueOf(RdmaChannelOption.class, "VERBS4J_MESSAGE_SIZE");
    /** Send slots: messages in flight at once ({@link EndpointOptions#sendDepth}). */
    public static final ChannelOption<Integer> SEND_DEPTH = valueOf(RdmaChannelOption.class, "VERBS4J_SEND_DEPTH");
    /** Receive slots: messages the peer may send before this side reads ({@link EndpointOptions#receiveDepth}). */
    public static final ChannelOption<Integer> RECEIVE_DEPTH = valueOf(RdmaChannelOption.class, "VERBS4J_RECEIVE_DEPTH");
    /**
     * Bytes of the endpoint's RDMA region ({@link EndpointOptions#rdmaRegionSize}), which large writes go through:
     * its first half holds this side's outgoing rendezvous messages until the peer has read them, its second half
     * receives the peer's. Rendezvous is on when both sides have a region. Default: 0 (off: every write goes as
     * sends of at most a slot). The memory is registered (pinned) for the channel's life; set it on the server with
     * {@code ServerBootstrap.option}, like the slots.
     */
    public static final ChannelOption<Integer> RDMA_REGION_SIZE = valueOf(RdmaChannelOption.class,
            "VERBS4J_RDMA_REGION_SIZE");
    /**
     * A written buffer of at least these bytes, and larger than a slot, goes by rendezvous when both sides have an
     * {@linkplain #RDMA_REGION_SIZE RDMA region}: it is copied once into this side's region, one message tells the
     * peer where, and the peer reads it with one RDMA READ (instead of a send per slot). Buffers larger than half a
     * region go in pieces. With {@link #REGISTERED_ALLOCATOR}, a direct buffer asked of the channel's allocator with at
     * least this capacity lives in the region and is not copied. A per-channel option (on a server:
     * {@code ServerBootstrap.childOption}). Default: 65536.
     */
    public static final ChannelOption<Integer> RENDEZVOUS_THRESHOLD = valueOf(RdmaChannelOption.class,
            "VERBS4J_RENDEZVOUS_THRESHOLD");
    /**
     * With {@code true}, the channel's allocator ({@code channel.alloc()}, {@code ctx.alloc()}) hands out direct
     * buffers of at most a send slot's bytes in free send slots of the channel's endpoint, memory registered with
     * the device: a write of such a buffer, whole, is posted from the slot without a copy. Larger buffers, heap
     * buffers, and buffers asked for while no slot is free come from the channel's {@code ALLOCATOR} and are copied
     * as before. With an {@linkplain #RDMA_REGION_SIZE RDMA region} on both sides, a direct buffer of at least
     * {@link #RENDEZVOUS_THRESHOLD} bytes lives in the region's staging half (half of it is lent so) and goes by
     * rendezvous without a copy (the region is split so when the channel is registered with its event loop; slots are
     * lent or not as the option is now). Region buffers are memory the connected peer can read (on iWARP also
     * write) while the connection lasts: use them for what is sent to it. A per-channel option: on a server, set it
     * with {@code ServerBootstrap.childOption}. Default: {@code false}.
     */
    public static final ChannelOption<Boolean> REGISTERED_ALLOCATOR = valueOf(RdmaChannelOption.class,
            "VERBS4J_REGISTERED_ALLOCATOR");

    @SuppressWarnings("deprecation")
    private RdmaChannelOption() {
        super(null);
    }
}
