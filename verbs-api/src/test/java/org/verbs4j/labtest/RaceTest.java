package org.verbs4j.labtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.verbs4j.lab.Race;

/**
 * The lab's close-race driver ({@link Race}) on fake objects: it passes a safe close and fails each way a close
 * can go wrong (a call that succeeds after close, a wrong exception, a hang, a close that waits behind a
 * waiter, a close that throws). Lives outside {@code org.verbs4j.lab} so that it stays out of the test-jar.
 */
class RaceTest {

    /** Closes safely: calls and close exclude each other, and a call after close throws saying closed. */
    static class Safe {
        private boolean closed;
        final AtomicInteger refusalsLeft = new AtomicInteger();

        synchronized void call() {
            if (closed) {
                throw new IllegalStateException("Safe is closed");
            }
        }

        synchronized void close() {
            if (refusalsLeft.getAndDecrement() > 0) {
                throw new IllegalStateException("cannot close Safe: still in use");
            }
            closed = true;
        }
    }

    @Test
    void aSafeCloseRunsEveryRepetition() {
        Race.Result r = Race.of("safe", Safe::new).racer(Safe::call).closer(Safe::close).reps(40)
                .afterClose(s -> assertThrows(IllegalStateException.class, s::call)).run();
        assertEquals(40, r.reps());
        assertTrue(r.calls() > 0, "the racer ran: " + r);
    }

    @Test
    void aDocumentedRefusalIsRetriedUntilTheCloseReturns() {
        Race.Result r = Race.of("refusing", () -> {
            Safe s = new Safe();
            s.refusalsLeft.set(2);
            return s;
        }).racer(Safe::call).closer(Safe::close).closeMayBeRefusedWith(Race.is(IllegalStateException.class,
                "cannot close")).reps(8).run();
        assertEquals(16, r.refusals());
    }

    @Test
    void anUndocumentedRefusalFails() {
        AssertionError e = assertThrows(AssertionError.class, () -> Race.of("refusing", () -> {
            Safe s = new Safe();
            s.refusalsLeft.set(1);
            return s;
        }).racer(Safe::call).closer(Safe::close).reps(4).run());
        assertTrue(e.getMessage().contains("close() threw"), e.getMessage());
    }

    @Test
    void aCallThatSucceedsAfterCloseFails() {
        AssertionError e = assertThrows(AssertionError.class, () -> Race.of("never closed", Safe::new)
                .racer(s -> { }).closer(Safe::close).reps(4).run());
        assertTrue(e.getMessage().contains("started after close() returned succeeded"), e.getMessage());
        assertTrue(e.getMessage().contains("raceSeed="), "a failure says how to replay it: " + e.getMessage());
    }

    @Test
    void anotherExceptionFromTheRacerFails() {
        AssertionError e = assertThrows(AssertionError.class, () -> Race.of("wrong exception", Safe::new)
                .racer(s -> {
                    try {
                        s.call();
                    } catch (IllegalStateException closed) {
                        throw new IllegalArgumentException("boom");
                    }
                }).closer(Safe::close).reps(4).run());
        assertTrue(e.getMessage().contains("IllegalArgumentException: boom"), e.getMessage());
    }

    @Test
    void aRacerThatIsNeverWokenIsAHangWithItsStack() {
        AssertionError e = assertThrows(AssertionError.class, () -> Race.of("hang", Safe::new)
                .racer(s -> LockSupport.parkNanos(Long.MAX_VALUE)).closer(Safe::close)
                .timeout(Duration.ofMillis(300)).reps(1).run());
        assertTrue(e.getMessage().contains("HANG: the racing verb did not end"), e.getMessage());
        assertTrue(e.getMessage().contains("race-verb:"), "the stack of the hung thread: " + e.getMessage());
    }

    @Test
    void aCloseThatWaitsBehindAWaiterBreaksTheWakeBound() {
        AssertionError e = assertThrows(AssertionError.class, () -> Race.of("slow close", Safe::new)
                .racer(Safe::call).closer(s -> {
                    Thread.sleep(200);
                    s.close();
                }).wakesWithin(Duration.ofMillis(50)).reps(1).run());
        assertTrue(e.getMessage().contains("more than PT0.05S"), e.getMessage());
    }
}
