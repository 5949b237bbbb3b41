package org.verbs4j.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.verbs4j.api.WorkCompletions;
import org.verbs4j.endpoint.EndpointOptions;
import org.verbs4j.endpoint.Endpoints;
import org.verbs4j.endpoint.RdmaEndpoint;

/**
 * Rendezvous on the software iWARP device jsiw_lo: writes above the threshold go through the RDMA regions (the
 * channel's counter says so) and arrive whole, every byte checked, in order with the sends around them; a reader that
 * stops holds the writer back; a close right after large writes still delivers them; a peer that sends malformed
 * rendezvous messages loses its connection, nothing else.
 */
@Timeout(90)
class RendezvousTest {
    /** 4 MiB: 2 MiB to stage, 2 MiB to receive, on each side. */
    static final int REGION = 4 << 20;

    /** A write larger than half a region goes in pieces of half a region (the rest below the threshold as sends). */
    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {65536, 65537, 1 << 20, 2 << 20, (2 << 20) + 1, (2 << 20) + 65536, 4 << 20, 7 << 20})
    void aLargeWriteGoesByRendezvous(int size) throws Exception {
        try (Loopback lo = new Loopback().region(REGION).serve(new RdmaChannelTest.Echo(), false)) {
            RdmaChannelTest.Collect c = new RdmaChannelTest.Collect(size);
            RdmaChannel ch = (RdmaChannel) lo.connect(c);
            byte[] sent = RdmaChannelTest.random(size, size);
            ch.writeAndFlush(Unpooled.wrappedBuffer(sent)).sync();
            assertArrayEquals(sent, c.done.get(60, TimeUnit.SECONDS));
            // half of the 4 MiB region stages a side's messages: a larger write goes in pieces of that
            int half = REGION / 2;
            int pieces = size / half + (size % half >= 65536 ? 1 : 0);
            assertEquals(pieces, ch.rendezvousWrites(), "rendezvous writes of the client");
            ch.close().sync();
        }
    }

    @Test
    void withoutARegionOnOneSideEverythingGoesAsSends() throws Exception {
        try (Loopback lo = new Loopback().region(REGION)) {
            lo.regionSize = 0; // the server has none
            lo.serve(new RdmaChannelTest.Echo(), false);
            lo.regionSize = REGION;
            assertEquals(0, echoOnce(lo, 1 << 20, 7), "rendezvous writes");
        }
    }

    /** Writes of random sizes, 1 B to 300 KB, small ones between large ones, many in one flush: the stream is intact. */
    @Test
    void rendezvousAndSendsInterleavedKeepTheirOrder() throws Exception {
        Random r = new Random(11);
        int count = 300;
        int[] sizes = new int[count];
        int total = 0;
        for (int i = 0; i < count; i++) {
            sizes[i] = r.nextInt(4) == 0 ? 20_000 + r.nextInt(280_000) : 1 + r.nextInt(3000);
            total += sizes[i];
        }
        EchoWatch echo = new EchoWatch();
        try (Loopback lo = new Loopback().region(REGION).serve(echo, false)) {
            RdmaChannelTest.Collect c = new RdmaChannelTest.Collect(total);
            RdmaChannel ch = (RdmaChannel) lo.client(c)
                    .option(RdmaChannelOption.RENDEZVOUS_THRESHOLD, 20_000).connect(lo.address).sync().channel();
            byte[] sent = RdmaChannelTest.random(total, 12);
            int off = 0;
            for (int i = 0; i < count; i++) {
                ch.write(Unpooled.wrappedBuffer(sent, off, sizes[i]));
                off += sizes[i];
                if (i % 17 == 16) {
                    ch.flush();
                }
            }
            ch.flush();
            try {
                assertArrayEquals(sent, c.done.get(60, TimeUnit.SECONDS));
            } finally {
                assertNull(echo.failure.get(), "the echo's channel failed");
            }
            assertTrue(ch.rendezvousWrites() > 30, "rendezvous writes: " + ch.rendezvousWrites());
            ch.close().sync();
        }
    }

    /**
     * 200 writes of 200 KB to a reader with auto-read off: the writer's region fills (the reader releases nothing
     * until it reads) and the channel becomes unwritable; once the reader reads, all of it arrives in order.
     */
    @Test
    void aReaderThatStopsHoldsTheWriterBackAndLosesNothing() throws Exception {
        int size = 200_000;
        int count = 200;
        CompletableFuture<Channel> child = new CompletableFuture<>();
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        CountDownLatch all = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        ChannelInboundHandlerAdapter reader = new ChannelInboundHandlerAdapter() {
            @Override
            public void channelActive(ChannelHandlerContext ctx) {
                ctx.channel().config().setAutoRead(false);
                child.complete(ctx.channel());
            }

            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ByteBuf b = (ByteBuf) msg;
                synchronized (got) {
                    byte[] a = new byte[b.readableBytes()];
                    b.readBytes(a);
                    got.write(a, 0, a.length);
                    if (got.size() >= size * count) {
                        all.countDown();
                    }
                }
                b.release();
            }

            @Override
            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                failure.set(cause);
            }
        };
        try (Loopback lo = new Loopback().region(REGION).serve(reader, false)) {
            RdmaChannel ch = (RdmaChannel) lo.connect(new ChannelInboundHandlerAdapter());
            Channel server = child.get(10, TimeUnit.SECONDS);
            byte[] sent = RdmaChannelTest.random(size * count, 3);
            for (int i = 0; i < count; i++) {
                ch.write(Unpooled.wrappedBuffer(sent, i * size, size));
            }
            ch.flush();
            Thread.sleep(500);
            assertTrue(!ch.isWritable(), "200 x 200 KB to a reader that reads nothing: still writable");
            long staged = ch.rendezvousWrites();
            assertTrue(staged > 0 && staged <= REGION / 2 / size,
                    "rendezvous writes before the reader read: " + staged + " (the staging half holds "
                            + REGION / 2 / size + ")");
            server.config().setAutoRead(true);
            assertTrue(all.await(60, TimeUnit.SECONDS), "not all arrived: " + got.size());
            assertNull(failure.get());
            assertArrayEquals(sent, got.toByteArray());
            assertEquals(count, ch.rendezvousWrites());
            ch.close().sync();
        }
    }

    /** A close right after large writes: the peer still reads them from the closing side's region, then the end. */
    @Test
    void aCloseRightAfterLargeWritesDeliversThem() throws Exception {
        RdmaChannelTest.Collect c = new RdmaChannelTest.Collect(Integer.MAX_VALUE);
        CountDownLatch inactive = new CountDownLatch(1);
        ChannelInboundHandlerAdapter serverSide = new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                c.channelRead(ctx, msg);
            }

            @Override
            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                c.done.completeExceptionally(cause);
            }

            @Override
            public void channelInactive(ChannelHandlerContext ctx) {
                inactive.countDown();
            }
        };
        try (Loopback lo = new Loopback().region(REGION).serve(serverSide, false)) {
            RdmaChannel ch = (RdmaChannel) lo.connect(new ChannelInboundHandlerAdapter());
            byte[] sent = RdmaChannelTest.random(6 * 300_000, 9);
            for (int i = 0; i < 6; i++) {
                ch.write(Unpooled.wrappedBuffer(sent, i * 300_000, 300_000));
            }
            ch.flush();
            ch.close().sync();
            assertTrue(inactive.await(30, TimeUnit.SECONDS), "no channelInactive at the reader");
            assertTrue(!c.done.isCompletedExceptionally(), "the reader saw an exception");
            assertArrayEquals(sent, c.bytes.toByteArray());
        }
    }

    /**
     * A peer of the endpoint API that sends what a channel never sends: a rendezvous outside its region, one larger
     * than the server's receiving half, a release of nothing, an unknown kind, an empty data message. Each connection
     * ends with a {@link RdmaChannel.ProtocolViolation} at the server's channel; the server then serves a good
     * channel as before.
     */
    @Test
    void malformedControlMessagesCloseOnlyThatConnection() throws Exception {
        AtomicReference<Throwable> seen = new AtomicReference<>();
        CountDownLatch[] closed = {new CountDownLatch(1)};
        ChannelInboundHandlerAdapter serverSide = new EchoWatch() {
            @Override
            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                seen.set(cause);
            }

            @Override
            public void channelInactive(ChannelHandlerContext ctx) {
                closed[0].countDown();
            }
        };
        byte[][] bad = {
            control(RdmaChannel.RENDEZVOUS, REGION, 100),            // outside the peer's (this raw side's) region
            control(RdmaChannel.RENDEZVOUS, 0, REGION),              // larger than the server's receiving half
            control(RdmaChannel.RENDEZVOUS, -1, 100),                // a negative offset
            control(RdmaChannel.RENDEZVOUS, 0, 0),                   // nothing to read
            new byte[] {RdmaChannel.RELEASED, 0, 0, 0, 1},           // a release with nothing outstanding
            new byte[] {9, 1, 2, 3},                                 // an unknown kind
            new byte[] {RdmaChannel.DATA},                           // data without data
            new byte[] {RdmaChannel.RENDEZVOUS, 0, 0},               // a truncated rendezvous
        };
        try (Loopback lo = new Loopback().region(REGION).serve(serverSide, false)) {
            for (byte[] message : bad) {
                seen.set(null);
                closed[0] = new CountDownLatch(1);
                try (RdmaEndpoint raw = Endpoints.connect(lo.address, EndpointOptions.defaults()
                        .messageSize(Loopback.MESSAGE_SIZE).rdmaRegionSize(REGION))) {
                    raw.sendSlot(0).put(message);
                    raw.send(0, message.length);
                    assertTrue(closed[0].await(20, TimeUnit.SECONDS), "the server's channel did not close after "
                            + java.util.Arrays.toString(message));
                    assertInstanceOf(RdmaChannel.ProtocolViolation.class, seen.get(),
                            "after " + java.util.Arrays.toString(message));
                    try (WorkCompletions wc = WorkCompletions.allocate(4)) {
                        raw.pollSend(wc); // reaped; the connection is gone
                    }
                }
            }
            assertEquals(1, echoOnce(lo, 1 << 20, 5), "a good channel's echo, by rendezvous");
        }
    }

    /**
     * Closes at the worst moments, 40 times: either side closes (from a thread of the test, not the loop) while
     * rendezvous writes, reads and releases are in flight both ways. The channels end (no hang), the JVM lives, and
     * the server then echoes a good channel as before.
     */
    @Test
    void closesInTheMiddleOfRendezvousEndCleanly() throws Exception {
        closeRaces(new Loopback(), 40);
    }

    /** {@link #closesInTheMiddleOfRendezvousEndCleanly} on {@code lo} (not yet serving), {@code rounds} times. */
    static void closeRaces(Loopback lo, int rounds) throws Exception {
        AtomicReference<CompletableFuture<Channel>> accepted = new AtomicReference<>();
        EchoWatch serverSide = new EchoWatch() {
            @Override
            public void channelActive(ChannelHandlerContext ctx) {
                accepted.get().complete(ctx.channel());
            }
        };
        Random r = new Random(3);
        byte[] payload = RdmaChannelTest.random(600_000, 4);
        try (lo) {
            lo.region(REGION).serve(serverSide, false);
            for (int round = 0; round < rounds; round++) {
                accepted.set(new CompletableFuture<>());
                Channel ch = lo.connect(new RdmaChannelTest.Echo()); // echoes the echo: traffic both ways
                Channel child = accepted.get().get(10, TimeUnit.SECONDS);
                for (int i = 0; i < 4; i++) {
                    ch.write(Unpooled.wrappedBuffer(payload));
                }
                ch.flush();
                Thread.sleep(r.nextInt(30));
                Channel closing = r.nextBoolean() ? ch : child;
                closing.close();
                assertTrue(ch.closeFuture().await(40, TimeUnit.SECONDS), "round " + round + ": the client did not close");
                assertTrue(child.closeFuture().await(40, TimeUnit.SECONDS), "round " + round + ": the child did not close");
            }
            assertEquals(1, echoOnce(lo, 1 << 20, 8), "a good channel afterwards, by rendezvous");
        }
    }

    /**
     * A client of {@code lo} echoes {@code size} random bytes once, every byte checked.
     * @return the client's rendezvous writes
     */
    static long echoOnce(Loopback lo, int size, long seed) throws Exception {
        RdmaChannelTest.Collect c = new RdmaChannelTest.Collect(size);
        RdmaChannel ch = (RdmaChannel) lo.connect(c);
        byte[] sent = RdmaChannelTest.random(size, seed);
        ch.writeAndFlush(Unpooled.wrappedBuffer(sent)).sync();
        assertArrayEquals(sent, c.done.get(60, TimeUnit.SECONDS));
        long n = ch.rendezvousWrites();
        ch.close().sync();
        return n;
    }

    /** An echo that keeps the exceptions its channels saw. */
    static class EchoWatch extends RdmaChannelTest.Echo {
        final AtomicReference<Throwable> failure = new AtomicReference<>();

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            failure.compareAndSet(null, cause);
            ctx.close();
        }
    }

    static byte[] control(byte kind, long offset, int length) {
        ByteBuffer b = ByteBuffer.allocate(RdmaChannel.RENDEZVOUS_BYTES);
        b.put(kind).putLong(offset).putInt(length);
        return b.array();
    }

    @Test
    void theRendezvousThresholdIsAChannelOption() throws Exception {
        try (Loopback lo = new Loopback().region(REGION).serve(new RdmaChannelTest.Echo(), false)) {
            int size = 100_000;
            RdmaChannelTest.Collect c = new RdmaChannelTest.Collect(size);
            RdmaChannel ch = (RdmaChannel) lo.client(c)
                    .option(RdmaChannelOption.RENDEZVOUS_THRESHOLD, size + 1).connect(lo.address).sync().channel();
            assertEquals(size + 1, ch.config().getOption(RdmaChannelOption.RENDEZVOUS_THRESHOLD));
            assertEquals(REGION, ch.config().getOption(RdmaChannelOption.RDMA_REGION_SIZE));
            byte[] sent = RdmaChannelTest.random(size, 1);
            ch.writeAndFlush(Unpooled.wrappedBuffer(sent)).sync();
            assertArrayEquals(sent, c.done.get(60, TimeUnit.SECONDS));
            assertEquals(0, ch.rendezvousWrites(), "below the threshold: sends");
            ch.config().setRendezvousThreshold(size);
            RdmaChannelTest.Collect c2 = new RdmaChannelTest.Collect(size);
            ch.pipeline().replace(c, "c2", c2);
            ch.writeAndFlush(Unpooled.wrappedBuffer(sent)).sync();
            assertArrayEquals(sent, c2.done.get(60, TimeUnit.SECONDS));
            assertEquals(1, ch.rendezvousWrites(), "at the threshold: rendezvous");
            ch.close().sync();
        }
    }
}
