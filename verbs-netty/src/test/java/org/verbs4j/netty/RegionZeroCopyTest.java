package org.verbs4j.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Rendezvous without a copy, on the software iWARP device jsiw_lo: with {@link RdmaChannelOption#REGISTERED_ALLOCATOR}
 * and an RDMA region, a large direct buffer of the channel's allocator lives in the region's staging half, and a write
 * of it is announced as it is (the channel's counters say so, and that nothing was copied); the peer reads every byte
 * right. Its blocks come back when both the buffer and the peer are done with it, in any order and from any thread;
 * buffers an application holds never stop other writes; close races end cleanly.
 */
@Timeout(120)
class RegionZeroCopyTest {
    static final int REGION = RendezvousTest.REGION;
    /** The lent part: half of the 2 MiB staging half. The largest buffer lent is that. */
    static final int LENT = REGION / 4;

    static RdmaChannel connect(Loopback lo, io.netty.channel.ChannelHandler handler) throws InterruptedException {
        return (RdmaChannel) lo.client(handler).option(RdmaChannelOption.REGISTERED_ALLOCATOR, true)
                .connect(lo.address).sync().channel();
    }

    /** A buffer of {@code size} bytes in the region, waiting for blocks to come back if need be. */
    static ByteBuf regionBuffer(Channel ch, int size) {
        return lent(ch, size, RegionByteBuf.class);
    }

    /**
     * A buffer of the channel's allocator of class {@code kind}, flushing the channel while there is none: buffers
     * written and not flushed keep their memory.
     */
    static ByteBuf lent(Channel ch, int size, Class<? extends ByteBuf> kind) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        for (;;) {
            ByteBuf b = ch.alloc().directBuffer(size);
            if (kind.isInstance(LentByteBuf.of(b))) {
                return b;
            }
            b.release();
            assertTrue(System.nanoTime() < deadline, "no " + kind.getSimpleName() + " came free in 20 s");
            ch.flush();
            LockSupport.parkNanos(50_000);
        }
    }

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {65536, 65537, 300_000, LENT})
    void aLargeBufferOfTheAllocatorIsReadFromWhereItIs(int size) throws Exception {
        try (Loopback lo = new Loopback().region(REGION).serve(new RdmaChannelTest.Echo(), false)) {
            RdmaChannelTest.Collect c = new RdmaChannelTest.Collect(size);
            RdmaChannel ch = connect(lo, c);
            assertEquals(LENT, ch.lentBytes());
            ByteBuf b = ch.alloc().directBuffer(size);
            assertTrue(LentByteBuf.of(b) instanceof RegionByteBuf,
                    "a buffer in the region: " + b.getClass().getSimpleName());
            byte[] sent = RdmaChannelTest.random(size, size);
            b.writeBytes(sent);
            ch.writeAndFlush(b).sync();
            assertArrayEquals(sent, c.done.get(60, TimeUnit.SECONDS));
            assertEquals(1, ch.rendezvousWrites());
            assertEquals(1, ch.zeroCopyRendezvous(), "announced as it is");
            assertEquals(0, ch.copiedBytes(), "not a byte copied");
            awaitAllBlocksFree(ch);
            ch.close().sync();
        }
    }

    /**
     * An accepted channel with the option (a child option, applied after the channel was made): its answers, buffers
     * of its own allocator, live in its region and go without a copy as well.
     */
    @Test
    void anAcceptedChannelLendsRegionBuffersToo() throws Exception {
        AllocatorEcho answer = new AllocatorEcho();
        try (Loopback lo = new Loopback().region(REGION).registered().serve(answer, false)) {
            int size = 300_000;
            RdmaChannelTest.Collect c = new RdmaChannelTest.Collect(3 * size);
            RdmaChannel ch = connect(lo, c);
            RdmaChannel child = answer.accepted.get(10, TimeUnit.SECONDS);
            assertEquals(LENT, child.lentBytes(), "the accepted channel lends a quarter of its region");
            byte[] sent = RdmaChannelTest.random(size, 3);
            for (int i = 0; i < 3; i++) {
                ch.writeAndFlush(regionBuffer(ch, size).writeBytes(sent));
            }
            ByteArrayOutputStream expect = new ByteArrayOutputStream();
            for (int i = 0; i < 3; i++) {
                expect.write(sent);
            }
            assertArrayEquals(expect.toByteArray(), c.done.get(60, TimeUnit.SECONDS));
            assertEquals(3, ch.zeroCopyRendezvous());
            assertEquals(3, child.zeroCopyRendezvous(), "the answers went from the child's region as they were");
            assertEquals(0, child.copiedBytes());
            assertNull(answer.failure.get());
            ch.close().sync();
        }
    }

    /** Too large to lend, too small for a rendezvous, or below the channel's threshold: Netty's memory, copied. */
    @Test
    void otherSizesComeFromTheBaseAllocator() throws Exception {
        try (Loopback lo = new Loopback().region(REGION).serve(new RdmaChannelTest.Echo(), false)) {
            RdmaChannel ch = connect(lo, new RdmaChannelTest.Collect(1));
            for (int size : new int[] {LENT + 1, Loopback.PAYLOAD + 1, 65535}) {
                ByteBuf b = ch.alloc().directBuffer(size);
                assertNull(LentByteBuf.of(b), size + " bytes");
                b.release();
            }
            assertTrue(ch.alloc().heapBuffer(100_000).hasArray(), "a heap buffer is a heap buffer");
            ch.config().setRendezvousThreshold(200_000);
            ByteBuf below = ch.alloc().directBuffer(150_000);
            assertFalse(LentByteBuf.of(below) instanceof RegionByteBuf, "below the threshold");
            below.release();
            ch.close().sync();
        }
    }

    /**
     * The lent part runs out: the allocator hands out ordinary memory; a buffer released unwritten gives its blocks
     * back at once; and buffers the application holds never stop copied writes, large or small.
     */
    @Test
    void heldBuffersNeverStopOtherWrites() throws Exception {
        try (Loopback lo = new Loopback().region(REGION).serve(new RdmaChannelTest.Echo(), false)) {
            int held = 4;
            int size = LENT / held;
            int copied = 1_500_000; // by rendezvous, copied, in pieces of at most the copies' room
            RdmaChannelTest.Collect c = new RdmaChannelTest.Collect(copied + 100 + held * size);
            RdmaChannel ch = connect(lo, c);
            List<ByteBuf> buffers = new ArrayList<>();
            for (int i = 0; i < held; i++) {
                buffers.add(ch.alloc().directBuffer(size));
                assertTrue(LentByteBuf.of(buffers.get(i)) instanceof RegionByteBuf);
            }
            assertEquals(0, ch.freeLentBytes());
            ByteBuf none = ch.alloc().directBuffer(size);
            assertFalse(LentByteBuf.of(none) instanceof RegionByteBuf, "nothing left to lend");
            none.release();
            buffers.remove(0).release();
            assertEquals(size, ch.freeLentBytes(), "released unwritten: back at once");
            buffers.add(0, ch.alloc().directBuffer(size));
            assertTrue(LentByteBuf.of(buffers.get(0)) instanceof RegionByteBuf);

            ByteArrayOutputStream expect = new ByteArrayOutputStream();
            byte[] big = RdmaChannelTest.random(copied, 1);
            byte[] small = RdmaChannelTest.random(100, 2);
            ch.write(Unpooled.wrappedBuffer(big));
            ch.writeAndFlush(Unpooled.wrappedBuffer(small)).sync(); // all lent blocks are held meanwhile
            expect.write(big);
            expect.write(small);
            for (int i = 0; i < held; i++) {
                byte[] part = RdmaChannelTest.random(size, 10 + i);
                buffers.get(i).writeBytes(part);
                expect.write(part);
                ch.write(buffers.get(i));
            }
            ch.flush();
            assertArrayEquals(expect.toByteArray(), c.done.get(60, TimeUnit.SECONDS));
            assertEquals(held, ch.zeroCopyRendezvous());
            assertEquals(copied + 100, ch.copiedBytes(), "only the heap buffers copied");
            awaitAllBlocksFree(ch);
            ch.close().sync();
        }
    }

    /**
     * 300 writes in random order and flushes: region buffers of random sizes, slot buffers, heap buffers large and
     * small. The stream arrives whole, and the region's blocks are all back at the end.
     */
    @Test
    void mixedWritesKeepTheirOrder() throws Exception {
        Random r = new Random(21);
        int count = 300;
        byte[][] parts = new byte[count][];
        int[] kinds = new int[count];
        int total = 0;
        for (int i = 0; i < count; i++) {
            kinds[i] = r.nextInt(4);
            int size = switch (kinds[i]) {
                case 0 -> 65536 + r.nextInt(LENT / 2); // in the region
                case 1 -> 1 + r.nextInt(Loopback.PAYLOAD); // a slot
                case 2 -> 70_000 + r.nextInt(400_000); // copied by rendezvous
                default -> 1 + r.nextInt(20_000); // copied into sends
            };
            parts[i] = RdmaChannelTest.random(size, i);
            total += size;
        }
        try (Loopback lo = new Loopback().region(REGION).serve(new RdmaChannelTest.Echo(), false)) {
            RdmaChannelTest.Collect c = new RdmaChannelTest.Collect(total);
            RdmaChannel ch = connect(lo, c);
            ByteArrayOutputStream expect = new ByteArrayOutputStream();
            for (int i = 0; i < count; i++) {
                ByteBuf b = switch (kinds[i]) {
                    case 0 -> regionBuffer(ch, parts[i].length);
                    case 1 -> lent(ch, parts[i].length, SendSlotByteBuf.class);
                    default -> Unpooled.wrappedBuffer(parts[i]);
                };
                if (kinds[i] < 2) {
                    b.writeBytes(parts[i]);
                }
                expect.write(parts[i]);
                if (r.nextInt(3) == 0) {
                    ch.writeAndFlush(b);
                } else {
                    ch.write(b);
                }
            }
            ch.flush();
            assertArrayEquals(expect.toByteArray(), c.done.get(90, TimeUnit.SECONDS));
            assertTrue(ch.zeroCopyRendezvous() > 40, "region buffers announced as they are: " + ch.zeroCopyRendezvous());
            awaitAllBlocksFree(ch);
            ch.close().sync();
        }
    }

    /**
     * A region buffer written twice (retained): the first write announces it as it is, the second, while the first
     * is not released yet, copies it. A buffer read partly before its write is announced from its reader index.
     */
    @Test
    void aBufferWrittenTwiceIsCopiedTheSecondTime() throws Exception {
        try (Loopback lo = new Loopback().region(REGION).serve(new RdmaChannelTest.Echo(), false)) {
            int size = 200_000;
            RdmaChannelTest.Collect c = new RdmaChannelTest.Collect(2 * size + size - 1000);
            RdmaChannel ch = connect(lo, c);
            byte[] sent = RdmaChannelTest.random(size, 5);
            ByteBuf b = ch.alloc().directBuffer(size).writeBytes(sent);
            assertTrue(LentByteBuf.of(b) instanceof RegionByteBuf);
            b.retain();
            ch.write(b);
            ch.writeAndFlush(b).sync();
            ByteBuf skip = ch.alloc().directBuffer(size).writeBytes(sent);
            skip.skipBytes(1000);
            ch.writeAndFlush(skip).sync();
            ByteArrayOutputStream expect = new ByteArrayOutputStream();
            expect.write(sent);
            expect.write(sent);
            expect.write(sent, 1000, size - 1000);
            assertArrayEquals(expect.toByteArray(), c.done.get(60, TimeUnit.SECONDS));
            assertEquals(3, ch.rendezvousWrites());
            assertEquals(2, ch.zeroCopyRendezvous());
            assertEquals(size, ch.copiedBytes(), "the second write of the same buffer");
            awaitAllBlocksFree(ch);
            ch.close().sync();
        }
    }

    /** A buffer that grows past its capacity moves to other memory and gives its blocks back; it is then copied. */
    @Test
    void aBufferThatGrowsLeavesTheRegion() throws Exception {
        try (Loopback lo = new Loopback().region(REGION).serve(new RdmaChannelTest.Echo(), false)) {
            int size = 300_000;
            RdmaChannelTest.Collect c = new RdmaChannelTest.Collect(size);
            RdmaChannel ch = connect(lo, c);
            ByteBuf b = ch.alloc().directBuffer(100_000, 1 << 21);
            assertTrue(LentByteBuf.of(b) instanceof RegionByteBuf);
            assertTrue(ch.freeLentBytes() < LENT);
            byte[] sent = RdmaChannelTest.random(size, 6);
            b.writeBytes(sent);
            assertEquals(LENT, ch.freeLentBytes(), "grown into other memory: the blocks are back");
            ch.writeAndFlush(b).sync();
            assertArrayEquals(sent, c.done.get(60, TimeUnit.SECONDS));
            assertEquals(0, ch.zeroCopyRendezvous());
            assertEquals(size, ch.copiedBytes());
            ch.close().sync();
        }
    }

    /**
     * Buffers held past their channel's close stay usable memory (the region is plain Java memory); one written and
     * retained is released by another thread while the peer's release comes: every block comes back exactly once.
     */
    @Test
    void buffersOutliveTheirChannelAndAnyThreadReleasesThem() throws Exception {
        try (Loopback lo = new Loopback().region(REGION).serve(new RdmaChannelTest.Echo(), false)) {
            int size = 100_000;
            int rounds = 50;
            RdmaChannelTest.Collect c = new RdmaChannelTest.Collect(rounds * size);
            RdmaChannel ch = connect(lo, c);
            byte[] sent = RdmaChannelTest.random(size, 7);
            ByteArrayOutputStream expect = new ByteArrayOutputStream();
            Random r = new Random(8);
            for (int i = 0; i < rounds; i++) {
                ByteBuf b = regionBuffer(ch, size).writeBytes(sent);
                b.retain();
                ch.writeAndFlush(b);
                expect.write(sent);
                if (r.nextBoolean()) {
                    LockSupport.parkNanos(r.nextInt(200_000));
                }
                b.release(); // this thread's hold, racing the event loop's release of the write and the peer's
            }
            assertArrayEquals(expect.toByteArray(), c.done.get(60, TimeUnit.SECONDS));
            awaitAllBlocksFree(ch);
            ByteBuf kept = ch.alloc().directBuffer(size);
            assertTrue(LentByteBuf.of(kept) instanceof RegionByteBuf);
            ch.close().sync();
            kept.writeBytes(sent);
            byte[] back = new byte[size];
            kept.getBytes(0, back);
            assertArrayEquals(sent, back, "a buffer of a closed channel is still memory");
            kept.release();
            ByteBuf after = ch.alloc().directBuffer(size);
            assertFalse(LentByteBuf.of(after) instanceof RegionByteBuf, "a closed channel lends nothing");
            after.release();
        }
    }

    /**
     * Either side closes while region buffers are announced, read, released and echoed: both channels end (no hang),
     * the JVM lives, and a good channel then works.
     */
    @Test
    void closesWhileRegionBuffersAreInFlightEndCleanly() throws Exception {
        AtomicReference<CompletableFuture<Channel>> accepted = new AtomicReference<>();
        RendezvousTest.EchoWatch serverSide = new RendezvousTest.EchoWatch() {
            @Override
            public void channelActive(ChannelHandlerContext ctx) {
                accepted.get().complete(ctx.channel());
            }
        };
        Random r = new Random(9);
        byte[] payload = RdmaChannelTest.random(200_000, 4);
        try (Loopback lo = new Loopback().region(REGION).serve(serverSide, false)) {
            for (int round = 0; round < 20; round++) {
                accepted.set(new CompletableFuture<>());
                RdmaChannel ch = connect(lo, new RdmaChannelTest.Echo());
                Channel child = accepted.get().get(10, TimeUnit.SECONDS);
                for (int i = 0; i < 4; i++) {
                    ByteBuf b = ch.alloc().directBuffer(payload.length);
                    ch.write(b.writeBytes(payload));
                }
                ch.flush();
                Thread.sleep(r.nextInt(30));
                (r.nextBoolean() ? ch : child).close();
                assertTrue(ch.closeFuture().await(40, TimeUnit.SECONDS), "round " + round + ": the client did not close");
                assertTrue(child.closeFuture().await(40, TimeUnit.SECONDS), "round " + round + ": the child did not close");
            }
            RdmaChannelTest.Collect c = new RdmaChannelTest.Collect(payload.length);
            RdmaChannel ch = connect(lo, c);
            ch.writeAndFlush(regionBuffer(ch, payload.length).writeBytes(payload)).sync();
            assertArrayEquals(payload, c.done.get(60, TimeUnit.SECONDS));
            assertEquals(1, ch.zeroCopyRendezvous());
            ch.close().sync();
            assertNull(serverSide.failure.get() instanceof RdmaChannel.ProtocolViolation ? serverSide.failure.get()
                    : null, "no protocol violation between two channels of this transport");
        }
    }

    /** Every block of the lent part is back (the peer released every rendezvous), within 20 s. */
    static void awaitAllBlocksFree(RdmaChannel ch) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        long lent = ch.lentBytes();
        while (ch.freeLentBytes() != lent) {
            assertTrue(System.nanoTime() < deadline, "lent bytes not back: " + (lent - ch.freeLentBytes()));
            LockSupport.parkNanos(1_000_000);
        }
    }
}
