package org.verbs4j.softiwarp;

import java.util.concurrent.atomic.AtomicInteger;
import org.verbs4j.api.AsyncEvent;
import org.verbs4j.api.AsyncEventType;
import org.verbs4j.api.CompletionChannel;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.Errno;
import org.verbs4j.api.VerbsException;
import org.verbs4j.api.WcStatus;
import org.verbs4j.api.WorkCompletions;
import org.verbs4j.api.internal.RawMemory;
import org.verbs4j.api.internal.WrLayout.Wc;
import org.verbs4j.api.spi.AbstractResource;
import org.verbs4j.api.spi.CloseGuard;

/**
 * A completion queue in pure Java: a {@link CompletionRing} of {@code ibv_wc} entries that the QPs fill and
 * {@link #poll} copies into the caller's {@link WorkCompletions}, as {@code ibv_poll_cq} does. Polling and
 * completing take no lock and allocate nothing. A resize swaps the ring while no poll or completion is inside
 * (the ring gate, a {@link CloseGuard} that they enter; they wait at it during the swap). An armed queue
 * fires once on its channel: at the next completion, or with solicited-only at the next solicited or failed
 * one. A completion that finds the queue full is lost, and the context's listener gets {@code CQ_ERR}. A poll
 * first drives the receive side of the connected QPs that complete here ({@link QpDataPath#pollStep()}: one
 * non-blocking read of each socket, skipped when another thread is receiving), so a busy-polling application
 * gets its completions without waiting for the context's progress thread.
 */
final class SoftCompletionQueue extends AbstractResource implements CompletionQueue {
    private static final int NOT_ARMED = 0;
    private static final int ARMED_NEXT = 1;
    private static final int ARMED_SOLICITED = 2;

    private final SoftDeviceContext context;
    private final SoftCompletionChannel channel;
    private final CloseGuard ringGate = new CloseGuard();
    private final AtomicInteger armed = new AtomicInteger();
    private final AtomicInteger events = new AtomicInteger();
    private volatile CompletionRing ring;
    /** The connected QPs completing here, whose receive side a poll drives; replaced whole on a change. */
    private volatile QpDataPath[] paths = new QpDataPath[0];
    private volatile boolean overrun;

    SoftCompletionQueue(SoftDeviceContext context, int entries, SoftCompletionChannel channel) {
        super(context);
        this.context = context;
        this.channel = channel;
        try {
            dependOn(channel);
            this.ring = new CompletionRing(ringSize("ibv_create_cq", entries));
        } catch (RuntimeException e) {
            abandon();
            throw e;
        }
        if (channel != null) {
            channel.attach(this);
        }
        describeForLeakReport(context.softDevice().name() + " cq of " + ring.capacity());
    }

    private static int ringSize(String verb, int entries) {
        if (entries < 1 || entries > SiwAttributes.MAX_CQE) {
            throw new VerbsException(verb, Errno.EINVAL, entries + " entries: 1.." + SiwAttributes.MAX_CQE);
        }
        // at least 2: a ring of one slot cannot tell "published" from "free" (CompletionRing), and the verbs promise
        // at least the entries asked, not exactly
        int size = Integer.highestOneBit(entries) == entries ? entries : Integer.highestOneBit(entries) << 1;
        return Math.max(2, size);
    }

    /**
     * Adds a completion (for the QPs); fires the channel when armed for it. False when the queue is full: the
     * completion is lost, the queue is marked overrun and {@code CQ_ERR} is raised.
     */
    boolean complete(long wrId, int status, int opcode, int byteLen, int immData, int qpNum, int wcFlags,
            boolean solicited) {
        while (!ringGate.tryEnter()) {
            Thread.onSpinWait(); // a resize is swapping the ring
        }
        boolean added;
        try {
            added = ring.offer(wrId, status, opcode, 0, byteLen, immData, qpNum, 0, wcFlags);
        } finally {
            ringGate.leave();
        }
        if (!added) {
            overrun = true;
            context.raise(new AsyncEvent(AsyncEventType.CQ_ERR, this, 0));
            return false;
        }
        int a = armed.get();
        if (a != NOT_ARMED && (a == ARMED_NEXT || solicited || status != WcStatus.SUCCESS.value())
                && armed.compareAndSet(a, NOT_ARMED) && channel != null) {
            events.incrementAndGet();
            channel.signal();
        }
        return true;
    }

    /** Lets polls of this queue drive the receive side of a connected QP. */
    synchronized void attach(QpDataPath path) {
        QpDataPath[] a = java.util.Arrays.copyOf(paths, paths.length + 1);
        a[a.length - 1] = path;
        paths = a;
    }

    /** {@return the connected QPs that complete here (never changed in place: a new array on each change)} */
    QpDataPath[] paths() {
        return paths;
    }

    /** Undoes {@link #attach}; harmless when not attached. */
    synchronized void detach(QpDataPath path) {
        QpDataPath[] a = paths;
        for (int i = 0; i < a.length; i++) {
            if (a[i] == path) {
                QpDataPath[] b = new QpDataPath[a.length - 1];
                System.arraycopy(a, 0, b, 0, i);
                System.arraycopy(a, i + 1, b, i, a.length - i - 1);
                paths = b;
                return;
            }
        }
    }

    /** {@return whether the queue is armed for its channel} */
    boolean armed() {
        return armed.get() != NOT_ARMED;
    }

    /** Takes one event counted on this queue, for the channel; false when there is none. */
    boolean takeEvent() {
        int e;
        while ((e = events.get()) > 0) {
            if (events.compareAndSet(e, e - 1)) {
                return true;
            }
        }
        return false;
    }

    int pendingEvents() {
        return events.get();
    }

    /** {@return whether a completion was lost because the queue was full} */
    boolean overrun() {
        return overrun;
    }

    @Override
    public DeviceContext context() {
        return context;
    }

    @Override
    public int capacity() {
        return ring.capacity();
    }

    @Override
    public CompletionChannel channel() {
        return channel;
    }

    @Override
    public int poll(WorkCompletions wc) {
        return poll(wc, wc.capacity());
    }

    @Override
    public int poll(WorkCompletions wc, int max) {
        if (max < 0 || max > wc.capacity()) {
            throw new IllegalArgumentException("max " + max + " outside 0.." + wc.capacity());
        }
        enter();
        try {
            QpDataPath[] a = paths;
            for (QpDataPath p : a) {
                p.pollStep();
            }
            if (!ringGate.tryEnter()) {
                return 0; // a resize is swapping the ring: nothing to take this time
            }
            int n;
            boolean waiting;
            try {
                long out = wc.enter();
                try {
                    n = ring.poll(out, max);
                    waiting = n == 0 || receivedAny(out, n);
                } finally {
                    wc.leave();
                }
            } finally {
                ringGate.leave();
            }
            if (waiting) {
                for (QpDataPath p : a) {
                    p.polledWaiting(); // this thread waits here: the progress thread may leave the sockets to it
                }
            }
            return n;
        } finally {
            leave();
        }
    }

    /** Whether one of the {@code n} completions at {@code out} was made by receiving: a receive, a Read, an atomic. */
    private static boolean receivedAny(long out, int n) {
        for (int i = 0; i < n; i++) {
            int op = RawMemory.getInt(out + (long) i * Wc.WC_SIZE + Wc.OPCODE_OFFSET);
            if (WcCodes.madeByReceiving(op)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void requestNotify(boolean solicitedOnly) {
        checkOpen();
        // a later arm for any completion widens an arm for solicited ones, never the other way (as in siw)
        int want = solicitedOnly ? ARMED_SOLICITED : ARMED_NEXT;
        int a;
        do {
            a = armed.get();
            if (a == ARMED_NEXT) {
                return;
            }
        } while (!armed.compareAndSet(a, want));
        // a QP whose socket the progress thread left to its pollers: it watches it again while the queue is armed
        // (it set unwatched before it looked at the arm, this thread armed before it looks at unwatched); not one
        // left to a thread that waits on a channel, which reads the socket itself (SocketWaiter), and for writing
        // only when a transmit is stalled (one that stalls later sees the arm and wakes it: QpDataPath)
        for (QpDataPath p : paths) {
            if (p.unwatched && !p.leftToWaiter || p.txUnwatched && p.wantsWrite()) {
                ProgressEngine e = context.progress();
                if (e != null) {
                    e.wakeup();
                }
                return;
            }
        }
    }

    @Override
    public synchronized void resize(int entries) {
        enter();
        try {
            int size = ringSize("ibv_resize_cq", entries);
            ringGate.shut();
            try {
                ringGate.awaitIdle(this);
                CompletionRing old = ring;
                if (old.size() > size) {
                    throw new VerbsException("ibv_resize_cq", Errno.EINVAL, entries + " entries: fewer than the "
                            + old.size() + " completions queued");
                }
                if (size != old.capacity()) {
                    ring = old.moveTo(new CompletionRing(size));
                    old.free();
                }
            } finally {
                ringGate.reopen();
            }
        } finally {
            leave();
        }
    }

    @Override
    protected String kind() {
        return "CompletionQueue";
    }

    @Override
    protected void destroy() {
        if (channel != null) {
            channel.detach(this);
        }
        ring.free();
    }
}
