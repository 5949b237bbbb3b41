package org.verbs4j.netty;

import static io.netty.channel.ChannelOption.ALLOW_HALF_CLOSURE;
import static io.netty.channel.ChannelOption.SO_KEEPALIVE;
import static io.netty.channel.ChannelOption.TCP_NODELAY;
import static org.verbs4j.netty.RdmaChannelOption.ENDPOINT_OPTIONS;
import static org.verbs4j.netty.RdmaChannelOption.MESSAGE_SIZE;
import static org.verbs4j.netty.RdmaChannelOption.RDMA_REGION_SIZE;
import static org.verbs4j.netty.RdmaChannelOption.RECEIVE_DEPTH;
import static org.verbs4j.netty.RdmaChannelOption.RENDEZVOUS_THRESHOLD;
import static org.verbs4j.netty.RdmaChannelOption.REGISTERED_ALLOCATOR;
import static org.verbs4j.netty.RdmaChannelOption.SEND_DEPTH;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultChannelConfig;
import java.util.Map;
import org.verbs4j.endpoint.EndpointOptions;

/**
 * The configuration of {@link RdmaChannel} and {@link RdmaServerChannel}: Netty's common options (auto-read,
 * allocator, write-buffer water marks, ...), {@link ChannelOption#ALLOW_HALF_CLOSURE}, and the endpoint's shape
 * ({@link RdmaChannelOption}).
 *
 * <p>{@link ChannelOption#SO_KEEPALIVE} and {@link ChannelOption#TCP_NODELAY}, which TCP programs (gRPC-java among
 * them) set on every channel, are accepted and kept but change nothing: a reliable-connected queue pair detects a
 * dead peer by its own retries, and a flush posts at once (there is no Nagle delay to turn off).
 */
public final class RdmaChannelConfig extends DefaultChannelConfig {
    /** {@link RdmaChannelOption#RENDEZVOUS_THRESHOLD}'s default. */
    public static final int DEFAULT_RENDEZVOUS_THRESHOLD = 65536;
    private volatile EndpointOptions endpointOptions = EndpointOptions.defaults();
    private volatile boolean allowHalfClosure;
    private volatile boolean keepAlive;
    private volatile boolean noDelay = true;
    private volatile boolean registeredAllocator;
    private volatile int rendezvousThreshold = DEFAULT_RENDEZVOUS_THRESHOLD;
    /** The registered allocator of a client or accepted channel; null for a server channel. */
    private final RdmaChannelAllocator slotAllocator;

    RdmaChannelConfig(Channel channel) {
        super(channel);
        this.slotAllocator = channel instanceof RdmaChannel ? new RdmaChannelAllocator(this) : null;
    }

    @Override
    public Map<ChannelOption<?>, Object> getOptions() {
        return getOptions(super.getOptions(), ENDPOINT_OPTIONS, MESSAGE_SIZE, SEND_DEPTH, RECEIVE_DEPTH,
                ALLOW_HALF_CLOSURE, SO_KEEPALIVE, TCP_NODELAY, REGISTERED_ALLOCATOR, RDMA_REGION_SIZE,
                RENDEZVOUS_THRESHOLD);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getOption(ChannelOption<T> option) {
        if (option == ENDPOINT_OPTIONS) {
            return (T) getEndpointOptions();
        }
        if (option == MESSAGE_SIZE) {
            return (T) Integer.valueOf(endpointOptions.messageSize());
        }
        if (option == SEND_DEPTH) {
            return (T) Integer.valueOf(endpointOptions.sendDepth());
        }
        if (option == RECEIVE_DEPTH) {
            return (T) Integer.valueOf(endpointOptions.receiveDepth());
        }
        if (option == RDMA_REGION_SIZE) {
            return (T) Integer.valueOf((int) Math.min(Integer.MAX_VALUE, endpointOptions.rdmaRegionSize()));
        }
        if (option == RENDEZVOUS_THRESHOLD) {
            return (T) Integer.valueOf(rendezvousThreshold);
        }
        if (option == ALLOW_HALF_CLOSURE) {
            return (T) Boolean.valueOf(allowHalfClosure);
        }
        if (option == SO_KEEPALIVE) {
            return (T) Boolean.valueOf(keepAlive);
        }
        if (option == TCP_NODELAY) {
            return (T) Boolean.valueOf(noDelay);
        }
        if (option == REGISTERED_ALLOCATOR) {
            return (T) Boolean.valueOf(registeredAllocator);
        }
        return super.getOption(option);
    }

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) {
        validate(option, value);
        if (option == ENDPOINT_OPTIONS) {
            setEndpointOptions((EndpointOptions) value);
        } else if (option == MESSAGE_SIZE) {
            endpointOptions = endpointOptions.copy().messageSize(checkMessageSize((Integer) value));
        } else if (option == RDMA_REGION_SIZE) {
            endpointOptions = endpointOptions.copy().rdmaRegionSize((Integer) value);
        } else if (option == RENDEZVOUS_THRESHOLD) {
            setRendezvousThreshold((Integer) value);
        } else if (option == SEND_DEPTH) {
            endpointOptions = endpointOptions.copy().sendDepth((Integer) value);
        } else if (option == RECEIVE_DEPTH) {
            endpointOptions = endpointOptions.copy().receiveDepth((Integer) value);
        } else if (option == ALLOW_HALF_CLOSURE) {
            allowHalfClosure = (Boolean) value;
        } else if (option == SO_KEEPALIVE) {
            keepAlive = (Boolean) value;
        } else if (option == TCP_NODELAY) {
            noDelay = (Boolean) value;
        } else if (option == REGISTERED_ALLOCATOR) {
            setRegisteredAllocator((Boolean) value);
        } else {
            return super.setOption(option, value);
        }
        return true;
    }

    /** {@return a copy of the options the channel's endpoint is (or will be) made with} */
    public EndpointOptions getEndpointOptions() {
        return endpointOptions.copy();
    }

    /**
     * Sets the options the endpoint will be made with (a copy is kept).
     *
     * @param options the endpoint's options; not null
     * @return this configuration
     */
    public RdmaChannelConfig setEndpointOptions(EndpointOptions options) {
        checkMessageSize(options.messageSize());
        this.endpointOptions = options.copy();
        return this;
    }

    private static int checkMessageSize(int bytes) {
        if (bytes < RdmaChannel.MIN_SLOT_BYTES) {
            throw new IllegalArgumentException("message size " + bytes + ": an RdmaChannel needs at least "
                    + RdmaChannel.MIN_SLOT_BYTES + " bytes per slot");
        }
        return bytes;
    }

    /** {@return the bytes from which a write larger than a slot goes by rendezvous} */
    public int getRendezvousThreshold() {
        return rendezvousThreshold;
    }

    /**
     * Sets {@link RdmaChannelOption#RENDEZVOUS_THRESHOLD}.
     *
     * @param bytes at least 1; writes not larger than a slot go as sends whatever it is
     * @return this configuration
     */
    public RdmaChannelConfig setRendezvousThreshold(int bytes) {
        if (bytes < 1) {
            throw new IllegalArgumentException("rendezvous threshold " + bytes + ": at least 1 byte");
        }
        this.rendezvousThreshold = bytes;
        return this;
    }

    /** {@return whether a peer's shutdown of its output leaves this channel open (input shut only)} */
    public boolean isAllowHalfClosure() {
        return allowHalfClosure;
    }

    /**
     * With {@code true}, the peer's {@code shutdownOutput} fires {@code ChannelInputShutdownEvent} and leaves the
     * channel open for writing; with {@code false} (default) it closes the channel, as a TCP channel does.
     *
     * @param allow whether to allow half-closure
     * @return this configuration
     */
    public RdmaChannelConfig setAllowHalfClosure(boolean allow) {
        this.allowHalfClosure = allow;
        return this;
    }

    /**
     * {@return the channel's allocator: the registered allocator when {@link RdmaChannelOption#REGISTERED_ALLOCATOR}
     * is on (a client or accepted channel), else the one set with {@code ALLOCATOR}}
     */
    @Override
    public ByteBufAllocator getAllocator() {
        return registeredAllocator && slotAllocator != null ? slotAllocator : super.getAllocator();
    }

    /** {@return the allocator set with {@code ALLOCATOR} (Netty's default unless set): reads and fall-backs use it} */
    ByteBufAllocator baseAllocator() {
        return super.getAllocator();
    }

    /** {@return the registered allocator, whichever allocator the channel hands out; null on a server channel} */
    RdmaChannelAllocator slotAllocator() {
        return slotAllocator;
    }

    /** {@return whether the channel's allocator hands out buffers in its endpoint's send slots} */
    public boolean isRegisteredAllocator() {
        return registeredAllocator;
    }

    /**
     * With {@code true}, the channel's allocator hands out buffers in its endpoint's send slots, written without a
     * copy ({@link RdmaChannelOption#REGISTERED_ALLOCATOR}).
     *
     * @param on whether to
     * @return this configuration
     */
    public RdmaChannelConfig setRegisteredAllocator(boolean on) {
        this.registeredAllocator = on;
        if (channel instanceof RdmaChannel) {
            ((RdmaChannel) channel).registeredAllocatorSet(on);
        }
        return this;
    }
}
