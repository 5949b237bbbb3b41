package org.verbs4j.softiwarp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.verbs4j.api.CompletionChannel;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.CompletionWaitSet;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.WcStatus;
import org.verbs4j.api.WorkCompletions;

/**
 * {@link CompletionChannel#wakeup} and {@link CompletionWaitSet} on the software device: a wake-up ends a wait in
 * progress or the next one, a set returns on an event of any of its channels, on a wake-up and on time-out, and a
 * close of a channel or of the set ends a wait with an exception.
 */
@Timeout(60)
class CompletionWaitSetTest {
    private static final int OK = WcStatus.SUCCESS.value();
    /** A wait that "returns promptly" ends within this; the waits it interrupts are 30 s long. */
    private static final long PROMPT_MILLIS = 2_000;

    private final DeviceContext ctx = SoftIwarp.devices().get(0).open();
    private final WorkCompletions wc = WorkCompletions.allocate(16);
    private final ExecutorService waiter = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "wait-set-test-waiter");
        t.setDaemon(true);
        return t;
    });

    @AfterEach
    void close() {
        waiter.shutdownNow();
        wc.close();
        for (var child : ((SoftDeviceContext) ctx).openChildren()) {
            if (child instanceof CompletionQueue) {
                child.close();
            }
        }
        for (var child : ((SoftDeviceContext) ctx).openChildren()) {
            child.close();
        }
        ctx.close();
    }

    private SoftCompletionQueue cq(CompletionChannel ch) {
        return (SoftCompletionQueue) ctx.createCompletionQueue(16, ch, 0);
    }

    /** Waits until {@code t} is parked or blocked (the wait is in progress), at most 5 s. */
    private static void awaitBlocked(Thread t) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline) {
            Thread.State s = t != null ? t.getState() : null;
            if (s == Thread.State.TIMED_WAITING || s == Thread.State.WAITING) {
                Thread.sleep(20);
                return;
            }
            Thread.sleep(1);
        }
        throw new AssertionError("the waiter did not block");
    }

    private <T> CompletableFuture<T> onWaiter(Thread[] who, java.util.function.Supplier<T> wait) {
        return CompletableFuture.supplyAsync(() -> {
            who[0] = Thread.currentThread();
            return wait.get();
        }, waiter);
    }

    private static Thread started(Thread[] who) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (who[0] == null && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        return who[0];
    }

    @Test
    void wakeupEndsAChannelWaitInProgress() throws Exception {
        CompletionChannel ch = ctx.createCompletionChannel();
        SoftCompletionQueue cq = cq(ch);
        cq.requestNotify(false);
        Thread[] who = new Thread[1];
        CompletableFuture<CompletionQueue> w = onWaiter(who, () -> ch.awaitEvent(30, TimeUnit.SECONDS));
        awaitBlocked(started(who));
        long t0 = System.nanoTime();
        ch.wakeup();
        assertNull(w.get(PROMPT_MILLIS, TimeUnit.MILLISECONDS), "woken: null");
        assertTrue(System.nanoTime() - t0 < TimeUnit.MILLISECONDS.toNanos(PROMPT_MILLIS));
        // the wake-up was used up: the next wait waits again, and an event still comes through
        assertNull(ch.awaitEvent(50, TimeUnit.MILLISECONDS));
        assertTrue(cq.complete(1, OK, 0, 0, 0, 1, 0, false));
        assertSame(cq, ch.awaitEvent(1, TimeUnit.SECONDS));
    }

    @Test
    void aPendingWakeupEndsTheNextChannelWaitAtOnceAndDoesNotAddUp() {
        CompletionChannel ch = ctx.createCompletionChannel();
        SoftCompletionQueue cq = cq(ch);
        ch.wakeup();
        ch.wakeup();
        ch.wakeup();
        long t0 = System.nanoTime();
        assertNull(ch.awaitEvent(30, TimeUnit.SECONDS));
        assertTrue(System.nanoTime() - t0 < TimeUnit.MILLISECONDS.toNanos(PROMPT_MILLIS), "returned at once");
        t0 = System.nanoTime();
        assertNull(ch.awaitEvent(200, TimeUnit.MILLISECONDS), "three wake-ups end one wait only");
        assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(190), "the second wait waited");
        // an event and a wake-up both pending: the event first, then the wake-up
        cq.requestNotify(false);
        assertTrue(cq.complete(1, OK, 0, 0, 0, 1, 0, false));
        ch.wakeup();
        assertSame(cq, ch.awaitEvent(1, TimeUnit.SECONDS));
        t0 = System.nanoTime();
        assertNull(ch.awaitEvent(30, TimeUnit.SECONDS));
        assertTrue(System.nanoTime() - t0 < TimeUnit.MILLISECONDS.toNanos(PROMPT_MILLIS));
    }

    @Test
    void aSetReturnsOnAnEventOfAnyOfItsChannels() throws Exception {
        CompletionChannel a = ctx.createCompletionChannel();
        CompletionChannel b = ctx.createCompletionChannel();
        SoftCompletionQueue qa = cq(a);
        SoftCompletionQueue qb = cq(b);
        try (CompletionWaitSet set = ctx.createCompletionWaitSet()) {
            set.add(a);
            set.add(b);
            set.add(b); // again: nothing
            assertEquals(2, set.size());
            for (SoftCompletionQueue fired : new SoftCompletionQueue[] {qb, qa}) {
                qa.requestNotify(false);
                qb.requestNotify(false);
                Thread[] who = new Thread[1];
                CompletableFuture<Integer> w = onWaiter(who, () -> set.await(30, TimeUnit.SECONDS));
                awaitBlocked(started(who));
                assertFalse(w.isDone(), "nothing fired yet");
                assertTrue(fired.complete(7, OK, 0, 0, 0, 1, 0, false));
                assertEquals(1, w.get(PROMPT_MILLIS, TimeUnit.MILLISECONDS), "one event, of " + fired);
                assertEquals(1, fired.poll(wc));
            }
            // both fired before the wait: one await takes (and acknowledges) both
            qa.requestNotify(false);
            qb.requestNotify(false);
            assertTrue(qa.complete(1, OK, 0, 0, 0, 1, 0, false));
            assertTrue(qb.complete(2, OK, 0, 0, 0, 1, 0, false));
            assertEquals(2, set.await(1, TimeUnit.SECONDS));
            assertEquals(0, set.await(50, TimeUnit.MILLISECONDS), "the events were consumed");
            assertNull(a.awaitEvent(10, TimeUnit.MILLISECONDS), "consumed on the channel too");
            // a removed channel no longer wakes the set
            set.remove(a);
            set.remove(a);
            assertEquals(1, set.size());
            qa.requestNotify(false);
            assertTrue(qa.complete(3, OK, 0, 0, 0, 1, 0, false));
            assertEquals(0, set.await(100, TimeUnit.MILLISECONDS));
            assertSame(qa, a.awaitEvent(1, TimeUnit.SECONDS));
        }
    }

    @Test
    void aSetReturnsZeroOnWakeupAndOnTimeout() throws Exception {
        CompletionChannel a = ctx.createCompletionChannel();
        cq(a).requestNotify(false);
        try (CompletionWaitSet set = ctx.createCompletionWaitSet()) {
            set.add(a);
            long t0 = System.nanoTime();
            assertEquals(0, set.await(200, TimeUnit.MILLISECONDS));
            long waited = System.nanoTime() - t0;
            assertTrue(waited >= TimeUnit.MILLISECONDS.toNanos(190) && waited < TimeUnit.SECONDS.toNanos(5),
                    "waited the time-out: " + waited / 1_000_000 + " ms");
            assertEquals(0, set.await(0, TimeUnit.NANOSECONDS), "0: a look without a wait");

            Thread[] who = new Thread[1];
            CompletableFuture<Integer> w = onWaiter(who, () -> set.await(30, TimeUnit.SECONDS));
            awaitBlocked(started(who));
            t0 = System.nanoTime();
            set.wakeup();
            assertEquals(0, w.get(PROMPT_MILLIS, TimeUnit.MILLISECONDS));
            // a wake-up with nobody waiting ends the next wait at once, and only that one
            set.wakeup();
            set.wakeup();
            t0 = System.nanoTime();
            assertEquals(0, set.await(30, TimeUnit.SECONDS));
            assertTrue(System.nanoTime() - t0 < TimeUnit.MILLISECONDS.toNanos(PROMPT_MILLIS));
            t0 = System.nanoTime();
            assertEquals(0, set.await(150, TimeUnit.MILLISECONDS));
            assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(140), "wake-ups do not add up");
        }
    }

    @Test
    void closingAChannelInTheSetEndsTheWaitWithAClearException() throws Exception {
        CompletionChannel a = ctx.createCompletionChannel();
        CompletionChannel b = ctx.createCompletionChannel();
        SoftCompletionQueue qb = cq(b);
        try (CompletionWaitSet set = ctx.createCompletionWaitSet()) {
            set.add(a);
            set.add(b);
            Thread[] who = new Thread[1];
            CompletableFuture<Integer> w = onWaiter(who, () -> set.await(30, TimeUnit.SECONDS));
            awaitBlocked(started(who));
            a.close();
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> w.get(PROMPT_MILLIS, TimeUnit.MILLISECONDS));
            assertTrue(e.getCause() instanceof IllegalStateException, String.valueOf(e.getCause()));
            assertTrue(e.getCause().getMessage().contains("remove it"), e.getCause().getMessage());
            IllegalStateException again = assertThrows(IllegalStateException.class,
                    () -> set.await(10, TimeUnit.MILLISECONDS));
            assertTrue(again.getMessage().contains("closed"), again.getMessage());
            assertThrows(IllegalStateException.class, () -> set.add(a), "a closed channel cannot join");
            set.remove(a); // allowed although closed
            qb.requestNotify(false);
            assertTrue(qb.complete(1, OK, 0, 0, 0, 1, 0, false));
            assertEquals(1, set.await(1, TimeUnit.SECONDS), "the set works on without it");
        }
    }

    @Test
    void closingTheSetEndsItsWaitAndLaterCallsThrow() throws Exception {
        CompletionChannel a = ctx.createCompletionChannel();
        CompletionWaitSet set = ctx.createCompletionWaitSet();
        set.add(a);
        Thread[] who = new Thread[1];
        CompletableFuture<Integer> w = onWaiter(who, () -> set.await(30, TimeUnit.SECONDS));
        awaitBlocked(started(who));
        set.close();
        ExecutionException e = assertThrows(ExecutionException.class, () -> w.get(PROMPT_MILLIS, TimeUnit.MILLISECONDS));
        assertTrue(e.getCause() instanceof IllegalStateException, String.valueOf(e.getCause()));
        assertTrue(set.isClosed());
        assertThrows(IllegalStateException.class, () -> set.await(1, TimeUnit.MILLISECONDS));
        assertThrows(IllegalStateException.class, () -> set.add(a));
        set.wakeup(); // harmless
        set.close(); // twice: harmless
        a.close(); // the set let go of it
    }

    @Test
    void aChannelOfAnotherBackendIsRefused() {
        try (CompletionWaitSet set = ctx.createCompletionWaitSet()) {
            CompletionChannel foreign = new CompletionChannel() {
                @Override
                public DeviceContext context() {
                    return ctx;
                }

                @Override
                public CompletionQueue awaitEvent(long timeout, TimeUnit unit) {
                    return null;
                }

                @Override
                public int fd() {
                    return 3;
                }

                @Override
                public boolean isClosed() {
                    return false;
                }

                @Override
                public void close() {
                }
            };
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> set.add(foreign));
            assertTrue(e.getMessage().contains("backend"), e.getMessage());
            assertEquals(0, set.size());
        }
    }
}
