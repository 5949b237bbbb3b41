package org.verbs4j.jnr;

import org.verbs4j.lab.ClosedChecks;

import org.verbs4j.lab.QpPair;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.verbs4j.api.CompletionChannel;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.Rdma;
import org.verbs4j.api.spi.AbstractResource;
import org.verbs4j.lab.Race;

/**
 * A thread waiting in {@link CompletionChannel#awaitEvent} (an endless wait, or a 10 s one) while another closes
 * the completion queue it waits for and then the channel, or the channel alone: closing the CQ does not wait
 * behind the waiter (which keeps waiting: the channel lives on), closing the channel wakes it with
 * {@link IllegalStateException} saying closed, all within {@link #WAKE} of the close's start.
 * {@link Race#REPS} repetitions per device, half of each.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ChannelCloseRaceIT {
    /**
     * How soon the waiter must be woken and the close return. The promise is about 100 ms; the lab VM
     * (emulated, one CPU) is many times slower than a host, so the bound leaves room.
     */
    static final Duration WAKE = Duration.ofMillis(1000);

    /** One repetition: the channel, its CQ (armed), and the wait the racer does. */
    record Waiting(CompletionChannel channel, CompletionQueue cq, boolean endless) {
        static Waiting make(DeviceContext ctx, int rep) {
            CompletionChannel channel = ctx.createCompletionChannel();
            CompletionQueue cq = ctx.createCompletionQueue(4, channel, 0);
            cq.requestNotify(false);
            return new Waiting(channel, cq, rep % 2 == 0);
        }

        void await() {
            CompletionQueue fired = endless ? channel.awaitEvent(Long.MAX_VALUE, TimeUnit.NANOSECONDS)
                    : channel.awaitEvent(10, TimeUnit.SECONDS);
            assertNull(fired, "an event on a CQ that never had a completion");
        }
    }

    /**
     * Every event descriptor a thread polls before it reads is non-blocking: destroying a CQ, QP or rdma_cm
     * id drops its pending events, and a blocking read after the poll would then never return (an rdma_cm
     * event thread that did not stop was seen over 10^4 connect cycles).
     */
    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void eventDescriptorsAreNonBlocking(String device) {
        try (DeviceContext ctx = Rdma.open(device); CompletionChannel channel = ctx.createCompletionChannel();
                org.verbs4j.api.cm.ConnectionManager cm = Rdma.connectionManager()) {
            assertTrue(LibC.isNonBlocking(channel.fd()), "completion channel fd " + channel.fd());
            int cmFd = ((JnrConnectionManager) cm).eventFd();
            assertTrue(LibC.isNonBlocking(cmFd), "rdma_cm event channel fd " + cmFd);
            ctx.setAsyncEventListener(e -> { });
            int asyncFd = org.verbs4j.api.internal.RawMemory.getInt(((JnrDeviceContext) ctx).address()
                    + Layout.CONTEXT_ASYNC_FD);
            assertTrue(LibC.isNonBlocking(asyncFd), "async event fd " + asyncFd);
            ctx.setAsyncEventListener(null);
        }
    }

    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void closingTheCompletionQueueDoesNotWaitForTheWaiterAndTheChannelWakesIt(String device) {
        try (DeviceContext ctx = Rdma.open(device)) {
            int[] rep = new int[1];
            long[] slowestCqClose = new long[1];
            Race.of(device + " CompletionChannel.awaitEvent vs CompletionQueue.close, then CompletionChannel.close",
                    () -> Waiting.make(ctx, rep[0]++))
                    .racer(Waiting::await)
                    .closer(w -> {
                        long t0 = System.nanoTime();
                        w.cq.close();
                        long took = System.nanoTime() - t0;
                        slowestCqClose[0] = Math.max(slowestCqClose[0], took);
                        assertTrue(took < WAKE.toNanos(), "CompletionQueue.close() took " + took / 1_000_000
                                + " ms: it waited behind the thread in awaitEvent");
                        w.channel.close();
                    })
                    .wakesWithin(WAKE)
                    .delays(Duration.ofMillis(3), 0)
                    .reps(Race.REPS / 2)
                    .afterClose(w -> {
                        ClosedChecks.closedFor(w.cq, () -> w.cq.requestNotify(false));
                        ClosedChecks.closedFor(w.channel, () -> w.channel.awaitEvent(1, TimeUnit.MILLISECONDS));
                        assertEquals(List.of(), ((AbstractResource) ctx).openChildren(), "the context's children");
                    })
                    .cleanup(w -> QpPair.closeAllQuietly(null, w.cq, w.channel))
                    .run();
            System.out.printf("RACE %s: the slowest CompletionQueue.close() beside a waiter took %.1f ms%n", device,
                    slowestCqClose[0] / 1e6);
        }
    }

    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void closingTheChannelWakesTheWaiter(String device) {
        try (DeviceContext ctx = Rdma.open(device)) {
            int[] rep = new int[1];
            // the channel's CQ is closed before the race: a channel with a CQ refuses to close
            Race.of(device + " CompletionChannel.awaitEvent vs CompletionChannel.close", () -> {
                Waiting w = Waiting.make(ctx, rep[0]++);
                w.cq.close();
                return w;
            })
                    .racer(Waiting::await)
                    .closer(w -> w.channel.close())
                    .wakesWithin(WAKE)
                    .delays(Duration.ofMillis(3), 0)
                    .reps(Race.REPS / 2)
                    .afterClose(w -> {
                        ClosedChecks.closedFor(w.channel, () -> w.channel.awaitEvent(1, TimeUnit.MILLISECONDS));
                        assertEquals(List.of(), ((AbstractResource) ctx).openChildren(), "the context's children");
                    })
                    .cleanup(w -> QpPair.closeAllQuietly(null, w.cq, w.channel))
                    .run();
        }
    }

    /** A close refused because a CQ still uses the channel answers at once, even while a thread waits on it. */
    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void aRefusedChannelCloseDoesNotWaitBehindTheWaiter(String device) throws Exception {
        try (DeviceContext ctx = Rdma.open(device)) {
            Waiting w = Waiting.make(ctx, 1);
            Thread waiter = new Thread(() -> {
                try {
                    w.await();
                } catch (IllegalStateException expected) {
                    // the channel's close below ends it
                }
            }, "channel-waiter");
            waiter.setDaemon(true);
            waiter.start();
            Thread.sleep(50);
            long t0 = System.nanoTime();
            ClosedChecks.refused(w.channel::close, "closing a channel its CQ uses");
            long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertTrue(took < WAKE.toMillis(), "the refusal took " + took + " ms: it waited behind the waiter");
            w.cq.close();
            assertTrue(waiter.isAlive(), "closing the CQ leaves the channel's waiter waiting");
            w.channel.close();
            waiter.join(WAKE.toMillis());
            assertTrue(!waiter.isAlive(), "the waiter was not woken by the channel's close");
        }
    }
}
