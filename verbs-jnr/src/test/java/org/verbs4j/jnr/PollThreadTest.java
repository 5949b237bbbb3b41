package org.verbs4j.jnr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.verbs4j.api.internal.RawMemory;

/**
 * The event thread of the rdma_cm channel and of a context's async events (no device needed: an eventfd
 * stands for the watched descriptor; once signalled it stays readable).
 */
class PollThreadTest {

    @Test
    void runsTheHandlerWhenReadableWithItsScratchAndStopsFromInside() throws Exception {
        int watched = LibC.eventFd();
        AtomicInteger calls = new AtomicInteger();
        CompletableFuture<Long> scratch = new CompletableFuture<>();
        AtomicReference<PollThread> self = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        try {
            self.set(new PollThread("v4j-poll-test", watched, 8, s -> {
                calls.incrementAndGet();
                RawMemory.putLong(s, 42L); // the scratch is the thread's, usable here
                scratch.complete(RawMemory.getLong(s));
                assertTrue(self.get().stop(0), "stopping from the handler ends the loop after it returns");
            }, failure::set));
            LibC.signal(watched);
            assertEquals(42L, scratch.get(5, TimeUnit.SECONDS));
            Thread.sleep(300);
            assertEquals(1, calls.get(), "the loop ended: a still-readable descriptor is not handled again");
            assertEquals(null, failure.get());
        } finally {
            LibC.close(watched);
        }
    }

    @Test
    void stopWakesAnIdleThreadAtOnce() {
        int watched = LibC.eventFd();
        AtomicInteger calls = new AtomicInteger();
        try {
            PollThread t = new PollThread("v4j-poll-test", watched, 0, s -> calls.incrementAndGet(), e -> { });
            long t0 = System.nanoTime();
            assertTrue(t.stop(5000), "the thread ended");
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertTrue(ms < 2000, "stop took " + ms + " ms");
            assertEquals(0, calls.get(), "nothing was readable");
        } finally {
            LibC.close(watched);
        }
    }

    @Test
    void aFailingHandlerEndsTheThreadAndIsReported() throws Exception {
        int watched = LibC.eventFd();
        IllegalStateException boom = new IllegalStateException("boom");
        CompletableFuture<Throwable> failed = new CompletableFuture<>();
        try {
            PollThread t = new PollThread("v4j-poll-test", watched, 0, s -> {
                throw boom;
            }, failed::complete);
            LibC.signal(watched);
            assertSame(boom, failed.get(5, TimeUnit.SECONDS));
            assertTrue(t.stop(5000));
        } finally {
            LibC.close(watched);
        }
    }
}
