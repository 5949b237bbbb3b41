package org.verbs4j.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.verbs4j.lab.QpPair.take;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.verbs4j.api.CompletionChannel;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.CompletionWaitSet;
import org.verbs4j.api.Opcode;
import org.verbs4j.api.ReceiveRequests;
import org.verbs4j.api.SendFlags;
import org.verbs4j.api.SendRequests;
import org.verbs4j.lab.QpPair;
import org.verbs4j.lab.Race;

/**
 * Waking a completion channel's wait ({@link CompletionChannel#wakeup}) and waiting on several channels at once
 * ({@link CompletionWaitSet}): a wake-up ends a wait in progress or the next one; a set returns on an event of
 * either of a QP pair's channels, on a wake-up and on time-out; closing a channel of the set, or the set, while a
 * thread waits ends the wait with {@link IllegalStateException}, never a hang or a crash. On every lab device
 * (libibverbs: poll(2) over the channels' fds and an eventfd) and on the software device.
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class CoreVerbsWakeupIT {
    /** A wait that must end at once ends within this (the lab VM is slow): the waits it ends are 60 s long. */
    private static final long PROMPT_SECONDS = 20;
    private static final ExecutorService WAITER = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "wakeup-it-waiter");
        t.setDaemon(true);
        return t;
    });

    @AfterAll
    static void stopWaiters() {
        WAITER.shutdownNow();
    }

    /** Posts a receive on B and sends 32 bytes from A, both signaled. */
    private static void sendAToB(QpPair p, SendRequests s, ReceiveRequests r) {
        r.at(0).wrId(0xB00).sge(p.b.mr.address(), 256, p.b.mr.lkey());
        r.count(1);
        p.b.qp.postReceive(r);
        s.at(0).wrId(0xA00).opcode(Opcode.SEND).flags(SendFlags.SIGNALED).sge(p.a.mr.address(), 32, p.a.mr.lkey());
        p.a.qp.postSend(s);
    }

    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void wakeupEndsAChannelWaitAndAPendingOneTheNextWait(String device) throws Exception {
        try (QpPair p = QpPair.open(device);
             SendRequests s = SendRequests.allocate(1, 1);
             ReceiveRequests r = ReceiveRequests.allocate(1, 1)) {
            p.b.cq.requestNotify(false);
            CompletableFuture<CompletionQueue> w =
                    CompletableFuture.supplyAsync(() -> p.b.channel.awaitEvent(60, TimeUnit.SECONDS), WAITER);
            QpPair.sleep(500); // the waiter is in poll(2) by now
            assertFalse(w.isDone(), "nothing came yet: the wait must still wait");
            p.b.channel.wakeup();
            assertNull(w.get(PROMPT_SECONDS, TimeUnit.SECONDS), "woken: null");

            p.b.channel.wakeup();
            p.b.channel.wakeup();
            long t0 = System.nanoTime();
            assertNull(p.b.channel.awaitEvent(60, TimeUnit.SECONDS), "a pending wake-up ends the next wait");
            assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(PROMPT_SECONDS), "at once");
            t0 = System.nanoTime();
            assertNull(p.b.channel.awaitEvent(300, TimeUnit.MILLISECONDS));
            assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(290),
                    "wake-ups do not add up: the second wait waited");

            // events still come through after the wake-ups
            sendAToB(p, s, r);
            assertSame(p.b.cq, p.b.channel.awaitEvent(60, TimeUnit.SECONDS));
            assertEquals(0xB00, take(p.b.cq, 1).get(0).wrId());
            take(p.a.cq, 1);
        }
    }

    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void aWaitSetReturnsOnTheEventsOfBothChannelsOfAPair(String device) throws Exception {
        try (QpPair p = QpPair.open(device);
             SendRequests s = SendRequests.allocate(1, 1);
             ReceiveRequests r = ReceiveRequests.allocate(1, 1);
             CompletionWaitSet set = p.ctx.createCompletionWaitSet()) {
            set.add(p.a.channel);
            set.add(p.b.channel);
            assertEquals(2, set.size());
            p.a.cq.requestNotify(false);
            p.b.cq.requestNotify(false);
            CompletableFuture<Integer> w = CompletableFuture.supplyAsync(() -> set.await(60, TimeUnit.SECONDS), WAITER);
            QpPair.sleep(500);
            assertFalse(w.isDone(), "nothing came yet: the set must still wait");
            sendAToB(p, s, r); // A's send completion and B's receive: an event on each channel
            int events = w.get(60, TimeUnit.SECONDS);
            assertTrue(events >= 1, "woken by an event: " + events);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (events < 2 && System.nanoTime() < deadline) {
                events += set.await(1, TimeUnit.SECONDS);
            }
            assertEquals(2, events, "one event of each channel, each consumed once");
            assertEquals(0, set.await(300, TimeUnit.MILLISECONDS), "consumed and acknowledged: no event left");
            take(p.a.cq, 1);
            take(p.b.cq, 1);

            // wake-up and time-out
            long t0 = System.nanoTime();
            assertEquals(0, set.await(300, TimeUnit.MILLISECONDS));
            assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(290), "waited the time-out");
            assertEquals(0, set.await(0, TimeUnit.MILLISECONDS), "0: a look");
            CompletableFuture<Integer> woken =
                    CompletableFuture.supplyAsync(() -> set.await(60, TimeUnit.SECONDS), WAITER);
            QpPair.sleep(500);
            assertFalse(woken.isDone());
            set.wakeup();
            assertEquals(0, woken.get(PROMPT_SECONDS, TimeUnit.SECONDS));
            set.wakeup();
            set.wakeup();
            t0 = System.nanoTime();
            assertEquals(0, set.await(60, TimeUnit.SECONDS), "a pending wake-up ends the next wait");
            assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(PROMPT_SECONDS));
            t0 = System.nanoTime();
            assertEquals(0, set.await(300, TimeUnit.MILLISECONDS));
            assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(290), "wake-ups do not add up");

            // a removed channel no longer wakes the set; it works on its own again
            set.remove(p.b.channel);
            assertEquals(1, set.size());
            p.b.cq.requestNotify(false);
            sendAToB(p, s, r);
            take(p.a.cq, 1);
            assertSame(p.b.cq, p.b.channel.awaitEvent(60, TimeUnit.SECONDS));
            take(p.b.cq, 1);
        }
    }

    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void closingAChannelOfTheSetOrTheSetEndsTheWaitWithAnException(String device) throws Exception {
        try (QpPair p = QpPair.open(device)) {
            try (CompletionWaitSet set = p.ctx.createCompletionWaitSet()) {
                CompletionChannel spare = p.ctx.createCompletionChannel();
                set.add(p.b.channel);
                set.add(spare);
                CompletableFuture<Integer> w =
                        CompletableFuture.supplyAsync(() -> set.await(60, TimeUnit.SECONDS), WAITER);
                QpPair.sleep(500);
                assertFalse(w.isDone());
                spare.close(); // waits for the set's wait to leave it, after waking it
                ExecutionException e = assertThrows(ExecutionException.class,
                        () -> w.get(PROMPT_SECONDS, TimeUnit.SECONDS));
                assertTrue(e.getCause() instanceof IllegalStateException, String.valueOf(e.getCause()));
                assertTrue(spare.isClosed());
                IllegalStateException again = assertThrows(IllegalStateException.class,
                        () -> set.await(10, TimeUnit.MILLISECONDS));
                assertTrue(again.getMessage().contains("remove it"), again.getMessage());
                set.remove(spare);
                assertEquals(0, set.await(10, TimeUnit.MILLISECONDS), "works on without it");
            }
            CompletionWaitSet set = p.ctx.createCompletionWaitSet();
            set.add(p.b.channel);
            CompletableFuture<Integer> w = CompletableFuture.supplyAsync(() -> set.await(60, TimeUnit.SECONDS), WAITER);
            QpPair.sleep(500);
            set.close();
            ExecutionException e = assertThrows(ExecutionException.class, () -> w.get(PROMPT_SECONDS, TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof IllegalStateException, String.valueOf(e.getCause()));
            assertThrows(IllegalStateException.class, () -> set.await(1, TimeUnit.MILLISECONDS));
            set.wakeup(); // harmless
            set.close(); // twice: harmless
            p.b.channel.wakeup(); // the closed set let go of the channel: it works as before
            assertNull(p.b.channel.awaitEvent(60, TimeUnit.SECONDS));
        }
    }

    /**
     * Closes a channel of a set, and then a set, at a moment that varies against a wait on another thread: the
     * wait ends with {@link IllegalStateException} (or, for a close that came first, the await throws at once),
     * each time, and nothing hangs or crashes.
     */
    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void closesRacingAWaitEndItCleanly(String device) throws Exception {
        int reps = Math.max(10, Race.REPS / 4);
        try (QpPair p = QpPair.open(device); CompletionWaitSet set = p.ctx.createCompletionWaitSet()) {
            for (int i = 0; i < reps; i++) {
                CompletionChannel ch = p.ctx.createCompletionChannel();
                set.add(ch);
                CompletableFuture<Integer> w = CompletableFuture.supplyAsync(() -> set.await(60, TimeUnit.SECONDS), WAITER);
                if (i % 3 != 0) {
                    Thread.sleep(i % 5);
                }
                ch.close();
                ExecutionException e = assertThrows(ExecutionException.class,
                        () -> w.get(PROMPT_SECONDS, TimeUnit.SECONDS), "round " + i);
                assertTrue(e.getCause() instanceof IllegalStateException, "round " + i + ": " + e.getCause());
                set.remove(ch);
            }
        }
        try (QpPair p = QpPair.open(device)) {
            for (int i = 0; i < reps; i++) {
                CompletionWaitSet set = p.ctx.createCompletionWaitSet();
                set.add(p.b.channel);
                CompletableFuture<Integer> w = CompletableFuture.supplyAsync(() -> set.await(60, TimeUnit.SECONDS), WAITER);
                if (i % 3 != 0) {
                    Thread.sleep(i % 5);
                }
                set.close();
                ExecutionException e = assertThrows(ExecutionException.class,
                        () -> w.get(PROMPT_SECONDS, TimeUnit.SECONDS), "round " + i);
                assertTrue(e.getCause() instanceof IllegalStateException, "round " + i + ": " + e.getCause());
            }
        }
    }
}
