package org.verbs4j.examples;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;

import java.util.concurrent.TimeUnit;
import org.verbs4j.api.Access;
import org.verbs4j.api.CompletionChannel;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.FabricOptions;
import org.verbs4j.api.Gid;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.Opcode;
import org.verbs4j.api.PortAttributes;
import org.verbs4j.api.PostException;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.QpAttrMask;
import org.verbs4j.api.QpConnector;
import org.verbs4j.api.QpEndpoint;
import org.verbs4j.api.QpInitAttributes;
import org.verbs4j.api.QpType;
import org.verbs4j.api.QueuePair;
import org.verbs4j.api.Rdma;
import org.verbs4j.api.RdmaDevice;
import org.verbs4j.api.ReceiveRequests;
import org.verbs4j.api.SendFlags;
import org.verbs4j.api.SendRequests;
import org.verbs4j.api.TransportType;
import org.verbs4j.api.VerbsException;
import org.verbs4j.api.WcStatus;
import org.verbs4j.api.WorkCompletions;

/**
 * What {@link RcPingPong} and {@link UdPingPong} share, in the order {@code main()} of rdma-core's
 * {@code rc_pingpong.c} / {@code ud_pingpong.c} does it: open the device, create the completion channel
 * (with {@code -e}), PD, buffer and MR, CQ ({@code rx_depth + 1} entries) and QP (1 send, {@code rx_depth}
 * receives, inline sends when the QP's {@code max_inline_data} is at least the message size), move the QP
 * to INIT, post {@code rx_depth} receives, exchange addresses over TCP, connect, then ping-pong.
 *
 * <p>The loop is the C tools' loop: every completion clears its bit ({@code RECV_WRID} = 1,
 * {@code SEND_WRID} = 2) in {@code pending}; when both the last send and the last receive are done, the
 * next send goes out; receives are topped up to {@code rx_depth} when at most one is left. It allocates
 * nothing: one {@link SendRequests} and one {@link ReceiveRequests} prepared once, one
 * {@link WorkCompletions} of two entries polled again and again.
 *
 * <p>Subclasses supply the transport-specific steps: the QP type, the buffer layout, INIT and the
 * connection (RTR/RTS, and the address handle for UD).
 */
abstract class PingPongSession {
    static final int RECV_WRID = 1;
    static final int SEND_WRID = 2;
    /**
     * System property: print the bytes the ping-pong loop allocated on the Java heap to stderr
     * ({@code verbs4j: the ping-pong loop allocated N bytes}). Run with {@code -XX:TieredStopAtLevel=1} for an
     * exact count: before a C2 compilation HotSpot resolves all string constants of the compiled method's
     * class in the thread that asked for it, which shows up as a few hundred one-time bytes.
     */
    static final String MEASURE_ALLOCATION = "verbs4j.pingpong.measureAllocation";

    protected final PingPongOptions o;
    protected final PrintStream out;
    protected final PrintStream err;
    protected final int size;

    protected DeviceContext ctx;
    protected CompletionChannel channel;
    protected ProtectionDomain pd;
    protected MemoryRegion mr;
    protected CompletionQueue cq;
    protected QueuePair qp;
    /** Takes {@link #qp} from RESET to RTS; made by {@link #prepareConnector}. */
    protected QpConnector connector;
    protected SendRequests sendWr;
    protected ReceiveRequests recvWr;
    protected WorkCompletions wc;
    protected int sendFlags = SendFlags.SIGNALED;

    private int routs;
    private int pending;
    private long rcnt;
    private long scnt;

    protected PingPongSession(PingPongOptions o, PrintStream out, PrintStream err) {
        this.o = o;
        this.out = out;
        this.err = err;
        if (o.size > Integer.MAX_VALUE - 64) {
            throw new PingPongFailure("Couldn't allocate work buf.");
        }
        this.size = (int) o.size;
    }

    // ---- what RC and UD do differently ----


    /** Bytes of the registered buffer: {@code size} for RC, {@code size + 40} (GRH room) for UD. */
    protected abstract int bufferLength();

    /** Where the sent message starts in the buffer: 0 for RC, 40 for UD. */
    protected abstract int messageOffset();

    /** Bytes each receive may take: {@code size} for RC, {@code size + 40} for UD. */
    protected abstract int receiveLength();

    /** Checks on the opened device before anything is created (UD: the message must fit the port MTU). */
    protected void checkDevice() {
    }

    /** Moves the new QP from RESET to INIT. */
    protected abstract void toInit();

    /** Checks the local port (RC on InfiniBand: a LID is needed). */
    protected void checkPort(PortAttributes port) {
    }

    /** The C tool's message when {@code ibv_query_gid} fails. */
    protected abstract String gidFailure(int index);

    /** Connects the QP to {@code remote} (RTR, RTS; UD also creates the address handle) and prepares the send. */
    protected abstract void connect(QpEndpoint remote, int myPsn);

    /** True for the {@code ud_pingpong} local-address line, which has a colon before "GID". */
    protected abstract boolean udLocalLine();

    /** Extra resources to close after the MR (the UD address handle), or nothing. */
    protected void closeExtra() {
    }

    // ---- main ----

    /**
     * The shared {@code main}: parses {@code args} with the tool's {@link PingPongOptions#parser} (usage on
     * stdout and exit 0 for {@code -h}; a bad command line on stderr, exit 2), then runs the session.
     */
    static int launch(QpType type, String[] args, PrintStream out, PrintStream err,
            java.util.function.Function<PingPongOptions, PingPongSession> session) {
        String prog = System.getProperty("verbs4j.prog", type == QpType.UD ? "ud-pingpong" : "rc-pingpong");
        return PingPongOptions.parser(type, prog).launch(args, out, err, c -> PingPongOptions.of(type, prog, c), o -> {
            try {
                return session.apply(o).runSession();
            } catch (PingPongFailure e) {
                err.println(e.getMessage());
                err.flush();
                return 1;
            }
        });
    }

    /** Runs the tool; returns the exit status (0 success, 1 failure, as the C tools). */
    final int runSession() {
        try {
            execute();
            return 0;
        } catch (PingPongFailure e) {
            if (e.getMessage() != null && !e.getMessage().isEmpty()) {
                err.println(e.getMessage());
            }
            return 1;
        } catch (RuntimeException e) {
            // an unexpected verbs4j failure: say what, with the verb and errno it carries
            err.println(o.prog + ": " + e.getMessage());
            return 1;
        } finally {
            out.flush();
            err.flush();
        }
    }

    private void execute() {
        RdmaDevice device = findDevice();
        if (device.transportType() == TransportType.IWARP) {
            throw new PingPongFailure(o.prog + ": " + device.name() + " is an iWARP device. iWARP queue pairs can "
                    + "only be connected through rdma_cm (the RDMA connection manager), not by hand with a TCP "
                    + "exchange of LID/QPN/PSN/GID as " + (o.type == QpType.RC ? "ibv_rc_pingpong" : "ibv_ud_pingpong")
                    + " does" + (o.type == QpType.UD ? ", and iWARP has no UD queue pairs at all" : "")
                    + ". Use an rdma_cm based tool on this device (rping, or perftest with -R).");
        }
        try {
            initContext(device);
            int posted = postReceives(o.rxDepth);
            if (posted < o.rxDepth) {
                throw new PingPongFailure("Couldn't post receive (" + posted + ")");
            }
            routs = posted;
            if (o.events) {
                cq.requestNotify(false);
            }
            PortAttributes port;
            try {
                port = ctx.queryPort(o.ibPort);
            } catch (VerbsException e) {
                throw new PingPongFailure("Couldn't get port info", e);
            }
            checkPort(port);
            Gid gid = Gid.ZERO;
            if (o.gidIndex >= 0) {
                try {
                    gid = ctx.queryGid(o.ibPort, o.gidIndex);
                } catch (VerbsException e) {
                    throw new PingPongFailure(gidFailure(o.gidIndex) + "\n(" + e.getMessage() + ")");
                }
            }
            int psn = connector.psn();
            QpEndpoint me = new QpEndpoint(port.lid(), qp.qpNumber(), psn, gid);
            out.println(PingPongFormat.localLine(me, udLocalLine()));

            QpEndpoint remote = o.serverName != null
                    ? PingPongExchange.client(o.serverName, o.port, me)
                    : PingPongExchange.server(o.port, me, peer -> connect(peer, psn));
            out.println(PingPongFormat.remoteLine(remote));
            if (o.serverName != null) {
                connect(remote, psn);
            }

            pending = RECV_WRID;
            if (o.serverName != null) {
                if (o.validate) {
                    writePattern();
                }
                try {
                    qp.postSend(sendWr);
                } catch (PostException e) {
                    throw new PingPongFailure("Couldn't post send (" + e.getMessage() + ")");
                }
                pending |= SEND_WRID;
            }

            com.sun.management.ThreadMXBean threads = Boolean.getBoolean(MEASURE_ALLOCATION)
                    ? (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean() : null;
            long allocatedBefore = threads == null ? 0 : threads.getCurrentThreadAllocatedBytes();
            long start = System.nanoTime();
            loop();
            long end = System.nanoTime();
            long allocated = threads == null ? 0 : threads.getCurrentThreadAllocatedBytes() - allocatedBefore;

            for (String line : PingPongFormat.resultLines(o.size, o.iters, (end - start) / 1000)) {
                out.println(line);
            }
            if (threads != null) {
                err.println("verbs4j: the ping-pong loop allocated " + allocated + " bytes");
            }
            boolean valid = true;
            if (o.serverName == null && o.validate) {
                valid = validate();
            }
            closeAll();
            if (!valid) {
                // the C tools print the lines above and still exit 0; verbs4j fails on wrong data
                throw new PingPongFailure(o.prog + ": the received data is not what the client sent (-c)");
            }
        } finally {
            closeQuietly();
        }
    }

    private RdmaDevice findDevice() {
        java.util.List<RdmaDevice> devices = Rdma.devices();
        if (o.deviceName == null) {
            if (devices.isEmpty()) {
                throw new PingPongFailure("No IB devices found");
            }
            return devices.get(0);
        }
        for (RdmaDevice d : devices) {
            if (d.name().equals(o.deviceName)) {
                return d;
            }
        }
        throw new PingPongFailure("IB device " + o.deviceName + " not found");
    }

    /** {@code pp_init_ctx}. */
    private void initContext(RdmaDevice device) {
        try {
            ctx = device.open();
        } catch (VerbsException e) {
            throw new PingPongFailure("Couldn't get context for " + device.name() + " (" + e.getMessage() + ")");
        }
        checkDevice();
        if (o.events) {
            channel = step("Couldn't create completion channel", () -> ctx.createCompletionChannel());
        }
        pd = step("Couldn't allocate PD", () -> ctx.allocProtectionDomain());
        // page aligned as memalign(page_size, ...) gives it; at least one byte for -s 0
        mr = step("Couldn't register MR", () -> pd.allocateMemory(Math.max(1, bufferLength()), Access.LOCAL_WRITE));
        mr.fill(0, mr.length(), PingPongCheck.FILL_BYTE);
        cq = step("Couldn't create CQ", () -> ctx.createCompletionQueue(o.rxDepth + 1, channel, 0));
        qp = step("Couldn't create QP", () -> pd.createQueuePair(new QpInitAttributes(o.type, cq, cq)
                .maxSendWr(1).maxRecvWr(o.rxDepth).maxSendSge(1).maxRecvSge(1)));
        // as the C tools: ibv_query_qp(IBV_QP_CAP) and send inline when the message fits
        int maxInline = qp.query(QpAttrMask.CAP).capabilities().maxInlineData();
        if (maxInline >= size) {
            sendFlags |= SendFlags.INLINE;
        }
        toInit();

        sendWr = SendRequests.allocate(1, 1);
        recvWr = ReceiveRequests.allocate(1, 1);
        wc = WorkCompletions.allocate(2);
        recvWr.at(0).wrId(RECV_WRID).sge(mr.address(), receiveLength(), mr.lkey());
        sendWr.at(0).wrId(SEND_WRID).opcode(Opcode.SEND).flags(sendFlags)
                .sge(mr.address() + messageOffset(), size, mr.lkey());
    }

    /**
     * RESET to INIT through a {@link QpConnector} with the C tools' choices: port {@code -i}, SL {@code -l}, GID
     * {@code -g}, path MTU {@code -m} (RC), hop limit 1, no remote access, Q_Key {@code qkey} (UD), a random PSN.
     */
    protected final void prepareConnector(int qkey) {
        FabricOptions f = FabricOptions.defaults().serviceLevel(o.sl).hopLimit(1);
        if (o.gidIndex >= 0) {
            f.gidIndex(o.gidIndex);
        }
        if (o.type == QpType.RC && o.mtu != null) {
            f.mtu(o.mtu);
        }
        try {
            connector = QpConnector.builder(ctx, qp).port(o.ibPort).options(f).access(0).qkey(qkey).prepare();
        } catch (VerbsException e) {
            throw new PingPongFailure("Failed to modify QP to INIT\n(" + e.getMessage() + ")", e);
        }
    }

    /** Runs one creation step; its failure prints the C tool's message, then verbs4j's detail. */
    protected static <T> T step(String failure, java.util.function.Supplier<T> create) {
        try {
            return create.get();
        } catch (VerbsException | IllegalArgumentException e) {
            throw new PingPongFailure(failure + "\n(" + e.getMessage() + ")", e);
        }
    }

    /** {@code pp_post_recv}: posts the one prepared receive {@code n} times; returns how many were posted. */
    private int postReceives(int n) {
        int i = 0;
        try {
            for (; i < n; i++) {
                qp.postReceive(recvWr);
            }
        } catch (PostException e) {
            return i;
        }
        return i;
    }

    /** The ping-pong loop of the C tools (no allocation). */
    private void loop() {
        final long iters = o.iters;
        final boolean events = o.events;
        while (rcnt < iters || scnt < iters) {
            if (events) {
                CompletionQueue fired;
                do {
                    fired = channel.awaitEvent(1, TimeUnit.DAYS);
                } while (fired == null);
                if (fired != cq) {
                    throw new PingPongFailure("CQ event for unknown CQ " + fired);
                }
                cq.requestNotify(false);
            }
            int ne;
            do {
                try {
                    ne = cq.poll(wc, 2);
                } catch (VerbsException e) {
                    throw new PingPongFailure("poll CQ failed " + (-e.errno()));
                }
            } while (!events && ne < 1);
            for (int i = 0; i < ne; i++) {
                if (!completion(i, iters)) {
                    if (o.type == QpType.RC) {
                        throw new PingPongFailure("parse WC failed " + ne);
                    }
                    throw new PingPongFailure(null); // the reason is printed already
                }
            }
        }
    }

    /** {@code parse_single_wc}; false after printing what failed. */
    private boolean completion(int i, long iters) {
        int status = wc.statusValue(i);
        int wrId = (int) wc.wrId(i);
        if (status != 0) {
            WcStatus s = WcStatus.of(status);
            err.println("Failed status " + (s == null ? "unknown" : s.text()) + " (" + status + ") for wr_id " + wrId);
            return false;
        }
        switch (wrId) {
            case SEND_WRID:
                ++scnt;
                break;
            case RECV_WRID:
                if (--routs <= 1) {
                    routs += postReceives(o.rxDepth - routs);
                    if (routs < o.rxDepth) {
                        err.println("Couldn't post receive (" + routs + ")");
                        return false;
                    }
                }
                ++rcnt;
                break;
            default:
                err.println("Completion for unknown wr_id " + wrId);
                return false;
        }
        pending &= ~wrId;
        if (scnt < iters && pending == 0) {
            try {
                qp.postSend(sendWr);
            } catch (PostException e) {
                err.println("Couldn't post send");
                return false;
            }
            pending = RECV_WRID | SEND_WRID;
        }
        return true;
    }

    /** {@code -c} on the client: the byte at every page start becomes the pattern. */
    private void writePattern() {
        PingPongCheck.writePattern(mr, messageOffset(), size);
    }

    /** {@code -c} on the server, after the loop; false (after saying where) when the data is wrong. */
    private boolean validate() {
        return PingPongCheck.validate(mr, messageOffset(), size, out, err);
    }

    /** {@code pp_close_ctx}: each failure is the C tool's message and exit 1. */
    private void closeAll() {
        closeStep("Couldn't destroy QP", qp);
        qp = null;
        closeStep("Couldn't destroy CQ", cq);
        cq = null;
        closeStep("Couldn't deregister MR", mr);
        mr = null;
        closeExtra();
        closeStep("Couldn't deallocate PD", pd);
        pd = null;
        if (channel != null) {
            closeStep("Couldn't destroy completion channel", channel);
            channel = null;
        }
        closeStep("Couldn't release context", ctx);
        ctx = null;
        sendWr.close();
        recvWr.close();
        wc.close();
    }

    protected static void closeStep(String failure, AutoCloseable resource) {
        try {
            resource.close();
        } catch (Exception e) {
            throw new PingPongFailure(failure + "\n(" + e.getMessage() + ")", e);
        }
    }

    /** After a failure: release what is left, ignoring errors (the C tools just exit). */
    private void closeQuietly() {
        closeQuietly(qp);
        closeQuietly(cq);
        closeQuietly(mr);
        try {
            closeExtra();
        } catch (RuntimeException ignored) {
            // best effort
        }
        closeQuietly(pd);
        closeQuietly(channel);
        closeQuietly(ctx);
        closeQuietly(sendWr);
        closeQuietly(recvWr);
        closeQuietly(wc);
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c != null) {
            try {
                c.close();
            } catch (Exception ignored) {
                // best effort
            }
        }
    }
}
