package org.verbs4j.bench.perf;

import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;
import org.verbs4j.api.CompletionChannel;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.Opcode;
import org.verbs4j.api.QueuePair;
import org.verbs4j.api.ReceiveRequests;
import org.verbs4j.api.SendFlags;
import org.verbs4j.api.SendRequests;
import org.verbs4j.api.WcStatus;
import org.verbs4j.api.WorkCompletions;

/**
 * The measured loops, one per perftest loop ({@code run_iter_lat_send}, {@code run_iter_lat_write},
 * {@code run_iter_lat}, {@code run_iter_bw}, {@code run_iter_bw_server}), over one connected
 * {@link PerfSession}. Everything they touch is made before they start: the work requests (one signaled and
 * one unsignaled copy, so a post never rewrites a request), the receive request, the completion array and the
 * time-stamp arrays. Inside a loop there is no allocation: posts and polls go through the flyweights, time
 * stamps are {@link System#nanoTime()} into a {@code long[]}.
 *
 * <p>With {@code -e} a loop sleeps on the queue's completion channel where it would spin on an empty queue, and only
 * when a completion is due (a signaled request is outstanding, or a receive is expected): it takes the event, arms
 * the queue again and polls again, as perftest's {@code ctx_notify_events}. Both queues are armed when they are made,
 * so a completion that comes between the empty poll and the sleep has fired its event already.
 */
final class PerfRunner implements AutoCloseable {
    /** System property: print the bytes each measured loop allocated on the Java heap (stderr). */
    static final String MEASURE_ALLOCATION = "verbs4j.perf.measureAllocation";
    static final int POLL_BATCH = 16;
    private static final int RECEIVE = 0;
    private static final int SEND = 1;
    private static final int WRITE = 2;
    private static final int READ = 3;
    private static final int CREDIT = 4;
    /**
     * The credit word is perftest's {@code uint32_t} in native byte order; the client reads it as the first 4
     * bytes of a volatile 8-byte read: the low half on a little-endian machine, the high half on a big-endian one.
     */
    private static final int CREDIT_SHIFT = java.nio.ByteOrder.nativeOrder() == java.nio.ByteOrder.LITTLE_ENDIAN ? 0 : 32;
    private static final String[] WHAT = {"receive", "send", "RDMA write", "RDMA read", "credit write"};
    /** The work request id of a credit write (a message's is 0). */
    private static final long CREDIT_WR = 1;
    /** send_bw -b: where this side's own count is, after the word the peer's credit writes land in. */
    private static final int CREDIT_OUT = 8;

    private final PerfOptions o;
    private final PerfSession s;
    private final QueuePair qp;
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    /** {@code -e}: the queues' channels; null when the loops spin. */
    private final CompletionChannel sendChannel;
    private final CompletionChannel recvChannel;
    /**
     * On a device that progresses by polling ({@link org.verbs4j.api.RdmaDevice#progressesByPolling}: the software
     * iWARP device): the send CQ, polled while write_lat's loop waits for the peer's write, and by a passive server
     * while it waits for the peer ({@link #passiveDrive}), so that this thread reads the socket (otherwise the
     * device's progress thread does it after a wake-up). Null on a kernel device, where the loop only watches memory
     * and the server sleeps, as perftest's.
     */
    private final CompletionQueue driveWhileWaiting;
    private final MemoryRegion mr;
    private final SendRequests signaled = SendRequests.allocate(1, 1);
    private final SendRequests unsignaled = SendRequests.allocate(1, 1);
    private final SendRequests credit = SendRequests.allocate(1, 1);
    /** {@code -l}: one chain of {@code postList} requests, every {@code cqMod}-th signaled; null without it. */
    private final SendRequests list;
    private final ReceiveRequests recv = ReceiveRequests.allocate(1, 1);
    private final WorkCompletions wc = WorkCompletions.allocate(POLL_BATCH);
    /** The credit writes' completions: reaped in the middle of a batch of receive completions still in {@link #wc}. */
    private final WorkCompletions creditWc = WorkCompletions.allocate(POLL_BATCH);
    private final long[] posted;
    private final long[] completed;
    private final com.sun.management.ThreadMXBean threads;

    private int size;
    private int outstandingRecvs;
    /** Duration mode: iterations counted in the sample period, and the period itself. */
    private long sampledIters;
    private long sampledNanos;
    /** Bytes the last measured loop allocated (with {@link #MEASURE_ALLOCATION}). */
    private long loopAllocated;
    /** Iterations of the loop about to run: {@code --warmup} for the unmeasured run, else {@code -n}. */
    private long runIters;

    PerfRunner(PerfOptions o, PerfSession s) {
        this.o = o;
        this.s = s;
        this.qp = s.qp;
        this.sendCq = s.sendCq;
        this.recvCq = s.recvCq;
        this.sendChannel = s.sendChannel;
        this.recvChannel = s.recvChannel;
        this.driveWhileWaiting = s.ctx.device().progressesByPolling() ? s.sendCq : null;
        this.mr = s.mr;
        this.list = o.postList > 1 ? SendRequests.allocate(o.postList, 1) : null;
        int n = o.isDuration() ? 1 : Math.max(o.iters, o.warmup);
        this.posted = new long[n];
        this.completed = new long[n];
        this.threads = Boolean.getBoolean(MEASURE_ALLOCATION)
                ? (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean() : null;
    }

    /**
     * One run of the loop for messages of {@code sz} bytes: sets the requests up, with {@code sync} waits for
     * the peer at {@code label} (a handshake), runs {@code iters} iterations (0 in duration mode: until the
     * clock ends).
     */
    void measure(int sz, long iters, String label, boolean sync) {
        runIters = iters;
        prepare(sz);
        if (sync) {
            if (o.test == PerfTest.WRITE_LAT) {
                forgetTheLastRunsByte(sz);
            }
            s.sync(label);
        }
        runLoop(o.test, o.isClient());
    }

    /**
     * write_lat before a run of a size that already ran ({@code --warmup}'s runs, then the measured one): clears the
     * byte its loop waits on, which still holds the last run's final count. Every run counts from 1 again, so a last
     * run of {@code n} iterations with {@code (byte) n == 1} (two warm-up runs of one iteration, or of 257) let the
     * next run's first wait pass without the peer's Write: the sides then ran a step apart, two of the peer's Writes
     * could land before this side looked, and the second overwrote the byte it waited for (both sides spun on,
     * seen on the software device, which places every Write one read brings at once).
     *
     * <p>Safe before the handshake: every Write the peer sent in the last run carried a count this side waited
     * for, so none is still on its way; the peer sends this run's first only after the handshake.
     */
    private void forgetTheLastRunsByte(int sz) {
        mr.putByteVolatile(s.slot + sz - 1, (byte) 0);
    }

    /**
     * The wait of a server that posts nothing (read_lat's, and write_bw's and read_bw's without {@code -b}) on the
     * software iWARP device: one poll of the send CQ, which on that device reads the queue pair's socket and answers
     * the peer's Read Requests on this thread (otherwise the device's progress thread does it after a wake-up). Such
     * a server posted nothing, so a completion there can only be an error, and fails the run.
     *
     * <p>Only with more than one CPU: on one, the spinning server and the spinning client took turns by the
     * scheduler's time slices (milliseconds per read in the lab's one-vCPU VM), where a sleeping server's progress
     * thread, once woken, runs at once.
     *
     * @return the step to run at each turn of the server's waits (on this runner's thread, while it lives), or null
     *         on a kernel device, with {@code -e} and on one CPU (the server sleeps, as perftest's)
     */
    Runnable passiveDrive() {
        final CompletionQueue cq = driveWhileWaiting;
        if (cq == null || o.events || Runtime.getRuntime().availableProcessors() < 2) {
            return null;
        }
        final int what = o.test.verb == PerfTest.Verb.READ ? READ : WRITE;
        return () -> failOnUnexpectedCompletion(cq, what, 0, 0);
    }

    /**
     * Polls {@code cq} once where nothing can be waiting (every request's completion was taken after its post, or
     * none was posted): a completion there can only be an error, which {@link #check} reports; any other fails too.
     */
    private void failOnUnexpectedCompletion(CompletionQueue cq, int what, long scnt, long ccnt) {
        if (cq.poll(wc, 1) != 0) {
            check(0, what, scnt, ccnt);
            throw new PerfFailure(" A completion nobody waited for at " + (o.isClient() ? "client" : "server")
                    + ": wr_id " + wc.wrId(0) + "\n scnt=" + scnt + ", ccnt=" + ccnt);
        }
    }

    /** True with {@link #MEASURE_ALLOCATION}. */
    boolean measuresAllocation() {
        return threads != null;
    }

    /** The heap bytes the last loop allocated (0 unless {@link #measuresAllocation()}). */
    long loopAllocated() {
        return loopAllocated;
    }

    private void runLoop(PerfTest t, boolean client) {
        loopAllocated = 0;
        if ((client || o.duplex) && s.useCredits()) {
            // only now: the server got past the synchronisation, so no credit write of the last run is in flight
            mr.putLong(s.creditOffset(), 0);
        }
        switch (t) {
            case SEND_LAT -> sendLatency(client);
            case WRITE_LAT -> writeLatency(client);
            case READ_LAT -> {
                if (client) {
                    readLatency();
                }
            }
            case SEND_BW -> {
                if (o.duplex) {
                    bidirectionalSend(client);
                } else if (client) {
                    bandwidthClient();
                } else {
                    sendBandwidthServer();
                }
            }
            case WRITE_BW, READ_BW -> {
                if (client || o.duplex) {
                    bandwidthClient(); // -b: the server streams to the client at the same time
                }
            }
            default -> throw new IllegalStateException(t.toString());
        }
    }

    private long allocated() {
        return threads == null ? 0 : threads.getCurrentThreadAllocatedBytes();
    }

    /** Sets the requests up for one message size and, for the send tests, tops the receives up to rx depth. */
    private void prepare(int sz) {
        this.size = sz;
        PerfTest.Verb verb = o.test.verb;
        Opcode op = verb == PerfTest.Verb.SEND ? Opcode.SEND : verb == PerfTest.Verb.WRITE ? Opcode.RDMA_WRITE
                : Opcode.RDMA_READ;
        int inline = verb != PerfTest.Verb.READ && sz <= s.inlineSize ? SendFlags.INLINE : 0;
        // RDMA: from our source half to the peer's advertised half (a READ reads it into our source half)
        for (SendRequests w : new SendRequests[] {signaled, unsignaled}) {
            w.at(0).clear().wrId(0).opcode(op).flags(inline | (w == signaled ? SendFlags.SIGNALED : 0))
                    .sge(s.sendAddress(), sz, mr.lkey()).rdma(s.remote.vaddr(), s.remote.rkey());
        }
        if (list != null) {
            // perftest's ctx_set_send_wqes with a post list: every cqMod-th of the list signaled (the last among them)
            for (int j = 0; j < o.postList; j++) {
                list.at(j).clear().wrId(0).opcode(op).flags(inline | ((j + 1) % o.cqMod == 0 ? SendFlags.SIGNALED : 0))
                        .sge(s.sendAddress(), sz, mr.lkey()).rdma(s.remote.vaddr(), s.remote.rkey());
            }
            list.count(o.postList);
        }
        if (s.useCredits()) {
            // -b: this side's count goes from a word of its own (the peer's credits for it land in creditOffset)
            long from = mr.address() + s.creditOffset() + (o.duplex ? CREDIT_OUT : 0);
            credit.at(0).clear().wrId(CREDIT_WR).opcode(Opcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                    .sge(from, 4, mr.lkey()).rdma(s.remote.vaddr(), s.remote.rkey());
        }
        topUpReceives(sz);
    }

    /**
     * Send tests: posts receives of {@code sz} bytes until rx depth are outstanding. Called for the first size
     * before the queue pair is connected (iWARP has no RNR retry: a send must never find no receive), then
     * at the start of every size, before the size's synchronisation.
     */
    void topUpReceives(int sz) {
        recv.at(0).wrId(0).sge(s.targetAddress(), sz, mr.lkey());
        if (o.test.verb == PerfTest.Verb.SEND && (o.test == PerfTest.SEND_LAT || !o.isClient() || o.duplex)) {
            while (outstandingRecvs < o.rxDepth) {
                qp.postReceive(recv);
                outstandingRecvs++;
            }
        }
    }

    // ---- latency ----

    /** {@code run_iter_lat_send}: send/receive ping-pong; the client sends first. */
    private void sendLatency(boolean client) {
        final long iters = runIters;
        final boolean duration = o.isDuration();
        final int rxDepth = o.rxDepth;
        final int cqMod = o.cqMod;
        final DurationClock clock = duration ? new DurationClock(o.duration, o.margin()) : null;
        final long[] t = posted;
        final CompletionChannel sch = sendChannel;
        final CompletionChannel rch = recvChannel;
        long scnt = 0;
        long rcnt = 0;
        long sampled = 0;
        if (clock != null) {
            clock.start();
        }
        final long allocBefore = allocated();
        while (scnt < iters || rcnt < iters || duration && !clock.ended()) {
            if ((rcnt < iters || duration) && !(scnt < 1 && client)) {
                int ne;
                do {
                    ne = recvCq.poll(wc, 1);
                    if (ne == 0 && rch != null) {
                        sleepOn(rch);
                    }
                } while (ne == 0 && !(duration && clock.ended()));
                if (ne > 0) {
                    check(0, RECEIVE, scnt, rcnt);
                    rcnt++;
                    outstandingRecvs--;
                    if (duration && clock.sampling()) {
                        sampled++;
                    }
                    if (duration || rcnt + rxDepth <= iters) {
                        qp.postReceive(recv);
                        outstandingRecvs++;
                    }
                }
            }
            if (scnt < iters || duration && !clock.ended()) {
                if (!duration) {
                    t[(int) scnt] = System.nanoTime();
                }
                scnt++;
                boolean signal = scnt % cqMod == 0 || !duration && scnt == iters;
                qp.postSend(signal ? signaled : unsignaled);
                if (signal) {
                    int ne;
                    do {
                        ne = sendCq.poll(wc, 1);
                        if (ne == 0 && sch != null) {
                            sleepOn(sch);
                        }
                    } while (ne == 0);
                    check(0, SEND, scnt, rcnt);
                }
            }
            if (duration && clock.ended()) {
                break;
            }
        }
        loopAllocated = allocated() - allocBefore;
        finishDuration(clock, sampled);
    }

    /** {@code run_iter_lat_write}: RDMA WRITE ping-pong; each side spins on the last byte of its target half. */
    private void writeLatency(boolean client) {
        final long iters = runIters;
        final boolean duration = o.isDuration();
        final DurationClock clock = duration ? new DurationClock(o.duration, o.margin()) : null;
        final long pollOffset = s.slot + size - 1;
        final long postOffset = size - 1;
        final MemoryRegion m = mr;
        final CompletionQueue drive = driveWhileWaiting;
        final long[] t = posted;
        long scnt = 0;
        long ccnt = 0;
        long rcnt = 0;
        long sampled = 0;
        if (clock != null) {
            clock.start();
        }
        final long allocBefore = allocated();
        while (scnt < iters || ccnt < iters || rcnt < iters || duration && !clock.ended()) {
            if ((rcnt < iters || duration) && !(scnt < 1 && !client)) {
                rcnt++;
                byte want = (byte) rcnt;
                // a bare spin, as perftest's: no Thread.onSpinWait(). Its PAUSE delays noticing the byte (tens of
                // ns on hardware), and under QEMU's TCG each PAUSE leaves the translated code (helper_pause)
                while (m.getByteVolatile(pollOffset) != want && !(duration && clock.ended())) {
                    if (drive != null) {
                        failOnUnexpectedCompletion(drive, WRITE, scnt, ccnt);
                    }
                }
            }
            if (scnt < iters || duration) {
                if (!duration) {
                    t[(int) scnt] = System.nanoTime();
                }
                m.putByteVolatile(postOffset, (byte) ++scnt);
                qp.postSend(signaled);
            }
            if (duration && clock.ended()) {
                break;
            }
            if (ccnt < iters || duration) {
                int ne;
                do {
                    ne = sendCq.poll(wc, 1);
                } while (ne == 0);
                check(0, WRITE, scnt, ccnt);
                ccnt++;
                if (duration && clock.sampling()) {
                    sampled++;
                }
            }
        }
        loopAllocated = allocated() - allocBefore;
        finishDuration(clock, sampled);
    }

    /** {@code run_iter_lat}: one signaled RDMA READ at a time, client side only. */
    private void readLatency() {
        final long iters = runIters;
        final boolean duration = o.isDuration();
        final DurationClock clock = duration ? new DurationClock(o.duration, o.margin()) : null;
        final long[] t = posted;
        final CompletionChannel sch = sendChannel;
        long scnt = 0;
        long sampled = 0;
        if (clock != null) {
            clock.start();
        }
        final long allocBefore = allocated();
        while (scnt < iters || duration && !clock.ended()) {
            if (!duration) {
                t[(int) scnt] = System.nanoTime();
            }
            scnt++;
            qp.postSend(signaled);
            int ne;
            do {
                ne = sendCq.poll(wc, 1);
                if (ne == 0 && sch != null) {
                    sleepOn(sch);
                }
            } while (ne == 0);
            check(0, READ, scnt, scnt);
            if (duration && clock.sampling()) {
                sampled++;
            }
        }
        loopAllocated = allocated() - allocBefore;
        finishDuration(clock, sampled);
    }

    // ---- bandwidth ----

    /**
     * {@code run_iter_bw}: keeps up to tx depth messages in flight; every {@code cqMod}-th (and the last) is
     * signaled and its completion accounts for {@code cqMod} messages. Without RNR retry (iWARP) send_bw also
     * waits for the server's receive credits.
     */
    private void bandwidthClient() {
        final long iters = runIters;
        final boolean duration = o.isDuration();
        final boolean noPeak = o.noPeak;
        final int txDepth = o.txDepth;
        final int cqMod = o.cqMod;
        final boolean credits = s.useCredits();
        final int rxDepth = o.rxDepth;
        final long creditOffset = s.creditOffset();
        final int creditShift = CREDIT_SHIFT;
        final DurationClock clock = duration ? new DurationClock(o.duration, o.margin()) : null;
        final long[] tp = posted;
        final long[] tc = completed;
        final MemoryRegion m = mr;
        final int op = o.test.verb == PerfTest.Verb.SEND ? SEND : o.test.verb == PerfTest.Verb.WRITE ? WRITE : READ;
        final CompletionChannel sch = sendChannel;
        // -l: a post is a chain of `step` requests (iters and cqMod divide evenly: PerfOptions)
        final SendRequests chain = list;
        final int step = chain == null ? 1 : o.postList;
        // the signaled requests: every cqMod-th, and the last (-e runs have no duration)
        final long lastSignal = iters % cqMod != 0 ? 1 : 0;
        long scnt = 0;
        long ccnt = 0;
        long sampled = 0;
        if (clock != null) {
            clock.start();
        }
        if (noPeak && !duration) {
            tp[0] = System.nanoTime();
        }
        final long allocBefore = allocated();
        while (scnt < iters || ccnt < iters || duration && !clock.ended()) {
            while ((scnt < iters || duration) && scnt - ccnt + step <= txDepth) {
                if (credits && scnt + step - (m.getLongVolatile(creditOffset) >>> creditShift & 0xffffffffL) >= rxDepth) {
                    break;
                }
                if (!noPeak) {
                    tp[(int) scnt] = System.nanoTime();
                }
                if (duration && clock.ended()) {
                    break;
                }
                if (chain != null) {
                    qp.postSend(chain);
                } else {
                    boolean signal = scnt % cqMod == cqMod - 1 || !duration && scnt == iters - 1;
                    qp.postSend(signal ? signaled : unsignaled);
                }
                scnt += step;
            }
            if (ccnt < iters || duration && ccnt < scnt) {
                int ne = sendCq.poll(wc, POLL_BATCH);
                // sleep only for a signaled request in flight: with credits (not the queue) holding the posts back,
                // none may be (then this spins, as without -e, until a credit comes)
                if (ne == 0 && sch != null && scnt / cqMod + (scnt == iters ? lastSignal : 0) > ccnt / cqMod) {
                    sleepOn(sch);
                }
                for (int i = 0; i < ne; i++) {
                    check(i, op, scnt, ccnt);
                    ccnt += cqMod;
                    if (!noPeak) {
                        tc[(int) (ccnt > iters ? iters - 1 : ccnt - 1)] = System.nanoTime();
                    }
                    if (duration && clock.sampling()) {
                        sampled += cqMod;
                    }
                }
            }
            if (duration && clock.ended()) {
                break;
            }
        }
        if (noPeak && !duration) {
            tc[0] = System.nanoTime();
        }
        loopAllocated = allocated() - allocBefore;
        finishDuration(clock, sampled);
    }

    /** {@code run_iter_bw_server}: counts receives from the first one on, re-posting as they are used. */
    private void sendBandwidthServer() {
        final long iters = runIters;
        final boolean duration = o.isDuration();
        final boolean credits = s.useCredits();
        final int rxDepth = o.rxDepth;
        final int creditEvery = Math.max(1, rxDepth / 3);
        final int sendDepth = o.txDepth;
        final long creditOffset = s.creditOffset();
        final DurationClock clock = duration ? new DurationClock(o.duration, o.margin()) : null;
        final MemoryRegion m = mr;
        long rcnt = 0;
        long postedRecvs = outstandingRecvs;
        long sampled = 0;
        int creditsInFlight = 0;
        boolean first = true;
        final long allocBefore = allocated();
        final CompletionChannel rch = recvChannel;
        while (rcnt < iters || duration && !clock.ended()) {
            int ne = recvCq.poll(wc, POLL_BATCH);
            if (ne == 0 && rch != null) {
                sleepOn(rch); // a receive is due
            }
            if (ne > 0 && first) {
                first = false;
                if (duration) {
                    clock.start();
                } else {
                    posted[0] = System.nanoTime();
                }
            }
            for (int i = 0; i < ne; i++) {
                check(i, RECEIVE, rcnt, rcnt);
                rcnt++;
                outstandingRecvs--;
                if (duration && clock.sampling()) {
                    sampled++;
                }
                if (duration || postedRecvs + 1 <= iters) {
                    qp.postReceive(recv);
                    outstandingRecvs++;
                    postedRecvs++;
                }
                // perftest's rule: a credit when (rcnt mod rx depth) is a multiple of rx depth / 3
                if (credits && rcnt % rxDepth % creditEvery == 0) {
                    while (creditsInFlight >= sendDepth) {
                        creditsInFlight -= reapCredits();
                    }
                    m.putInt(creditOffset, (int) rcnt);
                    qp.postSend(credit);
                    creditsInFlight++;
                }
            }
            // no reaping here: like perftest, the credit writes' completions are polled only when tx depth of
            // them are outstanding (above) and at the end; an extra send-CQ poll per loop would slow the receive spin
        }
        while (creditsInFlight > 0) {
            creditsInFlight -= reapCredits();
        }
        if (!duration) {
            completed[0] = System.nanoTime();
        }
        loopAllocated = allocated() - allocBefore;
        finishDuration(clock, sampled);
    }

    /**
     * {@code run_iter_bi}: send_bw with {@code -b}. Each side streams as the client does (tx depth in flight, every
     * {@code cq_mod}-th and the last message signaled, the peer's receive credits on iWARP) and receives as the
     * server does (re-posting, a credit write every rx depth / 3 on iWARP), in one loop that polls both queues in turn.
     * The server sends nothing before the client's first message has arrived (perftest's {@code before_first_rx}).
     */
    private void bidirectionalSend(boolean client) {
        final long iters = runIters;
        final boolean noPeak = o.noPeak;
        final int txDepth = o.txDepth;
        final int cqMod = o.cqMod;
        final boolean credits = s.useCredits();
        final int rxDepth = o.rxDepth;
        final int creditEvery = Math.max(1, rxDepth / 3);
        // the send queue holds tx depth messages and up to DEF_TX_BW credit writes (PerfSession sizes it so)
        final int maxCredits = PerfOptions.DEF_TX_BW;
        final long creditIn = s.creditOffset();
        final long creditOut = s.creditOffset() + CREDIT_OUT;
        final int creditShift = CREDIT_SHIFT;
        final long[] tp = posted;
        final long[] tc = completed;
        final MemoryRegion m = mr;
        long scnt = 0;
        long rcnt = 0;
        long postedRecvs = outstandingRecvs;
        boolean waitFirst = !client;
        biCcnt = 0;
        biCredits = 0;
        if (noPeak) {
            tp[0] = System.nanoTime();
        }
        final long allocBefore = allocated();
        while (scnt < iters || biCcnt < iters || rcnt < iters) {
            while (!waitFirst && scnt < iters && scnt - biCcnt + 1 <= txDepth) {
                if (credits && scnt + 1 - (m.getLongVolatile(creditIn) >>> creditShift & 0xffffffffL) >= rxDepth) {
                    break;
                }
                boolean signal = scnt % cqMod == cqMod - 1 || scnt == iters - 1;
                if (!noPeak) {
                    tp[(int) scnt] = System.nanoTime();
                }
                qp.postSend(signal ? signaled : unsignaled);
                scnt++;
            }
            int ne = recvCq.poll(wc, POLL_BATCH);
            for (int i = 0; i < ne; i++) {
                check(i, RECEIVE, scnt, rcnt);
                rcnt++;
                outstandingRecvs--;
                waitFirst = false;
                if (postedRecvs + 1 <= iters) {
                    qp.postReceive(recv);
                    outstandingRecvs++;
                    postedRecvs++;
                }
                if (credits && rcnt % rxDepth % creditEvery == 0) {
                    while (biCredits >= maxCredits) {
                        reapBidirectional(scnt, iters, noPeak, cqMod);
                    }
                    m.putInt(creditOut, (int) rcnt);
                    qp.postSend(credit);
                    biCredits++;
                }
            }
            reapBidirectional(scnt, iters, noPeak, cqMod);
        }
        while (biCredits > 0) {
            reapBidirectional(scnt, iters, noPeak, cqMod);
        }
        if (noPeak) {
            tc[0] = System.nanoTime();
        }
        loopAllocated = allocated() - allocBefore;
    }

    /** send_bw -b: the messages' and credit writes' completions counted (the loop's counts are fields for this). */
    private long biCcnt;
    private int biCredits;

    private void reapBidirectional(long scnt, long iters, boolean noPeak, int cqMod) {
        int ne = sendCq.poll(creditWc, POLL_BATCH);
        for (int i = 0; i < ne; i++) {
            boolean isCredit = creditWc.wrId(i) == CREDIT_WR;
            check(creditWc, i, isCredit ? CREDIT : SEND, scnt, biCcnt);
            if (isCredit) {
                biCredits--;
            } else {
                biCcnt += cqMod;
                if (!noPeak) {
                    completed[(int) (biCcnt > iters ? iters - 1 : biCcnt - 1)] = System.nanoTime();
                }
            }
        }
    }

    /** Polls the credit writes' completions (called with one in flight at least; with -e sleeps for one). */
    private int reapCredits() {
        int ne = sendCq.poll(creditWc, POLL_BATCH);
        if (ne == 0 && sendChannel != null) {
            sleepOn(sendChannel);
        }
        for (int i = 0; i < ne; i++) {
            check(creditWc, i, CREDIT, 0, 0);
        }
        return ne;
    }

    /**
     * {@code -e}: waits for the channel's next event, then arms its queue again (perftest's
     * {@code ctx_notify_events}: {@code ibv_get_cq_event}, {@code ibv_ack_cq_events}, {@code ibv_req_notify_cq}).
     * The caller polls again; an event for a completion it polled already costs one empty poll.
     */
    private static void sleepOn(CompletionChannel channel) {
        CompletionQueue fired;
        do {
            fired = channel.awaitEvent(1, TimeUnit.SECONDS);
        } while (fired == null);
        fired.requestNotify(false);
    }

    private void finishDuration(DurationClock clock, long sampled) {
        if (clock != null) {
            clock.stop();
            sampledIters = sampled;
            sampledNanos = clock.sampleNanos();
        }
    }

    /**
     * Fails on an error completion. {@code what} is a code, not a string: the first execution of a string
     * literal allocates it (constant pool resolution), which would count as the loop's allocation.
     */
    private void check(int i, int what, long scnt, long ccnt) {
        check(wc, i, what, scnt, ccnt);
    }

    private void check(WorkCompletions wc, int i, int what, long scnt, long ccnt) {
        int status = wc.statusValue(i);
        if (status != 0) {
            WcStatus st = WcStatus.of(status);
            throw new PerfFailure(" Completion with error at " + (o.isClient() ? "client" : "server") + ":\n"
                    + " Failed status " + status + ": wr_id " + wc.wrId(i) + " syndrom 0x" + Integer.toHexString(wc.vendorError(i))
                    + " (" + (st == null ? "unknown" : st.text()) + ", " + WHAT[what] + ")\n scnt=" + scnt + ", ccnt=" + ccnt);
        }
    }

    /** Prints the result line(s) of the last measured loop. */
    void report(PerfReport reporter) {
        if (o.isDuration()) {
            reporter.duration(o.isClient(), size, sampledIters, sampledNanos);
        } else {
            reporter.iterations(o.isClient(), size, posted, completed);
        }
    }

    @Override
    public void close() {
        signaled.close();
        unsignaled.close();
        if (list != null) {
            list.close();
        }
        credit.close();
        recv.close();
        wc.close();
        creditWc.close();
    }
}
