package org.verbs4j.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.IoEventLoop;
import io.netty.channel.IoHandle;
import io.netty.channel.IoRegistration;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The event loop's handler without any device: wake-ups, idle CPU, registration. */
@Timeout(30)
class RdmaIoHandlerTest {
    private final MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory());
    private final IoEventLoop loop = group.next();

    @AfterEach
    void stop() throws InterruptedException {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
    }

    /** A channel stand-in: counts its polls, reports work while {@code work} is above 0. */
    static class Handle implements RdmaIoHandle {
        final AtomicInteger polls = new AtomicInteger();
        final AtomicInteger work = new AtomicInteger();

        @Override
        public int poll() {
            polls.incrementAndGet();
            return work.getAndUpdate(w -> Math.max(0, w - 1)) > 0 ? 1 : 0;
        }

        @Override
        public void close() {
        }
    }

    private long cpuNanos(long threadId) {
        return ManagementFactory.getThreadMXBean().getThreadCpuTime(threadId);
    }

    private long loopThreadId() throws Exception {
        return loop.submit(() -> Thread.currentThread().getId()).get(5, TimeUnit.SECONDS);
    }

    @Test
    void everyTaskFromAnotherThreadWakesTheLoop() throws Exception {
        loop.register(new Handle()).sync(); // a registered channel: the loop parks in short naps
        int n = 2000;
        CountDownLatch ran = new CountDownLatch(n);
        long worst = 0;
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            CountDownLatch one = new CountDownLatch(1);
            loop.execute(() -> {
                one.countDown();
                ran.countDown();
            });
            assertTrue(one.await(5, TimeUnit.SECONDS), "task " + i + " was not run: a lost wake-up");
            worst = Math.max(worst, System.nanoTime() - t0);
            if (i % 100 == 0) {
                Thread.sleep(2); // let the loop reach its park now and then
            }
        }
        assertTrue(ran.await(5, TimeUnit.SECONDS));
        System.out.printf("worst task latency %d us%n", worst / 1000);
    }

    @Test
    void aLoopWithoutChannelsSleepsUntilATaskComes() throws Exception {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        if (!mx.isThreadCpuTimeSupported()) {
            return;
        }
        long id = loopThreadId();
        Thread.sleep(100);
        long before = cpuNanos(id);
        Thread.sleep(500);
        long used = cpuNanos(id) - before;
        assertTrue(used < TimeUnit.MILLISECONDS.toNanos(20), "an idle loop used " + used / 1000 + " us of CPU in 500 ms");
        assertEquals(id, loopThreadId()); // and a task still wakes it
    }

    /** A stand-in that cannot sleep (a write waiting for a send credit): the loop parks in naps and looks again. */
    static final class SleeplessHandle extends Handle {
        @Override
        public boolean canSleep() {
            return false;
        }
    }

    @Test
    void aChannelThatCannotSleepIsPolledInNapsAtLittleCpu() throws Exception {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Handle h = new SleeplessHandle();
        loop.register(h).sync();
        long id = loopThreadId();
        Thread.sleep(100);
        int polls0 = h.polls.get();
        long before = mx.isThreadCpuTimeSupported() ? cpuNanos(id) : 0;
        Thread.sleep(500);
        int polls = h.polls.get() - polls0;
        assertTrue(polls > 50 && polls < 2000, polls + " polls in 500 ms (back-off parks up to 1 ms)");
        if (mx.isThreadCpuTimeSupported()) {
            long used = cpuNanos(id) - before;
            assertTrue(used < TimeUnit.MILLISECONDS.toNanos(100), "an idle channel's loop used " + used / 1000
                    + " us of CPU in 500 ms");
        }
    }

    @Test
    void aChannelWithoutCompletionChannelThatCanSleepLetsTheLoopSleep() throws Exception {
        Handle h = new Handle(); // not connected yet, or a server channel: what it waits for comes as a task
        loop.register(h).sync();
        Thread.sleep(100);
        int polls0 = h.polls.get();
        Thread.sleep(500);
        int polls = h.polls.get() - polls0;
        assertTrue(polls < 20, polls + " polls in 500 ms: the loop should sleep until a task comes");
        CountDownLatch ran = new CountDownLatch(1);
        loop.execute(ran::countDown);
        assertTrue(ran.await(5, TimeUnit.SECONDS), "a task wakes it");
    }

    @Test
    void workKeepsTheLoopPollingAndCancelStopsIt() throws Exception {
        Handle h = new Handle();
        IoRegistration r = loop.register(h).sync().getNow();
        h.work.set(10_000);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (h.work.get() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertEquals(0, h.work.get(), "the loop stopped polling a channel with work");
        assertTrue(r.isValid());
        assertTrue(r.cancel());
        assertFalse(r.isValid());
        assertFalse(r.cancel());
        loop.submit(() -> { }).sync(); // one turn after the cancel
        int polls = h.polls.get();
        Thread.sleep(50);
        assertEquals(polls, h.polls.get(), "a cancelled registration is still polled");
    }

    @Test
    void onlyVerbs4jHandlesAreCompatible() {
        assertTrue(loop.isCompatible(Handle.class));
        assertFalse(loop.isCompatible(IoHandle.class));
        assertTrue(loop.isIoType(RdmaIoHandler.class));
    }

    @Test
    void factoryArgumentsAreChecked() {
        assertThrows(IllegalArgumentException.class, () -> RdmaIoHandler.newFactory(-1, RdmaIoHandler.DEFAULT_MAX_PARK_NANOS));
        assertThrows(IllegalArgumentException.class, () -> RdmaIoHandler.newFactory(0, RdmaIoHandler.MIN_PARK_NANOS - 1));
        RdmaIoHandler.newFactory(0, RdmaIoHandler.MIN_PARK_NANOS);
    }
}
