package org.verbs4j.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.verbs4j.endpoint.EndpointOptions;

/** Options, attributes and refusals of the channels, without any device. */
class RdmaChannelConfigTest {

    @Test
    void endpointOptionsGoThroughChannelOptions() {
        RdmaChannel ch = new RdmaChannel();
        RdmaChannelConfig c = ch.config();
        assertTrue(c.setOption(RdmaChannelOption.MESSAGE_SIZE, 65536));
        assertTrue(c.setOption(RdmaChannelOption.SEND_DEPTH, 8));
        assertTrue(c.setOption(RdmaChannelOption.RECEIVE_DEPTH, 32));
        assertEquals(65536, c.getOption(RdmaChannelOption.MESSAGE_SIZE));
        assertEquals(8, c.getOption(RdmaChannelOption.SEND_DEPTH));
        assertEquals(32, c.getOption(RdmaChannelOption.RECEIVE_DEPTH));
        EndpointOptions o = c.getOption(RdmaChannelOption.ENDPOINT_OPTIONS);
        assertEquals(65536, o.messageSize());
        assertEquals(8, o.sendDepth());
        assertEquals(32, o.receiveDepth());
        o.messageSize(1); // a copy: the channel's options do not change
        assertEquals(65536, c.getOption(RdmaChannelOption.MESSAGE_SIZE));
        assertTrue(c.getOptions().containsKey(RdmaChannelOption.ENDPOINT_OPTIONS));
        assertTrue(c.getOptions().containsKey(ChannelOption.ALLOW_HALF_CLOSURE));
    }

    @Test
    void tcpOptionsThatTcpProgramsSetAreAcceptedAndKept() {
        RdmaChannelConfig c = new RdmaChannel().config();
        assertTrue(c.setOption(ChannelOption.SO_KEEPALIVE, true));
        assertTrue(c.setOption(ChannelOption.TCP_NODELAY, true));
        assertTrue(c.getOption(ChannelOption.SO_KEEPALIVE));
        assertTrue(c.getOption(ChannelOption.TCP_NODELAY));
        assertFalse(c.setOption(ChannelOption.SO_LINGER, 5), "other socket options stay unknown");
    }

    @Test
    void badValuesAreRefusedByTheEndpointOptions() {
        RdmaChannelConfig c = new RdmaChannel().config();
        assertThrows(IllegalArgumentException.class, () -> c.setOption(RdmaChannelOption.MESSAGE_SIZE, 0));
        assertThrows(IllegalArgumentException.class, () -> c.setOption(RdmaChannelOption.SEND_DEPTH, 0));
        assertThrows(NullPointerException.class, () -> c.setOption(RdmaChannelOption.ENDPOINT_OPTIONS, null));
    }

    @Test
    void nettyOptionsAndAttributesWork() {
        RdmaChannel ch = new RdmaChannel();
        assertFalse(ch.config().getOption(ChannelOption.ALLOW_HALF_CLOSURE));
        ch.config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
        assertTrue(ch.config().isAllowHalfClosure());
        ch.config().setOption(ChannelOption.AUTO_READ, false);
        assertFalse(ch.config().isAutoRead());
        io.netty.util.AttributeKey<String> key = io.netty.util.AttributeKey.valueOf("verbs4j-test");
        ch.attr(key).set("x");
        assertEquals("x", ch.attr(key).get());
        assertFalse(ch.isActive());
        assertTrue(ch.isOpen());
        assertTrue(ch.isOutputShutdown(), "not connected: nothing to write to");
    }

    @Test
    void theRegisteredAllocatorIsAnOptionAndFallsBackBeforeTheConnection() {
        RdmaChannel ch = new RdmaChannel();
        RdmaChannelConfig c = ch.config();
        assertFalse(c.getOption(RdmaChannelOption.REGISTERED_ALLOCATOR));
        assertTrue(c.getOptions().containsKey(RdmaChannelOption.REGISTERED_ALLOCATOR));
        io.netty.buffer.ByteBufAllocator base = c.getAllocator();
        assertTrue(c.setOption(RdmaChannelOption.REGISTERED_ALLOCATOR, true));
        assertTrue(c.isRegisteredAllocator());
        assertTrue(c.getAllocator() instanceof RdmaChannelAllocator);
        // not connected: no slot to lend, so the channel's ALLOCATOR serves
        io.netty.buffer.ByteBuf b = ch.alloc().directBuffer(16);
        assertFalse(LentByteBuf.of(b) instanceof SendSlotByteBuf);
        b.release();
        io.netty.buffer.UnpooledByteBufAllocator mine = new io.netty.buffer.UnpooledByteBufAllocator(false);
        c.setOption(ChannelOption.ALLOCATOR, mine);
        assertTrue(c.getAllocator() instanceof RdmaChannelAllocator, "still the registered one");
        assertEquals(mine, ((RdmaChannelAllocator) c.getAllocator()).fallback());
        c.setRegisteredAllocator(false);
        assertEquals(mine, c.getAllocator());
        c.setOption(ChannelOption.ALLOCATOR, base);
        assertFalse(new RdmaServerChannel().config().setRegisteredAllocator(true).getAllocator()
                instanceof RdmaChannelAllocator, "a server channel has no slots");
    }

    @Test
    void onlyByteBufsAreWritten() {
        RdmaChannel ch = new RdmaChannel();
        assertThrows(UnsupportedOperationException.class, () -> ch.filterOutboundMessage("text"));
    }

    @Test
    void aNioLoopIsRefused() throws InterruptedException {
        MultiThreadIoEventLoopGroup nio = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            ChannelFuture f = nio.register(new RdmaChannel());
            assertTrue(f.await(5, TimeUnit.SECONDS));
            assertFalse(f.isSuccess());
            f = nio.register(new RdmaServerChannel());
            assertTrue(f.await(5, TimeUnit.SECONDS));
            assertFalse(f.isSuccess());
        } finally {
            nio.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
        }
    }
}
