package org.verbs4j.examples;

import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.zip.CRC32;
import org.verbs4j.api.QpAttrMask;
import org.verbs4j.api.QpAttributes;
import org.verbs4j.api.WorkCompletions;
import org.verbs4j.api.cm.CmRejectedException;
import org.verbs4j.endpoint.EndpointOptions;
import org.verbs4j.endpoint.EndpointServer;
import org.verbs4j.endpoint.Endpoints;
import org.verbs4j.endpoint.RdmaEndpoint;
import org.verbs4j.examples.cli.CommandLine;
import org.verbs4j.examples.cli.Option;
import org.verbs4j.examples.cli.OptionParser;
import org.verbs4j.examples.cli.UsageException;
import org.verbs4j.examples.cli.Values;

/**
 * Checked RC traffic for fault tests on a link ({@code lab/fault}): every message says what it is, so the
 * receiving side proves that nothing was lost, duplicated, reordered or damaged, and a side whose peer or link
 * died reports when it learnt it.
 *
 * <pre>
 * fault-traffic [-p PORT] [-b BIND_ADDR] [-m send|read] [-s SIZE] [-D SECONDS] [-t IDLE_SECONDS] [SERVER]
 * </pre>
 * Without SERVER it is the server, with SERVER the client. {@code -m send} (default): the client streams
 * messages of SIZE bytes for SECONDS, then an end message with its count and checksum; each message carries
 * its sequence number and the CRC32 of its payload, and the server checks both, message by message, and the
 * count and running CRC32 of all payloads at the end, answers the end message, and closes after the client.
 * {@code -m read}: the server fills its RDMA region with a
 * known pattern, the client RDMA-READs it for SECONDS and compares every read with the pattern.
 *
 * <p>Lines for scripts: {@code connected ... qp timeout T retry R}, {@code progress N}, and at the end
 * {@code OK ...} (exit 0), {@code FAIL ...} (data wrong, exit 1) or {@code ERROR at=EPOCH_MS ...} (the
 * connection broke: an error completion, a failed post, or no message for IDLE_SECONDS; exit 3).
 */
public final class FaultTraffic {
    static final int DEFAULT_PORT = 18530;
    static final int DEPTH = 16;
    static final int REGION = 1 << 16;
    static final long END = -1L;
    static final long FAILED = -2L;
    static final long PROBE = Long.MAX_VALUE;
    static final long PROBE_AFTER_NANOS = 1_000_000_000L;
    static final int CONNECT_ATTEMPTS = 5;

    static final Option<Integer> PORT = Option.of('p', "port", "PORT", Values.intIn(1, 65535), DEFAULT_PORT,
            "listen on/connect to port PORT");
    static final Option<String> BIND = Option.of('b', "bind", "ADDR", Values.string(), "0.0.0.0",
            "server: listen on ADDR");
    static final Option<String> MODE = Option.of('m', "mode", "MODE", Values.string(), "send",
            "send (checked messages) or read (checked RDMA READs)");
    static final Option<Integer> SIZE = Option.of('s', "size", "SIZE", Values.intIn(16, 4096), 1024,
            "message or read size");
    static final Option<Integer> SECONDS = Option.of('D', "duration", "SECONDS", Values.intIn(1, 86400), 10,
            "client: how long to send or read");
    static final Option<Integer> IDLE = Option.of('t', "timeout", "SECONDS", Values.intIn(1, 86400), 20,
            "connection timeout, and how long without a message or completion is a dead peer");
    static final Option<Integer> WAIT = Option.of('w', "wait", "SECONDS", Values.intIn(1, 86400), 120,
            "server: how long to wait for the client to connect (a client JVM can take half a minute to start in "
                    + "an emulated VM)");
    static final OptionParser PARSER = new OptionParser("fault-traffic")
            .synopsis("[options]", "serve one connection")
            .synopsis("[options] HOST", "connect to the server at HOST")
            .operands(0, 1)
            .add(PORT, BIND, MODE, SIZE, SECONDS, IDLE, WAIT);

    int port;
    String bind;
    boolean read;
    int size;
    int seconds;
    int idle;
    int wait;
    String server;
    PrintStream out;
    private final CRC32 crc = new CRC32();
    private final CRC32 total = new CRC32();

    /** Runs fault-traffic with {@code args} and exits with its status (0 OK, 1 wrong data, 2 usage, 3 broken). */
    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        return PARSER.launch(args, out, err, FaultTraffic::of, p -> {
            p.out = out;
            try {
                return p.server == null ? p.serve() : p.client();
            } catch (RuntimeException e) {
                return p.error("exception " + e);
            } finally {
                out.flush();
            }
        });
    }

    static FaultTraffic of(CommandLine c) throws UsageException {
        FaultTraffic p = new FaultTraffic();
        p.port = c.get(PORT);
        p.bind = c.get(BIND);
        String mode = c.get(MODE);
        if (!mode.equals("send") && !mode.equals("read")) {
            throw new UsageException("-m must be send or read, not " + mode);
        }
        p.read = mode.equals("read");
        p.size = c.get(SIZE);
        p.seconds = c.get(SECONDS);
        p.idle = c.get(IDLE);
        p.wait = c.get(WAIT);
        p.server = c.operands().isEmpty() ? null : c.operands().get(0);
        return p;
    }

    EndpointOptions options() {
        return EndpointOptions.defaults().messageSize(4096).sendDepth(DEPTH).receiveDepth(DEPTH)
                .rdmaRegionSize(REGION).timeout(Duration.ofSeconds(idle));
    }

    int error(String what) {
        out.printf("ERROR at=%d %s%n", System.currentTimeMillis(), what);
        return 3;
    }

    private void connected(RdmaEndpoint ep, String role) {
        QpAttributes a = ep.queuePair().query(QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT);
        out.printf("connected %s device %s fabric %s qp timeout %d retry %d%n", role, ep.device().name(),
                ep.fabric(), a.timeout(), a.retryCount());
        out.flush();
    }

    /** The payload byte {@code j} of message (or region chunk) {@code seq}. */
    static byte pattern(long seq, int j) {
        return (byte) (seq * 31 + j * 7 + (j >> 8));
    }

    int serve() {
        try (EndpointServer s = Endpoints.listen(new InetSocketAddress(bind, port), options())) {
            out.printf("waiting for a connection on %s port %d%n", bind, port);
            out.flush();
            try (RdmaEndpoint ep = s.accept(Duration.ofSeconds(wait));
                    WorkCompletions wc = WorkCompletions.allocate(DEPTH)) {
                connected(ep, "server");
                if (read) {
                    ByteBuffer r = ep.rdmaRegion();
                    for (int k = 0; k < REGION; k++) {
                        r.put(k, pattern(0, k));
                    }
                    ep.sendSlot(0).putLong(0, END);
                    ep.send(0, 8); // "the region is ready": the client reads only after this
                }
                return receive(ep, wc);
            }
        }
    }

    /** Checks every message in order until the end message; in read mode only the end message comes. */
    private int receive(RdmaEndpoint ep, WorkCompletions wc) {
        long expect = 0;
        long last = System.nanoTime();
        while (true) {
            int n = ep.pollReceive(wc);
            if (n == 0) {
                if (System.nanoTime() - last > idle * 1_000_000_000L) {
                    return error("idle: no message for " + idle + " s after " + expect + " messages");
                }
                Thread.onSpinWait();
                continue;
            }
            last = System.nanoTime();
            for (int i = 0; i < n; i++) {
                if (!wc.ok(i)) {
                    return error("receive completion " + wc.status(i) + " after " + expect + " messages");
                }
                ByteBuffer m = ep.message(wc, i);
                long seq = m.getLong(0);
                if (seq == END) {
                    long count = m.getLong(8);
                    long sum = m.getLong(16);
                    if (count != expect || sum != total.getValue()) {
                        out.printf("FAIL end: sender sent %d (crc32 %08x), received %d (crc32 %08x)%n", count, sum,
                                expect, total.getValue());
                        return 1;
                    }
                    out.printf("OK received %d messages in order, crc32 %08x%n", expect, total.getValue());
                    out.flush();
                    return finish(ep, wc);
                }
                if (seq != expect) {
                    out.printf("FAIL message %d arrived where %d was due%n", seq, expect);
                    return 1;
                }
                int len = m.remaining();
                crc.reset();
                for (int j = 12; j < len; j++) {
                    byte b = m.get(j);
                    crc.update(b);
                    total.update(b);
                }
                if ((int) crc.getValue() != m.getInt(8)) {
                    out.printf("FAIL message %d: payload crc32 %08x, header says %08x%n", seq, crc.getValue(),
                            m.getInt(8));
                    return 1;
                }
                expect++;
                ep.repostReceive((int) wc.wrId(i));
            }
        }
    }

    /**
     * The server's end of a run: tells the client that its end message arrived, then lets the client close
     * first. Closing first would race the end message's acknowledgement: on a lossy link the ACK can be lost,
     * the client retransmits into a QP that is gone, and its end send fails with {@code WR_FLUSH_ERR} although
     * the message arrived. The client's close flushes the receives posted here; the idle time bounds the wait.
     */
    private int finish(RdmaEndpoint ep, WorkCompletions wc) {
        ep.sendSlot(1).putLong(0, END);
        ep.send(1, 8);
        long since = System.nanoTime();
        while (System.nanoTime() - since < idle * 1_000_000_000L) {
            ep.pollSend(wc); // the reply's completion; its status no longer matters
            int n = ep.pollReceive(wc);
            for (int i = 0; i < n; i++) {
                if (!wc.ok(i)) {
                    return 0; // flushed: the client has closed
                }
            }
            Thread.onSpinWait();
        }
        out.println("note: the client did not close within " + idle + " s of the reply");
        return 0;
    }

    int client() {
        try (RdmaEndpoint ep = connect(); WorkCompletions wc = WorkCompletions.allocate(DEPTH)) {
            connected(ep, "client");
            if (read && awaitReady(ep, wc) < 0) {
                return 3;
            }
            long end = System.nanoTime() + seconds * 1_000_000_000L;
            long n = 0;
            long checked = 0;
            byte[] want = new byte[size];
            int chunks = REGION / size;
            while (System.nanoTime() < end) {
                if (ep.inFlight() >= DEPTH - 1 && (checked = reap(ep, wc, checked, want, chunks)) < 0) {
                    return checked == FAILED ? 1 : 3;
                }
                int slot = (int) (n % DEPTH);
                if (read) {
                    ep.read((long) slot * size, size, (n % chunks) * size, n + 1); // wr id 0 is the end message's
                } else {
                    fill(ep.sendSlot(slot), n);
                    // trySend, not send: a send waiting for a credit would not see an error completion
                    long since = System.nanoTime();
                    while (!ep.trySend(slot, size)) {
                        long waited = System.nanoTime() - since;
                        if (waited > idle * 1_000_000_000L) {
                            return error("idle: no send credit for " + idle + " s after " + n + " messages");
                        }
                        if (ep.inFlight() == 0 && waited > PROBE_AFTER_NANOS) {
                            // nothing in flight, so nothing the transport could time out: a small RDMA READ of
                            // the peer's region is acknowledged by a live peer, and fails after the retry budget
                            ep.read(REGION - 8, 8, 0, PROBE);
                        }
                        if (ep.inFlight() > 0 && (checked = reap(ep, wc, checked, want, chunks)) < 0) {
                            return checked == FAILED ? 1 : 3;
                        }
                    }
                }
                n++;
                if (n % 1000 == 0) {
                    out.println("progress " + n);
                    out.flush();
                }
            }
            while (ep.inFlight() > 0) {
                if ((checked = reap(ep, wc, checked, want, chunks)) < 0) {
                    return checked == FAILED ? 1 : 3;
                }
            }
            ByteBuffer e = ep.sendSlot(0);
            e.putLong(0, END).putLong(8, read ? 0 : n).putLong(16, read ? 0 : total.getValue());
            ep.send(0, 24);
            while (ep.inFlight() > 0) {
                if (reap(ep, wc, checked, want, chunks) < 0) {
                    return 3;
                }
            }
            // the server's reply says the end message arrived; the server closes only after this side
            long since = System.nanoTime();
            while (ep.pollReceive(wc) == 0) {
                if (System.nanoTime() - since > idle * 1_000_000_000L) {
                    return error("idle: no reply to the end message for " + idle + " s");
                }
                Thread.onSpinWait();
            }
            if (!wc.ok(0) || ep.message(wc, 0).getLong(0) != END) {
                return error("the server's reply to the end message: " + (wc.ok(0) ? "not an end message"
                        : "receive completion " + wc.status(0)));
            }
            out.printf("OK %s %d %s of %d bytes, crc32 %08x%n", read ? "read" : "sent", n,
                    read ? "chunks, each equal to the pattern," : "messages", size, total.getValue());
            return 0;
        }
    }

    /** Read mode: waits for the server's "region ready" message. */
    private int awaitReady(RdmaEndpoint ep, WorkCompletions wc) {
        long since = System.nanoTime();
        int n;
        while ((n = ep.pollReceive(wc)) == 0) {
            if (System.nanoTime() - since > idle * 1_000_000_000L) {
                return error("idle: the server did not say its region is ready within " + idle + " s");
            }
            Thread.onSpinWait();
        }
        if (!wc.ok(0)) {
            return error("receive completion " + wc.status(0) + " before the first read");
        }
        return 0;
    }

    /**
     * Connects; a rejected request is tried again (a server whose listener is not there yet or any more rejects it
     * with "invalid service ID" on Soft-RoCE).
     */
    private RdmaEndpoint connect() {
        for (int attempt = 1; ; attempt++) {
            try {
                return Endpoints.connect(new InetSocketAddress(server, port), options());
            } catch (CmRejectedException e) {
                if (attempt == CONNECT_ATTEMPTS) {
                    throw e;
                }
                out.println("connect attempt " + attempt + " rejected: " + e.getMessage());
                out.flush();
                try {
                    Thread.sleep(500);
                } catch (InterruptedException i) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    /** Message {@code seq} into a send slot: sequence number, CRC32 of the payload, payload. */
    private void fill(ByteBuffer slot, long seq) {
        crc.reset();
        for (int j = 12; j < size; j++) {
            byte b = pattern(seq, j);
            slot.put(j, b);
            crc.update(b);
            total.update(b);
        }
        slot.putLong(0, seq).putInt(8, (int) crc.getValue());
    }

    /**
     * Reaps send completions, waiting at most the idle time for one; in read mode checks each read chunk.
     * Returns the number of reads checked, -1 after reporting an error, {@link #FAILED} after wrong data.
     */
    private long reap(RdmaEndpoint ep, WorkCompletions wc, long checked, byte[] want, int chunks) {
        long since = System.nanoTime();
        int n;
        while ((n = ep.pollSend(wc)) == 0) {
            if (System.nanoTime() - since > idle * 1_000_000_000L) {
                error("idle: no completion for " + idle + " s, " + ep.inFlight() + " in flight");
                return -1;
            }
            Thread.onSpinWait();
        }
        for (int i = 0; i < n; i++) {
            if (!wc.ok(i)) {
                error("send completion " + wc.status(i) + (wc.wrId(i) == PROBE ? " (probe read)" : " (wr " + wc.wrId(i) + ")"));
                return -1;
            }
            if (read && wc.wrId(i) > 0 && wc.wrId(i) != PROBE) {
                long r = wc.wrId(i) - 1;
                int off = (int) ((r % chunks) * size);
                ByteBuffer got = ep.rdmaRegion();
                int at = (int) (r % DEPTH) * size;
                for (int j = 0; j < size; j++) {
                    want[j] = pattern(0, off + j);
                    if (got.get(at + j) != want[j]) {
                        out.printf("FAIL read %d: byte %d of the chunk at %d differs%n", r, j, off);
                        return FAILED;
                    }
                }
                total.update(want);
                checked++;
            }
        }
        return checked;
    }
}
