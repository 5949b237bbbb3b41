package org.verbs4j.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.util.ResourceLeakDetector;
import java.io.ByteArrayOutputStream;
import java.lang.management.ManagementFactory;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.verbs4j.netty.RdmaChannelTest.Collect;
import org.verbs4j.netty.RdmaChannelTest.Echo;

/**
 * {@link RdmaChannelOption#REGISTERED_ALLOCATOR} on the software iWARP device jsiw_lo: buffers of the channel's
 * allocator are send slots, written without a copy (the channel's counters say which path each write took), every
 * byte checked; slots come back on release and after their send; a closed channel's buffers stay usable memory.
 */
@Timeout(60)
class RegisteredAllocatorTest {
    static final int SLOT = Loopback.PAYLOAD;
    static final int SEND_DEPTH = 16;

    static Channel connect(Loopback lo, ChannelInboundHandlerAdapter handler) throws InterruptedException {
        return lo.client(handler).option(RdmaChannelOption.REGISTERED_ALLOCATOR, true)
                .option(RdmaChannelOption.SEND_DEPTH, SEND_DEPTH).connect(lo.address).sync().channel();
    }

    /** A buffer of the channel's allocator that is a send slot, waiting for one to be free (sends complete). */
    static ByteBuf slotBuffer(Channel ch, int capacity) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        for (;;) {
            ByteBuf b = ch.alloc().directBuffer(capacity);
            if (LentByteBuf.of(b) instanceof SendSlotByteBuf) {
                return b;
            }
            b.release();
            assertTrue(System.nanoTime() < deadline, "no send slot came free in 20 s");
            LockSupport.parkNanos(20_000);
        }
    }

    static RdmaChannel rdma(Channel ch) {
        return (RdmaChannel) ch;
    }

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {1, SLOT - 1, SLOT, SLOT + 1, 1 << 20})
    void anAllocatedBufferIsEchoedAndGoesWithoutACopyWhenItFitsASlot(int size) throws Exception {
        try (Loopback lo = new Loopback().serve(new Echo(), false)) {
            Collect c = new Collect(size);
            Channel ch = connect(lo, c);
            byte[] sent = RdmaChannelTest.random(size, size);
            ByteBuf b = ch.alloc().directBuffer(size);
            assertEquals(size <= SLOT, LentByteBuf.of(b) instanceof SendSlotByteBuf,
                    "a slot buffer exactly when it fits a slot");
            b.writeBytes(sent);
            ch.writeAndFlush(b).sync();
            assertArrayEquals(sent, c.done.get(30, TimeUnit.SECONDS));
            if (size <= SLOT) {
                assertEquals(0, rdma(ch).copiedBytes(), "nothing copied");
                assertEquals(1, rdma(ch).zeroCopySends());
            } else {
                assertEquals(size, rdma(ch).copiedBytes(), "a larger buffer is copied");
                assertEquals(0, rdma(ch).zeroCopySends());
            }
            ch.close().sync();
        }
    }

    /**
     * With Netty's leak detector on (here at {@code PARANOID}, so every buffer is sampled), a lent buffer comes inside
     * the detector's wrapper, as a pooled allocator's buffers do, and is still posted from its slot as is; one dropped
     * without a release is reported by the detector once the garbage collector finds it (it keeps its slot meanwhile,
     * and copied writes still go).
     */
    @Test
    void lentBuffersAreTrackedByNettysLeakDetector() throws Exception {
        ResourceLeakDetector.Level level = ResourceLeakDetector.getLevel();
        ResourceLeakDetector<ByteBuf> detector = byteBufLeakDetector();
        List<String> leaks = new CopyOnWriteArrayList<>();
        detector.setLeakListener((type, records) -> leaks.add(records));
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        try (Loopback lo = new Loopback().serve(new Echo(), false)) {
            Collect c = new Collect(300);
            Channel ch = connect(lo, c);
            byte[] sent = RdmaChannelTest.random(300, 7);
            ByteBuf tracked = slotBuffer(ch, 100);
            assertNotSame(tracked, LentByteBuf.of(tracked), "inside the leak detector's wrapper");
            ch.writeAndFlush(tracked.writeBytes(sent, 0, 100)).sync();
            assertEquals(1, rdma(ch).zeroCopySends(), "a tracked buffer goes from its slot as is");
            assertEquals(0, rdma(ch).copiedBytes());
            dropUnreleased(ch);
            ch.writeAndFlush(Unpooled.wrappedBuffer(sent, 100, 200)).sync(); // copied: still goes
            assertArrayEquals(sent, c.done.get(30, TimeUnit.SECONDS));
            assertEquals(SEND_DEPTH - 1, rdma(ch).freeSendSlots(), "the dropped buffer still holds its slot");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (leaks.isEmpty() && System.nanoTime() < deadline) {
                System.gc();
                ch.alloc().directBuffer(16).release(); // the detector looks for collected buffers when it tracks one
                Thread.sleep(20);
            }
            assertFalse(leaks.isEmpty(), "the detector reported no leak of the dropped buffer in 20 s");
            assertTrue(leaks.get(0).contains("dropUnreleased"), "where it was allocated: " + leaks.get(0));
            ch.close().sync();
        } finally {
            ResourceLeakDetector.setLevel(level);
            detector.setLeakListener(null);
        }
    }

    /** Takes a slot buffer, writes into it and lets it go without a release (in a frame of its own for the record). */
    private static void dropUnreleased(Channel ch) {
        ByteBuf b = slotBuffer(ch, 64);
        assertInstanceOf(SendSlotByteBuf.class, LentByteBuf.of(b));
        b.writeLong(42);
    }

    /** Netty's detector for every {@link ByteBuf} (a package-private field, read for its listener). */
    @SuppressWarnings("unchecked")
    private static ResourceLeakDetector<ByteBuf> byteBufLeakDetector() throws ReflectiveOperationException {
        java.lang.reflect.Field f = io.netty.buffer.AbstractByteBuf.class.getDeclaredField("leakDetector");
        f.setAccessible(true);
        return (ResourceLeakDetector<ByteBuf>) f.get(null);
    }

    /** 1 MiB in slot-sized buffers of the allocator, each written and flushed as it is filled: not a byte copied. */
    @Test
    void aMebibyteInSlotBuffersIsNeverCopied() throws Exception {
        int size = 1 << 20;
        try (Loopback lo = new Loopback().serve(new Echo(), false)) {
            Collect c = new Collect(size);
            Channel ch = connect(lo, c);
            byte[] sent = RdmaChannelTest.random(size, 7);
            for (int off = 0; off < size; off += SLOT) {
                ByteBuf b = slotBuffer(ch, SLOT);
                b.writeBytes(sent, off, Math.min(SLOT, size - off));
                ch.writeAndFlush(b);
            }
            assertArrayEquals(sent, c.done.get(30, TimeUnit.SECONDS));
            assertEquals(0, rdma(ch).copiedBytes());
            assertEquals((size + SLOT - 1) / SLOT, rdma(ch).zeroCopySends());
            ch.close().sync();
        }
    }

    /**
     * An accepted channel with the option (a child option): an echo that answers each message with a buffer of its
     * channel's allocator sends most answers from slots, the rest (asked for while the slots were out) copied.
     */
    @Test
    void anAcceptedChannelLendsItsSlotsToo() throws Exception {
        int size = 200_000;
        AllocatorEcho answer = new AllocatorEcho();
        try (Loopback lo = new Loopback().registered().serve(answer, false)) {
            Collect c = new Collect(size);
            Channel ch = lo.client(c).option(RdmaChannelOption.REGISTERED_ALLOCATOR, false).connect(lo.address).sync()
                    .channel();
            byte[] sent = RdmaChannelTest.random(size, 11);
            for (int off = 0; off < size; off += 1000) {
                ch.write(Unpooled.wrappedBuffer(sent, off, Math.min(1000, size - off)));
            }
            ch.flush();
            assertArrayEquals(sent, c.done.get(30, TimeUnit.SECONDS));
            RdmaChannel server = answer.accepted.get(5, TimeUnit.SECONDS);
            long fromSlots = server.zeroCopySends();
            assertTrue(fromSlots > 0, "answers sent from slots");
            assertTrue(server.copiedBytes() < size, "not every answer copied: " + server.copiedBytes());
            assertEquals(size, rdma(ch).copiedBytes(), "the client's heap buffers were copied");
            ch.close().sync();
        }
    }

    @Test
    void heapBuffersAreCopied() throws Exception {
        try (Loopback lo = new Loopback().serve(new Echo(), false)) {
            Collect c = new Collect(1000);
            Channel ch = connect(lo, c);
            byte[] sent = RdmaChannelTest.random(1000, 3);
            ch.writeAndFlush(Unpooled.wrappedBuffer(sent)).sync();
            assertArrayEquals(sent, c.done.get(30, TimeUnit.SECONDS));
            assertEquals(1000, rdma(ch).copiedBytes());
            assertEquals(0, rdma(ch).zeroCopySends());
            ch.close().sync();
        }
    }

    /**
     * One flush of slot buffers, heap buffers, a slot buffer read part way and a slice of one (both copied), and a
     * slot buffer of another channel (copied): the bytes arrive in the order written.
     */
    @Test
    void mixedWritesInOneFlushArriveInOrder() throws Exception {
        try (Loopback lo = new Loopback().serve(new Echo(), false)) {
            ByteArrayOutputStream expected = new ByteArrayOutputStream();
            List<ByteBuf> writes = new ArrayList<>();
            Collect other = new Collect(1);
            Channel second = connect(lo, other);
            int[] sizes = {5, 3000, SLOT, 1, 700, SLOT - 1, 2, 4096, 9, SLOT, 33};
            long copied = 0;
            int zeroCopy = 0;
            Collect probe = new Collect(Integer.MAX_VALUE);
            Channel ch = connect(lo, probe);
            for (int i = 0; i < sizes.length; i++) {
                byte[] bytes = RdmaChannelTest.random(sizes[i], 100 + i);
                expected.write(bytes);
                ByteBuf b;
                switch (i % 4) {
                    case 0, 2 -> {
                        b = slotBuffer(ch, sizes[i]).writeBytes(bytes);
                        zeroCopy++;
                    }
                    case 1 -> {
                        b = Unpooled.wrappedBuffer(bytes);
                        copied += sizes[i];
                    }
                    default -> {
                        // a slot buffer of another channel: foreign here, so copied
                        b = slotBuffer(second, sizes[i]).writeBytes(bytes);
                        copied += sizes[i];
                    }
                }
                writes.add(b);
            }
            // a slot buffer read part way, and a slice of one: copied
            byte[] tail = RdmaChannelTest.random(600, 99);
            expected.write(tail);
            ByteBuf partly = slotBuffer(ch, 700).writeZero(100).writeBytes(tail, 0, 300);
            partly.skipBytes(100);
            writes.add(partly);
            ByteBuf whole = slotBuffer(ch, 400).writeBytes(tail, 300, 300);
            writes.add(whole.retainedSlice(0, 300));
            whole.release();
            copied += 600;
            int total = expected.size();
            Collect c = new Collect(total);
            ch.pipeline().replace(probe, "collect", c);
            for (ByteBuf b : writes) {
                ch.write(b);
            }
            ch.flush();
            assertArrayEquals(expected.toByteArray(), c.done.get(30, TimeUnit.SECONDS));
            assertEquals(copied, rdma(ch).copiedBytes());
            assertEquals(zeroCopy, rdma(ch).zeroCopySends());
            ch.close().sync();
            second.close().sync();
        }
    }

    /** Many times more buffers than slots, each released unwritten: every one is a slot, so each came back. */
    @Test
    void aBufferReleasedUnwrittenGivesItsSlotBack() throws Exception {
        try (Loopback lo = new Loopback().serve(new Echo(), false)) {
            Channel ch = connect(lo, new ChannelInboundHandlerAdapter());
            for (int i = 0; i < 100 * SEND_DEPTH; i++) {
                ByteBuf b = ch.alloc().ioBuffer(1 + i % SLOT);
                assertInstanceOf(SendSlotByteBuf.class, LentByteBuf.of(b), "allocation " + i);
                b.writeByte(i);
                assertTrue(b.release());
            }
            assertEquals(SEND_DEPTH, rdma(ch).freeSendSlots());
            // held ones: lent up to the reserve, the rest from the ordinary allocator
            List<ByteBuf> held = new ArrayList<>();
            for (int i = 0; i < 2 * SEND_DEPTH; i++) {
                held.add(ch.alloc().ioBuffer(64));
            }
            long lent = held.stream().filter(b -> LentByteBuf.of(b) instanceof SendSlotByteBuf).count();
            assertEquals(SEND_DEPTH - Math.max(1, SEND_DEPTH / 4), lent, "lent down to the reserve");
            held.forEach(ByteBuf::release);
            assertEquals(SEND_DEPTH, rdma(ch).freeSendSlots());
            // one that grows past its slot moves to other memory and gives the slot back at once
            ByteBuf grows = ch.alloc().ioBuffer(16);
            assertEquals(SEND_DEPTH - 1, rdma(ch).freeSendSlots());
            grows.writeBytes(new byte[SLOT + 1]);
            assertEquals(SEND_DEPTH, rdma(ch).freeSendSlots());
            assertEquals(SLOT + 1, grows.readableBytes());
            grows.release();
            assertEquals(SEND_DEPTH, rdma(ch).freeSendSlots());
            ch.close().sync();
        }
    }

    /**
     * Buffers still out when the channel closes: written after the close they fail with ClosedChannelException and
     * are released; read and written by Java they are plain memory; the allocator gives ordinary buffers from then
     * on. Nothing crashes, nothing is freed under them.
     */
    @Test
    void buffersOutstandingAtCloseStayHarmless() throws Exception {
        try (Loopback lo = new Loopback().serve(new Echo(), false)) {
            Channel ch = connect(lo, new ChannelInboundHandlerAdapter());
            List<ByteBuf> out = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                out.add(slotBuffer(ch, 100).writeBytes(RdmaChannelTest.random(100, i)));
            }
            ByteBuf inFlight = slotBuffer(ch, 100).writeBytes(RdmaChannelTest.random(100, 42));
            ch.writeAndFlush(inFlight).sync();
            ch.close().sync();
            System.gc(); // nothing native is under the buffers: the slot memory is the garbage collector's
            for (int i = 0; i < out.size(); i++) {
                ByteBuf b = out.get(i);
                assertArrayEquals(RdmaChannelTest.random(100, i), bytes(b), "buffer " + i + " after the close");
                b.setByte(0, 1);
            }
            ByteBuf late = out.remove(0);
            ChannelFuture f = ch.writeAndFlush(late).await();
            assertInstanceOf(ClosedChannelException.class, f.cause());
            assertEquals(0, late.refCnt(), "a failed write releases the buffer");
            out.forEach(ByteBuf::release);
            ByteBuf after = ch.alloc().directBuffer(10);
            assertFalse(LentByteBuf.of(after) instanceof SendSlotByteBuf, "no slot is lent by a closed channel");
            after.release();
        }
    }

    static byte[] bytes(ByteBuf b) {
        byte[] a = new byte[b.readableBytes()];
        b.getBytes(b.readerIndex(), a);
        return a;
    }

    /**
     * A ping-pong driven on the client's event loop, each turn writing the same slot buffer again (retained): what
     * the loop's thread allocates per round trip, after a warm-up, is what the transport's path (write, post,
     * completion, read into a pooled buffer) allocates, with the software device's own work, which runs in Java on
     * the posting thread. Netty's leak detector is off meanwhile: it samples one buffer in 128 and records a stack
     * trace for it (about 12 bytes per round trip on average, measured). The bound (1 byte) is far below the
     * smallest object (16): one allocation per message on the path (a promise, a task, a wrapper, a boxed slot
     * number) fails it. The same for a buffer that is copied (a direct buffer of another allocator, written again
     * from its start each time). The read buffers come from Netty's pooled allocator, and from Netty's default one
     * (adaptive in Netty 4.2: a copy into it from a {@code ByteBuffer} would make a slice per message). Measured in
     * three windows, the least counts: on a loaded host a one-off of tens of kilobytes (not per message: once, in
     * one window) was seen about once in ten runs, before and after the send slots lost their lock.
     */
    @ParameterizedTest(name = "zero copy {0}, {1} allocator")
    @CsvSource({"true, pooled", "false, pooled", "true, default"})
    void theTransportAllocatesNothingPerMessage(boolean zeroCopy, String allocator) throws Exception {
        int warmUp = 20_000;
        int measured = 20_000;
        // three windows: a per-message allocation shows in each, a one-off (the JIT, a queue that grows once on a
        // loaded host) in one; the least of the three is the transport's
        int windows = 3;
        io.netty.util.ResourceLeakDetector.Level leakDetection = io.netty.util.ResourceLeakDetector.getLevel();
        io.netty.util.ResourceLeakDetector.setLevel(io.netty.util.ResourceLeakDetector.Level.DISABLED);
        try (Loopback lo = new Loopback().serve(new Echo(), false)) {
            CompletableFuture<long[]> result = new CompletableFuture<>();
            ChannelInboundHandlerAdapter pingPong = new ChannelInboundHandlerAdapter() {
                final com.sun.management.ThreadMXBean mx =
                        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
                ByteBuf ping;
                int round;
                long startBytes;
                long least = Long.MAX_VALUE;

                @Override
                public void channelActive(ChannelHandlerContext ctx) {
                    ping = (zeroCopy ? ctx.alloc() : io.netty.buffer.UnpooledByteBufAllocator.DEFAULT)
                            .directBuffer(64).writeLong(1).writeLong(2);
                    if (zeroCopy != LentByteBuf.of(ping) instanceof SendSlotByteBuf) {
                        result.completeExceptionally(new AssertionError("not a slot buffer: " + ping));
                    }
                    send(ctx);
                }

                private void send(ChannelHandlerContext ctx) {
                    ctx.writeAndFlush(ping.readerIndex(0).retain(), ctx.voidPromise()); // a copy reads it through
                }

                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    ((ByteBuf) msg).release();
                    round++;
                    if (round >= warmUp && (round - warmUp) % measured == 0) {
                        long now = mx.getCurrentThreadAllocatedBytes();
                        if (round > warmUp) {
                            least = Math.min(least, now - startBytes);
                        }
                        startBytes = now;
                    }
                    if (round == warmUp + windows * measured) {
                        ping.release();
                        result.complete(new long[] {least, rdma(ctx.channel()).copiedBytes(),
                                rdma(ctx.channel()).zeroCopySends()});
                        return;
                    }
                    send(ctx);
                }
            };
            Channel ch = lo.client(pingPong).option(RdmaChannelOption.REGISTERED_ALLOCATOR, true)
                    .option(ChannelOption.ALLOCATOR, allocator.equals("pooled") ? PooledByteBufAllocator.DEFAULT
                            : io.netty.buffer.ByteBufAllocator.DEFAULT)
                    .connect(lo.address).sync().channel();
            long[] r = result.get(90, TimeUnit.SECONDS);
            long rounds = warmUp + (long) windows * measured;
            assertEquals(zeroCopy ? 0 : 16L * rounds, r[1], "bytes copied");
            assertEquals(zeroCopy ? rounds : 0, r[2], "sends from a slot as is");
            double perMessage = (double) r[0] / measured;
            System.out.printf("the client's event loop allocated %d bytes in %d round trips (%s; the least of %d such"
                    + " windows): %.2f per round trip%n", r[0], measured, zeroCopy ? "zero copy" : "copied", windows,
                    perMessage);
            assertTrue(perMessage < 1, perMessage + " bytes allocated per round trip on the transport's path");
            ch.close().sync();
        } finally {
            io.netty.util.ResourceLeakDetector.setLevel(leakDetection);
        }
    }

    @Test
    void theOptionIsOffByDefault() throws Exception {
        try (Loopback lo = new Loopback().serve(new Echo(), false)) {
            Channel ch = lo.connect(new ChannelInboundHandlerAdapter());
            assertFalse(ch.config().getOption(RdmaChannelOption.REGISTERED_ALLOCATOR));
            ByteBuf b = ch.alloc().directBuffer(10);
            assertFalse(LentByteBuf.of(b) instanceof SendSlotByteBuf);
            b.release();
            assertSame(ch.config().getAllocator(), ch.alloc());
            assertNotNull(ch.alloc());
            ch.close().sync();
        }
    }
}
