package org.verbs4j.examples;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;
import org.verbs4j.api.QpEndpoint;

/**
 * The out-of-band TCP exchange of rdma-core's pingpong examples, byte for byte:
 * <ol>
 * <li>the client connects and sends its {@code "%04x:%06x:%06x:%s"} message with the trailing NUL (52 bytes);
 * <li>the server reads it, connects its queue pair to the client's (the {@code connect} callback), and
 *     sends its own message back;
 * <li>the client reads it and answers {@code "done"} with its NUL (5 bytes); the server reads that.
 * </ol>
 * The server listens on every address ({@code SO_REUSEADDR}, backlog 1), serves one client and closes the
 * listener. Every read is of a fixed size and the whole exchange has a deadline ({@link #TIMEOUT_MS}): a peer
 * that floods, sends garbage or stays silent ends it. Failures print the C tool's message on stderr and throw
 * {@link PingPongFailure}.
 */
final class PingPongExchange {
    /**
     * {@code sizeof "0000:000000:000000:00000000000000000000000000000000"}: 51 characters and the NUL, 52 bytes
     * (not 53: 4 + 1 + 6 + 1 + 6 + 1 + 32 = 51).
     */
    static final int MESSAGE_SIZE = 52;
    /** {@code sizeof "done"}. */
    static final int DONE_SIZE = 5;
    /** What the client answers last: {@code "done"} and its NUL. */
    private static final byte[] DONE = {'d', 'o', 'n', 'e', 0};
    /** The system property that sets {@link #TIMEOUT_MS}. */
    static final String TIMEOUT_PROPERTY = "verbs4j.pingpong.exchangeTimeoutMs";
    /**
     * Milliseconds a peer has for the whole exchange once connected (and a client for its TCP connection),
     * default 10 000; the C tools wait forever on a silent peer.
     */
    static final int TIMEOUT_MS = Math.max(1, Integer.getInteger(TIMEOUT_PROPERTY, 10_000));

    private PingPongExchange() {
    }

    /** The 52 bytes the C tools send: the wire text and a NUL. */
    static byte[] encode(QpEndpoint me) {
        byte[] text = me.toWire().getBytes(StandardCharsets.US_ASCII);
        byte[] msg = new byte[MESSAGE_SIZE];
        System.arraycopy(text, 0, msg, 0, Math.min(text.length, MESSAGE_SIZE - 1));
        return msg;
    }

    /** Parses a received message (the part before the first NUL). */
    static QpEndpoint decode(byte[] msg, int length) {
        int end = 0;
        while (end < length && msg[end] != 0) {
            end++;
        }
        return QpEndpoint.parseWire(new String(msg, 0, end, StandardCharsets.US_ASCII));
    }

    /** {@code pp_client_exch_dest}: returns the server's endpoint. */
    static QpEndpoint client(String serverName, int port, QpEndpoint me) {
        InetAddress[] addresses;
        try {
            addresses = InetAddress.getAllByName(serverName);
        } catch (UnknownHostException e) {
            throw new PingPongFailure(resolverText(e) + " for " + serverName + ":" + port);
        }
        Socket socket = null;
        for (InetAddress a : addresses) {
            Socket s = new Socket();
            try {
                s.connect(new InetSocketAddress(a, port), TIMEOUT_MS);
                socket = s;
                break;
            } catch (IOException e) {
                closeQuietly(s);
            }
        }
        if (socket == null) {
            throw new PingPongFailure("Couldn't connect to " + serverName + ":" + port);
        }
        long deadline = System.nanoTime() + TIMEOUT_MS * 1_000_000L;
        try (Socket s = socket) {
            s.setTcpNoDelay(true);
            OutputStream out = s.getOutputStream();
            try {
                out.write(encode(me));
                out.flush();
            } catch (IOException e) {
                throw new PingPongFailure("Couldn't send local address (" + e.getMessage() + ")");
            }
            byte[] msg = new byte[MESSAGE_SIZE];
            try {
                int n = readFully(s, msg, MESSAGE_SIZE, deadline, TIMEOUT_MS);
                if (n != MESSAGE_SIZE) {
                    throw new PingPongFailure("client read/write: the server sent " + n + " of " + MESSAGE_SIZE
                            + " bytes and closed the connection\nCouldn't read/write remote address");
                }
                QpEndpoint peer = parse(msg, MESSAGE_SIZE);
                out.write(DONE);
                out.flush();
                return peer;
            } catch (IOException e) {
                throw new PingPongFailure("client read/write: " + e.getMessage() + "\nCouldn't read/write remote address");
            }
        } catch (IOException e) {
            throw new PingPongFailure("client read/write: " + e.getMessage() + "\nCouldn't read/write remote address");
        }
    }

    /**
     * {@code pp_server_exch_dest}: waits for one client, reads its endpoint, calls {@code connect} with it
     * (which moves the local queue pair to RTS, or throws), then sends {@code me} and reads "done".
     */
    static QpEndpoint server(int port, QpEndpoint me, Consumer<QpEndpoint> connect) {
        try (ServerSocket listener = new ServerSocket()) {
            listener.setReuseAddress(true);
            try {
                listener.bind(new InetSocketAddress(port), 1);
            } catch (IOException e) {
                throw new PingPongFailure("Couldn't listen to port " + port + " (" + e.getMessage() + ")");
            }
            return server(listener, me, connect, TIMEOUT_MS);
        } catch (IOException e) {
            throw new PingPongFailure("Couldn't listen to port " + port + " (" + e.getMessage() + ")");
        }
    }

    /**
     * {@link #server(int, QpEndpoint, Consumer)} on a bound listener, which it closes once a client connected.
     * The client has {@code timeoutMs} from its connection for the whole exchange; the server reads exactly
     * the 52 bytes of the address message and then exactly {@code "done"} and its NUL, so a client that sends
     * more (an over-long message), less, or something else ends the exchange with a failure, as the C server's
     * single {@code read} of {@code sizeof "done"} does.
     */
    static QpEndpoint server(ServerSocket listener, QpEndpoint me, Consumer<QpEndpoint> connect, int timeoutMs)
            throws IOException {
        Socket socket;
        try (listener) {
            try {
                socket = listener.accept();
            } catch (IOException e) {
                throw new PingPongFailure("accept() failed (" + e.getMessage() + ")");
            }
        }
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        try (Socket s = socket) {
            s.setTcpNoDelay(true);
            OutputStream out = s.getOutputStream();
            byte[] msg = new byte[MESSAGE_SIZE];
            int n;
            try {
                n = readFully(s, msg, MESSAGE_SIZE, deadline, timeoutMs);
            } catch (IOException e) {
                throw new PingPongFailure("server read: " + e.getMessage() + "\n-1/" + MESSAGE_SIZE
                        + ": Couldn't read remote address");
            }
            if (n != MESSAGE_SIZE) {
                throw new PingPongFailure("server read: the client closed the connection\n" + n + "/" + MESSAGE_SIZE
                        + ": Couldn't read remote address");
            }
            if (s.getInputStream().available() > 0) {
                throw new PingPongFailure("server read: the client sent more than the " + MESSAGE_SIZE
                        + " bytes of an address message\nCouldn't read remote address");
            }
            QpEndpoint peer = parse(msg, n);
            try {
                connect.accept(peer);
            } catch (PingPongFailure e) {
                throw new PingPongFailure(e.getMessage() + "\nCouldn't connect to remote QP");
            }
            byte[] done = new byte[DONE_SIZE];
            int got;
            try {
                out.write(encode(me));
                out.flush();
                got = readFully(s, done, DONE_SIZE, deadline, timeoutMs);
            } catch (IOException e) {
                throw new PingPongFailure("Couldn't send/recv local address (" + e.getMessage() + ")");
            }
            if (got < DONE_SIZE) {
                throw new PingPongFailure("Couldn't send/recv local address (the client closed the connection after "
                        + got + " of " + DONE_SIZE + " bytes of \"done\")");
            }
            if (!java.util.Arrays.equals(done, DONE) || s.getInputStream().available() > 0) {
                throw new PingPongFailure("Couldn't send/recv local address (the client did not answer \"done\": "
                        + "it sent more than its address message, or something else)");
            }
            return peer;
        }
    }

    /**
     * Reads {@code n} bytes unless the peer closes first (returns fewer); at most until {@code deadline}
     * ({@link System#nanoTime}, {@code timeoutMs} after the start), every read bounded by what is left of it.
     *
     * @throws SocketTimeoutException naming how many bytes came in the time allowed
     */
    private static int readFully(Socket s, byte[] b, int n, long deadline, int timeoutMs) throws IOException {
        InputStream in = s.getInputStream();
        int got = 0;
        while (got < n) {
            long left = (deadline - System.nanoTime()) / 1_000_000;
            try {
                if (left <= 0) {
                    throw new SocketTimeoutException();
                }
                s.setSoTimeout((int) Math.min(Integer.MAX_VALUE, left));
                int r = in.read(b, got, n - got);
                if (r < 0) {
                    break;
                }
                got += r;
            } catch (SocketTimeoutException e) {
                throw new SocketTimeoutException("the peer sent " + got + " of " + n + " bytes in " + timeoutMs
                        + " ms (" + TIMEOUT_PROPERTY + ")");
            }
        }
        return got;
    }

    private static QpEndpoint parse(byte[] msg, int n) {
        try {
            return decode(msg, n);
        } catch (IllegalArgumentException e) {
            throw new PingPongFailure("Couldn't parse the remote address: " + e.getMessage());
        }
    }

    /** What glibc's {@code gai_strerror} would say, as near as Java can tell. */
    private static String resolverText(UnknownHostException e) {
        String m = e.getMessage() == null ? "" : e.getMessage();
        if (m.contains("Temporary failure")) {
            return "Temporary failure in name resolution";
        }
        return "Name or service not known";
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }
}
