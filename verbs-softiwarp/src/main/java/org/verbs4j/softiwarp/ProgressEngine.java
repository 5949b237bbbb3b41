package org.verbs4j.softiwarp;

import java.io.IOException;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A device context's progress thread: one {@link Selector} over the sockets of its connected QPs. When a socket is
 * readable it delivers the inbound segments (so a Write or Read target, and a completion channel, make progress
 * while no application thread polls; while application threads wait on a QP's CQs by polling them they receive,
 * and this thread leaves that socket's reading to them, looking again after a millisecond and then less often
 * ({@link #POLLED_MILLIS}), and at once when a CQ is armed). While a peer streams to a socket faster than one read takes it in, the thread reads that socket after
 * short naps instead of waiting on the selector, and gives it back to the selector when a nap's reads find little
 * ({@link #NAP_NANOS}). When a QP's transmit found the socket full, the threads polling the QP's CQs resume it at
 * each poll; when nobody polled them for a millisecond (or one is armed) this thread waits for the socket to be
 * writable and resumes it. It ends a QP whose peer has read nothing for the connection's time-out. It takes the same
 * non-blocking tokens as the application threads ({@link QpDataPath}), so it never waits for them: when an
 * application thread holds one, that thread does the work. A thread that waits on a completion channel sleeps on the
 * sockets itself ({@link SocketWaiter}), and this thread leaves them to it as to pollers. Started with the context's
 * first connected QP, stopped when the context is destroyed.
 */
final class ProgressEngine implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(ProgressEngine.class);
    private static final long SELECT_MILLIS = 100;
    /**
     * How soon to look again once a QP's socket is left to the threads polling its CQs; while they go on polling,
     * each look waits twice as long, up to {@link #POLLED_MAX_MILLIS}. Each look wakes this thread, and on a host
     * whose cores the polling threads keep busy such a wake-up could hold one of them back for a scheduler slice
     * (a p99 round trip of about a millisecond, with a look every millisecond).
     */
    private static final long POLLED_MILLIS = 1;
    private static final long POLLED_MAX_MILLIS = 16;
    /**
     * The nap between reads of a socket the peer streams to (timer slack makes it longer); 0 turns naps off.
     * While a thread sleeps on the selector, each segment the peer's kernel queues wakes it, and on loopback the
     * sending thread pays for that wake-up: a sixth of a {@code write_bw} sender's time.
     */
    static final long NAP_NANOS = Long.getLong("verbs4j.softiwarp.napNanos", 20_000);
    /** A read at least this large is followed by a second one; if that takes in as much, the peer streams. */
    private static final int NAP_ENTER_BYTES = 16 * 1024;
    /**
     * What the reads after a nap must take in for the next nap: two 64 KiB messages. A request and response
     * exchange of large messages brings at most one during a nap (the next waits for the response), a stream of
     * 2 GB/s brings that much.
     */
    private static final int NAP_STAY_BYTES = 128 * 1024;
    /** Reads after one nap at most, so other QPs of the thread wait at most this many reads. */
    private static final int NAP_READS = 8;

    private final Selector selector;
    private final Thread thread;
    private final ConcurrentLinkedQueue<QpDataPath> added = new ConcurrentLinkedQueue<>();
    /** The engine thread's own list. */
    private final List<QpDataPath> paths = new ArrayList<>();
    private final Consumer<SelectionKey> onReady = ProgressEngine::ready;
    /** The engine thread's wait before its next look at QPs left to their pollers. */
    private long polledWait = POLLED_MILLIS;
    /** Waits for a look at QPs left to their pollers, counted (read by tests). */
    volatile long polledLooks;
    private volatile boolean stopped;

    ProgressEngine(String name) throws IOException {
        this.selector = Selector.open();
        this.thread = new Thread(this, "verbs4j-siw-progress-" + name);
        thread.setDaemon(true);
        thread.start();
    }

    /** Takes a newly connected QP; its bytes already received (after the MPA frames) are delivered at once. */
    void add(QpDataPath path) {
        added.add(path);
        selector.wakeup();
    }

    /** Makes the thread look at its QPs now (a transmit stalled, a QP ended). */
    void wakeup() {
        selector.wakeup();
    }

    /** Stops the thread; the QPs' connections are theirs to close. */
    void stop() {
        stopped = true;
        selector.wakeup();
        if (Thread.currentThread() != thread) {
            try {
                thread.join(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void run() {
        try {
            while (!stopped) {
                for (QpDataPath p; (p = added.poll()) != null; ) {
                    try {
                        p.key = p.connection().register(selector, SelectionKey.OP_READ, p);
                        paths.add(p);
                    } catch (IOException | RuntimeException e) {
                        LOG.debug("a connection closed before its progress started: {}", e.toString());
                    }
                    receive(p);
                }
                long now = System.nanoTime();
                boolean leftToPollers = false;
                boolean napping = false;
                boolean watchedAgain = false;
                // by index, not an iterator, and select with an action, not the selected-key set: the set's
                // HashMap node per ready key and both iterators were the steady state's only allocations
                for (int i = paths.size() - 1; i >= 0; i--) {
                    QpDataPath p = paths.get(i);
                    SelectionKey k = p.key;
                    if (p.ended() || k == null || !k.isValid()) {
                        if (k != null) {
                            k.cancel();
                        }
                        paths.remove(i);
                        continue;
                    }
                    boolean wasLeft = p.unwatched;
                    boolean txWasLeft = p.txUnwatched;
                    boolean watch = watchesReceive(p);
                    boolean watchTx = watchesTransmit(p, now);
                    leftToPollers |= !watch || !watchTx;
                    watchedAgain |= watch && wasLeft || watchTx && txWasLeft;
                    if (!watch || NAP_NANOS <= 0) {
                        p.napping = false;
                    }
                    napping |= p.napping;
                    int ops = (watch && !p.napping ? SelectionKey.OP_READ : 0)
                            | (watchTx && p.wantsWrite() ? SelectionKey.OP_WRITE : 0);
                    try {
                        if (k.interestOps() != ops) {
                            k.interestOps(ops);
                        }
                    } catch (CancelledKeyException e) {
                        // the connection closed on another thread since isValid(): the QP has ended
                        paths.remove(i);
                        continue;
                    }
                    if (p.stalledTooLong(now) && !p.closing && p.enterQp()) {
                        try {
                            p.endStalled();
                        } finally {
                            p.leaveQp();
                        }
                    }
                }
                if (napping) {
                    LockSupport.parkNanos(NAP_NANOS); // a wakeup() waits for the nap's end: a few tens of µs
                    for (int i = 0; i < paths.size(); i++) {
                        QpDataPath p = paths.get(i);
                        if (p.napping) {
                            p.naps++;
                            p.napping = drain(p);
                        }
                    }
                    selector.selectNow(onReady);
                } else {
                    // a QP watched again (its pollers stopped) starts the looks over at the shortest wait
                    polledWait = !leftToPollers || watchedAgain ? POLLED_MILLIS : polledWait;
                    selector.select(onReady, leftToPollers ? polledWait : SELECT_MILLIS);
                    if (leftToPollers) {
                        polledWait = Math.min(2 * polledWait, POLLED_MAX_MILLIS);
                        polledLooks++;
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.error("the progress thread {} failed; QPs of its context progress only when polled", thread.getName(), e);
        } finally {
            try {
                selector.close();
            } catch (IOException e) {
                LOG.debug("closing the selector: {}", e.toString());
            }
        }
    }

    /**
     * Whether to watch a QP's socket for reading: not while application threads wait on its CQs by polling them,
     * empty or taking completions that receiving made ({@link QpDataPath#polledWaiting}; they receive, and a wake-up
     * per message here would only take a CPU from them and contend for the socket), unless a CQ of the QP is armed
     * (its channel's waiter polls nothing); nor, once the socket was left to them, while a thread holds the QP's
     * receive or send token at the look (a poll inside a long write counts only when it returns); and not while a
     * thread waiting on a CQ's channel or wait set sleeps on the socket, or waited there since the last look
     * ({@link SocketWaiter}: it receives), armed or not. A QP whose CQs nobody polled so since the last look is
     * watched again, so one-sided targets and a QP whose poller went away (or waits for memory now) progress within
     * about two {@link #POLLED_MAX_MILLIS}.
     */
    private static boolean watchesReceive(QpDataPath p) {
        int polls = p.polls();
        // polled waiting since the last look, or, when the last look left the socket to pollers, a thread works on
        // the QP now: a poll in a long write (a 64 KiB Read response, under emulation a millisecond) counts only when
        // it returns. A QP this thread watches stays watched while a thread posts (one that waits on memory a
        // Write fills polls nothing, and the look after each delivery would often meet its next post)
        boolean left = polls != p.pollsSeen || p.unwatched && p.worked();
        p.pollsSeen = polls;
        int waits = p.waits();
        // a channel waiter asleep on the socket, or one that waited since the last look (and will again): it reads
        // the socket itself (SocketWaiter), armed CQ or not
        boolean toWaiter = waits != p.waitsSeen || p.waiterAsleep();
        p.waitsSeen = waits;
        left |= toWaiter;
        p.leftToWaiter = toWaiter;
        p.unwatched = left; // before looking at the arm: requestNotify arms, then looks at this (and wakes us)
        if (left && !toWaiter && p.cqArmed()) {
            p.unwatched = left = false;
        }
        return !left;
    }

    /**
     * Whether to wait for the socket to be writable when a transmit stalls: not while application threads poll the
     * QP's CQs, empty or not (nor, once the socket was left to them, while a thread holds one of the QP's tokens at
     * the look), since each poll resumes it (and each time the socket turned writable, on loopback inside the peer's
     * read, the wake-up would take a core from them), unless a CQ is armed. A QP nobody polled for a millisecond is
     * watched again, and a transmit that stalls then wakes this thread.
     */
    private static boolean watchesTransmit(QpDataPath p, long now) {
        int polls = p.allPolls();
        if (polls != p.allPollsSeen || p.txUnwatched && p.worked()) { // as in watchesReceive
            p.allPollsSeen = polls;
            p.polledAt = now;
        }
        // by time, not by look: this thread looks at every wake-up, sooner than a poller in a long write polls again
        boolean left = now - p.polledAt <= POLLED_MILLIS * 1_000_000;
        // written before the caller reads wantsWrite (a transmit that stalls writes that, then reads this), and
        // before looking at the arm, as in watchesReceive
        p.txUnwatched = left;
        if (left && p.cqArmed()) {
            p.txUnwatched = left = false;
        }
        return !left;
    }

    /** The selector's action for a ready key (the engine thread's, inside {@link Selector#select}). */
    private static void ready(SelectionKey k) {
        QpDataPath p = (QpDataPath) k.attachment();
        int ready;
        try {
            ready = k.readyOps();
        } catch (CancelledKeyException e) {
            return; // closed on another thread; the loop drops it
        }
        if ((ready & SelectionKey.OP_WRITE) != 0) {
            p.writableWakeups++;
            send(p);
        }
        if ((ready & SelectionKey.OP_READ) != 0 && !p.waiterAsleep()) { // else the waiter woke too, and reads
            int r = receive(p);
            if (r == 0) {
                Thread.yield(); // an application thread is receiving: let it
            } else if (r > 0 && NAP_NANOS > 0 && p.connection().lastRead() >= NAP_ENTER_BYTES && receive(p) >= 0
                    && p.connection().lastRead() >= NAP_ENTER_BYTES) {
                // as much again came while the first read's segments were delivered: a stream (the rest of one
                // message, written by the peer in two parts, is less)
                p.napping = true;
            }
        }
    }

    /**
     * The reads after a nap, until the socket is empty or {@link #NAP_READS}. {@return whether the peer still
     * streams: they took in at least {@link #NAP_STAY_BYTES}}
     */
    private static boolean drain(QpDataPath p) {
        long got = 0;
        for (int reads = 0; reads < NAP_READS; reads++) {
            if (receive(p) < 0) {
                return false;
            }
            int n = p.connection().lastRead();
            if (n <= 0) {
                break;
            }
            got += n;
        }
        return got >= NAP_STAY_BYTES;
    }

    /** This thread's read of a QP's socket (after any write to it in progress on another thread has ended). */
    private static int receive(QpDataPath p) {
        int r = p.waitingReceive();
        if (r > 0) {
            p.engineReceives++;
        }
        return r;
    }

    private static void send(QpDataPath p) {
        if (p.closing || !p.enterQp()) {
            return;
        }
        try {
            if (!p.progressSend()) {
                Thread.yield(); // an application thread holds the send token and writes: let it
            }
        } finally {
            p.leaveQp();
        }
    }
}
