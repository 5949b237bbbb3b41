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
    /** Bytes of one send or receive slot ({@link EndpointOptions#messageSize}); larger writes go in several. */
    public static final ChannelOption<Integer> MESSAGE_SIZE = valueOf(RdmaChannelOption.class, "VERBS4J_MESSAGE_SIZE");
    /** Send slots: messages in flight at once ({@link EndpointOptions#sendDepth}). */
    public static final ChannelOption<Integer> SEND_DEPTH = valueOf(RdmaChannelOption.class, "VERBS4J_SEND_DEPTH");
    /** Receive slots: messages the peer may send before this side reads ({@link EndpointOptions#receiveDepth}). */
    public static final ChannelOption<Integer> RECEIVE_DEPTH = valueOf(RdmaChannelOption.class, "VERBS4J_RECEIVE_DEPTH");
    /**
     * With {@code true}, the channel's allocator ({@code channel.alloc()}, {@code ctx.alloc()}) hands out direct
     * buffers of at most a send slot's bytes in free send slots of the channel's endpoint, memory registered with
     * the device: a write of such a buffer, whole, is posted from the slot without a copy. Larger buffers, heap
     * buffers, and buffers asked for while no slot is free come from the channel's {@code ALLOCATOR} and are copied
     * as before. A per-channel option: on a server, set it with {@code ServerBootstrap.childOption}. Default:
     * {@code false}.
     */
    public static final ChannelOption<Boolean> REGISTERED_ALLOCATOR = valueOf(RdmaChannelOption.class,
            "VERBS4J_REGISTERED_ALLOCATOR");

    @SuppressWarnings("deprecation")
    private RdmaChannelOption() {
        super(null);
    }
}
