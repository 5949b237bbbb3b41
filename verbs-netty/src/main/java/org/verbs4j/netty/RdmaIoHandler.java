package org.verbs4j.netty;

import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoOps;
import io.netty.channel.IoRegistration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.verbs4j.api.CompletionChannel;
import org.verbs4j.api.CompletionWaitSet;

/**
 * The I/O handler of an event loop that drives {@link RdmaChannel}s and {@link RdmaServerChannel}s:
 *
 * <pre>{@code
 * EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, RdmaIoHandler.newFactory());
 * }</pre>
 *
 * <p>Each turn of the loop polls every registered channel once (send and receive completion queues, the peer's
 * credit word). While a turn finds work the loop keeps turning. After {@code spinNanos} without work it naps:
 * parks {@value #MIN_PARK_NANOS} ns, doubling up to {@code maxParkNanos}, looking again after each nap, for about
 * {@code maxParkNanos} in all (a connection whose messages come closer together than that costs a nap per message,
 * cheaper than a sleep and a wake-up). Then it sleeps: it arms the completion queues of every channel's endpoint,
 * polls once more (a completion that came before the arm raises no event), then waits on a
 * {@link CompletionWaitSet} of the endpoints' completion channels until a completion comes, a task is submitted
 * ({@link #wakeup}) or the next scheduled task is due. An idle loop uses no CPU, and a message that arrives wakes
 * it at once. After a wake-up it spins again before the next sleep.
 *
 * <p>Where sleeping cannot be correct the loop keeps napping, each nap at most {@code maxParkNanos}: while a
 * channel's write waits for a send credit with no
 * send of its own in flight (a credit update is an RDMA WRITE into the endpoint's memory, which raises no
 * completion), and while channels of two backends share the loop (one wait set cannot hold both). With no channel
 * registered, or none connected yet, it parks until the next scheduled task; {@link #wakeup} unparks it.
 */
public final class RdmaIoHandler implements IoHandler {
    /** The first park after the spin, in nanoseconds. */
    public static final long MIN_PARK_NANOS = 16_000;
    /** How long the loop keeps polling without work before it sleeps (or parks), by default: 50 us. */
    public static final long DEFAULT_SPIN_NANOS = TimeUnit.MICROSECONDS.toNanos(50);
    /** The longest park, where the loop cannot sleep on completion events, by default: 1 ms. */
    public static final long DEFAULT_MAX_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private static final Logger LOG = LoggerFactory.getLogger(RdmaIoHandler.class);
    /** What {@link #prepareSleep} allows: nap and look again, sleep on the wait set, or park until a task. */
    private static final int CANNOT_SLEEP = 0;
    private static final int SLEEP_ON_SET = 1;
    /** Nothing registered has a completion channel (not connected yet, a server channel): only a task wakes it. */
    private static final int SLEEP_PARKED = 2;

    private final long spinNanos;
    private final long maxParkNanos;
    /** Touched on the loop's thread only. */
    private final List<Registration> registrations = new ArrayList<>();
    private Registration[] snapshot = new Registration[0];
    private volatile boolean changed;
    /** When the current run of turns without work began; 0 while there is work. */
    private long idleSince;
    private long parkNanos = MIN_PARK_NANOS;
    private volatile Thread thread;
    /** The endpoints' completion channels, made with the first one; the loop's thread changes it, others wake it. */
    private volatile CompletionWaitSet waitSet;
    /** Set by the loop's thread from just before its last look for tasks until it woke: a wakeup must wake the set. */
    private volatile boolean sleeping;
    /** Naps (parks of at most maxParkNanos) and sleeps on the wait set so far: the loop's thread's, read by the tests. */
    private long naps;
    private long sleeps;

    RdmaIoHandler(long spinNanos, long maxParkNanos) {
        if (spinNanos < 0) {
            throw new IllegalArgumentException("spinNanos must not be negative, not " + spinNanos);
        }
        if (maxParkNanos < MIN_PARK_NANOS) {
            throw new IllegalArgumentException("maxParkNanos must be at least " + MIN_PARK_NANOS + ", not " + maxParkNanos);
        }
        this.spinNanos = spinNanos;
        this.maxParkNanos = maxParkNanos;
    }

    /** {@return a factory of handlers with the default spin (50 us) and longest park (1 ms)} */
    public static IoHandlerFactory newFactory() {
        return newFactory(DEFAULT_SPIN_NANOS, DEFAULT_MAX_PARK_NANOS);
    }

    /**
     * {@return a factory of handlers that poll {@code spinNanos} without work, then nap for about
     * {@code maxParkNanos} (each nap at most that), then sleep on completion events where they can}
     *
     * @param spinNanos    how long to poll without work before sleeping, 0 or more: CPU spent for latency after
     *                     each burst of work
     * @param maxParkNanos the longest nap, and about how long the loop naps after the spin before it sleeps on
     *                     completion events, at least {@value #MIN_PARK_NANOS}; where it cannot sleep (a write
     *                     waiting for a send credit), the most latency such a connection adds, and 1e9 / it the most
     *                     wake-ups a second of a loop that waits so
     */
    public static IoHandlerFactory newFactory(long spinNanos, long maxParkNanos) {
        new RdmaIoHandler(spinNanos, maxParkNanos); // checks the arguments now, not in the loop's thread
        return executor -> new RdmaIoHandler(spinNanos, maxParkNanos);
    }

    @Override
    public void initialize() {
        thread = Thread.currentThread();
    }

    @Override
    public int run(IoHandlerContext context) {
        if (thread == null) {
            thread = Thread.currentThread();
        }
        if (changed) {
            changed = false;
            for (Registration r : registrations) {
                if (!r.isValid()) {
                    leaveSet(r);
                }
            }
            registrations.removeIf(r -> !r.isValid());
            snapshot = registrations.toArray(new Registration[0]);
        }
        int work = pollAll();
        if (work > 0) {
            idleSince = 0;
            parkNanos = MIN_PARK_NANOS;
            return work;
        }
        if (!context.canBlock()) {
            return 0; // tasks are waiting
        }
        if (snapshot.length == 0) {
            LockSupport.parkNanos(this, context.delayNanos(System.nanoTime()));
            return 0;
        }
        long now = System.nanoTime();
        if (idleSince == 0) {
            idleSince = now;
        }
        if (now - idleSince < spinNanos) {
            Thread.onSpinWait();
            return 0;
        }
        int sleep = prepareSleep();
        // naps first, for about maxParkNanos after the spin, then sleeps: a connection whose messages come less
        // than that apart is looked at after a nap, cheaper than a sleep and a wake-up per message
        if (sleep == CANNOT_SLEEP || (sleep == SLEEP_ON_SET && now - idleSince < spinNanos + maxParkNanos)) {
            naps++;
            LockSupport.parkNanos(this, Math.min(parkNanos, context.delayNanos(System.nanoTime())));
            parkNanos = Math.min(maxParkNanos, parkNanos * 2);
            return 0;
        }
        return sleep(context, sleep == SLEEP_ON_SET);
    }

    /** Polls every registered channel once. {@return the work found} */
    private int pollAll() {
        int work = 0;
        for (Registration r : snapshot) {
            if (r.isValid()) {
                try {
                    work += r.handle.poll();
                } catch (RuntimeException e) {
                    // a channel reports its own failures to its pipeline; this is a bug, not an I/O error
                    LOG.warn("polling {} failed", r.handle, e);
                }
            }
        }
        return work;
    }

    /**
     * Brings the wait set up to date with the channels' completion channels. {@return whether and how the loop
     * may sleep}: not while a channel cannot ({@link RdmaIoHandle#canSleep}), nor while one's completion channel
     * cannot join the set (another backend).
     */
    private int prepareSleep() {
        boolean any = false;
        for (Registration r : snapshot) {
            if (!r.isValid()) {
                continue;
            }
            if (!r.handle.canSleep()) {
                return CANNOT_SLEEP;
            }
            CompletionChannel ch = r.handle.completionChannel();
            if (ch != r.inSet) {
                leaveSet(r);
                if (ch != null && !joinSet(r, ch)) {
                    return CANNOT_SLEEP;
                }
            }
            any |= ch != null;
        }
        return any ? SLEEP_ON_SET : SLEEP_PARKED;
    }

    /** Adds {@code r}'s channel to the wait set (made with the first). {@return false when it cannot be there} */
    private boolean joinSet(Registration r, CompletionChannel ch) {
        if (r.foreign == ch) {
            return false; // another backend's, as found before
        }
        try {
            CompletionWaitSet set = waitSet;
            if (set == null) {
                set = ch.context().createCompletionWaitSet();
                waitSet = set;
            }
            set.add(ch);
            r.inSet = ch;
            return true;
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            r.foreign = ch;
            LOG.debug("{}: its completion channel cannot join this loop's wait set ({}); the loop parks in naps "
                    + "while it is registered", r.handle, e.getMessage());
            return false;
        } catch (IllegalStateException e) {
            return false; // closed meanwhile: the next poll reports it
        }
    }

    private void leaveSet(Registration r) {
        CompletionChannel ch = r.inSet;
        if (ch != null) {
            r.inSet = null;
            CompletionWaitSet set = waitSet;
            if (set != null) {
                set.remove(ch);
            }
        }
    }

    /**
     * Arms every channel's queues, polls once more, then sleeps on the wait set (or, with no completion channel,
     * parks) until an event, a wake-up or the next scheduled task.
     */
    private int sleep(IoHandlerContext context, boolean onSet) {
        if (onSet) {
            for (Registration r : snapshot) {
                if (r.isValid() && r.inSet != null && !r.handle.arm()) {
                    return 0; // the next turn's poll reports the failure
                }
            }
        }
        int work = pollAll(); // what came before the arm raised no event
        if (work > 0) {
            idleSince = 0;
            parkNanos = MIN_PARK_NANOS;
            return work;
        }
        sleeping = true; // before the last look for tasks: a task submitted after it wakes the set
        try {
            if (!context.canBlock() || changed) {
                return 0;
            }
            long delay = context.delayNanos(System.nanoTime());
            if (onSet) {
                sleeps++;
                waitSet.await(delay, TimeUnit.NANOSECONDS);
            } else {
                LockSupport.parkNanos(this, delay);
            }
        } catch (IllegalStateException e) {
            // a channel's endpoint closed under it (its channel with it): out of the set; its next poll says so
            LOG.debug("the wait set of {}: {}", thread, e.getMessage());
            dropClosedChannels();
        } finally {
            sleeping = false;
        }
        idleSince = 0; // spin again after waking: more may follow
        parkNanos = MIN_PARK_NANOS;
        return 0;
    }

    private void dropClosedChannels() {
        for (Registration r : snapshot) {
            if (r.inSet != null && r.inSet.isClosed()) {
                leaveSet(r);
            }
        }
    }

    /** {@return how often the loop slept on its wait set so far} For the tests, on the loop's thread. */
    long sleeps() {
        return sleeps;
    }

    /** {@return how many naps the loop took so far} For the tests, on the loop's thread. */
    long naps() {
        return naps;
    }

    @Override
    public void wakeup() {
        Thread t = thread;
        if (t != null && t != Thread.currentThread()) {
            if (sleeping) {
                CompletionWaitSet set = waitSet;
                if (set != null) {
                    set.wakeup();
                }
            }
            LockSupport.unpark(t);
        }
    }

    /**
     * Closes every channel of the loop (Netty calls this at each turn while the group shuts down), then waits for
     * those whose close runs off the loop to hand their last step back: the loop ends only after it, so their
     * pipelines get channelInactive.
     */
    @Override
    public void prepareToDestroy() {
        Registration[] all = registrations.toArray(new Registration[0]);
        for (Registration r : all) {
            try {
                r.handle.close();
            } catch (Exception e) {
                LOG.debug("closing {} while the loop shuts down", r.handle, e);
            }
        }
        for (Registration r : all) {
            r.handle.awaitOffLoopClose();
        }
    }

    @Override
    public void destroy() {
        registrations.clear();
        snapshot = new Registration[0];
        CompletionWaitSet set = waitSet;
        if (set != null) {
            waitSet = null;
            try {
                set.close();
            } catch (RuntimeException e) {
                LOG.debug("closing the wait set while the loop shuts down", e);
            }
        }
    }

    @Override
    public IoRegistration register(IoHandle handle) {
        if (!(handle instanceof RdmaIoHandle)) {
            throw new IllegalArgumentException(handle.getClass().getName() + " is not a verbs4j channel's handle");
        }
        Registration r = new Registration((RdmaIoHandle) handle);
        registrations.add(r);
        changed = true;
        idleSince = 0;
        parkNanos = MIN_PARK_NANOS;
        r.handle.registered();
        return r;
    }

    @Override
    public boolean isCompatible(Class<? extends IoHandle> handleType) {
        return RdmaIoHandle.class.isAssignableFrom(handleType);
    }

    /** Cancelled from any thread; the loop drops it at its next turn. */
    private final class Registration extends AtomicBoolean implements IoRegistration {
        private static final long serialVersionUID = 1L;
        private final transient RdmaIoHandle handle;
        /** The completion channel of the handle in the wait set, or null; the loop's thread's. */
        private transient CompletionChannel inSet;
        /** A completion channel found not to fit the wait set (another backend's); the loop's thread's. */
        private transient CompletionChannel foreign;

        Registration(RdmaIoHandle handle) {
            this.handle = handle;
        }

        @Override
        @SuppressWarnings("unchecked")
        public <T> T attachment() {
            return (T) handle;
        }

        @Override
        public long submit(IoOps ops) {
            return 0; // nothing to subscribe to: every registered channel is polled every turn
        }

        @Override
        public boolean isValid() {
            return !get();
        }

        @Override
        public boolean cancel() {
            if (getAndSet(true)) {
                return false;
            }
            changed = true;
            handle.unregistered();
            wakeup();
            return true;
        }
    }
}
