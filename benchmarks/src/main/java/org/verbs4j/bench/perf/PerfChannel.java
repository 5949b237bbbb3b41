package org.verbs4j.bench.perf;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.Arrays;
import org.verbs4j.api.Gid;

/**
 * verbs4j-perf's out-of-band channel: one TCP connection from the client to the server's {@code -p} port,
 * carrying the settings check, the queue pair endpoints (LID, QPN, PSN, GID, rkey, address), the
 * synchronisation points between the runs and, for the RDMA bandwidth tests, the client's result for the
 * server to print. It is verbs4j-perf's own format (big-endian fields through {@link DataOutputStream}), not
 * perftest's: verbs4j-perf talks to verbs4j-perf only.
 */
final class PerfChannel implements AutoCloseable {
    static final String MAGIC = "verbs4j-perf/1";
    /** How long the client keeps retrying a refused connection (the server may still be starting). */
    static final long CONNECT_RETRY_MILLIS = 10_000;
    /** A read that waits longer than this means the peer is gone or stuck. */
    static final int READ_TIMEOUT_MILLIS = 600_000;

    /** One side's queue pair, as the peer needs it. */
    record Endpoint(int lid, int qpn, int psn, Gid gid, int rkey, long vaddr, int outReads, int mtuBytes) {
    }

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
    private final DataInputStream in;
    private final DataOutputStream out;
    private final String peer;

    private PerfChannel(Socket socket) throws IOException {
        this.socket = socket;
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(READ_TIMEOUT_MILLIS);
        this.in = new DataInputStream(socket.getInputStream());
        this.out = new DataOutputStream(socket.getOutputStream());
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
            return new PerfChannel(listener.accept());
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
                return new PerfChannel(s);
            } catch (ConnectException | SocketTimeoutException e) {
                closeQuietly(s);
                if (System.nanoTime() > deadline) {
                    throw new ExchangeException("Couldn't connect to " + host + ":" + port + " (" + e.getMessage()
                            + "): is verbs4j-perf running as the server there, with the same -p?", e);
                }
                sleep(200);
            } catch (IOException e) {
                closeQuietly(s);
                throw new ExchangeException("Couldn't connect to " + host + ":" + port + " (" + e + ")", e);
            }
        }
    }

    /** The settings both sides must share, as one line. */
    static String settings(PerfOptions o) {
        return o.test.command() + " sizes=" + Arrays.toString(o.sizes()).replace(" ", "") + " iters=" + o.iters
                + " duration=" + o.duration + " rdma_cm=" + o.rdmaCm + " warmup=" + o.warmup;
    }

    /** Client: sends its settings; the server answers "OK" or why not. */
    void hello(PerfOptions o) {
        try {
            out.writeUTF(MAGIC);
            out.writeUTF(settings(o));
            out.flush();
            String answer = in.readUTF();
            if (!answer.equals("OK")) {
                throw new ExchangeException("the server refused: " + answer);
            }
        } catch (IOException e) {
            throw failure("hello", e);
        }
    }

    /** Server: reads the client's settings and answers; throws when they differ from ours. */
    void welcome(PerfOptions o) {
        try {
            String magic = in.readUTF();
            if (!magic.equals(MAGIC)) {
                out.writeUTF("not a " + MAGIC + " client");
                out.flush();
                throw new ExchangeException("the client at " + peer + " is not " + MAGIC + " (it sent '" + magic
                        + "'): verbs4j-perf talks to verbs4j-perf only, not to C perftest");
            }
            String theirs = in.readUTF();
            String ours = settings(o);
            if (!theirs.equals(ours)) {
                String why = "settings differ: server has [" + ours + "], client has [" + theirs
                        + "]; run both sides with the same test, -s/-a, -n/-D, -R and --warmup";
                out.writeUTF(why);
                out.flush();
                throw new ExchangeException(why);
            }
        } catch (EOFException e) {
            throw new ExchangeException("the client at " + peer + " closed the connection during the hello", e);
        } catch (IOException e) {
            throw failure("hello", e);
        }
    }

    /** Server: tells the client the settings are fine (after the rdma_cm listener is up, with -R). */
    void accept() {
        writeUtf("OK");
    }

    /** Server: tells the client why the run cannot go on. */
    void refuse(String why) {
        try {
            writeUtf(why);
        } catch (ExchangeException ignored) {
            // the client may be gone already
        }
    }

    /** Sends ours, reads theirs. */
    Endpoint exchange(Endpoint mine) {
        try {
            out.writeInt(mine.lid());
            out.writeInt(mine.qpn());
            out.writeInt(mine.psn());
            out.write(mine.gid().raw());
            out.writeInt(mine.rkey());
            out.writeLong(mine.vaddr());
            out.writeInt(mine.outReads());
            out.writeInt(mine.mtuBytes());
            out.flush();
            int lid = in.readInt();
            int qpn = in.readInt();
            int psn = in.readInt();
            byte[] gid = new byte[Gid.SIZE];
            in.readFully(gid);
            return new Endpoint(lid, qpn, psn, Gid.of(gid), in.readInt(), in.readLong(), in.readInt(), in.readInt());
        } catch (IOException e) {
            throw failure("endpoint exchange", e);
        }
    }

    /** A barrier: both sides get past it only when both reached it; {@code what} names it in errors. */
    void sync(String what) {
        try {
            out.writeByte(0x5a);
            out.flush();
            int b = in.read();
            if (b != 0x5a) {
                throw new ExchangeException("the peer at " + peer + " " + (b < 0 ? "closed the connection" : "sent " + b)
                        + " at '" + what + "' (did it fail? see its output)");
            }
        } catch (IOException e) {
            throw failure(what, e);
        }
    }

    /** Client of the RDMA bandwidth tests: its result, for the server to print. */
    void sendResult(BandwidthStats.Result r) {
        try {
            out.writeLong(r.bytes());
            out.writeLong(r.iterations());
            out.writeDouble(r.peak());
            out.writeDouble(r.average());
            out.writeDouble(r.msgRateMpps());
            out.flush();
        } catch (IOException e) {
            throw failure("result", e);
        }
    }

    BandwidthStats.Result readResult() {
        try {
            return new BandwidthStats.Result(in.readLong(), in.readLong(), in.readDouble(), in.readDouble(),
                    in.readDouble());
        } catch (IOException e) {
            throw failure("result", e);
        }
    }

    private void writeUtf(String s) {
        try {
            out.writeUTF(s);
            out.flush();
        } catch (IOException e) {
            throw failure("hello", e);
        }
    }

    private ExchangeException failure(String what, IOException e) {
        if (e instanceof EOFException) {
            return new ExchangeException("the peer at " + peer + " closed the connection during the " + what
                    + " (did it fail? see its output)", e);
        }
        return new ExchangeException("the " + what + " with " + peer + " failed: " + e, e);
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
