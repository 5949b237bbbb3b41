package org.verbs4j.softiwarp;

import java.io.IOException;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The blocking wait of a completion channel or wait set on the sockets of the QPs whose completions it waits for.
 * A thread that waits for an event sleeps in its own {@link Selector} over those sockets instead of parking, and
 * delivers what arrives itself: the segment wakes this thread, which completes and fires the CQ and finds the event,
 * where a parked waiter needed the progress thread woken by the segment first and then woken by it (two wake-ups per
 * message, the second one on the message's path). While a waiter sleeps here, or has waited here since the progress
 * thread's last look, the progress thread leaves those sockets' reading to it, as it does for threads that poll
 * ({@link ProgressEngine}); a transmit that a full socket stopped stays the progress thread's and the pollers'.
 *
 * <p>One thread at a time sleeps in the selector ({@link #tryStart}); others on the same channel park, and the one
 * parked first takes the selector over when the sleeper leaves (the channel nudges it).
 * What else fires the channel (a send's completion, a QP of another context, {@code wakeup}, {@code close}) wakes
 * the sleeper through {@link #wakeup}. The sockets are registered when the waiter first sees the QP and
 * deregistered when the QP leaves the CQs; the steady state allocates nothing (select with an action).
 */
final class SocketWaiter {
    private static final Logger LOG = LoggerFactory.getLogger(SocketWaiter.class);
    /** A waiter's longest sleep in one select, so that QPs that join its CQs meanwhile are watched soon. */
    private static final long MAX_SELECT_MILLIS = 100;

    private final ReentrantLock sleeper = new ReentrantLock();
    private final Consumer<SelectionKey> onReady = this::ready;
    /**
     * Opened at the first wait with a connected QP; closed by {@link #close}. Only the lock's holder selects on it;
     * {@link #wakeup} reads it from any thread.
     */
    private volatile Selector selector;
    /** The selector was opened by this refresh: no select this time (a signal may have missed it, see sleep). */
    private boolean justOpened;
    /** Set while the lock's holder is in (or about to enter) {@link Selector#select}. */
    private volatile boolean selecting;
    /** The QPs whose sockets are registered, and the CQs' path arrays they were taken from (the holder's own). */
    private QpDataPath[] watched = new QpDataPath[0];
    /** Which of {@link #watched} are registered and open at this wait (set by each refresh). */
    private boolean[] active = new boolean[0];
    /** The channels' CQ arrays and the CQs' QP arrays the registrations were made from, in order. */
    private Object[] seen = new Object[0];
    private boolean failed;

    /** {@return whether this thread may sleep on the sockets now} When true, {@link #finish} must follow. */
    boolean tryStart() {
        if (!sleeper.tryLock()) {
            return false;
        }
        if (failed) {
            sleeper.unlock();
            return false;
        }
        return true;
    }

    /** Ends what {@link #tryStart} began. */
    void finish() {
        selecting = false;
        sleeper.unlock();
    }

    /**
     * Sleeps until a watched socket is readable, {@link #wakeup}, or {@code nanos} pass (at least a millisecond),
     * then delivers what the readable sockets have. The caller looked for its event after {@link #armSelect} and
     * found none.
     *
     * @param channels the channels whose CQs' QPs to watch
     * @param nanos    the longest sleep
     * @return false when there was no connected QP to watch (the caller should park instead)
     */
    boolean sleep(SoftCompletionChannel[] channels, long nanos) {
        try {
            if (!refresh(channels)) {
                selecting = false; // the caller parks: a signal unparks it
                return false;
            }
            if (justOpened) {
                // a signal that looked for the selector before it was there woke nothing: the caller looks for its
                // event again (after that signal's release) before the first select
                justOpened = false;
                return true;
            }
            QpDataPath[] a = watched;
            boolean[] on = active;
            for (int i = 0; i < a.length; i++) {
                if (on[i]) {
                    a[i].waiterBlocked(1);
                }
            }
            try {
                long millis = Math.max(1, Math.min(MAX_SELECT_MILLIS, (nanos + 999_999) / 1_000_000));
                selector.select(onReady, millis);
            } finally {
                selecting = false;
                for (int i = 0; i < a.length; i++) {
                    if (on[i]) {
                        a[i].waiterBlocked(-1);
                    }
                }
            }
            return true;
        } catch (IOException | RuntimeException e) {
            // the selector failed: park from now on (the progress thread delivers, as without this)
            LOG.warn("a completion wait could not watch its sockets, and parks instead: {}", e.toString());
            failed = true;
            selecting = false;
            return false;
        }
    }

    /** Called before the caller's last look for its event: a signal after that look wakes the select. */
    void armSelect() {
        selecting = true;
    }

    /** Wakes the thread sleeping on the sockets, if any (a selector wake-up costs a system call: only then). */
    void wakeup() {
        if (selecting) {
            Selector s = selector;
            if (s != null) {
                s.wakeup();
            }
        }
    }

    /** Closes the selector; the QPs' sockets stay open (they are the QPs'). */
    void close() {
        sleeper.lock();
        try {
            failed = true;
            if (selector != null) {
                try {
                    selector.close();
                } catch (IOException e) {
                    LOG.debug("closing a completion wait's selector: {}", e.toString());
                }
                selector = null;
            }
        } finally {
            sleeper.unlock();
        }
    }

    /**
     * Brings the registrations up to the channels' CQs' QPs (allocating only when they changed) and counts a wait on
     * each QP for the progress thread. {@return whether any QP is watched}
     */
    private boolean refresh(SoftCompletionChannel[] channels) throws IOException {
        if (changed(channels)) {
            List<Object> seen = new ArrayList<>();
            List<QpDataPath> all = new ArrayList<>();
            for (SoftCompletionChannel ch : channels) {
                SoftCompletionQueue[] cqs = ch.queues();
                seen.add(cqs);
                for (SoftCompletionQueue cq : cqs) {
                    QpDataPath[] paths = cq.paths();
                    seen.add(paths);
                    for (QpDataPath p : paths) {
                        if (!all.contains(p)) {
                            all.add(p);
                        }
                    }
                }
            }
            if (selector == null && !all.isEmpty()) {
                selector = Selector.open();
                justOpened = true;
            }
            if (selector != null) {
                for (SelectionKey k : selector.keys()) {
                    if (!all.contains((QpDataPath) k.attachment())) {
                        k.cancel(); // deregistered by the next select
                    }
                }
            }
            this.seen = seen.toArray();
            watched = all.toArray(new QpDataPath[0]);
            active = new boolean[watched.length];
        }
        boolean any = false;
        QpDataPath[] a = watched;
        for (int i = 0; i < a.length; i++) {
            QpDataPath p = a[i];
            active[i] = false;
            SelectionKey k = p.connection().keyFor(selector);
            if (p.closing || p.ended()) {
                if (k != null) {
                    k.cancel(); // an ended socket is readable for good (its end): not watched
                }
                continue;
            }
            if (k == null) {
                try {
                    p.connection().register(selector, SelectionKey.OP_READ, p);
                } catch (ClosedChannelException | CancelledKeyException e) {
                    continue; // the QP's connection ended meanwhile
                }
            } else if (!k.isValid()) {
                continue;
            }
            p.waited();
            active[i] = true;
            any = true;
        }
        return any;
    }

    /** {@return whether the channels' CQ arrays or the CQs' QP arrays differ from those last seen} No allocation. */
    private boolean changed(SoftCompletionChannel[] channels) {
        int j = 0;
        Object[] s = seen;
        for (SoftCompletionChannel ch : channels) {
            SoftCompletionQueue[] cqs = ch.queues();
            if (j >= s.length || s[j++] != cqs) {
                return true;
            }
            for (SoftCompletionQueue cq : cqs) {
                if (j >= s.length || s[j++] != cq.paths()) {
                    return true;
                }
            }
        }
        return j != s.length;
    }

    /** The selector's action for a readable socket: deliver what it has, as the progress thread would. */
    private void ready(SelectionKey k) {
        selecting = false; // awake: what this delivery fires needs no selector wake-up (a system call each)
        QpDataPath p = (QpDataPath) k.attachment();
        try {
            if ((k.readyOps() & SelectionKey.OP_READ) == 0) {
                return;
            }
        } catch (CancelledKeyException e) {
            return;
        }
        p.waitingReceive();
    }
}
