package org.verbs4j.lab;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The tests' side tasks (a server that accepts, a client that connects), each on a thread of its own.
 *
 * <p>Most of them block. {@link CompletableFuture#supplyAsync(Supplier)} runs them in the common fork-join pool,
 * whose parallelism is the number of cores less one: on a 2-core machine one worker. JDK 17 then runs each task on
 * a thread of its own, but JDK 25 gives them the pool's one worker in turn, so a server task that waits for the
 * client task behind it waits for good. Here each task has its own (daemon) thread on every JDK.
 */
public final class Async {
    private static final AtomicInteger COUNT = new AtomicInteger();

    /** Starts every task on a new daemon thread. */
    public static final Executor THREADS = task -> {
        Thread t = new Thread(task, "test-async-" + COUNT.incrementAndGet());
        t.setDaemon(true);
        t.start();
    };

    private Async() {
    }

    /** {@return {@code task}'s result, computed on a thread of its own} */
    public static <T> CompletableFuture<T> supply(Supplier<T> task) {
        return CompletableFuture.supplyAsync(task, THREADS);
    }

    /** {@return the end of {@code task}, run on a thread of its own} */
    public static CompletableFuture<Void> run(Runnable task) {
        return CompletableFuture.runAsync(task, THREADS);
    }
}
