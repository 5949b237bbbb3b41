package org.verbs4j.bench.perf;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;

/**
 * perftest's out-of-band exchange over TCP ({@code perftest_communication.c}), so that a C perftest client or
 * server can be verbs4j-perf's peer: one connection from the client to the server's {@code -p} port; then the
 * version strings, the page and cache-line sizes, the MTU, and the queue pair's keys
 * ({@link PerfWire#keys}) in perftest's text format, again at each of perftest's synchronisation points
 * ({@link #handshake}); the RDMA bandwidth tests' result at the end; "done" when closing. Every read has a
 * fixed size and a time-out, and every parser of the peer's bytes ({@link PerfWire}) rejects garbage with an
 * error naming the peer.
 *
 * <p>In each exchange the client writes first and then reads, the server reads first and then writes, as
 * perftest's {@code ctx_hand_shake} and {@code ctx_xchg_data}.
 */
final class PerfChannel implements AutoCloseable {
    /** How long the client keeps retrying a refused connection (the server may still be starting). */
    static final long CONNECT_RETRY_MILLIS = 10_000;
    /** A read that waits longer than this means the peer is gone or stuck (a whole run may lie between two reads). */
    static final int READ_TIMEOUT_MILLIS = 600_000;
    /** How long {@link #close} waits for the peer's "done". */
    static final int DONE_TIMEOUT_MILLIS = 2_000;

    /** A failure of the exchange: the message says what and with whom. */
    static final class ExchangeException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ExchangeException(String message, Throwable cause) {
            super(message, cause);
        }

        ExchangeException(String message) {
            super(message);
        }
    }

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final boolean client;
    final String peer;
    private boolean done;

    private PerfChannel(Socket socket, boolean client) throws IOException {
        this.socket = socket;
        this.client = client;
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(READ_TIMEOUT_MILLIS);
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
        this.peer = String.valueOf(socket.getRemoteSocketAddress());
    }

    /** Server: listens on {@code port} (every address) and returns the first client's channel. */
    static PerfChannel serve(int port) {
        try (ServerSocket listener = new ServerSocket()) {
            listener.setReuseAddress(true);
            try {
                listener.bind(new InetSocketAddress(port), 1);
            } catch (IOException e) {
                throw new ExchangeException("Couldn't listen to port " + port + " (" + e.getMessage()
                        + "): is another server running on it? Choose another with -p", e);
            }
            return new PerfChannel(listener.accept(), false);
        } catch (IOException e) {
            throw new ExchangeException("accept() on port " + port + " failed: " + e.getMessage(), e);
        }
    }

    /** Client: connects to {@code host:port}, retrying a refused connection for {@link #CONNECT_RETRY_MILLIS}. */
    static PerfChannel connect(String host, int port) {
        long deadline = System.nanoTime() + CONNECT_RETRY_MILLIS * 1_000_000L;
        while (true) {
            Socket s = new Socket();
            try {
                s.connect(new InetSocketAddress(host, port), 10_000);
                return new PerfChannel(s, true);
            } catch (ConnectException | SocketTimeoutException e) {
                closeQuietly(s);
                if (System.nanoTime() > deadline) {
                    throw new ExchangeException("Couldn't connect to " + host + ":" + port + " (" + e.getMessage()
                            + "): is a perftest or verbs4j-perf server running there, with the same -p?", e);
                }
                sleep(200);
            } catch (IOException e) {
                closeQuietly(s);
                throw new ExchangeException("Couldn't connect to " + host + ":" + port + " (" + e + ")", e);
            }
        }
    }

    /**
     * perftest's start: {@code exchange_versions}, {@code check_sys_data} and {@code check_mtu}. Returns the
     * MTU both sides use (perftest's enum, 1..5: the smaller of the two).
     */
    int start(int mtuEnum) {
        byte[] theirs = exchange(PerfWire.version(), PerfWire.VERSION_BYTES, "version exchange");
        PerfWire.checkVersion(theirs, peer);
        // two exchanges of 4 bytes each, as perftest's (the peer reads 4, then writes 4)
        exchange(PerfWire.int32(PerfWire.PAGE_SIZE), 4, "page size exchange");
        exchange(PerfWire.int32(PerfWire.CACHE_LINE), 4, "cache line size exchange");
        byte[] mtu = exchange(PerfWire.mtu(mtuEnum), PerfWire.MTU_BYTES, "MTU exchange");
        return Math.min(mtuEnum, PerfWire.parseMtu(mtu, peer));
    }

    /** perftest's {@code ctx_hand_shake}: sends our keys, reads theirs ({@code what} names the point in errors). */
    PerfWire.Keys handshake(PerfWire.Keys mine, String what) {
        boolean gid = mine.gid() != null;
        byte[] theirs = exchange(PerfWire.keys(mine), gid ? PerfWire.KEY_MSG_SIZE_GID : PerfWire.KEY_MSG_SIZE, what);
        return PerfWire.parseKeys(theirs, gid, peer);
    }

    /** perftest's {@code xchg_bw_reports}: our result for theirs (the RDMA bandwidth server prints the client's). */
    BandwidthStats.Result exchangeReports(BandwidthStats.Result mine) {
        BandwidthStats.Result m = mine == null ? new BandwidthStats.Result(0, 0, 0, 0, 0) : mine;
        long size = PerfWire.getLong(exchange(PerfWire.putLong(m.bytes()), 8, "report exchange"));
        long iters = PerfWire.getLong(exchange(PerfWire.putLong(m.iterations()), 8, "report exchange"));
        double peak = PerfWire.getDouble(exchange(PerfWire.putDouble(m.peak()), 8, "report exchange"));
        double avg = PerfWire.getDouble(exchange(PerfWire.putDouble(m.average()), 8, "report exchange"));
        double rate = PerfWire.getDouble(exchange(PerfWire.putDouble(m.msgRateMpps()), 8, "report exchange"));
        return PerfWire.checkReport(new BandwidthStats.Result(size, iters, peak, avg, rate), peer);
    }

    /**
     * perftest's {@code ctx_close_connection} after its last handshake: writes "done" and reads the peer's
     * (waiting at most {@link #DONE_TIMEOUT_MILLIS}; perftest itself never reads it).
     */
    void finish() {
        try {
            out.write(PerfWire.DONE);
            out.flush();
            socket.setSoTimeout(DONE_TIMEOUT_MILLIS);
            readFully(new byte[PerfWire.DONE.length]);
            done = true;
        } catch (IOException e) {
            // the peer may have closed already: the test is over either way
        }
    }

    /** One {@code ctx_xchg_data}: the client writes, then reads; the server reads, then writes. */
    private byte[] exchange(byte[] mine, int theirSize, String what) {
        byte[] theirs = new byte[theirSize];
        try {
            if (client) {
                out.write(mine);
                out.flush();
                readFully(theirs);
            } else {
                readFully(theirs);
                out.write(mine);
                out.flush();
            }
            return theirs;
        } catch (SocketTimeoutException e) {
            throw new ExchangeException("the peer at " + peer + " sent nothing for " + READ_TIMEOUT_MILLIS / 1000
                    + " s at the " + what + " (is it running the same test with the same -s/-a and -n?)", e);
        } catch (EOFException e) {
            throw new ExchangeException("the peer at " + peer + " closed the connection at the " + what
                    + " (did it fail? see its output)", e);
        } catch (IOException e) {
            throw new ExchangeException("the " + what + " with " + peer + " failed: " + e, e);
        }
    }

    private void readFully(byte[] b) throws IOException {
        int n = 0;
        while (n < b.length) {
            int r = in.read(b, n, b.length - n);
            if (r < 0) {
                throw new EOFException();
            }
            n += r;
        }
    }

    /** True when the peer's "done" arrived. */
    boolean peerDone() {
        return done;
    }

    @Override
    public void close() {
        closeQuietly(socket);
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ExchangeException("interrupted while connecting");
        }
    }
}
