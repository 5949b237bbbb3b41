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
 * perftest's out-of-band exchange ({@code perftest_communication.c}), so that a C perftest client or server
 * can be verbs4j-perf's peer: one connection from the client to the server's {@code -p} port, over TCP or, with
 * {@code -R}, over rdma_cm ({@link PerfCmLink}: each message one SEND, the keys as perftest's binary
 * {@code pingpong_dest}); then the
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
    static class ExchangeException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ExchangeException(String message, Throwable cause) {
            super(message, cause);
        }

        ExchangeException(String message) {
            super(message);
        }
    }

    /** The server could not listen: something else holds its port (TCP or rdma_cm). */
    static final class PortTakenException extends ExchangeException {
        private static final long serialVersionUID = 1L;

        PortTakenException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * What carries the exchange's messages: a TCP socket ({@link TcpLink}) or perftest's rdma_cm connection
     * ({@link PerfCmLink}, {@code -R}). Each call moves one message and fails with an
     * {@link ExchangeException} naming {@code what} (the step) and the peer.
     */
    interface Link extends AutoCloseable {
        /** Sends {@code b} as one message. */
        void send(byte[] b, String what);

        /** Receives one message of exactly {@code size} bytes. */
        byte[] receive(int size, String what);

        /** The peer, for messages. */
        String peer();

        @Override
        void close();
    }

    private final Link link;
    private final boolean client;
    private final boolean rdmaCm;
    final String peer;
    private boolean done;

    private PerfChannel(Link link, boolean client, boolean rdmaCm) {
        this.link = link;
        this.client = client;
        this.rdmaCm = rdmaCm;
        this.peer = link.peer();
    }

    /** Server: listens on TCP {@code port} (every address) and returns the first client's channel. */
    static PerfChannel serve(int port) {
        return serve(port, null);
    }

    /** {@link #serve(int)}, telling {@code listening} (if not null) once it listens. */
    static PerfChannel serve(int port, Runnable listening) {
        return new PerfChannel(TcpLink.serve(port, listening), false, false);
    }

    /** Client: connects to TCP {@code host:port}, retrying a refused connection for {@link #CONNECT_RETRY_MILLIS}. */
    static PerfChannel connect(String host, int port) {
        return new PerfChannel(TcpLink.connect(host, port), true, false);
    }

    /**
     * {@code -R}: the exchange over perftest's own rdma_cm connection ({@link PerfCmLink}), in its message
     * format (one message per field, the keys as {@code struct pingpong_dest}, no "done").
     */
    static PerfChannel over(Link link, boolean client) {
        return new PerfChannel(link, client, true);
    }

    /** The rdma_cm link of a {@code -R} channel, else null. */
    PerfCmLink cmLink() {
        return link instanceof PerfCmLink l ? l : null;
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
        if (rdmaCm) {
            return PerfWire.parseDest(exchange(PerfWire.dest(mine), PerfWire.DEST_BYTES, what), gid, peer);
        }
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
     * perftest's {@code ctx_close_connection} after its last handshake: over TCP writes "done" and reads the
     * peer's (waiting at most {@link #DONE_TIMEOUT_MILLIS}; perftest itself never reads it); over rdma_cm
     * nothing is sent (perftest sends no "done" there), and the server lets the client disconnect first.
     */
    void finish() {
        if (link instanceof TcpLink t) {
            done = t.finish();
        } else if (link instanceof PerfCmLink c) {
            c.finish();
        }
    }

    /** One {@code ctx_xchg_data}: the client writes, then reads; the server reads, then writes. */
    private byte[] exchange(byte[] mine, int theirSize, String what) {
        if (client) {
            link.send(mine, what);
            return link.receive(theirSize, what);
        }
        byte[] theirs = link.receive(theirSize, what);
        link.send(mine, what);
        return theirs;
    }

    /** True when the peer's "done" arrived. */
    boolean peerDone() {
        return done;
    }

    @Override
    public void close() {
        link.close();
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ExchangeException("interrupted while connecting");
        }
    }

    /** The TCP exchange: one socket, each read of a fixed size with a time-out. */
    static final class TcpLink implements Link {
        private final Socket socket;
        private final InputStream in;
        private final OutputStream out;
        private final String peer;

        private TcpLink(Socket socket) throws IOException {
            this.socket = socket;
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(READ_TIMEOUT_MILLIS);
            this.in = socket.getInputStream();
            this.out = socket.getOutputStream();
            this.peer = String.valueOf(socket.getRemoteSocketAddress());
        }

        static TcpLink serve(int port, Runnable listening) {
            try (ServerSocket listener = new ServerSocket()) {
                listener.setReuseAddress(true);
                try {
                    listener.bind(new InetSocketAddress(port), 1);
                } catch (IOException e) {
                    String m = "Couldn't listen to port " + port + " (" + e.getMessage()
                            + "): is another server running on it? Choose another with -p";
                    throw e instanceof java.net.BindException ? new PortTakenException(m, e) : new ExchangeException(m, e);
                }
                if (listening != null) {
                    listening.run();
                }
                return new TcpLink(listener.accept());
            } catch (IOException e) {
                throw new ExchangeException("accept() on port " + port + " failed: " + e.getMessage(), e);
            }
        }

        static TcpLink connect(String host, int port) {
            long deadline = System.nanoTime() + CONNECT_RETRY_MILLIS * 1_000_000L;
            while (true) {
                Socket s = new Socket();
                try {
                    s.connect(new InetSocketAddress(host, port), 10_000);
                    return new TcpLink(s);
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

        @Override
        public String peer() {
            return peer;
        }

        @Override
        public void send(byte[] b, String what) {
            try {
                out.write(b);
                out.flush();
            } catch (IOException e) {
                throw new ExchangeException("the " + what + " with " + peer + " failed: " + e, e);
            }
        }

        @Override
        public byte[] receive(int size, String what) {
            byte[] b = new byte[size];
            try {
                readFully(b);
                return b;
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

        /** Writes "done" and reads the peer's; true when it came. */
        boolean finish() {
            try {
                out.write(PerfWire.DONE);
                out.flush();
                socket.setSoTimeout(DONE_TIMEOUT_MILLIS);
                readFully(new byte[PerfWire.DONE.length]);
                return true;
            } catch (IOException e) {
                // the peer may have closed already: the test is over either way
                return false;
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
    }
}
