package org.verbs4j.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link WaitStrategy} against a fake {@link CompletionQueue} and {@link CompletionChannel}. Every test has a
 * timeout: a strategy that ignores its own timeout must fail here, not hang the build.
 */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class WaitStrategyTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    /** Upper bound for "returned soon after": generous, CI machines stall. */
    private static final long SLACK = TimeUnit.SECONDS.toNanos(5);

    private final WorkCompletions wc = WorkCompletions.allocate(4);

    @AfterEach
    void free() {
        wc.close();
    }

    static Stream<Arguments> pollingStrategies() {
        return Stream.of(
                Arguments.of("busySpin", WaitStrategy.busySpin()),
                Arguments.of("backoff()", WaitStrategy.backoff()),
                Arguments.of("backoff(10, 10, 100us)", WaitStrategy.backoff(10, 10, 100_000)),
                Arguments.of("backoff(0, 0, 1ms)", WaitStrategy.backoff(0, 0, MS)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pollingStrategies")
    void returnsWhatThePollReturned(String name, WaitStrategy wait) {
        FakeCq cq = new FakeCq(zerosThen(1500, 3));
        assertEquals(3, wait.await(cq, wc, TimeUnit.SECONDS.toNanos(30)));
        assertEquals(1501, cq.polls, "polls until the first non-zero result, then stops");
        assertSame(wc, cq.lastWc, "polls into the caller's WorkCompletions");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pollingStrategies")
    void aCompletionThatIsThereIsReturnedEvenWithZeroTimeout(String name, WaitStrategy wait) {
        FakeCq cq = new FakeCq(zerosThen(0, 2));
        assertEquals(2, wait.await(cq, wc, 0));
        assertEquals(1, cq.polls);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pollingStrategies")
    void timesOutWithZeroAfterTheTimeout(String name, WaitStrategy wait) {
        FakeCq cq = new FakeCq(() -> 0);
        long t0 = System.nanoTime();
        assertEquals(0, wait.await(cq, wc, 50 * MS));
        long took = System.nanoTime() - t0;
        assertTrue(took >= 50 * MS, "returned after " + took / MS + " ms, before the 50 ms timeout");
        assertTrue(took < 50 * MS + SLACK, "returned " + took / MS + " ms after a 50 ms timeout");
        assertTrue(cq.polls > 1, "kept polling while waiting");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pollingStrategies")
    void zeroTimeoutGivesUpPromptly(String name, WaitStrategy wait) {
        FakeCq cq = new FakeCq(() -> 0);
        long t0 = System.nanoTime();
        assertEquals(0, wait.await(cq, wc, 0));
        assertTrue(System.nanoTime() - t0 < SLACK);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pollingStrategies")
    void negativeTimeoutWaitsUntilTheCompletion(String name, WaitStrategy wait) {
        long t0 = System.nanoTime();
        FakeCq cq = new FakeCq(() -> System.nanoTime() - t0 >= 150 * MS ? 1 : 0);
        assertEquals(1, wait.await(cq, wc, -1));
        long took = System.nanoTime() - t0;
        assertTrue(took >= 150 * MS, "returned after " + took / MS + " ms without a completion");
        assertTrue(took < 150 * MS + SLACK, "took " + took / MS + " ms");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pollingStrategies")
    void negativeTimeoutSurvivesManyEmptyPolls(String name, WaitStrategy wait) {
        // more than busySpin's 1024 polls between clock reads, and past backoff's spin and yield phases
        FakeCq cq = new FakeCq(zerosThen(1500, 1));
        assertEquals(1, wait.await(cq, wc, Long.MIN_VALUE));
        assertEquals(1501, cq.polls);
    }

    // ---- blocking

    @Test
    void blockingWithoutAChannelSaysWhatIsMissing() {
        FakeCq cq = new FakeCq(() -> 0);
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> WaitStrategy.blocking().await(cq, wc, MS));
        assertTrue(e.getMessage().contains("no completion channel"), e.getMessage());
        assertTrue(e.getMessage().contains(cq.toString()), "names the queue: " + e.getMessage());
        assertEquals(0, cq.polls, "fails before touching the queue");
    }

    @Test
    void blockingReturnsAWaitingCompletionWithoutArming() {
        FakeCq cq = new FakeCq(zerosThen(0, 2));
        cq.channel = new FakeChannel(cq, (timeout) -> cq);
        assertEquals(2, WaitStrategy.blocking().await(cq, wc, TimeUnit.SECONDS.toNanos(1)));
        assertEquals(List.of("poll"), cq.log);
    }

    @Test
    void blockingArmsThenPollsAgainBeforeSleeping() {
        FakeCq cq = new FakeCq(zerosThen(2, 1));
        cq.channel = new FakeChannel(cq, (timeout) -> cq);
        assertEquals(1, WaitStrategy.blocking().await(cq, wc, TimeUnit.SECONDS.toNanos(1)));
        assertEquals(List.of("poll", "arm(false)", "poll", "await", "poll"), cq.log);
    }

    @Test
    void blockingCatchesACompletionThatCameInBeforeArming() {
        FakeCq cq = new FakeCq(zerosThen(1, 5));
        cq.channel = new FakeChannel(cq, (timeout) -> {
            throw new AssertionError("must not sleep: the poll after arming found the completion");
        });
        assertEquals(5, WaitStrategy.blocking().await(cq, wc, TimeUnit.SECONDS.toNanos(1)));
        assertEquals(List.of("poll", "arm(false)", "poll"), cq.log);
    }

    @Test
    void blockingSolicitedOnlyArmsForSolicited() {
        FakeCq cq = new FakeCq(zerosThen(2, 1));
        cq.channel = new FakeChannel(cq, (timeout) -> cq);
        assertEquals(1, WaitStrategy.blocking(true).await(cq, wc, TimeUnit.SECONDS.toNanos(1)));
        assertEquals(List.of("poll", "arm(true)", "poll", "await", "poll"), cq.log);
    }

    @Test
    void blockingRearmsAfterAnEventWithNothingToPoll() {
        FakeCq cq = new FakeCq(zerosThen(4, 1));
        cq.channel = new FakeChannel(cq, (timeout) -> cq);
        assertEquals(1, WaitStrategy.blocking().await(cq, wc, TimeUnit.SECONDS.toNanos(1)));
        assertEquals(List.of("poll", "arm(false)", "poll", "await", "poll", "arm(false)", "poll", "await", "poll"), cq.log);
    }

    @Test
    void blockingReturnsZeroOnTimeout() {
        FakeCq cq = new FakeCq(() -> 0);
        FakeChannel ch = new FakeChannel(cq, (timeout) -> {
            sleepNanos(timeout);
            return null;
        });
        cq.channel = ch;
        long t0 = System.nanoTime();
        assertEquals(0, WaitStrategy.blocking().await(cq, wc, 50 * MS));
        long took = System.nanoTime() - t0;
        assertTrue(took < 50 * MS + SLACK, "took " + took / MS + " ms");
        assertEquals(1, ch.timeouts.size(), "one sleep: " + cq.log);
        long asked = ch.timeouts.get(0);
        assertTrue(asked > 0 && asked <= 50 * MS, "slept for at most what was left of the timeout, asked " + asked + " ns");
        assertEquals(List.of("poll", "arm(false)", "poll", "await", "poll"), cq.log, "one last poll after the timeout");
    }

    @Test
    void blockingWithZeroTimeoutDoesNotSleep() {
        FakeCq cq = new FakeCq(() -> 0);
        cq.channel = new FakeChannel(cq, (timeout) -> {
            throw new AssertionError("slept with a zero timeout");
        });
        assertEquals(0, WaitStrategy.blocking().await(cq, wc, 0));
        assertEquals(List.of("poll", "arm(false)", "poll"), cq.log);
    }

    @Test
    void blockingWithNegativeTimeoutSleepsWithoutALimit() {
        FakeCq cq = new FakeCq(zerosThen(2, 1));
        FakeChannel ch = new FakeChannel(cq, (timeout) -> cq);
        cq.channel = ch;
        assertEquals(1, WaitStrategy.blocking().await(cq, wc, -1));
        assertTrue(ch.timeouts.get(0) >= TimeUnit.DAYS.toNanos(1), "asked to sleep only " + ch.timeouts.get(0) + " ns");
    }

    // ---- fakes

    private static IntSupplier zerosThen(int zeros, int result) {
        int[] n = {0};
        return () -> n[0]++ < zeros ? 0 : result;
    }

    private static void sleepNanos(long nanos) {
        try {
            TimeUnit.NANOSECONDS.sleep(Math.min(nanos, TimeUnit.SECONDS.toNanos(10)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    interface Sleeper {
        CompletionQueue await(long timeoutNanos);
    }

    static final class FakeCq implements CompletionQueue {
        final IntSupplier results;
        final List<String> log = new ArrayList<>();
        CompletionChannel channel;
        WorkCompletions lastWc;
        int polls;

        FakeCq(IntSupplier results) {
            this.results = results;
        }

        @Override
        public int poll(WorkCompletions wc) {
            polls++;
            lastWc = wc;
            if (log.size() < 1000) {
                log.add("poll");
            }
            return results.getAsInt();
        }

        @Override
        public int poll(WorkCompletions wc, int max) {
            return poll(wc);
        }

        @Override
        public void requestNotify(boolean solicitedOnly) {
            log.add("arm(" + solicitedOnly + ")");
        }

        @Override
        public CompletionChannel channel() {
            return channel;
        }

        @Override
        public DeviceContext context() {
            return null;
        }

        @Override
        public int capacity() {
            return 16;
        }

        @Override
        public void resize(int entries) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean isClosed() {
            return false;
        }

        @Override
        public void close() {
        }

        @Override
        public String toString() {
            return "FakeCq@" + Integer.toHexString(System.identityHashCode(this));
        }
    }

    static final class FakeChannel implements CompletionChannel {
        final FakeCq cq;
        final Sleeper sleeper;
        final List<Long> timeouts = new ArrayList<>();

        FakeChannel(FakeCq cq, Sleeper sleeper) {
            this.cq = cq;
            this.sleeper = sleeper;
        }

        @Override
        public CompletionQueue awaitEvent(long timeout, TimeUnit unit) {
            cq.log.add("await");
            long nanos = unit.toNanos(timeout);
            timeouts.add(nanos);
            return sleeper.await(nanos);
        }

        @Override
        public DeviceContext context() {
            return null;
        }

        @Override
        public int fd() {
            return -1;
        }

        @Override
        public boolean isClosed() {
            return false;
        }

        @Override
        public void close() {
        }
    }
}
