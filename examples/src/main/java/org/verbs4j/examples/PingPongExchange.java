package org.verbs4j.examples;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
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
 * listener. Failures print the C tool's message on stderr and throw {@link PingPongFailure}.
 */
final class PingPongExchange {
    /**
     * {@code sizeof "0000:000000:000000:00000000000000000000000000000000"}: 51 characters and the NUL, 52 bytes
     * (not 53: 4 + 1 + 6 + 1 + 6 + 1 + 32 = 51).
     */
    static final int MESSAGE_SIZE = 52;
    /** {@code sizeof "done"}. */
    static final int DONE_SIZE = 5;

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
                s.connect(new InetSocketAddress(a, port));
                socket = s;
                break;
            } catch (IOException e) {
                closeQuietly(s);
            }
        }
        if (socket == null) {
            throw new PingPongFailure("Couldn't connect to " + serverName + ":" + port);
        }
        try (Socket s = socket) {
            s.setTcpNoDelay(true);
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            try {
                out.write(encode(me));
                out.flush();
            } catch (IOException e) {
                throw new PingPongFailure("Couldn't send local address (" + e.getMessage() + ")");
            }
            byte[] msg = new byte[MESSAGE_SIZE];
            int n;
            try {
                n = in.readNBytes(msg, 0, MESSAGE_SIZE);
                if (n == MESSAGE_SIZE) {
                    out.write(new byte[] {'d', 'o', 'n', 'e', 0});
                    out.flush();
                }
            } catch (IOException e) {
                throw new PingPongFailure("client read/write: " + e.getMessage() + "\nCouldn't read/write remote address");
            }
            if (n != MESSAGE_SIZE) {
                throw new PingPongFailure("client read/write: the server sent " + n + " of " + MESSAGE_SIZE
                        + " bytes and closed the connection\nCouldn't read/write remote address");
            }
            return parse(msg, MESSAGE_SIZE);
        } catch (IOException e) {
            throw new PingPongFailure("client read/write: " + e.getMessage() + "\nCouldn't read/write remote address");
        }
    }

    /**
     * {@code pp_server_exch_dest}: waits for one client, reads its endpoint, calls {@code connect} with it
     * (which moves the local queue pair to RTS, or throws), then sends {@code me} and reads "done".
     */
    static QpEndpoint server(int port, QpEndpoint me, Consumer<QpEndpoint> connect) {
        Socket socket;
        try (ServerSocket listener = new ServerSocket()) {
            listener.setReuseAddress(true);
            try {
                listener.bind(new InetSocketAddress(port), 1);
            } catch (IOException e) {
                throw new PingPongFailure("Couldn't listen to port " + port + " (" + e.getMessage() + ")");
            }
            try {
                socket = listener.accept();
            } catch (IOException e) {
                throw new PingPongFailure("accept() failed (" + e.getMessage() + ")");
            }
        } catch (IOException e) {
            throw new PingPongFailure("Couldn't listen to port " + port + " (" + e.getMessage() + ")");
        }
        try (Socket s = socket) {
            s.setTcpNoDelay(true);
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            byte[] msg = new byte[MESSAGE_SIZE];
            int n;
            try {
                n = in.readNBytes(msg, 0, MESSAGE_SIZE);
            } catch (IOException e) {
                throw new PingPongFailure("server read: " + e.getMessage() + "\n-1/" + MESSAGE_SIZE
                        + ": Couldn't read remote address");
            }
            if (n != MESSAGE_SIZE) {
                throw new PingPongFailure("server read: the client closed the connection\n" + n + "/" + MESSAGE_SIZE
                        + ": Couldn't read remote address");
            }
            QpEndpoint peer = parse(msg, n);
            try {
                connect.accept(peer);
            } catch (PingPongFailure e) {
                throw new PingPongFailure(e.getMessage() + "\nCouldn't connect to remote QP");
            }
            // Like the C server, accept whatever the client answers (it sends "done" and its NUL): only a
            // connection closed before 5 bytes arrived is an error.
            int got = 0;
            try {
                out.write(encode(me));
                out.flush();
                byte[] done = new byte[MESSAGE_SIZE];
                while (got < DONE_SIZE) {
                    int r = in.read(done, got, MESSAGE_SIZE - got);
                    if (r < 0) {
                        break;
                    }
                    got += r;
                }
            } catch (IOException e) {
                throw new PingPongFailure("Couldn't send/recv local address (" + e.getMessage() + ")");
            }
            if (got < DONE_SIZE) {
                throw new PingPongFailure("Couldn't send/recv local address (the client closed the connection after "
                        + got + " of " + DONE_SIZE + " bytes of \"done\")");
            }
            return peer;
        } catch (IOException e) {
            throw new PingPongFailure("Couldn't send/recv local address (" + e.getMessage() + ")");
        }
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
