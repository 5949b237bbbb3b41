package org.verbs4j.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.util.ReferenceCountUtil;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The channels end to end on the software iWARP device jsiw_lo: data checked byte for byte, closes, losses. */
@Timeout(60)
class RdmaChannelTest {

    /** Writes back what it reads; flushes once per read batch. */
    @ChannelHandler.Sharable
    static class Echo extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.write(msg);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }
    }

    /** Collects the bytes read until {@code expected} came. */
    static final class Collect extends ChannelInboundHandlerAdapter {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final CompletableFuture<byte[]> done = new CompletableFuture<>();
        final int expected;
        final AtomicInteger readCompletes = new AtomicInteger();

        Collect(int expected) {
            this.expected = expected;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf b = (ByteBuf) msg;
            try {
                b.readBytes(bytes, b.readableBytes());
            } catch (IOException e) {
                done.completeExceptionally(e);
            } finally {
                b.release();
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            readCompletes.incrementAndGet();
            if (bytes.size() >= expected) {
                done.complete(bytes.toByteArray()); // here: a batch ends with channelReadComplete
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            done.completeExceptionally(cause);
        }
    }

    static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {1, 1024, Loopback.PAYLOAD - 1, Loopback.PAYLOAD,
                Loopback.PAYLOAD + 1, Loopback.MESSAGE_SIZE, Loopback.MESSAGE_SIZE + 1, 65536,
            1 << 20, 4 << 20})
    void echoChecksEveryByte(int size) throws Exception {
        try (Loopback lo = new Loopback().serve(new Echo(), false)) {
            Collect c = new Collect(size);
            Channel ch = lo.connect(c);
            byte[] sent = random(size, size);
            // several writes and one flush: small pieces share a slot, large ones span several
            int piece = Math.max(1, size / 7);
            for (int off = 0; off < size; off += piece) {
                ch.write(Unpooled.wrappedBuffer(sent, off, Math.min(piece, size - off)));
            }
            ch.flush();
            byte[] got = c.done.get(30, TimeUnit.SECONDS);
            assertEquals(size, got.length);
            assertArrayEquals(sent, got);
            assertTrue(c.readCompletes.get() > 0, "channelReadComplete fired");
            ch.close().sync();
        }
    }

    /**
     * Eight writes of a full slot each and one flush, in one task on the loop: one chain of eight sends (one
     * doorbell), then the echo brings every byte back.
     */
    @Test
    void oneFlushOfManyWritesPostsOneChain() throws Exception {
        int writes = 8;
        try (Loopback lo = new Loopback().serve(new Echo(), false)) {
            Collect c = new Collect(writes * Loopback.PAYLOAD);
            RdmaChannel ch = (RdmaChannel) lo.connect(c);
            byte[] sent = random(writes * Loopback.PAYLOAD, 8);
            long chains = ch.eventLoop().submit(() -> {
                long before = ch.sendChains();
                for (int i = 0; i < writes; i++) {
                    ch.write(Unpooled.wrappedBuffer(sent, i * Loopback.PAYLOAD, Loopback.PAYLOAD));
                }
                ch.flush();
                return ch.sendChains() - before;
            }).get(30, TimeUnit.SECONDS);
            assertEquals(1, chains, "chains posted by one flush of " + writes + " slot-sized writes");
            assertArrayEquals(sent, c.done.get(30, TimeUnit.SECONDS));
            assertEquals((long) writes * Loopback.PAYLOAD, ch.copiedBytes(), "each write copied into its own slot");
            ch.close().sync();
        }
    }

    /**
     * 1000 writes of 4 KiB, each written only while the channel is writable, to a server with auto-read off that
     * reads nothing until the writer has turned unwritable (so the test does not depend on which side is faster),
     * then pauses after each read batch: nothing is lost, the outbound buffer stays under the high water mark plus
     * one write, and the channel turns unwritable and writable again.
     */
    @Test
    void pipelinedWritesToASlowReaderAreBoundedAndLossless() throws Exception {
        pipelinedWritesToASlowReader(new Loopback());
    }

    /** The body of {@link #pipelinedWritesToASlowReaderAreBoundedAndLossless}, on {@code lo}'s device. */
    static void pipelinedWritesToASlowReader(Loopback lo) throws Exception {
        int count = 1000;
        int size = 4096;
        AtomicLong received = new AtomicLong();
        AtomicInteger unwritable = new AtomicInteger();
        CountDownLatch all = new CountDownLatch(1);
        ChannelInboundHandlerAdapter slow = new ChannelInboundHandlerAdapter() {
            private long expect;

            @Override
            public void channelActive(ChannelHandlerContext ctx) {
                ctx.channel().config().setAutoRead(false);
                readOnceTheWriterWaits(ctx);
            }

            private void readOnceTheWriterWaits(ChannelHandlerContext ctx) {
                if (unwritable.get() > 0) {
                    ctx.read();
                } else {
                    ctx.executor().schedule(() -> readOnceTheWriterWaits(ctx), 1, TimeUnit.MILLISECONDS);
                }
            }

            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ByteBuf b = (ByteBuf) msg;
                while (b.isReadable()) {
                    if (b.readByte() != (byte) (expect * 7 / size)) {
                        all.countDown();
                        throw new AssertionError("byte " + expect + " is wrong");
                    }
                    expect++;
                }
                b.release();
                received.set(expect);
                if (expect == (long) count * size) {
                    all.countDown();
                }
            }

            @Override
            public void channelReadComplete(ChannelHandlerContext ctx) {
                ctx.executor().schedule(() -> ctx.read(), 1, TimeUnit.MILLISECONDS);
            }
        };
        try (Loopback served = lo.serve(slow, false)) {
            AtomicLong maxPending = new AtomicLong();
            CompletableFuture<Void> written = new CompletableFuture<>();
            ChannelInboundHandlerAdapter writer = new ChannelInboundHandlerAdapter() {
                private int next;

                @Override
                public void channelActive(ChannelHandlerContext ctx) {
                    writeWhileWritable(ctx);
                }

                @Override
                public void channelWritabilityChanged(ChannelHandlerContext ctx) {
                    if (ctx.channel().isWritable()) {
                        writeWhileWritable(ctx);
                    } else {
                        unwritable.incrementAndGet();
                    }
                }

                private void writeWhileWritable(ChannelHandlerContext ctx) {
                    while (next < count && ctx.channel().isWritable()) {
                        ByteBuf b = ctx.alloc().buffer(size);
                        for (int i = 0; i < size; i++) {
                            b.writeByte((byte) (((long) next * size + i) * 7 / size));
                        }
                        next++;
                        ctx.writeAndFlush(b);
                        long pending = ctx.channel().unsafe().outboundBuffer().totalPendingWriteBytes();
                        maxPending.accumulateAndGet(pending, Math::max);
                    }
                    if (next == count) {
                        written.complete(null);
                    }
                }
            };
            Channel ch = served.connect(writer);
            written.get(40, TimeUnit.SECONDS);
            assertTrue(all.await(40, TimeUnit.SECONDS), "received " + received.get() + " of " + (long) count * size);
            int high = ch.config().getWriteBufferHighWaterMark();
            assertTrue(maxPending.get() <= high + size, "outbound buffer grew to " + maxPending.get() + " (high water mark "
                    + high + ")");
            assertTrue(unwritable.get() > 0, "the channel never turned unwritable");
            ch.close().sync();
        }
    }

    /** Records channelInactive, exceptions and input-shutdown events. */
    static final class Watch extends ChannelInboundHandlerAdapter {
        final CountDownLatch inactive = new CountDownLatch(1);
        final CountDownLatch inputShutdown = new CountDownLatch(1);
        final AtomicReference<Throwable> exception = new AtomicReference<>();
        final CompletableFuture<Channel> active = new CompletableFuture<>();
        final BlockingQueue<String> read = new LinkedBlockingQueue<>();

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            active.complete(ctx.channel());
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf b = (ByteBuf) msg;
            read.add(b.toString(java.nio.charset.StandardCharsets.US_ASCII));
            ReferenceCountUtil.release(msg);
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt == ChannelInputShutdownEvent.INSTANCE) {
                inputShutdown.countDown();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            exception.compareAndSet(null, cause);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            inactive.countDown();
        }
    }

    @Test
    void clientClosesFirst() throws Exception {
        Watch serverSide = new Watch();
        try (Loopback lo = new Loopback().serve(serverSide, false)) {
            Watch clientSide = new Watch();
            Channel ch = lo.connect(clientSide);
            serverSide.active.get(10, TimeUnit.SECONDS);
            ch.close().sync();
            assertTrue(serverSide.inactive.await(10, TimeUnit.SECONDS), "the server's channel saw no channelInactive");
            assertEquals(null, serverSide.exception.get(), "an orderly close is not an error");
            assertTrue(clientSide.inactive.await(1, TimeUnit.SECONDS));
        }
    }

    @Test
    void serverClosesFirst() throws Exception {
        Watch serverSide = new Watch();
        try (Loopback lo = new Loopback().serve(serverSide, false)) {
            Watch clientSide = new Watch();
            Channel ch = lo.connect(clientSide);
            serverSide.active.get(10, TimeUnit.SECONDS).close().sync();
            assertTrue(clientSide.inactive.await(10, TimeUnit.SECONDS), "the client's channel saw no channelInactive");
            assertEquals(null, clientSide.exception.get(), "an orderly close is not an error");
            assertFalse(ch.isOpen());
        }
    }

    @Test
    void halfClosureKeepsTheOtherDirection() throws Exception {
        Watch serverSide = new Watch();
        try (Loopback lo = new Loopback().serve(serverSide, true)) {
            Watch clientSide = new Watch();
            RdmaChannel ch = (RdmaChannel) lo.connect(clientSide);
            Channel child = serverSide.active.get(10, TimeUnit.SECONDS);
            ch.writeAndFlush(Unpooled.copiedBuffer("last words", java.nio.charset.StandardCharsets.US_ASCII)).sync();
            ch.shutdownOutput().sync();
            assertTrue(ch.isOutputShutdown());
            assertEquals("last words", serverSide.read.poll(10, TimeUnit.SECONDS));
            assertTrue(serverSide.inputShutdown.await(10, TimeUnit.SECONDS), "no ChannelInputShutdownEvent");
            assertTrue(child.isOpen(), "half-closure keeps the server's channel open");
            child.writeAndFlush(Unpooled.copiedBuffer("answer", java.nio.charset.StandardCharsets.US_ASCII)).sync();
            assertEquals("answer", clientSide.read.poll(10, TimeUnit.SECONDS));
            child.close().sync();
            assertTrue(clientSide.inactive.await(10, TimeUnit.SECONDS));
            assertEquals(null, clientSide.exception.get());
        }
    }

    /**
     * The server side's connection ends with no end of stream (its endpoint closed under its channel, as when its
     * process dies): the client's pipeline gets an IOException, then channelInactive, within a bounded time.
     */
    @Test
    void aPeerLostMidStreamIsAnException() throws Exception {
        Watch serverSide = new Watch();
        try (Loopback lo = new Loopback().serve(serverSide, false)) {
            Watch clientSide = new Watch();
            Channel ch = lo.connect(clientSide);
            RdmaChannel child = (RdmaChannel) serverSide.active.get(10, TimeUnit.SECONDS);
            ch.writeAndFlush(Unpooled.wrappedBuffer(random(100_000, 1)));
            child.eventLoop().submit(() -> child.endpoint().close()).sync();
            long t0 = System.nanoTime();
            assertTrue(clientSide.inactive.await(10, TimeUnit.SECONDS), "the client saw no channelInactive");
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertNotNull(clientSide.exception.get(), "the client saw no exception");
            assertInstanceOf(IOException.class, clientSide.exception.get());
            assertTrue(ms < 10_000, ms + " ms");
        }
    }

    /** Records the pipeline's events by name, in order. */
    static final class Events extends ChannelInboundHandlerAdapter {
        final java.util.List<String> seen = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        final CountDownLatch unregistered = new CountDownLatch(1);

        @Override
        public void channelRegistered(ChannelHandlerContext ctx) {
            seen.add("registered");
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            seen.add("active");
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ReferenceCountUtil.release(msg);
            if (seen.isEmpty() || !seen.get(seen.size() - 1).equals("read")) {
                seen.add("read");
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            seen.add("readComplete");
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            seen.add("inactive");
        }

        @Override
        public void channelUnregistered(ChannelHandlerContext ctx) {
            seen.add("unregistered");
            unregistered.countDown();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            seen.add("exception " + cause);
        }
    }

    /** Both sides' pipelines see registered, active, reads each followed by readComplete, inactive, unregistered. */
    @Test
    void pipelineEventsComeInOrder() throws Exception {
        Events serverSide = new Events();
        try (Loopback lo = new Loopback().serve(serverSide, false)) {
            Events clientSide = new Events();
            Channel ch = lo.connect(clientSide);
            ch.writeAndFlush(Unpooled.wrappedBuffer(random(3 * Loopback.MESSAGE_SIZE, 5))).sync();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!serverSide.seen.contains("readComplete") && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            ch.close().sync();
            assertTrue(clientSide.unregistered.await(10, TimeUnit.SECONDS));
            assertTrue(serverSide.unregistered.await(10, TimeUnit.SECONDS));
            assertEquals(java.util.List.of("registered", "active", "inactive", "unregistered"), clientSide.seen);
            java.util.List<String> server = new java.util.ArrayList<>(serverSide.seen);
            assertEquals(java.util.List.of("registered", "active"), server.subList(0, 2), server.toString());
            assertEquals(java.util.List.of("inactive", "unregistered"), server.subList(server.size() - 2, server.size()),
                    server.toString());
            java.util.List<String> middle = server.subList(2, server.size() - 2);
            assertTrue(middle.size() >= 2 && middle.size() % 2 == 0, server.toString());
            for (int i = 0; i < middle.size(); i += 2) {
                assertEquals("read", middle.get(i), server.toString());
                assertEquals("readComplete", middle.get(i + 1), server.toString());
            }
        }
    }

    /**
     * Auto-read off on the server's side: nothing is read until it asks, the writer's channel turns unwritable once
     * the unread messages hold the credits and its outbound buffer passes the high water mark, and each read()
     * delivers one batch; once reading resumes all bytes arrive.
     */
    /** Auto-read off from its registration: counts what it reads and its batches, records an exception and the end. */
    static final class LazyReader extends ChannelInboundHandlerAdapter {
        final AtomicLong read = new AtomicLong();
        final AtomicInteger batches = new AtomicInteger();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final CountDownLatch inactive = new CountDownLatch(1);
        final CompletableFuture<ChannelHandlerContext> active = new CompletableFuture<>();

        @Override
        public void channelRegistered(ChannelHandlerContext ctx) {
            ctx.channel().config().setAutoRead(false);
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            active.complete(ctx);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            read.addAndGet(((ByteBuf) msg).readableBytes());
            ReferenceCountUtil.release(msg);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            batches.incrementAndGet();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            failure.compareAndSet(null, cause);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            inactive.countDown();
        }
    }

    @Test
    void autoReadOffHoldsTheWriterBack() throws Exception {
        LazyReader lazy = new LazyReader();
        AtomicLong read = lazy.read;
        AtomicInteger batches = lazy.batches;
        CompletableFuture<ChannelHandlerContext> child = lazy.active;
        try (Loopback lo = new Loopback().serve(lazy, false)) {
            Channel ch = lo.connect(new ChannelInboundHandlerAdapter());
            ChannelHandlerContext ctx = child.get(10, TimeUnit.SECONDS);
            int total = 1 << 20;
            ch.writeAndFlush(Unpooled.wrappedBuffer(random(total, 9)));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (ch.isWritable() && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertFalse(ch.isWritable(), "1 MiB to a reader that does not read: the writer stays writable");
            Thread.sleep(100);
            assertEquals(0, read.get(), "auto-read off: read before asked");
            ctx.executor().submit(() -> ctx.read()).sync();
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (batches.get() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            Thread.sleep(100);
            assertEquals(1, batches.get(), "one read(), one batch");
            assertTrue(read.get() > 0 && read.get() < total, read.get() + " bytes after one read()");
            ctx.channel().config().setAutoRead(true);
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (read.get() < total && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertEquals(total, read.get());
            assertTrue(ch.isWritable());
            ch.close().sync();
        }
    }

    @Test
    void connectingToNobodyFailsThePromise() throws Exception {
        try (Loopback lo = new Loopback()) {
            io.netty.channel.ChannelFuture f = lo.client(new ChannelInboundHandlerAdapter()).connect(lo.address);
            assertTrue(f.await(30, TimeUnit.SECONDS));
            assertFalse(f.isSuccess());
            assertNotNull(f.cause());
            // Bootstrap closes it from a listener of the promise, which runs after the promise wakes its waiters
            assertTrue(f.channel().closeFuture().await(5, TimeUnit.SECONDS));
            assertFalse(f.channel().isOpen());
        }
    }

    /**
     * Both channels know both ends, as NIO's do: the accepted channel's remote address is where the client connected
     * from (the endpoint reports what its rdma_cm id knows), its local address the server's.
     */
    @Test
    void bothChannelsKnowBothAddresses() throws Exception {
        Watch serverSide = new Watch();
        try (Loopback lo = new Loopback().serve(serverSide, false)) {
            RdmaChannel ch = (RdmaChannel) lo.connect(new Watch());
            RdmaChannel child = (RdmaChannel) serverSide.active.get(10, TimeUnit.SECONDS);
            assertEquals(lo.address, ch.remoteAddress());
            assertNotNull(ch.localAddress(), "the client's local address");
            assertEquals(lo.address.getAddress(), ch.localAddress().getAddress());
            assertTrue(ch.localAddress().getPort() > 0, "the client's port: " + ch.localAddress());
            assertEquals(ch.localAddress(), child.remoteAddress(), "the accepted channel's peer is the client");
            assertEquals(lo.address, child.localAddress());
            ch.close().sync();
        }
    }

    /**
     * {@code CONNECT_TIMEOUT_MILLIS} bounds a connect that hangs: a TCP listener that takes the connection but never
     * answers the iWARP (MPA) request, while the endpoint's own time-out is far longer.
     */
    @Test
    void connectTimeoutMillisFailsAHangingConnect() throws Exception {
        try (Loopback lo = new Loopback();
                java.net.ServerSocket mute = new java.net.ServerSocket(lo.address.getPort(), 4, lo.address.getAddress())) {
            long start = System.nanoTime();
            io.netty.channel.ChannelFuture f = lo.client(new ChannelInboundHandlerAdapter())
                    .option(io.netty.channel.ChannelOption.CONNECT_TIMEOUT_MILLIS, 300)
                    .option(RdmaChannelOption.ENDPOINT_OPTIONS, org.verbs4j.endpoint.EndpointOptions.defaults()
                            .messageSize(Loopback.MESSAGE_SIZE).timeout(java.time.Duration.ofSeconds(20)))
                    .connect(lo.address);
            assertTrue(f.await(10, TimeUnit.SECONDS), "the connect did not end within 10 s");
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertInstanceOf(io.netty.channel.ConnectTimeoutException.class, f.cause());
            assertTrue(millis >= 250 && millis < 5000, "failed after " + millis + " ms");
            assertTrue(f.channel().closeFuture().await(5, TimeUnit.SECONDS));
        }
    }

    /**
     * A writer that has used every send credit closes while the reader, auto-read off, reads nothing: the close waits
     * for a credit, so once the reader reads it gets all the data, then the end of stream (channelInactive, no
     * exception), not a lost connection.
     */
    @Test
    void aCloseWithoutCreditsStillEndsTheStream() throws Exception {
        LazyReader lazy = new LazyReader();
        AtomicLong read = lazy.read;
        AtomicReference<Throwable> failure = lazy.failure;
        CountDownLatch inactive = lazy.inactive;
        CompletableFuture<ChannelHandlerContext> child = lazy.active;
        try (Loopback lo = new Loopback().serve(lazy, false)) {
            RdmaChannel ch = (RdmaChannel) lo.connect(new ChannelInboundHandlerAdapter());
            ChannelHandlerContext ctx = child.get(10, TimeUnit.SECONDS);
            int depth = useEveryCredit(ch);
            io.netty.channel.ChannelFuture closed = ch.close();
            Thread.sleep(300);
            assertEquals(0, read.get(), "auto-read off: read before asked");
            ctx.channel().config().setAutoRead(true);
            assertTrue(inactive.await(10, TimeUnit.SECONDS), "the reader saw no channelInactive");
            assertEquals(null, failure.get(), "the end of stream came, not a lost connection");
            assertEquals((long) depth * Loopback.PAYLOAD, read.get(), "all the data before the end");
            assertTrue(closed.await(10, TimeUnit.SECONDS));
        }
    }

    /**
     * The same close without credits, made by the writer's event loop group shutting down (Netty closes every channel
     * of a loop that shuts down): the writer's close still waits for a credit and ends the stream, and its own
     * pipeline still gets channelInactive, although the loop stops taking tasks meanwhile.
     */
    @Test
    void aGroupShutdownWithoutCreditsStillEndsTheStreamAndFiresInactive() throws Exception {
        shutdownWhileACloseWaitsForACredit(false);
    }

    /**
     * A close from a thread outside the loop that waits for a send credit (the peer reads nothing), then a shutdown of
     * the writer's group with no quiet period: the loop must not end before that close has, or channelInactive, which
     * Netty hands back to the loop, is lost.
     */
    @Test
    void anOffLoopCloseWaitingForACreditThenAGroupShutdownStillFiresInactive() throws Exception {
        shutdownWhileACloseWaitsForACredit(true);
    }

    /** The writer's group shuts down with no credit left, its channel closed first from this thread or by it. */
    private static void shutdownWhileACloseWaitsForACredit(boolean closeFirst) throws Exception {
        LazyReader lazy = new LazyReader();
        Watch writer = new Watch();
        try (Loopback lo = new Loopback().serve(lazy, false)) {
            RdmaChannel ch = (RdmaChannel) lo.connect(writer);
            ChannelHandlerContext ctx = lazy.active.get(10, TimeUnit.SECONDS);
            int depth = useEveryCredit(ch);
            io.netty.channel.ChannelFuture closed = null;
            if (closeFirst) {
                closed = ch.close(); // from this thread: it waits for a credit, off the loop
                Thread.sleep(100);
                assertFalse(closed.isDone(), "the close did not wait for a credit: the test proves nothing");
            }
            io.netty.util.concurrent.Future<?> shutdown =
                    lo.clientGroup.shutdownGracefully(0, closeFirst ? 0 : 5, TimeUnit.SECONDS);
            Thread.sleep(300);
            assertEquals(0, lazy.read.get(), "auto-read off: read before asked");
            ctx.channel().config().setAutoRead(true);
            assertTrue(lazy.inactive.await(10, TimeUnit.SECONDS), "the reader saw no channelInactive");
            assertEquals(null, lazy.failure.get(), "the end of stream came, not a lost connection");
            assertEquals((long) depth * Loopback.PAYLOAD, lazy.read.get(), "all the data before the end");
            assertTrue(closed == null || closed.await(10, TimeUnit.SECONDS), "the close never completed");
            assertTrue(writer.inactive.await(10, TimeUnit.SECONDS), "the writer's pipeline saw no channelInactive");
            assertTrue(shutdown.await(10, TimeUnit.SECONDS), "the writer's group did not end");
            assertFalse(ch.isOpen());
        }
    }

    /**
     * Writes one slot-sized message per receive the peer posted and waits until the writer has no send credit left
     * (the peer, auto-read off, reads nothing). {@return the messages written}
     */
    static int useEveryCredit(RdmaChannel ch) throws Exception {
        int depth = ch.eventLoop().submit(() -> ch.endpoint().peerReceiveDepth()).get();
        for (int i = 0; i < depth; i++) {
            ch.write(Unpooled.wrappedBuffer(random(Loopback.PAYLOAD, i))); // one slot each
        }
        ch.flush();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        long credits;
        while ((credits = ch.eventLoop().submit(() -> ch.endpoint().sendCredits()).get()) > 0
                && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(0, credits, "the writer has used every credit");
        return depth;
    }

    /** {@code Bootstrap.localAddress}: the client's connection leaves from that address and port. */
    @Test
    void aClientBindsItsLocalAddress() throws Exception {
        Watch serverSide = new Watch();
        try (Loopback lo = new Loopback().serve(serverSide, false)) {
            java.net.InetSocketAddress from = new java.net.InetSocketAddress(lo.address.getAddress(), Loopback.nextPort());
            RdmaChannel ch = (RdmaChannel) lo.client(new Watch()).localAddress(from).connect(lo.address).sync().channel();
            RdmaChannel child = (RdmaChannel) serverSide.active.get(10, TimeUnit.SECONDS);
            assertEquals(from, ch.localAddress());
            assertEquals(from, child.remoteAddress(), "the server sees the connection come from the bound address");
            ch.writeAndFlush(Unpooled.copiedBuffer("bound", java.nio.charset.StandardCharsets.US_ASCII)).sync();
            assertEquals("bound", serverSide.read.poll(10, TimeUnit.SECONDS));
            ch.close().sync();
        }
    }

    /**
     * Both ends have used every credit, read nothing (auto-read off) and close at once: each close, waiting for a
     * credit, reposts what it receives, so both ends' end-of-stream messages go and both closes end within seconds,
     * not after the endpoint's time-out.
     */
    @Test
    void simultaneousClosesWithoutCreditsDoNotWaitForTheTimeOut() throws Exception {
        LazyReader server = new LazyReader();
        try (Loopback lo = new Loopback().serve(server, false)) {
            RdmaChannel ch = (RdmaChannel) lo.client(new LazyReader()).connect(lo.address).sync().channel();
            RdmaChannel other = (RdmaChannel) server.active.get(10, TimeUnit.SECONDS).channel();
            for (RdmaChannel c : new RdmaChannel[] {ch, other}) {
                int depth = c.eventLoop().submit(() -> c.endpoint().peerReceiveDepth()).get();
                for (int i = 0; i < depth; i++) {
                    c.write(Unpooled.wrappedBuffer(random(Loopback.PAYLOAD, i)));
                }
                c.flush();
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while ((ch.eventLoop().submit(() -> ch.endpoint().sendCredits()).get() > 0
                    || other.eventLoop().submit(() -> other.endpoint().sendCredits()).get() > 0)
                    && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            long start = System.nanoTime();
            io.netty.channel.ChannelFuture a = ch.close();
            io.netty.channel.ChannelFuture b = other.close();
            assertTrue(a.await(10, TimeUnit.SECONDS) && b.await(10, TimeUnit.SECONDS), "the closes did not end");
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(millis < 5000, "the closes took " + millis + " ms");
        }
    }
}
