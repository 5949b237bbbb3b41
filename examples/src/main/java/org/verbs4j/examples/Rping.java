package org.verbs4j.examples;

import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import org.verbs4j.api.Rdma;
import org.verbs4j.api.VerbsException;
import org.verbs4j.api.cm.CmException;
import org.verbs4j.api.cm.CmId;
import org.verbs4j.api.cm.ConnectionManager;
import org.verbs4j.api.cm.ConnectionParameters;
import org.verbs4j.api.cm.ConnectionRequest;

/**
 * rdma-core's {@code rping} (librdmacm/examples/rping.c) in Java, wire-compatible with it in both roles,
 * over verbs4j's rdma_cm API. Usage, as the C tool:
 *
 * <pre>
 * examples/bin/rping -s [-vVd] [-S size] [-C count] [-a addr] [-p port] [-P]   # server
 * examples/bin/rping -c [-vVd] [-S size] [-C count] [-I addr] -a addr [-p port]  # client
 *   -p PORT (7174) -S SIZE (64, 23..65535) -C COUNT (client: 0 = forever) -v print the ping data
 *   -V validate the ping data -d debug lines -I source address -P persistent server
 * </pre>
 *
 * <p>The protocol, per ping: the client fills its start buffer with the ping data and SENDs its address,
 * rkey and size ({@code struct rping_rdma_info}, big-endian, see {@link RpingMessage}); the server RDMA
 * READs it and SENDs a go-ahead; the client SENDs the address of its RDMA buffer; the server RDMA WRITEs the
 * data there and SENDs a go-ahead; the client compares ({@code -V}) and prints ({@code -v}, "ping data:
 * ..."). The server prints "server ping data: ..." with {@code -v}. The client disconnects after
 * {@code -C} pings; the server serves until its client disconnects (with {@code -P}, each client on its
 * own thread, forever).
 *
 * <p>Output: stdout is the C tool's ({@code -v} and {@code -d} lines only); at the end each side prints
 * what it measured on stderr ({@link RpingConnection#summary()}). Exit status: 0, 255 for a failure (C's
 * {@code return -1}), as the C tool's; 2 for a bad command line (rping: 22, {@code EINVAL}), as every example.
 */
public final class Rping {
    static final String PROG = "rping";
    /** C's {@code main} returns -1. */
    static final int EXIT_FAILURE = 255;
    /** C's {@code get_addr} returns getaddrinfo's EAI_NONAME (-2). */
    static final int EXIT_BAD_ADDRESS = 254;
    /** {@code rdma_resolve_addr(..., 2000)} and {@code rdma_resolve_route(..., 2000)}. */
    static final Duration RESOLVE_TIMEOUT = Duration.ofMillis(2000);
    /** C waits forever for ESTABLISHED; a refused or rejected connection ends the wait at once anyway. */
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(60);
    static final Duration DISCONNECT_TIMEOUT = Duration.ofSeconds(5);
    static final Duration FOREVER = Duration.ofDays(3650);

    private final RpingOptions o;
    private final PrintStream out;
    private final PrintStream err;

    private Rping(RpingOptions o, PrintStream out, PrintStream err) {
        this.o = o;
        this.out = out;
        this.err = err;
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the tool with {@code args}; returns its exit status. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        return RpingOptions.PARSER.launch(args, out, err, RpingOptions::of, o -> run(o, out, err));
    }

    private static int run(RpingOptions o, PrintStream out, PrintStream err) {
        InetAddress address;
        InetAddress source = null;
        try {
            // no -a: rping's sockaddr is AF_INET with a zero address (any, for the server)
            address = o.address() == null ? InetAddress.getByAddress(new byte[4]) : InetAddress.getByName(o.address());
            if (o.sourceAddress() != null) {
                source = InetAddress.getByName(o.sourceAddress());
            }
        } catch (UnknownHostException e) {
            out.println("getaddrinfo failed (Name or service not known) - invalid hostname or IP address");
            out.flush();
            return EXIT_BAD_ADDRESS;
        }
        Rping r = new Rping(o, out, err);
        try {
            return o.server() ? r.server(address) : r.client(address, source);
        } catch (RpingFailure e) {
            err.println(e.getMessage());
            return EXIT_FAILURE;
        } catch (VerbsException | IllegalStateException | IllegalArgumentException e) {
            err.println(PROG + ": " + e.getMessage());
            return EXIT_FAILURE;
        } finally {
            out.flush();
            err.flush();
        }
    }

    private void debug(String line) {
        if (o.debug()) {
            out.println(line);
        }
    }

    private static String hostPort(InetAddress a, int port) {
        String h = a.getHostAddress();
        return (h.indexOf(':') >= 0 ? "[" + h + "]" : h) + ":" + port;
    }

    // ---- client: rping_run_client ----

    private int client(InetAddress address, InetAddress source) {
        String to = hostPort(address, o.port());
        try (ConnectionManager cm = Rdma.connectionManager()) {
            CmId id = cm.createId();
            debug("created cm_id " + id);
            RpingConnection conn = null;
            try {
                try {
                    if (source != null) {
                        id.bind(new InetSocketAddress(source, 0));
                    }
                    id.resolveAddress(new InetSocketAddress(address, o.port()), RESOLVE_TIMEOUT);
                    id.resolveRoute(RESOLVE_TIMEOUT);
                } catch (CmException e) {
                    throw new RpingFailure(PROG + ": cannot resolve " + to + (source == null ? "" : " from "
                            + source.getHostAddress()) + ": " + e.getMessage());
                }
                debug("rdma_resolve_addr - rdma_resolve_route successful");
                conn = new RpingConnection(o, id, false, out, err);
                conn.setUp();
                // rping_init_conn_param: 1 READ each way, retry 7, RNR retry 7 (infinite), no flow control
                ConnectionParameters params = new ConnectionParameters(null, 1, 1, 7, 7, false);
                try {
                    id.connect(params, CONNECT_TIMEOUT);
                } catch (CmException e) {
                    throw new RpingFailure(PROG + ": cannot connect to " + to + ": " + e.getMessage());
                }
                debug("rdma_connect successful");
                conn.watchDisconnect();
                try {
                    conn.runClient();
                } catch (RpingFailure e) {
                    quietDisconnect(id); // as C: rping_disconnect after a failed test, then clean up
                    throw e;
                }
                disconnect(id, "client");
            } finally {
                id.close();
                if (conn != null) {
                    conn.close();
                }
            }
            report(conn);
            return 0;
        }
    }

    /** {@code rping_disconnect}, then wait a little for DISCONNECTED (the C tool's CM thread prints it). */
    private void disconnect(CmId id, String side) {
        try {
            id.disconnect();
            id.awaitDisconnected(DISCONNECT_TIMEOUT);
            err.println(side + " DISCONNECT EVENT...");
        } catch (CmException e) {
            debug("no DISCONNECTED: " + e.getMessage());
        }
    }

    private static void quietDisconnect(CmId id) {
        try {
            id.disconnect();
        } catch (RuntimeException ignored) {
            // failing already: the close that follows tears the connection down anyway
        }
    }

    private void report(RpingConnection conn) {
        err.println(conn.summary());
        String alloc = conn.allocationLine();
        if (alloc != null) {
            err.println(alloc);
        }
    }

    // ---- server: rping_run_server, rping_run_persistent_server ----

    private int server(InetAddress address) {
        try (ConnectionManager cm = Rdma.connectionManager()) {
            CmId listener = cm.createId();
            debug("created cm_id " + listener);
            try {
                listener.bind(new InetSocketAddress(address, o.port()));
                debug("rdma_bind_addr successful");
                debug("rdma_listen");
                listener.listen(3);
                if (o.persistent()) {
                    persistent(listener);
                }
                ConnectionRequest req = listener.awaitRequest(FOREVER);
                debug("child cma " + req.id());
                serve(req);
                return 0;
            } finally {
                listener.close();
            }
        }
    }

    /** {@code -P}: every client on its own thread, forever (as C: until killed). */
    private void persistent(CmId listener) {
        for (int n = 1; ; n++) {
            ConnectionRequest req = listener.awaitRequest(FOREVER);
            debug("child cma " + req.id());
            Thread t = new Thread(() -> {
                try {
                    serve(req);
                } catch (RpingFailure e) {
                    err.println(e.getMessage());
                } catch (VerbsException | IllegalStateException | IllegalArgumentException e) {
                    err.println(PROG + ": " + e.getMessage());
                }
            }, "rping-server-" + n);
            t.start();
        }
    }

    /** One client: set up, accept, serve until it disconnects, clean up, report. */
    private void serve(ConnectionRequest req) {
        CmId child = req.id();
        RpingConnection conn = new RpingConnection(o, child, true, out, err);
        try {
            conn.setUp();
            debug("accepting client connection request");
            try {
                // rdma_accept(child, NULL): librdmacm's defaults; the server READs, so it needs initiator depth 1
                child.accept(ConnectionParameters.defaults());
                child.awaitEstablished(CONNECT_TIMEOUT);
            } catch (CmException e) {
                throw new RpingFailure(PROG + ": accept failed: " + e.getMessage());
            }
            conn.watchDisconnect();
            try {
                conn.runServer();
            } catch (RpingFailure e) {
                quietDisconnect(child);
                throw e;
            }
            disconnect(child, "server");
        } finally {
            child.close();
            conn.close();
        }
        report(conn);
    }
}
