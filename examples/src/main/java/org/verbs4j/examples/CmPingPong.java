package org.verbs4j.examples;

import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import org.verbs4j.api.WcStatus;
import org.verbs4j.api.WorkCompletions;
import org.verbs4j.endpoint.ConnectionMode;
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
 * A send/receive ping-pong over verbs4j's connection-level API ({@link Endpoints}), the same code on every
 * fabric: it connects through rdma_cm, which picks the device that owns (server) or routes to (client) the
 * address, so it runs unchanged on RoCE ({@code rxe0}), iWARP ({@code siw0}) and InfiniBand (IPoIB address).
 *
 * <pre>
 * cm-pingpong [-p PORT] [-b BIND_ADDR] [-s SIZE] [-n ITERS] [-r RX_DEPTH] [-c] [-w MS] [-M [-d DEV] [-i IB_PORT]] [SERVER]
 * </pre>
 * Without SERVER it is the server: it listens on BIND_ADDR (default 0.0.0.0: every RDMA device), echoes each
 * message back until the client's empty message, its end, and reports the last ITERS. The client first
 * exchanges messages for {@code -w} milliseconds, not counted (the JIT compiles the loop meanwhile), then sends
 * ITERS messages of SIZE bytes, one at a time, and times every round trip. {@code -c} fills every message with a
 * pattern of its iteration that the server checks and echoes, and the client checks the echo. {@code -M} connects with the TCP exchange instead of
 * rdma_cm (InfiniBand and RoCE only; then {@code -d} names the device).
 *
 * <p>Both sides print, like {@code ibv_rc_pingpong}: {@code N bytes in S seconds = R Mbit/sec} and
 * {@code N iters in S seconds = U usec/iter}; the client also prints the round-trip latency distribution.
 */
public final class CmPingPong {
    static final int DEFAULT_PORT = 18516;
    /** Each side keeps a time per round trip: 80 MB at most. */
    static final int MAX_ITERS = 10_000_000;

    int port;
    String bind;
    String server;
    int size;
    int iters;
    int rxDepth;
    boolean validate;
    boolean manual;
    String device;
    int ibPort;
    int timeoutSeconds;
    int warmupMillis;

    static final Option<Integer> PORT = Option.of('p', "port", "PORT", Values.intIn(1, 65535), DEFAULT_PORT,
            "listen on/connect to port PORT");
    static final Option<String> BIND = Option.of('b', "bind", "ADDR", Values.string(), null,
            "server: listen on ADDR").defaultText("0.0.0.0, every RDMA device");
    static final Option<Integer> SIZE = Option.of('s', "size", "SIZE", Values.intIn(1, Integer.MAX_VALUE), 4096,
            "size of message to exchange");
    static final Option<Integer> ITERS = Option.of('n', "iters", "ITERS", Values.intIn(1, MAX_ITERS), 1000,
            "number of exchanges");
    static final Option<Integer> RX_DEPTH = Option.of('r', "rx-depth", "DEPTH", Values.intIn(1, 1 << 16), 16,
            "number of receives to post at a time");
    static final Option<Boolean> CHECK = Option.flag('c', "chk", "validate received buffer");
    static final Option<Boolean> MANUAL = Option.flag('M', "manual",
            "connect with a TCP exchange instead of rdma_cm (not on iWARP)");
    static final Option<String> DEVICE = Option.of('d', "ib-dev", "DEVICE", Values.string(), null,
            "with -M: use IB device DEVICE").defaultText("the first device with an active port");
    static final Option<Integer> IB_PORT = Option.of('i', "ib-port", "PORT", Values.intIn(1, 255), 1,
            "use port PORT of the IB device");
    static final Option<Integer> WARMUP = Option.of('w', "warmup", "MS", Values.intIn(0, 3_600_000), 1000,
            "client: exchange messages for MS milliseconds before measuring, longer while the JIT compiles (up to "
                    + WarmUp.LIMIT + "x), not counted (0: none)");
    static final Option<Integer> TIMEOUT = Option.of('t', "timeout", "SECONDS", Values.intIn(1, 86400), 60,
            "connection and idle timeout");
    static final OptionParser PARSER = new OptionParser("cm-pingpong")
            .synopsis("[options]", "start a server and wait for connection")
            .synopsis("[options] HOST", "connect to server at HOST")
            .operands(0, 1)
            .add(PORT, BIND, SIZE, ITERS, RX_DEPTH, CHECK, MANUAL, DEVICE, IB_PORT, WARMUP, TIMEOUT);

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        return PARSER.launch(args, out, err, CmPingPong::of, p -> {
            try {
                return p.server == null ? p.serve(out) : p.client(out);
            } catch (RuntimeException e) {
                err.println("cm-pingpong: " + e.getMessage());
                return 1;
            } finally {
                out.flush();
                err.flush();
            }
        });
    }

    /** The settings of a parsed command line. */
    static CmPingPong of(CommandLine c) throws UsageException {
        CmPingPong p = new CmPingPong();
        p.port = c.get(PORT);
        p.bind = c.get(BIND);
        p.size = c.get(SIZE);
        p.iters = c.get(ITERS);
        p.rxDepth = c.get(RX_DEPTH);
        p.validate = c.get(CHECK);
        p.manual = c.get(MANUAL);
        p.device = c.get(DEVICE);
        p.ibPort = c.get(IB_PORT);
        p.timeoutSeconds = c.get(TIMEOUT);
        p.warmupMillis = c.get(WARMUP);
        p.server = c.operands().isEmpty() ? null : c.operands().get(0);
        if (p.device != null && !p.manual) {
            throw new UsageException("-d is for -M: with rdma_cm the address chooses the device");
        }
        return p;
    }

    EndpointOptions options() {
        EndpointOptions o = EndpointOptions.defaults().messageSize(size).sendDepth(2).receiveDepth(rxDepth)
                .port(ibPort).timeout(Duration.ofSeconds(timeoutSeconds))
                .mode(manual ? ConnectionMode.MANUAL : ConnectionMode.RDMA_CM);
        if (device != null) {
            o.device(device);
        }
        return o;
    }

    private void describe(PrintStream out, RdmaEndpoint ep, String role) {
        out.printf("  %s: device %s port %d, fabric %s, %s, message %d bytes, rx depth %d%n", role,
                ep.device().name(), ibPort, ep.fabric(),
                ep.mode() == ConnectionMode.RDMA_CM ? "rdma_cm" : "TCP exchange", size, rxDepth);
    }

    int serve(PrintStream out) {
        InetSocketAddress at = new InetSocketAddress(bind == null ? "0.0.0.0" : bind, port);
        try (EndpointServer s = Endpoints.listen(at, options())) {
            out.printf("  waiting for a connection on %s port %d%n", at.getHostString(), s.address().getPort());
            out.flush();
            try (RdmaEndpoint ep = s.accept(Duration.ofSeconds(timeoutSeconds));
                    WorkCompletions wc = WorkCompletions.allocate(2)) {
                serveOne(out, ep, wc);
            }
        }
        return 0;
    }

    /**
     * Echoes every message until the client's empty one, its end (the warm-up's messages too: the server need not
     * know how long it was), and reports the last {@link #iters}: {@code done[k % (iters + 1)]} is when echo k had
     * gone.
     */
    private void serveOne(PrintStream out, RdmaEndpoint ep, WorkCompletions wc) {
        describe(out, ep, "server");
        long deadlineNanos = Duration.ofSeconds(timeoutSeconds).toNanos();
        long[] done = new long[iters + 1];
        done[0] = System.nanoTime();
        long echoed = 0;
        while (true) {
            int slot = awaitReceive(ep, wc, deadlineNanos, echoed);
            int len = wc.byteLength(0);
            if (len == 0) {
                break; // the client's end
            }
            if (len != size) {
                throw new IllegalStateException("message " + echoed + " has " + len + " bytes, expected " + size);
            }
            ByteBuffer message = ep.message(wc, 0);
            if (validate) {
                check(message, echoed, "server: message");
            }
            ep.sendSlot(0).put(message); // the echo: receive slot -> send slot, no copy through the heap
            ep.send(0, len);
            ep.repostReceive(slot); // after the echo: the credit update does not delay it
            awaitSend(ep, wc, deadlineNanos);
            echoed++;
            done[(int) (echoed % (iters + 1))] = System.nanoTime();
        }
        if (echoed < iters) {
            throw new IllegalStateException("the client ended after " + echoed + " of " + iters
                    + " messages: use the same -n on both sides");
        }
        if (echoed > iters) {
            out.printf("  warm-up: %d echoes, not counted%n", echoed - iters);
        }
        report(out, done[(int) (echoed % (iters + 1))] - done[(int) ((echoed - iters) % (iters + 1))]);
        // the client closes first, after its end: wait for its disconnect so that it never meets a server that
        // is already gone
        awaitDisconnect(ep, wc);
    }

    int client(PrintStream out) {
        InetSocketAddress at = new InetSocketAddress(server, port);
        long[] rtt = new long[iters];
        try (RdmaEndpoint ep = Endpoints.connect(at, options()); WorkCompletions wc = WorkCompletions.allocate(2)) {
            describe(out, ep, "client");
            if (ep.peerMessageSize() < size) {
                throw new IllegalStateException("the server's messages are " + ep.peerMessageSize() + " bytes, "
                        + "smaller than -s " + size + ": use the same -s on both sides");
            }
            long deadlineNanos = Duration.ofSeconds(timeoutSeconds).toNanos();
            ByteBuffer slot0 = ep.sendSlot(0);
            if (!validate) {
                for (int b = 0; b < size; b++) {
                    slot0.put(b, (byte) 0x5a);
                }
            }
            long warmStart = System.nanoTime();
            WarmUp warmUp = new WarmUp(warmStart, warmupMillis, WarmUp.thisJvmsCompiler());
            long warm = 0;
            while (warmupMillis > 0) {
                roundTrip(ep, wc, slot0, warm++, deadlineNanos);
                if (warmUp.over(System.nanoTime())) {
                    break;
                }
            }
            if (warm > 0) {
                out.printf("  warm-up: %d round trips in %.2f seconds, not counted%s%n", warm,
                        (System.nanoTime() - warmStart) / 1e9,
                        warmUp.compilerWentQuiet() ? "" : " (the JIT compiler was still compiling)");
            }
            long start = System.nanoTime();
            for (int i = 0; i < iters; i++) {
                rtt[i] = roundTrip(ep, wc, slot0, warm + i, deadlineNanos);
            }
            long nanos = System.nanoTime() - start;
            ep.send(0, 0); // the end: the server reports and waits for our disconnect
            awaitSend(ep, wc, deadlineNanos);
            report(out, nanos);
            out.println(latencySummary(rtt));
            if (validate) {
                out.println("data check: " + iters + " echoes of " + size + " bytes matched");
            }
        }
        return 0;
    }

    /** The receive slot of the last echo, posted again after the next send (-1: none yet). */
    private int echoed = -1;

    /** Sends message {@code n}, waits for its echo and checks it. {@return the round trip in ns} */
    private long roundTrip(RdmaEndpoint ep, WorkCompletions wc, ByteBuffer slot0, long n, long deadlineNanos) {
        if (validate) {
            fill(slot0, size, (int) n);
        }
        long t0 = System.nanoTime();
        ep.send(0, size);
        if (echoed >= 0) {
            ep.repostReceive(echoed); // after the send: the credit update does not delay it
        }
        int slot = awaitReceive(ep, wc, deadlineNanos, n);
        long rtt = System.nanoTime() - t0;
        if (wc.byteLength(0) != size) {
            throw new IllegalStateException("echo " + n + " has " + wc.byteLength(0) + " bytes, expected " + size);
        }
        if (validate) {
            check(ep.message(wc, 0), n, "client: echo");
        }
        echoed = slot; // posted again after the next send; after the last echo nothing more comes
        awaitSend(ep, wc, deadlineNanos);
        return rtt;
    }

    /**
     * The latency line of {@code rtt} (round trips in ns; sorted here): the round trip's min, median, avg, p99 and
     * max, then what perftest users compare, {@code ib_send_lat}'s {@code t_typical}: the one-way latency, the
     * median round trip halved.
     */
    static String latencySummary(long[] rtt) {
        Arrays.sort(rtt);
        int n = rtt.length;
        double sum = 0;
        for (long r : rtt) {
            sum += r;
        }
        return String.format(java.util.Locale.ROOT,
                "round trip [usec]: min %.2f  median %.2f  avg %.2f  p99 %.2f  max %.2f  one-way t_typical %.2f",
                rtt[0] / 1e3, rtt[n / 2] / 1e3, sum / n / 1e3, rtt[Math.min(n - 1, (int) Math.ceil(n * 0.99) - 1)] / 1e3,
                rtt[n - 1] / 1e3, rtt[n / 2] / 2e3);
    }

    private void report(PrintStream out, long nanos) {
        double seconds = nanos / 1e9;
        long bytes = (long) size * iters * 2;
        out.printf("%d bytes in %.2f seconds = %.2f Mbit/sec%n", bytes, seconds, bytes * 8.0 / seconds / 1e6);
        out.printf("%d iters in %.2f seconds = %.2f usec/iter%n", iters, seconds, nanos / 1e3 / iters);
    }

    private static int awaitReceive(RdmaEndpoint ep, WorkCompletions wc, long timeoutNanos, long i) {
        long start = System.nanoTime();
        while (ep.pollReceive(wc) == 0) {
            if (System.nanoTime() - start > timeoutNanos) {
                throw new IllegalStateException("no message " + i + " within the timeout: is the peer still running?");
            }
        }
        if (wc.status(0) != WcStatus.SUCCESS) {
            throw new IllegalStateException("receive " + i + " failed: " + wc.toString(0)
                    + (wc.status(0) == WcStatus.WR_FLUSH_ERR ? " (the peer disconnected)" : ""));
        }
        return (int) wc.wrId(0);
    }

    private static void awaitSend(RdmaEndpoint ep, WorkCompletions wc, long timeoutNanos) {
        long start = System.nanoTime();
        while (ep.pollSend(wc) == 0) {
            if (System.nanoTime() - start > timeoutNanos) {
                throw new IllegalStateException("send did not complete within the timeout");
            }
        }
        if (wc.status(0) != WcStatus.SUCCESS) {
            throw new IllegalStateException("send failed: " + wc.toString(0));
        }
    }

    /** The peer's disconnect flushes our posted receives; wait (bounded) for the first flush. */
    private void awaitDisconnect(RdmaEndpoint ep, WorkCompletions wc) {
        long end = System.nanoTime() + Duration.ofSeconds(Math.min(timeoutSeconds, 10)).toNanos();
        while (System.nanoTime() < end) {
            if (ep.pollReceive(wc) > 0 && wc.status(0) != WcStatus.SUCCESS) {
                return;
            }
            Thread.onSpinWait();
        }
    }

    /** Writes iteration {@code iteration}'s pattern into the first {@code length} bytes of a send slot. */
    static void fill(ByteBuffer slot, int length, int iteration) {
        for (int i = 0; i < length; i++) {
            slot.put(i, (byte) (iteration + i * 13));
        }
    }

    /**
     * Checks a received message (its view: limit = its length) against message {@code n}'s pattern; a mismatch is
     * reported as {@code what} and {@code n} (the text is made only then: no garbage in the timed loop).
     */
    static void check(ByteBuffer message, long n, String what) {
        for (int i = 0; i < message.remaining(); i++) {
            byte want = (byte) (n + i * 13);
            byte got = message.get(message.position() + i);
            if (got != want) {
                throw new IllegalStateException(what + " " + n + ": byte " + i + " is " + (got & 0xff) + ", expected "
                        + (want & 0xff) + " (data check failed)");
            }
        }
    }
}
