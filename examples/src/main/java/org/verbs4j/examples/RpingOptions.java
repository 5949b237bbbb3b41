package org.verbs4j.examples;

import org.verbs4j.examples.cli.CommandLine;
import org.verbs4j.examples.cli.Option;
import org.verbs4j.examples.cli.OptionParser;
import org.verbs4j.examples.cli.UsageException;
import org.verbs4j.examples.cli.Values;

/**
 * The command line of rdma-core's {@code rping} (librdmacm/examples/rping.c, rdma-core 44): its short
 * options, with the same letters, defaults and size range, plus long names, read by the examples'
 * {@link OptionParser}. rping's {@code -q} (a QP it creates and moves itself) is refused by name.
 *
 * @param server {@code -s} (true) or {@code -c} (false)
 * @param address {@code -a}: the server's bind address or the client's destination, as given; null: none
 * @param sourceAddress {@code -I}: the client's source address, as given; null: none
 * @param port {@code -p}
 * @param count {@code -C}: pings for the client; 0 = forever (the server serves until the client disconnects)
 * @param size {@code -S}: bytes of ping data
 * @param verbose {@code -v}
 * @param validate {@code -V}
 * @param debug {@code -d}
 * @param persistent {@code -P}
 */
record RpingOptions(boolean server, String address, String sourceAddress, int port, int count, int size,
        boolean verbose, boolean validate, boolean debug, boolean persistent) {
    /** {@code htobe16(7174)}. */
    static final int DEFAULT_PORT = 7174;
    static final int DEFAULT_SIZE = 64;
    /**
     * {@code RPING_MIN_BUFSIZE}: {@code sizeof(stringify(INT_MAX)) + sizeof(RPING_MSG_FMT)}. INT_MAX is not
     * defined where rping.c stringifies it, so that is {@code sizeof("INT_MAX") + sizeof("rdma-ping-%d: ")}
     * = 8 + 15 = 23, rping 44's smallest size.
     */
    static final int MIN_SIZE = 23;
    /** {@code RPING_BUFSIZE - 1}: the largest size rping accepts. */
    static final int MAX_SIZE = 64 * 1024 - 1;

    static final Option<Boolean> SERVER = Option.flag('s', "server",
            "server side (to bind to any address with IPv6 use -a ::0)");
    static final Option<Boolean> CLIENT = Option.flag('c', "client", "client side");
    static final Option<String> ADDRESS = Option.of('a', "addr", "ADDR", Values.string(), null,
            "server: the address to bind to (default any); client: the server's address");
    static final Option<String> SOURCE = Option.of('I', "source", "ADDR", Values.string(), null,
            "client: the source address to bind to");
    static final Option<Integer> PORT = Option.of('p', "port", "PORT", Values.intIn(1, 65535), DEFAULT_PORT, "port");
    static final Option<Integer> SIZE = Option.of('S', "size", "SIZE",
            size -> (int) (long) Values.size(MIN_SIZE, MAX_SIZE).parse(size), DEFAULT_SIZE,
            "ping data size, " + MIN_SIZE + " to " + MAX_SIZE);
    static final Option<Integer> COUNT = Option.of('C', "count", "COUNT", Values.intIn(0, Integer.MAX_VALUE), 0,
            "client: ping count times").defaultText("0, forever");
    static final Option<Boolean> VERBOSE = Option.flag('v', "verbose", "display ping data to stdout");
    static final Option<Boolean> VALIDATE = Option.flag('V', "validate", "validate ping data");
    static final Option<Boolean> DEBUG = Option.flag('d', "debug", "debug printfs");
    static final Option<Boolean> PERSISTENT = Option.flag('P', "persistent",
            "persistent server mode allowing multiple connections");

    static final OptionParser PARSER = new OptionParser(Rping.PROG)
            .synopsis("-s [-vVdP] [-S SIZE] [-a ADDR] [-p PORT]", "server")
            .synopsis("-c [-vVd] [-S SIZE] [-C COUNT] [-I ADDR] -a ADDR [-p PORT]", "client")
            .add(CLIENT, SERVER, ADDRESS, SOURCE, PORT, SIZE, COUNT, VERBOSE, VALIDATE, DEBUG, PERSISTENT)
            // a QP made with ibv_create_qp and moved through INIT/RTR/RTS with rdma_init_qp_attr: verbs4j's rdma_cm
            // API has no rdma_init_qp_attr; without -q rdma_cm creates the QP, and the protocol on the wire is the same
            .add(Option.unsupported('q', null, "a self-created, self-modified QP"));

    /** The settings of a parsed command line. */
    static RpingOptions of(CommandLine c) throws UsageException {
        if (!c.given(SERVER) && !c.given(CLIENT)) {
            throw new UsageException("-s (server) or -c (client) is needed");
        }
        // the last of -s and -c wins, as in C
        return new RpingOptions(c.position(SERVER) > c.position(CLIENT), c.get(ADDRESS), c.get(SOURCE), c.get(PORT),
                c.get(COUNT), c.get(SIZE), c.get(VERBOSE), c.get(VALIDATE), c.get(DEBUG), c.get(PERSISTENT));
    }
}
