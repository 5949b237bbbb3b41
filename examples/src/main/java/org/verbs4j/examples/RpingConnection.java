package org.verbs4j.examples;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.verbs4j.api.Access;
import org.verbs4j.api.CompletionChannel;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.Opcode;
import org.verbs4j.api.PostException;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.QpInitAttributes;
import org.verbs4j.api.QpType;
import org.verbs4j.api.QueuePair;
import org.verbs4j.api.ReceiveRequests;
import org.verbs4j.api.SendFlags;
import org.verbs4j.api.SendRequests;
import org.verbs4j.api.VerbsException;
import org.verbs4j.api.WaitStrategy;
import org.verbs4j.api.WcStatus;
import org.verbs4j.api.WorkCompletions;
import org.verbs4j.api.cm.CmId;

/**
 * One rping connection, either side: the resources {@code rping_setup_qp} and {@code rping_setup_buffers}
 * make, and the ping loops {@code rping_test_client} / {@code rping_test_server}, on one thread.
 *
 * <p>The C tool has a CQ thread that turns completions into states and wakes the main thread with a
 * semaphore. Here the loop thread itself sleeps on the completion channel ({@link WaitStrategy#blocking()},
 * in slices of {@link #SLICE_NANOS}) and handles the completions it gets: the receive of a message (which
 * is reposted at once, as in C), the end of an RDMA READ or WRITE, the end of a SEND. A second thread only
 * waits for {@code RDMA_CM_EVENT_DISCONNECTED}, which ends the server's loop (the client disconnected) as
 * the C tool's CM thread does. After the set-up, the loops allocate nothing unless {@code -v} or {@code -d}
 * print.
 *
 * <p>Buffers, as in C: a 16-byte receive buffer (local write), a 16-byte send buffer, the {@code -S}-byte
 * RDMA buffer (the client's sink, the server's READ target and WRITE source) and, on the client, the
 * {@code -S}-byte start buffer (the server's READ source). Both big buffers are registered for local write,
 * remote read and remote write: on iWARP an RDMA READ's sink must allow remote write.
 */
final class RpingConnection implements AutoCloseable {
    /** {@code RPING_SQ_DEPTH}: send queue entries; the CQ has twice as many. */
    static final int SQ_DEPTH = 16;
    static final int RQ_DEPTH = 2;
    static final long SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /**
     * System property: print the bytes the ping loop allocated on the Java heap to stderr
     * ({@code verbs4j: the rping loop allocated N bytes}); see {@link PingPongSession#MEASURE_ALLOCATION}.
     */
    static final String MEASURE_ALLOCATION = "verbs4j.rping.measureAllocation";
    /**
     * System property, a test hook: the server flips one byte of the data before it WRITEs ping N back, so
     * that a test can see the client's {@code -V} catch it (RpingIT). Never set it otherwise.
     */
    static final String CORRUPT_PING = "verbs4j.rping.test.corruptPing";

    private static final long RECV_WRID = 1;
    private static final long SEND_WRID = 2;
    private static final long READ_WRID = 3;
    private static final long WRITE_WRID = 4;
    private static final WaitStrategy WAIT = WaitStrategy.blocking();

    /** Thrown inside the loops when the connection went away (DISCONNECTED, or the QP flushed). */
    private static final class Disconnected extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Disconnected() {
            super("disconnected", null, false, false);
        }
    }

    private final RpingOptions o;
    private final boolean server;
    private final CmId id;
    private final PrintStream out;
    private final PrintStream err;
    private final int size;
    private final String side;

    private ProtectionDomain pd;
    private CompletionChannel channel;
    private CompletionQueue cq;
    private QueuePair qp;
    private MemoryRegion recvMr;
    private MemoryRegion sendMr;
    private MemoryRegion rdmaMr;
    private MemoryRegion startMr;
    private SendRequests sendWr;
    private SendRequests rdmaWr;
    private ReceiveRequests recvWr;
    private WorkCompletions wc;
    private Thread watcher;

    /** The last message received, and the one to send. */
    private final byte[] message = new byte[RpingMessage.LENGTH];
    /** The client's ping data (its start buffer); the server's scratch for the -V check. */
    private final byte[] pingData;
    /** What the RDMA buffer holds, copied out after a WRITE (client) or a READ (server). */
    private final byte[] rdmaData;

    private int receivedMessages;
    private int sendsInFlight;
    private boolean readDone;
    private boolean writeDone;
    private boolean flushed;
    private volatile boolean disconnected;
    private long remoteAddr;
    private int remoteRkey;
    private long remoteLen;

    private final RpingStats stats = new RpingStats();
    private final long corruptPing = Long.getLong(CORRUPT_PING, -1);

    RpingConnection(RpingOptions o, CmId id, boolean server, PrintStream out, PrintStream err) {
        this.o = o;
        this.id = id;
        this.server = server;
        this.out = out;
        this.err = err;
        this.size = o.size();
        this.side = server ? "server" : "client";
        this.pingData = new byte[size];
        this.rdmaData = new byte[size];
    }

    private void debug(String line) {
        if (o.debug()) {
            out.println(line);
        }
    }

    /** {@code rping_setup_qp} and {@code rping_setup_buffers}, then the first receive (before connect/accept). */
    void setUp() {
        DeviceContext ctx = id.context();
        pd = step("ibv_alloc_pd failed", ctx::allocProtectionDomain);
        debug("created pd " + pd);
        channel = step("ibv_create_comp_channel failed", ctx::createCompletionChannel);
        debug("created channel " + channel);
        cq = step("ibv_create_cq failed", () -> ctx.createCompletionQueue(SQ_DEPTH * 2, channel, 0));
        debug("created cq " + cq);
        qp = step("rdma_create_qp failed", () -> id.createQueuePair(pd, new QpInitAttributes(QpType.RC, cq, cq)
                .maxSendWr(SQ_DEPTH).maxRecvWr(RQ_DEPTH).maxSendSge(1).maxRecvSge(1)));
        debug("created qp " + qp);

        int rdmaAccess = Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE;
        recvMr = step("recv_buf reg_mr failed", () -> pd.allocateMemory(RpingMessage.LENGTH, Access.LOCAL_WRITE));
        sendMr = step("send_buf reg_mr failed", () -> pd.allocateMemory(RpingMessage.LENGTH, 0));
        rdmaMr = step("rdma_buf reg_mr failed", () -> pd.allocateMemory(size, rdmaAccess));
        if (!server) {
            startMr = step("start_buf reg_mr failed", () -> pd.allocateMemory(size, rdmaAccess));
        }
        recvWr = ReceiveRequests.allocate(1, 1);
        recvWr.at(0).wrId(RECV_WRID).sge(recvMr.address(), RpingMessage.LENGTH, recvMr.lkey());
        sendWr = SendRequests.allocate(1, 1);
        sendWr.at(0).wrId(SEND_WRID).opcode(Opcode.SEND).flags(SendFlags.SIGNALED)
                .sge(sendMr.address(), RpingMessage.LENGTH, sendMr.lkey());
        rdmaWr = SendRequests.allocate(1, 1);
        rdmaWr.at(0).flags(SendFlags.SIGNALED);
        wc = WorkCompletions.allocate(4);
        debug("allocated & registered buffers...");
        try {
            qp.postReceive(recvWr);
        } catch (PostException e) {
            throw new RpingFailure("ibv_post_recv failed: " + e.getMessage());
        }
    }

    private static <T> T step(String failure, java.util.function.Supplier<T> create) {
        try {
            return create.get();
        } catch (VerbsException | IllegalArgumentException e) {
            throw new RpingFailure(failure + " (" + e.getMessage() + ")");
        }
    }

    /** Starts the thread that notes {@code RDMA_CM_EVENT_DISCONNECTED} (call once connected). */
    void watchDisconnect() {
        watcher = new Thread(() -> {
            try {
                id.awaitDisconnected(Duration.ofDays(3650));
                disconnected = true;
            } catch (RuntimeException e) {
                // the id was closed: the connection is over anyway
            }
        }, "rping-" + side + "-disconnect");
        watcher.setDaemon(true);
        watcher.start();
    }

    // ---- completions ----

    /** Handles {@code n} completions in {@link #wc} ({@code rping_cq_event_handler}). */
    private void handle(int n) {
        for (int i = 0; i < n; i++) {
            long wrId = wc.wrId(i);
            int status = wc.statusValue(i);
            if (status != 0) {
                if (status == WcStatus.WR_FLUSH_ERR.value()) {
                    flushed = true; // the QP went to the error state: the connection is going away
                    continue;
                }
                WcStatus s = WcStatus.of(status);
                throw new RpingFailure("cq completion failed status " + status + " (" + (s == null ? "unknown" : s.text())
                        + ", " + what(wrId) + ", vendor error 0x" + Integer.toHexString(wc.vendorError(i)) + ")");
            }
            if (wrId == RECV_WRID) {
                debug("recv completion");
                int len = wc.byteLength(i);
                if (len != RpingMessage.LENGTH) {
                    throw new RpingFailure("Received bogus data, size " + len);
                }
                recvMr.getBytes(0, message, 0, RpingMessage.LENGTH);
                if (server) {
                    remoteRkey = RpingMessage.rkey(message, 0);
                    remoteAddr = RpingMessage.buf(message, 0);
                    remoteLen = RpingMessage.size(message, 0);
                    if (o.debug()) {
                        debug(String.format(Locale.ROOT, "Received rkey %x addr %x len %d from peer", remoteRkey,
                                remoteAddr, remoteLen));
                    }
                }
                receivedMessages++;
                try {
                    qp.postReceive(recvWr);
                } catch (PostException e) {
                    throw new RpingFailure("post recv error: " + e.getMessage());
                }
            } else if (wrId == SEND_WRID) {
                debug("send completion");
                sendsInFlight--;
            } else if (wrId == READ_WRID) {
                debug("rdma read completion");
                readDone = true;
            } else if (wrId == WRITE_WRID) {
                debug("rdma write completion");
                writeDone = true;
            } else {
                throw new RpingFailure("completion for unknown wr_id " + wrId);
            }
        }
    }

    /** What each wr_id is, for a failed completion's message. */
    private static final String[] WHAT = {null, "receive", "send", "RDMA read", "RDMA write"};

    private static String what(long wrId) {
        return wrId >= RECV_WRID && wrId <= WRITE_WRID ? WHAT[(int) wrId] : "wr_id " + wrId;
    }

    private static final int AWAIT_MESSAGE = 0;
    private static final int AWAIT_READ = 1;
    private static final int AWAIT_WRITE = 2;
    private static final int AWAIT_SENDS = 3;

    /** Sleeps on the CQ until {@code what} happened; throws {@link Disconnected} when the connection went away. */
    private void await(int what) {
        while (true) {
            switch (what) {
                case AWAIT_MESSAGE:
                    if (receivedMessages > 0) {
                        receivedMessages--;
                        return;
                    }
                    break;
                case AWAIT_READ:
                    if (readDone) {
                        readDone = false;
                        return;
                    }
                    break;
                case AWAIT_WRITE:
                    if (writeDone) {
                        writeDone = false;
                        return;
                    }
                    break;
                default:
                    if (sendsInFlight == 0) {
                        return;
                    }
                    break;
            }
            if (flushed || disconnected) {
                throw new Disconnected();
            }
            int n;
            try {
                n = WAIT.await(cq, wc, SLICE_NANOS);
            } catch (VerbsException e) {
                throw new RpingFailure("poll error: " + e.getMessage());
            }
            if (n > 0) {
                handle(n);
            }
        }
    }

    private void post(SendRequests wr, String failure) {
        try {
            qp.postSend(wr);
        } catch (PostException e) {
            throw new RpingFailure("post send error (" + failure + "): " + e.getMessage());
        }
    }

    /** Sends the 16-byte message in {@link #message} (after the previous send is done with the buffer). */
    private void sendMessage() {
        await(AWAIT_SENDS);
        sendMr.putBytes(0, message, 0, RpingMessage.LENGTH);
        sendsInFlight++;
        post(sendWr, "SEND");
    }

    // ---- the client ----

    /** {@code rping_format_send}: advertise {@code mr} (address, rkey, {@code -S} size) to the server. */
    private void advertise(MemoryRegion mr) {
        RpingMessage.encode(message, 0, mr.address(), mr.rkey(), size);
        if (o.debug()) {
            debug(String.format(Locale.ROOT, "RDMA addr %x rkey %x len %d", mr.address(), mr.rkey(), size));
        }
        sendMessage();
    }

    /**
     * {@code rping_test_client}: {@code -C} pings (0: until the server goes away). Each: fill the start buffer
     * with the ping data, advertise it, wait for the server's go-ahead (it has READ it), advertise the RDMA
     * buffer, wait for the go-ahead (it has WRITTEN the data back there), compare ({@code -V}), print
     * ({@code -v}). Returns normally when done or, with {@code -C 0}, when the server disconnected.
     */
    void runClient() {
        final int count = o.count();
        stats.loopStarts();
        stats.firstPingAt(System.nanoTime());
        try {
            for (long ping = 0; count == 0 || ping < count; ping++) {
                long t0 = System.nanoTime();
                RpingMessage.fillPing(pingData, size, ping);
                startMr.putBytes(0, pingData, 0, size);
                advertise(startMr);
                await(AWAIT_MESSAGE); // the server READ the start buffer
                advertise(rdmaMr);
                await(AWAIT_MESSAGE); // the server WROTE it back into the RDMA buffer
                if (o.validate() || o.verbose()) {
                    rdmaMr.getBytes(0, rdmaData, 0, size);
                }
                if (o.validate() && !Arrays.equals(pingData, 0, size, rdmaData, 0, size)) {
                    int at = Arrays.mismatch(pingData, 0, size, rdmaData, 0, size);
                    throw new RpingFailure("data mismatch!\nrping: ping " + ping + ": byte " + at + " is 0x"
                            + Integer.toHexString(rdmaData[at] & 0xff) + ", the client sent 0x"
                            + Integer.toHexString(pingData[at] & 0xff));
                }
                if (o.verbose()) {
                    out.println("ping data: " + RpingMessage.cString(rdmaData, 0, size));
                }
                stats.record(t0);
            }
        } catch (Disconnected d) {
            if (count != 0) {
                throw new RpingFailure("rping: the server disconnected after " + stats.pings() + " of " + count + " pings"
                        + (stats.pings() == 0 ? " (a server refuses a client whose -S is larger than its own: see its"
                        + " output)" : ""));
            }
        } finally {
            stats.loopEnded();
        }
        // the last go-ahead may arrive before our SEND's completion: leave nothing in flight
        try {
            await(AWAIT_SENDS);
        } catch (Disconnected ignored) {
            // the server went away first: nothing more to wait for
        }
    }

    // ---- the server ----

    /**
     * {@code rping_test_server}: until the client disconnects: wait for the start buffer's advertisement,
     * RDMA READ it, print it ({@code -v}), send the go-ahead; wait for the sink advertisement, RDMA WRITE
     * the data back (its C string with the NUL, as C does), send the go-ahead. With {@code -V} the Java
     * server also checks that what it READ is rping's ping data for that ping number (C's server does not
     * check).
     */
    void runServer() {
        stats.loopStarts();
        try {
            while (true) {
                await(AWAIT_MESSAGE);
                long t0 = System.nanoTime();
                long pings = stats.pings();
                if (pings == 0) {
                    stats.firstPingAt(t0);
                }
                debug("server received sink adv");
                int len = RpingMessage.readLength(remoteLen, size);
                rdmaWr.at(0).wrId(READ_WRID).opcode(Opcode.RDMA_READ).sge(rdmaMr.address(), len, rdmaMr.lkey())
                        .rdma(remoteAddr, remoteRkey);
                post(rdmaWr, "RDMA READ");
                debug("server posted rdma read req ");
                await(AWAIT_READ);
                debug("server received read complete");
                rdmaMr.getBytes(0, rdmaData, 0, size);
                if (o.validate()) {
                    int at = RpingMessage.firstDifference(rdmaData, pingData, len, pings);
                    if (at >= 0) {
                        throw new RpingFailure("rping: server: ping " + pings + ": the data READ from the client is "
                                + "not rping's ping data: byte " + at + " is 0x" + Integer.toHexString(rdmaData[at] & 0xff)
                                + ", expected 0x" + Integer.toHexString(pingData[at] & 0xff));
                    }
                }
                if (o.verbose()) {
                    out.println("server ping data: " + RpingMessage.cString(rdmaData, 0, size));
                }
                Arrays.fill(message, (byte) 0); // the go-ahead: C sends its never-written send_buf, all zeros
                sendMessage();
                debug("server posted go ahead");

                await(AWAIT_MESSAGE);
                debug("server received sink adv");
                // strlen(rdma_buf) + 1, kept inside this buffer and the client's
                int writeLen = (int) Math.min(Math.min(RpingMessage.strlen(rdmaData, 0, size) + 1, size), remoteLen);
                if (pings == corruptPing) {
                    int k = writeLen / 2;
                    rdmaData[k] ^= 0x20;
                    rdmaMr.putBytes(k, rdmaData, k, 1);
                }
                rdmaWr.at(0).wrId(WRITE_WRID).opcode(Opcode.RDMA_WRITE).sge(rdmaMr.address(), writeLen, rdmaMr.lkey())
                        .rdma(remoteAddr, remoteRkey);
                if (o.debug()) {
                    debug(String.format(Locale.ROOT, "rdma write from lkey %x laddr %x len %d", rdmaMr.lkey(),
                            rdmaMr.address(), writeLen));
                }
                post(rdmaWr, "RDMA WRITE");
                await(AWAIT_WRITE);
                debug("server rdma write complete ");
                Arrays.fill(message, (byte) 0);
                sendMessage();
                debug("server posted go ahead");
                stats.record(t0);
            }
        } catch (Disconnected d) {
            // the client is done: the normal end
        } finally {
            stats.loopEnded();
        }
    }

    long pings() {
        return stats.pings();
    }

    /**
     * What was measured, one line for stderr ({@link RpingStats#summary}). A client ping is a whole exchange:
     * two SENDs, the server's RDMA READ and WRITE, and its two go-aheads; the server's is the same from its
     * first receive to its last send.
     */
    String summary() {
        return stats.summary(side, server ? remoteLen : size,
                !o.validate() ? null : server ? "all of it rping's ping data" : "data validated");
    }

    /** {@code verbs4j: the rping loop allocated N bytes}, or null when not measured. */
    String allocationLine() {
        return stats.allocationLine();
    }

    /** Destroys the QP (through the id's close, by the caller) and here the MRs, CQ, channel, PD. */
    @Override
    public void close() {
        RuntimeException first = null;
        for (AutoCloseable c : new AutoCloseable[] {qp, cq, recvMr, sendMr, rdmaMr, startMr, pd, channel, sendWr, rdmaWr,
                recvWr, wc}) {
            if (c == null) {
                continue;
            }
            try {
                c.close();
            } catch (Exception e) {
                if (first == null) {
                    first = new RpingFailure("rping: cleanup failed: " + e.getMessage());
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
