package org.verbs4j.bench.perf;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * The floor of any RDMA over TCP: a plain Java NIO ping-pong of the same bytes, for comparing the software iWARP
 * device with what TCP alone costs. {@code send_lat}'s loop over two non-blocking {@link SocketChannel}s with
 * TCP_NODELAY that spin on {@code read} (the way a verbs program spins on its CQ): the client sends first, each side
 * waits for a whole message, then sends one back; the report is perftest's latency line over the client's and the
 * server's post times, as {@code verbs4j-perf send_lat} prints it. With {@code --bw}, {@code send_bw}'s instead: the
 * client streams the messages, the server reads them all and answers one byte; both print perftest's bandwidth line
 * (the client's time from its first write to that answer).
 *
 * <pre>
 *   benchmarks/bin/nio-lat [--bw] [-s SIZE] [-n ITERS] [-p PORT] [--warmup N]            server
 *   benchmarks/bin/nio-lat [--bw] [-s SIZE] [-n ITERS] [-p PORT] [--warmup N] HOST       client
 * </pre>
 */
public final class NioPingPong {
    private NioPingPong() {
    }

    /**
     * Runs one side.
     *
     * @param args the command line, see the class comment
     */
    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /**
     * Runs one side and reports.
     *
     * @param args the command line
     * @param out  the report
     * @param err  errors
     * @return the exit status: 0, 1 on failure, 2 on a bad command line
     */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        int size = 2;
        int iters = 1000;
        int warmup = 10_000;
        int port = 18600;
        String host = null;
        boolean bw = false;
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "-s" -> size = positive(args[++i], "-s");
                    case "-n" -> iters = positive(args[++i], "-n");
                    case "-p" -> port = positive(args[++i], "-p");
                    case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                    case "--bw" -> bw = true;
                    default -> {
                        if (args[i].startsWith("-") || host != null) {
                            throw new IllegalArgumentException("unknown option " + args[i]);
                        }
                        host = args[i];
                    }
                }
            }
            if (iters < 5) {
                throw new IllegalArgumentException("-n " + iters + ": at least 5");
            }
        } catch (RuntimeException e) {
            err.println("nio-lat: " + e.getMessage());
            err.println("usage: nio-lat [--bw] [-s SIZE] [-n ITERS] [-p PORT] [--warmup N] [HOST]");
            return 2;
        }
        try (SocketChannel ch = host == null ? accept(port) : connect(host, port)) {
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            ch.configureBlocking(false);
            ByteBuffer buf = ByteBuffer.allocateDirect(size);
            boolean client = host != null;
            if (bw) {
                stream(ch, buf, warmup, client);
                long nanos = stream(ch, buf, iters, client);
                BandwidthStats.Result r = BandwidthStats.duration(size, iters, nanos, false);
                out.println(" NIO TCP stream, " + (client ? "client" : "server") + ", TCP_NODELAY, busy read/write"
                        + (warmup > 0 ? ", " + warmup + " warm-up messages not counted" : ""));
                out.println(PerfFormat.RESULT_LINE);
                out.println(PerfFormat.BW_COLUMNS);
                out.println(PerfFormat.bandwidthLine(r, false));
                out.println(PerfFormat.RESULT_LINE);
                return 0;
            }
            loop(ch, buf, warmup, client, null);
            long[] posted = new long[iters];
            loop(ch, buf, iters, client, posted);
            LatencyStats.Result r = LatencyStats.compute(size, posted, iters, 2);
            out.println(" NIO TCP ping-pong, " + (client ? "client" : "server") + ", TCP_NODELAY, busy read"
                    + (warmup > 0 ? ", " + warmup + " warm-up round trips not counted" : ""));
            out.println(PerfFormat.RESULT_LINE);
            out.println(PerfFormat.LAT_COLUMNS);
            out.println(PerfFormat.latencyLine(r));
            out.println(PerfFormat.RESULT_LINE);
            return 0;
        } catch (IOException e) {
            err.println("nio-lat: " + e);
            return 1;
        }
    }

    private static int positive(String v, String what) {
        int n = Integer.parseInt(v);
        if (n <= 0) {
            throw new IllegalArgumentException(what + " " + v + ": must be positive");
        }
        return n;
    }

    private static SocketChannel accept(int port) throws IOException {
        try (ServerSocketChannel s = ServerSocketChannel.open()) {
            s.bind(new InetSocketAddress(port));
            return s.accept();
        }
    }

    private static SocketChannel connect(String host, int port) throws IOException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            try {
                return SocketChannel.open(new InetSocketAddress(host, port));
            } catch (java.net.ConnectException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                try {
                    Thread.sleep(100);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    /** {@code n} round trips; the client sends first; {@code posted} (if not null) gets each send's time. */
    private static void loop(SocketChannel ch, ByteBuffer buf, int n, boolean client, long[] posted) throws IOException {
        for (int i = 0; i < n; i++) {
            if (!client || i > 0) {
                receive(ch, buf);
            }
            if (posted != null) {
                posted[i] = System.nanoTime();
            }
            buf.clear();
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
        }
        if (client) {
            receive(ch, buf); // the last echo
        }
    }

    /** {@code n} messages from the client, one byte back when the server has them all; the nanoseconds taken. */
    private static long stream(SocketChannel ch, ByteBuffer buf, int n, boolean client) throws IOException {
        ByteBuffer one = ByteBuffer.allocateDirect(1);
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            if (client) {
                buf.clear();
                while (buf.hasRemaining()) {
                    ch.write(buf);
                }
            } else {
                receive(ch, buf);
            }
        }
        if (client) {
            receive(ch, one);
        } else {
            one.clear();
            while (one.hasRemaining()) {
                ch.write(one);
            }
        }
        return System.nanoTime() - t0;
    }

    private static void receive(SocketChannel ch, ByteBuffer buf) throws IOException {
        buf.clear();
        while (buf.hasRemaining()) {
            if (ch.read(buf) < 0) {
                throw new IOException("the peer closed the connection");
            }
        }
    }
}
