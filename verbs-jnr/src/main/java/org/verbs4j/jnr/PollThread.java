package org.verbs4j.jnr;

import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.verbs4j.api.internal.RawMemory;

/**
 * A daemon thread that sleeps in poll(2) on one descriptor, with no time-out, and runs a handler each
 * time it is readable; an eventfd of its own wakes it to stop. Periodic wake-ups would take the CPU
 * from a busy-polling data path for nothing (measured: 10 wake-ups a second cost a soft-iWARP transfer,
 * whose transport runs in a kernel thread, about 1% of a CPU in the lab). Used by the rdma_cm event
 * channel and by a device context's async events.
 */
final class PollThread {
    private final int fd;
    private final int wakeFd;
    private final int scratchBytes;
    private final LongConsumer onReadable;
    private final Consumer<Throwable> onFailure;
    private final Thread thread;
    private volatile boolean stopping;

    /**
     * Starts the thread. {@code onReadable} runs on it each time {@code fd} is readable, with the address of
     * {@code scratchBytes} of native memory the thread owns (freed when it ends, so never under a running
     * handler); {@code onFailure} gets what the handler or poll(2) threw (the thread then ends), unless the
     * thread was being stopped.
     */
    PollThread(String name, int fd, int scratchBytes, LongConsumer onReadable, Consumer<Throwable> onFailure) {
        this.fd = fd;
        this.wakeFd = LibC.eventFd();
        this.scratchBytes = scratchBytes;
        this.onReadable = onReadable;
        this.onFailure = onFailure;
        this.thread = new Thread(this::run, name);
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        long pollfds = RawMemory.allocate(LibC.AWAIT_EITHER_BYTES + scratchBytes);
        long scratch = pollfds + LibC.AWAIT_EITHER_BYTES;
        try {
            while (!stopping) {
                if (LibC.awaitEither(pollfds, fd, wakeFd) == 1 && !stopping) {
                    onReadable.accept(scratch);
                }
            }
        } catch (Throwable t) {
            if (!stopping) {
                onFailure.accept(t);
            }
        } finally {
            RawMemory.free(pollfds);
        }
    }

    /**
     * Wakes the thread and waits up to {@code joinMillis} for it to end; called on the thread itself (from
     * its handler) it only asks it to end after the handler returns. Closes the eventfd once the thread is
     * gone. Returns whether it is gone (or is this thread); false leaves the eventfd open for it.
     */
    boolean stop(long joinMillis) {
        stopping = true;
        LibC.signal(wakeFd);
        boolean self = thread == Thread.currentThread();
        if (!self) {
            try {
                thread.join(joinMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (self || !thread.isAlive()) {
            // the thread only polls it, and is gone (or is this thread, leaving its loop on return)
            LibC.close(wakeFd);
            return true;
        }
        return false;
    }
}
