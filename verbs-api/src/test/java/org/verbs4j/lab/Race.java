package org.verbs4j.lab;

import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * A close race, repeated: each repetition makes a fresh object ({@link #setup}), one thread calls a verb on it
 * in a tight loop ({@link #racer}), and another closes it ({@link #closer}) at a random moment. What every
 * repetition must show:
 * <ul>
 * <li>the JVM is alive (it is, if the test goes on);</li>
 * <li>the racing verb returned normally or threw what {@link #racerMayEndWith} accepts (by default an
 * {@link IllegalStateException} whose message says {@code closed}); nothing else;</li>
 * <li>a call that started after {@code close()} returned threw: none may succeed on a closed object;</li>
 * <li>{@code close()} returned, or threw what {@link #closeMayBeRefusedWith} accepts, and was then tried again
 * (a parent refusing while the racer's child is open) until it returned;</li>
 * <li>nothing hangs: both threads end within {@link #timeout}, or the test fails with their stacks;</li>
 * <li>with {@link #wakesWithin}, a blocked racer is woken, and {@code close()} returns, within that bound;</li>
 * <li>{@link #afterClose} holds (e.g. {@code isClosed()}, a later call throws).</li>
 * </ul>
 * The moment of the close varies by repetition: at once, after a random number of the racer's calls, after a
 * random busy spin, or after a random sleep (on the lab VM's single CPU the sleeping closer wakes on a timer
 * interrupt that preempts the racer at a random point of its call). Each repetition's random choices come
 * from {@code seed + repetition}, and a failure names both, so {@code -Dverbs4j.it.raceSeed=S} replays a run.
 *
 * <pre>{@code
 * Race.Result r = Race.of("CompletionQueue.poll vs close", () -> ctx.createCompletionQueue(16))
 *         .racer(cq -> cq.poll(wc))
 *         .closer(CompletionQueue::close)
 *         .afterClose(cq -> assertTrue(cq.isClosed()))
 *         .run();
 * }</pre>
 *
 * @param <T> what one repetition races on (the object, or a record of it and its helpers)
 */
public final class Race<T> {
    /** Repetitions of each race unless {@code -Dverbs4j.it.raceReps=N}. */
    public static final int REPS = Integer.getInteger("verbs4j.it.raceReps", 200);
    private static final long SEED = Long.getLong("verbs4j.it.raceSeed", System.nanoTime());
    private static final int STRATEGIES = 4;

    /** Makes one repetition's object. */
    @FunctionalInterface
    public interface Setup<T> {
        T make() throws Exception;
    }

    /** One step on the object: a verb call, a close, a check. */
    @FunctionalInterface
    public interface Step<T> {
        void on(T t) throws Exception;
    }

    /**
     * What a run saw, summed over its repetitions.
     *
     * @param name         the race
     * @param reps         repetitions
     * @param duringClose  repetitions whose ending call started before {@code close()} returned (the race hit:
     *                     the call was in progress while the close ran)
     * @param refusals     closes refused (and tried again) because the racer had something open
     * @param calls        racer calls that returned normally
     * @param maxCloseNanos the longest {@code close()} (from its first try to its return)
     * @param maxWakeNanos the longest time from the close's start to the racer's end
     * @param millis       wall time of the run
     */
    public record Result(String name, int reps, int duringClose, long refusals, long calls, long maxCloseNanos,
            long maxWakeNanos, long millis) {
        @Override
        public String toString() {
            return String.format("RACE %s: %d reps, %d ended during close, %d closes refused and retried, %d calls "
                    + "returned, close <= %.1f ms, racer ended <= %.1f ms after the close began, %d ms", name, reps,
                    duringClose, refusals, calls, maxCloseNanos / 1e6, maxWakeNanos / 1e6, millis);
        }
    }

    private final String name;
    private final Setup<T> setup;
    private Step<T> racer;
    private Step<T> closer;
    private Step<T> afterClose = t -> { };
    private Step<T> cleanup = t -> { };
    private Predicate<Throwable> racerEnds = Race::saysClosed;
    private Predicate<Throwable> closeRefused = e -> false;
    private Duration timeout = Duration.ofSeconds(30);
    private Duration wakeBound;
    private Duration closeBound;
    private int reps = REPS;
    private long maxDelayNanos = TimeUnit.MILLISECONDS.toNanos(3);
    private int maxCallsBeforeClose = 50;

    private Race(String name, Setup<T> setup) {
        this.name = name;
        this.setup = setup;
    }

    /** A race named {@code name} (it names failures and the summary line) on objects made by {@code setup}. */
    public static <T> Race<T> of(String name, Setup<T> setup) {
        return new Race<>(name, setup);
    }

    /** The verb the racing thread calls again and again until it throws. */
    public Race<T> racer(Step<T> step) {
        this.racer = step;
        return this;
    }

    /** The close. */
    public Race<T> closer(Step<T> step) {
        this.closer = step;
        return this;
    }

    /** Checks after both threads ended, e.g. {@code isClosed()} and that a later call throws. */
    public Race<T> afterClose(Step<T> step) {
        this.afterClose = step;
        return this;
    }

    /** Closes what the repetition made besides the raced object; runs whatever happened, unless a thread hangs. */
    public Race<T> cleanup(Step<T> step) {
        this.cleanup = step;
        return this;
    }

    /** What else, besides an {@link IllegalStateException} saying closed, may end the racer (its documented exception). */
    public Race<T> racerMayEndWith(Predicate<Throwable> accepted) {
        Predicate<Throwable> before = racerEnds;
        this.racerEnds = e -> before.test(e) || accepted.test(e);
        return this;
    }

    /** A close refusal that is documented (e.g. a parent with an open child): the close is tried again. */
    public Race<T> closeMayBeRefusedWith(Predicate<Throwable> refusal) {
        this.closeRefused = refusal;
        return this;
    }

    /** How long each thread may take before the race counts as a hang (default 30 s). */
    public Race<T> timeout(Duration d) {
        this.timeout = d;
        return this;
    }

    /** A racer blocked in a wait must end, and {@code close()} return, within {@code bound} of the close's start. */
    public Race<T> wakesWithin(Duration bound) {
        this.wakeBound = bound;
        return this;
    }

    /**
     * {@code close()} must return within {@code bound} of its start, instead of the {@link #wakesWithin} bound:
     * for a close whose native destroy itself takes long (siw's rdma_destroy_id of an unanswered connection),
     * while the racer must still be woken within the wake bound.
     */
    public Race<T> closesWithin(Duration bound) {
        this.closeBound = bound;
        return this;
    }

    /** Repetitions (default {@link #REPS}). */
    public Race<T> reps(int n) {
        this.reps = n;
        return this;
    }

    /** The longest random delay before the close (default 3 ms) and the most racer calls to wait for (default 50). */
    public Race<T> delays(Duration maxDelay, int maxCalls) {
        this.maxDelayNanos = maxDelay.toNanos();
        this.maxCallsBeforeClose = maxCalls;
        return this;
    }

    /** The default ending of a racer: an {@link IllegalStateException} whose message says the object is closed. */
    public static boolean saysClosed(Throwable e) {
        return e instanceof IllegalStateException && e.getMessage() != null && e.getMessage().contains("closed");
    }

    /** An exception of {@code type} whose message (or a cause's) contains {@code text}. */
    public static Predicate<Throwable> is(Class<? extends Throwable> type, String text) {
        return e -> type.isInstance(e) && messages(e).contains(text);
    }

    private static String messages(Throwable e) {
        StringBuilder b = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            b.append(t.getMessage()).append('\n');
        }
        return b.toString();
    }

    /** Runs every repetition; fails at the first that breaks a rule, naming it, its seed and its strategy. */
    public Result run() {
        if (racer == null || closer == null) {
            throw new IllegalStateException(name + ": racer and closer must be set");
        }
        long t0 = System.nanoTime();
        int during = 0;
        long refusals = 0;
        long calls = 0;
        long maxClose = 0;
        long maxWake = 0;
        for (int rep = 0; rep < reps; rep++) {
            Rep<T> r = new Rep<>(this, rep);
            r.run();
            during += r.endedDuringClose ? 1 : 0;
            refusals += r.refusals;
            calls += r.calls;
            maxClose = Math.max(maxClose, r.closeEnd - r.closeStart);
            maxWake = Math.max(maxWake, r.racerEnd - r.closeStart);
        }
        Result result = new Result(name, reps, during, refusals, calls, maxClose, maxWake,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
        System.out.println(result);
        return result;
    }

    /** One repetition: its object, its two threads, what they saw. */
    private static final class Rep<T> {
        private final Race<T> race;
        private final int rep;
        private final SplittableRandom random;
        private final int strategy;
        private final CountDownLatch started = new CountDownLatch(1);
        private volatile boolean closeReturned;
        private volatile long calls;
        private volatile Throwable ending;
        private volatile Throwable closeFailure;
        private volatile String afterCloseSuccess;
        private volatile boolean endedDuringClose;
        private volatile long racerStart;
        private volatile long racerEnd;
        private volatile long closeStart;
        private volatile long closeEnd;
        private long refusals;
        private T object;

        Rep(Race<T> race, int rep) {
            this.race = race;
            this.rep = rep;
            this.random = new SplittableRandom(SEED + rep);
            this.strategy = rep % STRATEGIES;
        }

        private String where() {
            return race.name + ", repetition " + rep + " of " + race.reps + " (-Dverbs4j.it.raceSeed=" + SEED
                    + ", close " + strategyText() + timing() + ")";
        }

        /** When things happened, for a failure's message. */
        private String timing() {
            if (closeStart == 0) {
                return "; the close had not begun";
            }
            return String.format("; the close began %.1f ms after the racer, %s; the racer %s, after %d calls",
                    (closeStart - racerStart) / 1e6, closeEnd == 0 ? "had not returned"
                            : String.format("took %.1f ms", (closeEnd - closeStart) / 1e6),
                    racerEnd == 0 ? "had not ended" : String.format("ended %.1f ms after the close began",
                            (racerEnd - closeStart) / 1e6), calls);
        }

        private String strategyText() {
            return switch (strategy) {
                case 0 -> "at once";
                case 1 -> "after racer calls";
                case 2 -> "after a busy spin";
                default -> "after a sleep";
            };
        }

        void run() {
            try {
                object = race.setup.make();
            } catch (Exception e) {
                throw new AssertionError(where() + ": setup failed: " + e, e);
            }
            Thread racerThread = new Thread(this::race, "race-verb");
            Thread closerThread = new Thread(this::close, "race-close");
            racerThread.setDaemon(true);
            closerThread.setDaemon(true);
            boolean hung = true;
            try {
                racerThread.start();
                closerThread.start();
                long limit = race.timeout.toMillis();
                join(closerThread, limit);
                join(racerThread, limit);
                if (closerThread.isAlive() || racerThread.isAlive()) {
                    fail(where() + ": HANG: " + (closerThread.isAlive() ? "close() did not return" : "")
                            + (closerThread.isAlive() && racerThread.isAlive() ? " and " : "")
                            + (racerThread.isAlive() ? "the racing verb did not end" : "") + " within " + race.timeout
                            + stack(closerThread) + stack(racerThread));
                }
                hung = false;
                check();
            } finally {
                if (!hung) {
                    try {
                        race.cleanup.on(object);
                    } catch (Exception e) {
                        throw new AssertionError(where() + ": cleanup failed: " + e, e);
                    }
                }
            }
        }

        private void race() {
            racerStart = System.nanoTime();
            started.countDown();
            long n = 0;
            while (true) {
                boolean late = closeReturned;
                try {
                    race.racer.on(object);
                } catch (Throwable e) {
                    racerEnd = System.nanoTime();
                    endedDuringClose = !late;
                    ending = e;
                    break;
                }
                calls = ++n;
                if (late) {
                    racerEnd = System.nanoTime();
                    afterCloseSuccess = "a call that started after close() returned succeeded";
                    break;
                }
            }
        }

        private void close() {
            try {
                started.await();
                delay();
                closeStart = System.nanoTime();
                long deadline = closeStart + race.timeout.toNanos();
                while (true) {
                    try {
                        race.closer.on(object);
                        break;
                    } catch (Throwable e) {
                        if (!race.closeRefused.test(e) || System.nanoTime() - deadline > 0) {
                            closeFailure = e;
                            break;
                        }
                        refusals++;
                        LockSupport.parkNanos(random.nextLong(1 + race.maxDelayNanos / 10));
                    }
                }
            } catch (InterruptedException e) {
                closeFailure = e;
            } finally {
                closeEnd = System.nanoTime();
                closeReturned = true;
            }
        }

        private void delay() {
            switch (strategy) {
                case 0 -> {
                }
                case 1 -> {
                    long want = random.nextInt(race.maxCallsBeforeClose + 1);
                    long deadline = System.nanoTime() + 10 * race.maxDelayNanos;
                    while (calls < want && ending == null && System.nanoTime() - deadline < 0) {
                        Thread.yield();
                    }
                }
                case 2 -> {
                    long until = System.nanoTime() + random.nextLong(race.maxDelayNanos / 10 + 1);
                    while (System.nanoTime() - until < 0) {
                        Thread.onSpinWait();
                    }
                }
                default -> LockSupport.parkNanos(random.nextLong(race.maxDelayNanos + 1));
            }
        }

        private void check() {
            if (closeFailure != null) {
                throw new AssertionError(where() + ": close() threw " + closeFailure, closeFailure);
            }
            if (afterCloseSuccess != null) {
                fail(where() + ": " + afterCloseSuccess + " (" + calls + " calls returned)");
            }
            if (ending == null) {
                fail(where() + ": the racer ended without an exception");
            }
            if (!race.racerEnds.test(ending)) {
                throw new AssertionError(where() + ": the racing verb threw " + ending
                        + " (expected it to return, or to throw IllegalStateException saying closed"
                        + " or the documented exception)", ending);
            }
            if (race.wakeBound != null) {
                long bound = race.wakeBound.toNanos();
                Duration closeLimit = race.closeBound != null ? race.closeBound : race.wakeBound;
                if (closeEnd - closeStart > closeLimit.toNanos()) {
                    fail(where() + ": close() took " + (closeEnd - closeStart) / 1_000_000 + " ms, more than "
                            + closeLimit + ": it waited behind the racer");
                }
                if (racerEnd - closeStart > bound) {
                    fail(where() + ": the racer ended " + (racerEnd - closeStart) / 1_000_000 + " ms after the close "
                            + "began, more than " + race.wakeBound + ": the close did not wake it");
                }
            }
            try {
                race.afterClose.on(object);
            } catch (Exception e) {
                throw new AssertionError(where() + ": after the close: " + e, e);
            } catch (AssertionError e) {
                throw new AssertionError(where() + ": after the close: " + e.getMessage(), e);
            }
        }

        private static void join(Thread t, long millis) {
            try {
                t.join(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }

        private static String stack(Thread t) {
            if (!t.isAlive()) {
                return "";
            }
            return "\n" + t.getName() + ":" + Arrays.stream(t.getStackTrace()).map(f -> "\n\tat " + f)
                    .collect(Collectors.joining());
        }
    }
}
