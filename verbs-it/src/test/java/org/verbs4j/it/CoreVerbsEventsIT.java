package org.verbs4j.it;

import org.verbs4j.lab.Lab;
import org.verbs4j.lab.QpPair;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.verbs4j.lab.QpPair.take;
import static org.verbs4j.lab.QpPair.takeOne;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.Opcode;
import org.verbs4j.api.ReceiveRequests;
import org.verbs4j.api.SendFlags;
import org.verbs4j.api.SendRequests;
import org.verbs4j.api.WaitStrategy;
import org.verbs4j.api.WcOpcode;
import org.verbs4j.api.WcStatus;
import org.verbs4j.api.WorkCompletions;
import org.verbs4j.lab.QpPair.Wc;

/**
 * Completion channels: a thread blocked in {@link WaitStrategy#blocking()} or
 * {@link org.verbs4j.api.CompletionChannel#awaitEvent} wakes when the peer sends; solicited-only
 * notification wakes only for a solicited message; a wait with nothing coming times out with null.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class CoreVerbsEventsIT {
    private static final ExecutorService WAITER = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "core-verbs-waiter");
        t.setDaemon(true);
        return t;
    });

    @AfterAll
    static void stopWaiters() {
        WAITER.shutdownNow();
    }

    /** A QP pair with a send and {@code receives} receive requests, for SEND messages from A to B. */
    private static final class Messages implements AutoCloseable {
        final QpPair p;
        final SendRequests s = SendRequests.allocate(1, 1);
        final ReceiveRequests r;

        Messages(String device, int receives) {
            r = ReceiveRequests.allocate(receives, 1);
            p = QpPair.open(device);
        }

        /** Posts {@code n} receives of 256 bytes on B, wrIds 0xB00, 0xB01, ... */
        void receive(int n) {
            for (int i = 0; i < n; i++) {
                r.at(i).wrId(0xB00 + i).sge(p.b.mr.address() + i * 256L, 256, p.b.mr.lkey());
            }
            r.count(n);
            p.b.qp.postReceive(r);
        }

        /** {@link #receive}, then arms B's CQ for the next completion ({@code solicitedOnly}: the next solicited one). */
        void receiveNotified(int n, boolean solicitedOnly) {
            receive(n);
            p.b.cq.requestNotify(solicitedOnly);
        }

        /** A signaled 32-byte SEND from A with these extra flags. */
        void send(long wrId, int flags) {
            s.at(0).wrId(wrId).opcode(Opcode.SEND).flags(SendFlags.SIGNALED | flags).sge(p.a.mr.address(), 32, p.a.mr.lkey());
            p.a.qp.postSend(s);
        }

        /** B's channel's next event, waited for on another thread. */
        CompletableFuture<CompletionQueue> awaitEvent(long seconds) {
            return CompletableFuture.supplyAsync(() -> p.b.channel.awaitEvent(seconds, TimeUnit.SECONDS), WAITER);
        }

        @Override
        public void close() {
            p.close();
            r.close();
            s.close();
        }
    }

    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void blockingWaitWakesWhenThePeerSends(String device) throws Exception {
        try (Messages m = new Messages(device, 4)) {
            QpPair p = m.p;
            m.receive(1);
            long start = System.nanoTime();
            Future<Wc> woken = WAITER.submit(() -> {
                try (WorkCompletions wc = WorkCompletions.allocate(4)) {
                    int n = WaitStrategy.blocking().await(p.b.cq, wc, TimeUnit.SECONDS.toNanos(60));
                    return n == 0 ? null : Wc.of(wc, 0);
                }
            });
            QpPair.sleep(1000); // the waiter is asleep in ibv_get_cq_event (or poll(2) before it) by now
            assertFalse(woken.isDone(), "nothing was sent yet, the blocking wait must still wait");
            m.send(0xA00, 0);
            Wc w = woken.get(60, TimeUnit.SECONDS);
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(w != null, "the blocking wait timed out instead of waking");
            assertEquals(WcStatus.SUCCESS, w.status(), w.toString());
            assertEquals(WcOpcode.RECV, w.opcode(), w.toString());
            assertEquals(0xB00, w.wrId(), w.toString());
            assertTrue(millis >= 900, "woke after the send, not before: " + millis + " ms");
            System.out.println(device + ": blocking wait woke " + millis + " ms after it started (send at ~1000 ms)");
            expectSendOk(p);
        }
    }

    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void awaitEventTimesOutWithNull(String device) {
        try (QpPair p = QpPair.open(device)) {
            p.b.cq.requestNotify(false);
            long start = System.nanoTime();
            CompletionQueue fired = p.b.channel.awaitEvent(300, TimeUnit.MILLISECONDS);
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertNull(fired, "nothing completed, so no event");
            assertTrue(millis >= 290 && millis < 10_000, "waited the timeout: " + millis + " ms");
            try (WorkCompletions wc = WorkCompletions.allocate(1)) {
                assertEquals(0, WaitStrategy.blocking().await(p.b.cq, wc, TimeUnit.MILLISECONDS.toNanos(200)),
                        "WaitStrategy.blocking() times out with 0");
            }
            assertSame(p.b.channel, p.b.cq.channel());
            if (Lab.isKernelDevice(device)) {
                assertTrue(p.b.channel.fd() >= 0, "a kernel device's channel has a file descriptor");
            } else {
                assertEquals(-1, p.b.channel.fd(), "a channel with no file descriptor says -1");
            }
        }
    }

    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void awaitEventReturnsTheQueueThatFired(String device) throws Exception {
        try (Messages m = new Messages(device, 4)) {
            m.receiveNotified(1, false);
            m.send(0xA01, 0);
            QpPair.Side b = m.p.b;
            CompletionQueue fired = b.channel.awaitEvent(30, TimeUnit.SECONDS);
            assertSame(b.cq, fired, "the event names B's CQ object");
            assertEquals(0xB00, takeOne(b.cq).wrId());
            expectSendOk(m.p);
        }
    }

    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void solicitedOnlyNotificationIgnoresUnsolicitedMessages(String device) throws Exception {
        try (Messages m = new Messages(device, 4)) {
            QpPair p = m.p;
            m.receiveNotified(2, true);
            boolean siw = Lab.isLinuxSiw(p.attrs);
            long waitSeconds = siw ? 6 : 60; // see the siw branch below
            CompletableFuture<CompletionQueue> woken = m.awaitEvent(waitSeconds);
            m.send(0xA02, 0);
            // the unsolicited message arrives ...
            Wc first = takeOne(p.b.cq);
            assertEquals(0xB00, first.wrId(), first.toString());
            expectSendOk(p);
            // ... and does not wake the waiter
            QpPair.sleep(1000);
            assertFalse(woken.isDone(), device + ": an unsolicited message woke a solicited-only wait: " + getNow(woken));
            m.send(0xA03, SendFlags.SOLICITED);
            if (siw) {
                // siw (Linux 6.1) never wakes a solicited-only wait: it reports receive completions to the
                // notification check as "signaled", not "solicited", so only a next-completion arm fires. Seen in
                // every lab run; asserted so that a fixed siw shows up here. A bug of that driver (found by its
                // vendor_id), not of iWARP: other iWARP devices (the software one) are held to the rule below.
                CompletionQueue fired = woken.get(60, TimeUnit.SECONDS); // the 6 s wait ends
                assertEquals(null, fired, device + ": siw now wakes solicited-only waits: update this test and the docs");
                Wc second = takeOne(p.b.cq);
                assertEquals(0xB01, second.wrId(), "the solicited message did arrive: " + second);
                expectSendOk(p);
                // a next-completion arm still works on the same CQ
                m.receiveNotified(1, false);
                CompletableFuture<CompletionQueue> any = m.awaitEvent(60);
                m.send(0xA04, 0);
                assertSame(p.b.cq, any.get(60, TimeUnit.SECONDS), "next-completion notification on " + device);
                return;
            }
            CompletionQueue fired = woken.get(60, TimeUnit.SECONDS);
            assertSame(p.b.cq, fired, device + ": the SOLICITED message must wake the solicited-only wait (null = "
                    + "timed out)");
            Wc second = takeOne(p.b.cq);
            assertEquals(0xB01, second.wrId(), second.toString());
            expectSendOk(p);
        }
    }

    private static Object getNow(CompletableFuture<CompletionQueue> f) {
        try {
            return f.getNow(null);
        } catch (RuntimeException e) {
            return e;
        }
    }

    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void blockingStrategyNeedsAChannel(String device) {
        try (QpPair p = QpPair.open(device); CompletionQueue plain = p.ctx.createCompletionQueue(4);
                WorkCompletions wc = WorkCompletions.allocate(1)) {
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> WaitStrategy.blocking().await(plain, wc, 1000));
            assertTrue(e.getMessage().contains("no completion channel"), e.getMessage());
        }
    }

    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void manyWakeUpsInARow(String device) throws Exception {
        int rounds = 20;
        try (Messages m = new Messages(device, rounds)) {
            QpPair p = m.p;
            m.receive(rounds);
            List<Long> seen = new CopyOnWriteArrayList<>();
            Future<Integer> waiter = WAITER.submit(() -> {
                try (WorkCompletions wc = WorkCompletions.allocate(4)) {
                    int got = 0;
                    while (got < rounds) {
                        int n = WaitStrategy.blocking().await(p.b.cq, wc, TimeUnit.SECONDS.toNanos(60));
                        if (n == 0) {
                            return got;
                        }
                        for (int i = 0; i < n; i++) {
                            seen.add(wc.wrId(i));
                        }
                        got += n;
                    }
                    return got;
                }
            });
            for (int i = 0; i < rounds; i++) {
                m.send(0xA10 + i, 0);
                assertEquals(WcStatus.SUCCESS, takeOne(p.a.cq).status());
                if (i % 4 == 0) {
                    QpPair.sleep(50); // let the waiter go back to sleep now and then
                }
            }
            assertEquals(rounds, waiter.get(120, TimeUnit.SECONDS), "receives seen by the blocking waiter: " + seen);
            for (int i = 0; i < rounds; i++) {
                assertEquals(0xB00 + i, seen.get(i), "in order: " + seen);
            }
        }
    }

    static void expectSendOk(QpPair p) {
        Wc w = takeOne(p.a.cq);
        assertEquals(WcStatus.SUCCESS, w.status(), w.toString());
        assertEquals(WcOpcode.SEND, w.opcode(), w.toString());
    }

    static List<Wc> all(CompletionQueue cq, int n) {
        return take(cq, n);
    }
}
