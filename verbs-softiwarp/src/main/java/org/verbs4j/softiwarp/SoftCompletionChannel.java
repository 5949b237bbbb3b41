package org.verbs4j.softiwarp;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.verbs4j.api.CompletionChannel;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.spi.AbstractResource;

/**
 * A completion channel in pure Java: an armed queue that fires counts an event on itself and releases one
 * permit here; {@link #awaitEvent} takes a permit and the first queue with an event. Firing allocates
 * nothing and takes no lock; only the waiting side blocks. There is no file descriptor behind it.
 */
final class SoftCompletionChannel extends AbstractResource implements CompletionChannel {
    private final SoftDeviceContext context;
    private final Semaphore events = new Semaphore(0);
    private final List<SoftCompletionQueue> queues = new CopyOnWriteArrayList<>();
    private volatile boolean closing;

    SoftCompletionChannel(SoftDeviceContext context) {
        super(context);
        this.context = context;
        describeForLeakReport(context.softDevice().name() + " completion channel");
    }

    void attach(SoftCompletionQueue cq) {
        queues.add(cq);
    }

    void detach(SoftCompletionQueue cq) {
        queues.remove(cq);
    }

    /** Called by a queue that fired, after counting the event on itself. */
    void signal() {
        events.release();
    }

    @Override
    public CompletionQueue awaitEvent(long timeout, TimeUnit unit) {
        enter();
        try {
            if (!events.tryAcquire(timeout, unit)) {
                return null;
            }
            if (closing) {
                throw closedException();
            }
            for (SoftCompletionQueue cq : queues) {
                if (cq.takeEvent()) {
                    return cq;
                }
            }
            return null; // the queue that fired was destroyed meanwhile
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } finally {
            leave();
        }
    }

    @Override
    protected void interruptWaits() {
        closing = true;
        events.release(Integer.MAX_VALUE / 2);
    }

    @Override
    protected void resumeWaits() {
        events.drainPermits();
        closing = false;
        int pending = 0;
        for (SoftCompletionQueue cq : queues) {
            pending += cq.pendingEvents();
        }
        events.release(pending);
    }

    @Override
    public DeviceContext context() {
        return context;
    }

    /** {@return -1: a software channel has no file descriptor for an event loop} */
    @Override
    public int fd() {
        return -1;
    }

    @Override
    protected String kind() {
        return "CompletionChannel";
    }

    @Override
    protected void destroy() {
        queues.clear();
    }
}
