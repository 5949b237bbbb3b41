package org.verbs4j.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * An event loop whose connected channels are idle sleeps on their completion channels: it uses (almost) no CPU and
 * makes (almost) no turns, and a message or a task that comes wakes it at once. On the software device jsiw_lo.
 * The loops here park at most {@link #MAX_PARK_NANOS} (100 ms) where they cannot sleep: a loop that parked instead of
 * sleeping would find an idle connection's message only after such a park, and the latency bounds below, far
 * under it, tell the two apart on a loaded host too.
 */
@Timeout(120)
class IdleLoopSleepTest {
    /** Long naps: what a message waits when a loop naps instead of sleeping (a sleeping loop does not nap). */
    private static final long MAX_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private final AtomicReference<RdmaIoHandler> serverHandler = new AtomicReference<>();
    private final AtomicReference<RdmaIoHandler> clientHandler = new AtomicReference<>();
    private MultiThreadIoEventLoopGroup serverGroup;
    private MultiThreadIoEventLoopGroup clientGroup;
    private Channel server;
    private Channel client;
    private final Reader reader = new Reader();

    /** The factory of {@link RdmaIoHandler#newFactory()}, keeping the handler for the test. */
    private static IoHandlerFactory capturing(AtomicReference<RdmaIoHandler> into, long maxParkNanos) {
        return executor -> {
            RdmaIoHandler h = new RdmaIoHandler(RdmaIoHandler.DEFAULT_SPIN_NANOS, maxParkNanos);
            into.set(h);
            return h;
        };
    }

    /** Completes {@link #next} with each message's first long. */
    static final class Reader extends ChannelInboundHandlerAdapter {
        volatile CompletableFuture<Long> next = new CompletableFuture<>();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf b = (ByteBuf) msg;
            try {
                next.complete(b.readLong());
            } finally {
                b.release();
            }
        }
    }

    /** The idle test's loops have the default naps (1 ms), the latency tests' long ones. */
    @BeforeEach
    void connect(TestInfo test) throws Exception {
        long park = test.getTestMethod().get().getName().startsWith("anIdle") ? RdmaIoHandler.DEFAULT_MAX_PARK_NANOS
                : MAX_PARK_NANOS;
        serverGroup = new MultiThreadIoEventLoopGroup(1, capturing(serverHandler, park));
        clientGroup = new MultiThreadIoEventLoopGroup(1, capturing(clientHandler, park));
        InetSocketAddress address = new InetSocketAddress("127.0.0.1", Loopback.nextPort());
        server = new ServerBootstrap().group(serverGroup).channel(RdmaServerChannel.class)
                .childHandler(new RdmaChannelTest.Echo()).bind(address).sync().channel();
        client = new Bootstrap().group(clientGroup).channel(RdmaChannel.class).handler(reader)
                .connect(address).sync().channel();
        // one round trip: the server's accepted channel is registered and connected
        assertEquals(1L, roundTrip(1).get(10, TimeUnit.SECONDS));
    }

    @AfterEach
    void close() throws InterruptedException {
        if (client != null) {
            client.close().await(5, TimeUnit.SECONDS);
        }
        if (server != null) {
            server.close().await(5, TimeUnit.SECONDS);
        }
        clientGroup.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
        serverGroup.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
    }

    private CompletableFuture<Long> roundTrip(long value) {
        CompletableFuture<Long> f = new CompletableFuture<>();
        reader.next = f;
        client.writeAndFlush(Unpooled.buffer(8).writeLong(value));
        return f;
    }

    /** {@return the handler's naps and sleeps so far} On its loop. */
    private static long[] counters(RdmaIoHandler h) {
        return new long[] {h.naps(), h.sleeps()};
    }

    private static <T> T onLoop(EventLoop loop, java.util.concurrent.Callable<T> c) throws Exception {
        return loop.submit(c).get(10, TimeUnit.SECONDS);
    }

    @Test
    void anIdleLoopWithAConnectedChannelSleeps() throws Exception {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        EventLoop clientLoop = client.eventLoop();
        EventLoop serverLoop = server.eventLoop();
        long clientThread = onLoop(clientLoop, () -> Thread.currentThread().getId());
        long serverThread = onLoop(serverLoop, () -> Thread.currentThread().getId());
        Thread.sleep(200); // both loops are asleep by now
        long[] client0 = onLoop(clientLoop, () -> counters(clientHandler.get()));
        long[] server0 = onLoop(serverLoop, () -> counters(serverHandler.get()));
        long clientCpu = mx.getThreadCpuTime(clientThread);
        long serverCpu = mx.getThreadCpuTime(serverThread);
        long t0 = System.nanoTime();
        Thread.sleep(1000);
        long wall = System.nanoTime() - t0;
        long clientUsed = mx.getThreadCpuTime(clientThread) - clientCpu;
        long serverUsed = mx.getThreadCpuTime(serverThread) - serverCpu;
        long[] client1 = onLoop(clientLoop, () -> counters(clientHandler.get()));
        long[] server1 = onLoop(serverLoop, () -> counters(serverHandler.get()));
        long clientNaps = client1[0] - client0[0];
        long serverNaps = server1[0] - server0[0];
        long clientSleeps = client1[1] - client0[1];
        long serverSleeps = server1[1] - server0[1];
        System.out.printf("idle for %d ms: client loop %d naps, %d sleeps, %d us CPU; server loop %d naps, %d sleeps, "
                + "%d us CPU%n", wall / 1_000_000, clientNaps, clientSleeps, clientUsed / 1000, serverNaps,
                serverSleeps, serverUsed / 1000);
        // a loop that naps instead of sleeping takes 1000 naps and more a second (up to 1 ms each); a sleeping loop
        // takes the naps after its few wake-ups: the task that read the counters wakes it once, and after a wake-up
        // it spins 50 us and naps (1 us doubling up to 1 ms, about 11 naps) before it sleeps again. How many turns
        // the spin makes depends on the CPU's speed, so the naps and the sleeps are counted, not the turns
        assertTrue(clientSleeps <= 5, "an idle client loop woke " + clientSleeps + " times in a second");
        assertTrue(serverSleeps <= 5, "an idle server loop woke " + serverSleeps + " times in a second");
        assertTrue(clientNaps <= 12 * (clientSleeps + 1),
                "an idle client loop napped " + clientNaps + " times in a second, after " + clientSleeps + " sleeps");
        assertTrue(serverNaps <= 12 * (serverSleeps + 1),
                "an idle server loop napped " + serverNaps + " times in a second, after " + serverSleeps + " sleeps");
        if (mx.isThreadCpuTimeSupported()) {
            assertTrue(clientUsed < wall / 20, "an idle client loop used " + clientUsed / 1000 + " us of CPU in "
                    + wall / 1000 + " us");
            assertTrue(serverUsed < wall / 20, "an idle server loop used " + serverUsed / 1000 + " us of CPU in "
                    + wall / 1000 + " us");
        }
        assertTrue(onLoop(clientLoop, () -> clientHandler.get().sleeps()) > 0, "the client loop slept on its set");
        assertTrue(onLoop(serverLoop, () -> serverHandler.get().sleeps()) > 0, "the server loop slept on its set");
        assertEquals(7L, roundTrip(7).get(10, TimeUnit.SECONDS), "and the connection still works");
    }

    @Test
    void aMessageToSleepingLoopsIsDeliveredPromptly() throws Exception {
        int rounds = 15;
        long[] micros = new long[rounds];
        for (int i = 0; i < rounds; i++) {
            // both loops go to sleep: with naps of up to 100 ms a loop naps (16 us doubling) for about 130 ms after its
            // last work before it sleeps, and the send's completion and the credits that follow the echo are work too;
            // at 250 ms one loop was still in its last nap in most rounds. Napping loops would nap 100 ms by now
            Thread.sleep(500);
            long t0 = System.nanoTime();
            assertEquals((long) i, roundTrip(i).get(10, TimeUnit.SECONDS));
            micros[i] = (System.nanoTime() - t0) / 1000;
        }
        Arrays.sort(micros);
        long median = micros[rounds / 2];
        System.out.printf("idle-then-send round trip (task to the client loop, the server loop woken by the message, "
                + "the client loop by the echo): median %d us, min %d us, max %d us%n", median, micros[0],
                micros[rounds - 1]);
        // with naps of up to 100 ms instead of a sleep, the server's loop and then the client's each find the message
        // only when their nap ends: a median of about 100 ms. Asleep, the loops wake at the message: what is left is
        // the threads' wake-ups (2 to 10 ms on a host whose two cores are busy with other work)
        assertTrue(median < 30_000, "median idle-then-send round trip " + median + " us");
    }

    @Test
    void aTaskToASleepingLoopRunsPromptly() throws Exception {
        EventLoop loop = client.eventLoop();
        int rounds = 21;
        long[] micros = new long[rounds];
        for (int i = 0; i < rounds; i++) {
            Thread.sleep(100);
            CountDownLatch ran = new CountDownLatch(1);
            long t0 = System.nanoTime();
            loop.execute(ran::countDown);
            assertTrue(ran.await(10, TimeUnit.SECONDS), "a task to a sleeping loop did not run: a lost wake-up");
            micros[i] = (System.nanoTime() - t0) / 1000;
        }
        Arrays.sort(micros);
        System.out.printf("a task to a sleeping loop: median %d us, max %d us%n", micros[rounds / 2], micros[rounds - 1]);
        assertTrue(micros[rounds / 2] < 5_000, "median task latency " + micros[rounds / 2] + " us");
        assertTrue(onLoop(loop, () -> clientHandler.get().sleeps()) > 0, "the loop slept on its set");
    }
}
