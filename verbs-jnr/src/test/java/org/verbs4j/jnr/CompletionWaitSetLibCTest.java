package org.verbs4j.jnr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.verbs4j.api.CompletionChannel;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.DeviceContext;

/**
 * The libibverbs wait set's own part, which needs no device: its poll(2) over its eventfd, the wake-up, the
 * time-out, a close during a wait, and no allocation per wait and wake-up (on the jffi path; on JDK 22+, where the
 * calls go through java.lang.foreign, the rest runs too). Its channels' part runs in the lab (CoreVerbsWakeupIT).
 */
@Timeout(60)
class CompletionWaitSetLibCTest {
    private static final long PROMPT_NANOS = TimeUnit.SECONDS.toNanos(5);

    private static Thread blockedWaiter(String name) throws InterruptedException {
        long deadline = System.nanoTime() + PROMPT_NANOS;
        while (System.nanoTime() < deadline) {
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                if (t.getName().startsWith(name)) {
                    Thread.sleep(100); // in poll(2) by now
                    return t;
                }
            }
            Thread.sleep(1);
        }
        throw new AssertionError("no waiter thread");
    }

    private static CompletableFuture<Integer> waitOn(JnrCompletionWaitSet set, String name) {
        CompletableFuture<Integer> f = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                f.complete(set.await(30, TimeUnit.SECONDS));
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return f;
    }

    @Test
    void timesOutAndWakesUp() throws Exception {
        try (JnrCompletionWaitSet set = new JnrCompletionWaitSet("test")) {
            long t0 = System.nanoTime();
            assertEquals(0, set.await(200, TimeUnit.MILLISECONDS));
            long waited = System.nanoTime() - t0;
            assertTrue(waited >= TimeUnit.MILLISECONDS.toNanos(190) && waited < PROMPT_NANOS, waited / 1000 + " us");
            t0 = System.nanoTime();
            assertEquals(0, set.await(0, TimeUnit.MILLISECONDS), "0: a look");
            assertTrue(System.nanoTime() - t0 < PROMPT_NANOS);

            CompletableFuture<Integer> w = waitOn(set, "wait-set-waiter-1");
            blockedWaiter("wait-set-waiter-1");
            assertFalse(w.isDone(), "nothing woke it yet");
            set.wakeup();
            assertEquals(0, w.get(5, TimeUnit.SECONDS), "woken");

            set.wakeup();
            set.wakeup();
            t0 = System.nanoTime();
            assertEquals(0, set.await(30, TimeUnit.SECONDS), "a pending wake-up ends the next wait");
            assertTrue(System.nanoTime() - t0 < PROMPT_NANOS);
            t0 = System.nanoTime();
            assertEquals(0, set.await(150, TimeUnit.MILLISECONDS));
            assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(140), "the eventfd was drained");
        }
    }

    @Test
    void closingTheSetEndsItsWait() throws Exception {
        JnrCompletionWaitSet set = new JnrCompletionWaitSet("test");
        CompletableFuture<Integer> w = waitOn(set, "wait-set-waiter-2");
        blockedWaiter("wait-set-waiter-2");
        set.close();
        ExecutionException e = assertThrows(ExecutionException.class, () -> w.get(5, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof IllegalStateException, String.valueOf(e.getCause()));
        assertTrue(set.isClosed());
        assertThrows(IllegalStateException.class, () -> set.await(1, TimeUnit.MILLISECONDS));
        set.wakeup(); // harmless
        set.close(); // twice: harmless
    }

    @Test
    void refusesAnotherBackendsChannel() {
        try (JnrCompletionWaitSet set = new JnrCompletionWaitSet("test")) {
            CompletionChannel foreign = new CompletionChannel() {
                @Override
                public DeviceContext context() {
                    return null;
                }

                @Override
                public CompletionQueue awaitEvent(long timeout, TimeUnit unit) {
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
            };
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> set.add(foreign));
            assertTrue(e.getMessage().contains("backend"), e.getMessage());
            assertEquals(0, set.size());
        }
    }

    @Test
    void aWaitAndAWakeupAllocateNothing() {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (JnrCompletionWaitSet set = new JnrCompletionWaitSet("test")) {
            for (int i = 0; i < 20_000; i++) { // warm up (the JIT)
                set.wakeup();
                set.await(1, TimeUnit.SECONDS);
            }
            long least = Long.MAX_VALUE;
            for (int window = 0; window < 3; window++) {
                long before = mx.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < 10_000; i++) {
                    set.wakeup();
                    set.await(1, TimeUnit.SECONDS);
                }
                least = Math.min(least, mx.getCurrentThreadAllocatedBytes() - before);
            }
            System.out.printf("JDK %d: %d bytes allocated by 10000 wake-ups and waits (the least of 3 windows)%n",
                    Runtime.version().feature(), least);
            // on JDK 22+ libc's calls go through NativeFunction's java.lang.foreign handle (an instance field, the
            // errno captured), which allocated 40 to 120 bytes per wake-up and wait together here; the set's own code
            // allocates nothing, as the jffi path shows
            assumeTrue(Runtime.version().feature() < 22, "libc calls through java.lang.foreign allocate: "
                    + least + " bytes per 10000");
            assertTrue(least < 10_000, least + " bytes allocated by 10000 wake-ups and waits (the least of 3 windows)");
        }
    }
}
