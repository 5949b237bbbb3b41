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

/**
 * The I/O handler of an event loop that drives {@link RdmaChannel}s and {@link RdmaServerChannel}s:
 *
 * <pre>{@code
 * EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, RdmaIoHandler.newFactory());
 * }</pre>
 *
 * <p>Each turn of the loop polls every registered channel once (send and receive completion queues, the peer's
 * credit word). While a turn finds work the loop keeps turning. After {@code spinNanos} without work it
 * parks between turns, first {@value #MIN_PARK_NANOS} ns, doubling up to {@code maxParkNanos}; with no channel
 * registered it parks until the next scheduled task. {@link #wakeup} unparks the loop's thread: a task submitted
 * from another thread runs at once (the park permit means a wake-up that comes before the park is not lost).
 *
 * <p>Why it parks instead of sleeping on a completion channel: an endpoint's credit updates arrive as RDMA WRITEs
 * into its memory, which raise no completion at all, so a loop asleep on a completion channel would never see the
 * credit that lets a blocked write go on; and a completion channel has no way for another thread to wake it for a
 * task. An idle loop therefore wakes up at most {@code 1e9 / maxParkNanos} times a second (1000 by default): close
 * to no CPU, not none.
 */
public final class RdmaIoHandler implements IoHandler {
    /** The first park after the spin, in nanoseconds. */
    public static final long MIN_PARK_NANOS = 16_000;
    /** How long the loop keeps polling without work before it parks, by default: 50 us. */
    public static final long DEFAULT_SPIN_NANOS = TimeUnit.MICROSECONDS.toNanos(50);
    /** The longest park while channels are registered, by default: 1 ms. */
    public static final long DEFAULT_MAX_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private static final Logger LOG = LoggerFactory.getLogger(RdmaIoHandler.class);

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
     * {@return a factory of handlers that poll {@code spinNanos} without work before they park, and park at
     * most {@code maxParkNanos} at a time while channels are registered}
     *
     * @param spinNanos    how long to poll without work before the first park, 0 or more: CPU spent for
     *                     latency after each burst of work
     * @param maxParkNanos the longest park, at least {@value #MIN_PARK_NANOS}: the most latency an idle
     *                     connection adds, and 1e9 / it the most wake-ups a second of an idle loop
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
            registrations.removeIf(r -> !r.isValid());
            snapshot = registrations.toArray(new Registration[0]);
            changed = false;
        }
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
        LockSupport.parkNanos(this, Math.min(parkNanos, context.delayNanos(System.nanoTime())));
        parkNanos = Math.min(maxParkNanos, parkNanos * 2);
        return 0;
    }

    @Override
    public void wakeup() {
        Thread t = thread;
        if (t != null && t != Thread.currentThread()) {
            LockSupport.unpark(t);
        }
    }

    @Override
    public void prepareToDestroy() {
        for (Registration r : registrations.toArray(new Registration[0])) {
            try {
                r.handle.close();
            } catch (Exception e) {
                LOG.debug("closing {} while the loop shuts down", r.handle, e);
            }
        }
    }

    @Override
    public void destroy() {
        registrations.clear();
        snapshot = new Registration[0];
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
