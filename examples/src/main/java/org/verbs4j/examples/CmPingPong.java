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

/**
 * A send/receive ping-pong over verbs4j's connection-level API ({@link Endpoints}), the same code on every
 * fabric: it connects through rdma_cm, which picks the device that owns (server) or routes to (client) the
 * address, so it runs unchanged on RoCE ({@code rxe0}), iWARP ({@code siw0}) and InfiniBand (IPoIB address).
 *
 * <pre>
 * cm-pingpong [-p PORT] [-b BIND_ADDR] [-s SIZE] [-n ITERS] [-r RX_DEPTH] [-c] [-M [-d DEV] [-i IB_PORT]] [SERVER]
 * </pre>
 * Without SERVER it is the server: it listens on BIND_ADDR (default 0.0.0.0: every RDMA device), echoes each
 * message back, and exits after ITERS. The client sends ITERS messages of SIZE bytes, one at a time, and
 * times every round trip. {@code -c} fills every message with a pattern of its iteration that the server
 * checks and echoes, and the client checks the echo. {@code -M} connects with the TCP exchange instead of
 * rdma_cm (InfiniBand and RoCE only; then {@code -d} names the device).
 *
 * <p>Both sides print, like {@code ibv_rc_pingpong}: {@code N bytes in S seconds = R Mbit/sec} and
 * {@code N iters in S seconds = U usec/iter}; the client also prints the round-trip latency distribution.
 */
public final class CmPingPong {
    static final int DEFAULT_PORT = 18516;

    int port = DEFAULT_PORT;
    String bind;
    String server;
    int size = 4096;
    int iters = 1000;
    int rxDepth = 16;
    boolean validate;
    boolean manual;
    String device;
    int ibPort = 1;
    int timeoutSeconds = 60;

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        CmPingPong p;
        try {
            p = parse(args);
        } catch (IllegalArgumentException e) {
            err.println("cm-pingpong: " + e.getMessage());
            usage(out);
            return 1;
        }
        if (p == null) {
            usage(out);
            return 0;
        }
        try {
            return p.server == null ? p.serve(out) : p.client(out);
        } catch (RuntimeException e) {
            err.println("cm-pingpong: " + e.getMessage());
            return 1;
        } finally {
            out.flush();
            err.flush();
        }
    }

    static void usage(PrintStream out) {
        out.println("Usage:");
        out.println("  cm-pingpong            start a server and wait for connection");
        out.println("  cm-pingpong <host>     connect to server at <host>");
        out.println();
        out.println("Options:");
        out.println("  -p, --port=<port>      listen on/connect to port <port> (default " + DEFAULT_PORT + ")");
        out.println("  -b, --bind=<addr>      server: listen on <addr> (default 0.0.0.0, every RDMA device)");
        out.println("  -s, --size=<size>      size of message to exchange (default 4096)");
        out.println("  -n, --iters=<iters>    number of exchanges (default 1000)");
        out.println("  -r, --rx-depth=<dep>   number of receives to post at a time (default 16)");
        out.println("  -c, --chk              validate received buffer");
        out.println("  -M, --manual           connect with a TCP exchange instead of rdma_cm (not on iWARP)");
        out.println("  -d, --ib-dev=<dev>     with -M: use IB device <dev> (default first device with an active port)");
        out.println("  -i, --ib-port=<port>   use port <port> of IB device (default 1)");
        out.println("  -t, --timeout=<sec>    connection and idle timeout (default 60)");
    }

    /** Parses the command line; {@code null} for {@code -h}. */
    static CmPingPong parse(String[] args) {
        CmPingPong p = new CmPingPong();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String name = a;
            String value = null;
            if (a.startsWith("--") && a.contains("=")) {
                name = a.substring(0, a.indexOf('='));
                value = a.substring(a.indexOf('=') + 1);
            } else if (a.startsWith("-") && !a.startsWith("--") && a.length() > 2) {
                name = a.substring(0, 2);
                value = a.substring(2);
            }
            switch (name) {
                case "-h": case "--help": return null;
                case "-c": case "--chk": p.validate = true; continue;
                case "-M": case "--manual": p.manual = true; continue;
                default: break;
            }
            if (!name.startsWith("-")) {
                if (p.server != null) {
                    throw new IllegalArgumentException("more than one server address: " + p.server + ", " + a);
                }
                p.server = a;
                continue;
            }
            if (value == null) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("option " + name + " needs a value");
                }
                value = args[++i];
            }
            switch (name) {
                case "-p": case "--port": p.port = number(name, value, 1, 65535); break;
                case "-b": case "--bind": p.bind = value; break;
                case "-s": case "--size": p.size = number(name, value, 1, Integer.MAX_VALUE); break;
                case "-n": case "--iters": p.iters = number(name, value, 1, Integer.MAX_VALUE); break;
                case "-r": case "--rx-depth": p.rxDepth = number(name, value, 1, 1 << 16); break;
                case "-d": case "--ib-dev": p.device = value; break;
                case "-i": case "--ib-port": p.ibPort = number(name, value, 1, 255); break;
                case "-t": case "--timeout": p.timeoutSeconds = number(name, value, 1, 86400); break;
                default: throw new IllegalArgumentException("unknown option " + name);
            }
        }
        if (p.device != null && !p.manual) {
            throw new IllegalArgumentException("-d is for -M: with rdma_cm the address chooses the device");
        }
        return p;
    }

    private static int number(String option, String value, int min, int max) {
        long v;
        try {
            v = Long.decode(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("option " + option + ": '" + value + "' is not a number");
        }
        if (v < min || v > max) {
            throw new IllegalArgumentException("option " + option + ": " + v + " is not in " + min + ".." + max);
        }
        return (int) v;
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

    private void serveOne(PrintStream out, RdmaEndpoint ep, WorkCompletions wc) {
        {
            describe(out, ep, "server");
            long deadlineNanos = Duration.ofSeconds(timeoutSeconds).toNanos();
            long start = System.nanoTime();
            for (int i = 0; i < iters; i++) {
                int slot = awaitReceive(ep, wc, deadlineNanos, i);
                int len = wc.byteLength(0);
                if (len != size) {
                    throw new IllegalStateException("message " + i + " has " + len + " bytes, expected " + size);
                }
                ByteBuffer message = ep.message(wc, 0);
                if (validate) {
                    check(message, i, "server: message " + i);
                }
                ep.sendSlot(0).put(message); // the echo: receive slot -> send slot, no copy through the heap
                ep.repostReceive(slot);
                ep.send(0, len);
                awaitSend(ep, wc, deadlineNanos);
            }
            long nanos = System.nanoTime() - start;
            report(out, nanos);
            // the client closes first, after the last echo: wait for its disconnect so that it never meets
            // a server that is already gone
            awaitDisconnect(ep, wc);
        }
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
            long start = System.nanoTime();
            for (int i = 0; i < iters; i++) {
                if (validate) {
                    fill(slot0, size, i);
                }
                long t0 = System.nanoTime();
                ep.send(0, size);
                int slot = awaitReceive(ep, wc, deadlineNanos, i);
                rtt[i] = System.nanoTime() - t0;
                if (wc.byteLength(0) != size) {
                    throw new IllegalStateException("echo " + i + " has " + wc.byteLength(0) + " bytes, expected " + size);
                }
                if (validate) {
                    check(ep.message(wc, 0), i, "client: echo " + i);
                }
                if (i + 1 < iters) {
                    ep.repostReceive(slot); // (not after the last echo: the server may be gone by then)
                }
                awaitSend(ep, wc, deadlineNanos);
            }
            long nanos = System.nanoTime() - start;
            report(out, nanos);
            Arrays.sort(rtt);
            double sum = 0;
            for (long r : rtt) {
                sum += r;
            }
            out.printf("round trip [usec]: min %.2f  median %.2f  avg %.2f  p99 %.2f  max %.2f%n",
                    rtt[0] / 1e3, rtt[iters / 2] / 1e3, sum / iters / 1e3,
                    rtt[Math.min(iters - 1, (int) Math.ceil(iters * 0.99) - 1)] / 1e3, rtt[iters - 1] / 1e3);
            if (validate) {
                out.println("data check: " + iters + " echoes of " + size + " bytes matched");
            }
        }
        return 0;
    }

    private void report(PrintStream out, long nanos) {
        double seconds = nanos / 1e9;
        long bytes = (long) size * iters * 2;
        out.printf("%d bytes in %.2f seconds = %.2f Mbit/sec%n", bytes, seconds, bytes * 8.0 / seconds / 1e6);
        out.printf("%d iters in %.2f seconds = %.2f usec/iter%n", iters, seconds, nanos / 1e3 / iters);
    }

    private static int awaitReceive(RdmaEndpoint ep, WorkCompletions wc, long timeoutNanos, int i) {
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

    /** Checks a received message (its view: limit = its length) against iteration {@code iteration}'s pattern. */
    static void check(ByteBuffer message, int iteration, String what) {
        for (int i = 0; i < message.remaining(); i++) {
            byte want = (byte) (iteration + i * 13);
            byte got = message.get(message.position() + i);
            if (got != want) {
                throw new IllegalStateException(what + ": byte " + i + " is " + (got & 0xff) + ", expected "
                        + (want & 0xff) + " (data check failed)");
            }
        }
    }
}
