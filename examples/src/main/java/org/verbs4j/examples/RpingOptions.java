package org.verbs4j.examples;

import java.io.PrintStream;

/**
 * The command line of rdma-core's {@code rping} (librdmacm/examples/rping.c, rdma-core 44), parsed as its
 * {@code getopt(argc, argv, "a:I:Pp:C:S:t:scvVdq")} with {@code opterr = 0} parses it: short options only,
 * clustered ({@code -vV}) or not, the argument attached ({@code -S1000}) or the next word; words that are
 * not options are skipped (GNU getopt permutes them to the end, and rping ignores them); {@code --} ends
 * the options. Numbers are read like {@code atoi}. An unknown option or a missing argument prints the
 * usage on stdout and exits with {@code EINVAL} (22), as the C tool does; so does {@code -t}, which
 * rping 44 lists in its option string but does not handle.
 */
final class RpingOptions {
    /** {@code EINVAL}: rping's exit status for a bad command line. */
    static final int EINVAL = 22;
    /** {@code htobe16(7174)}. */
    static final int DEFAULT_PORT = 7174;
    static final int DEFAULT_SIZE = 64;
    /**
     * {@code RPING_MIN_BUFSIZE}: {@code sizeof(stringify(INT_MAX)) + sizeof(RPING_MSG_FMT)}. INT_MAX is not
     * defined where rping.c stringifies it, so that is {@code sizeof("INT_MAX") + sizeof("rdma-ping-%d: ")}
     * = 8 + 15 = 23, which is what rping 44 prints ("valid range is 23 to 65536").
     */
    static final int MIN_SIZE = 23;
    /** {@code RPING_BUFSIZE - 1}: the largest size rping accepts (its message says 65536). */
    static final int MAX_SIZE = 64 * 1024 - 1;

    private static final String OPTSTRING = "a:I:Pp:C:S:t:scvVdq";

    /** {@code -s} (true) or {@code -c} (false); the last one given wins, as in C. */
    Boolean server;
    /** {@code -a}: the server's bind address or the client's destination, as given; null: none. */
    String address;
    /** {@code -I}: the client's source address, as given; null: none. */
    String sourceAddress;
    int port = DEFAULT_PORT;
    /** {@code -C}: pings for the client; 0 = forever. The server serves until the client disconnects. */
    int count;
    int size = DEFAULT_SIZE;
    boolean verbose;
    boolean validate;
    boolean debug;
    boolean persistent;

    private RpingOptions() {
    }

    /** The C tool would exit with {@link #exitStatus}: after the usage (on stdout), or after a message (on stderr). */
    static final class UsageException extends Exception {
        private static final long serialVersionUID = 1L;

        /** What to print on stderr before exiting, or null for the usage on stdout. */
        final String message;
        final int exitStatus;

        UsageException(String message, int exitStatus) {
            super(message == null ? "usage" : message, null, false, false);
            this.message = message;
            this.exitStatus = exitStatus;
        }

        static UsageException usage() {
            return new UsageException(null, EINVAL);
        }
    }

    static RpingOptions parse(String... args) throws UsageException {
        RpingOptions o = new RpingOptions();
        // rping keeps parsing after an invalid -S or -C and exits with EINVAL after the loop; an unknown option
        // exits at once with the usage
        String invalid = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--")) {
                break;
            }
            if (!a.startsWith("-") || a.length() == 1) {
                continue; // an operand: permuted to the end by GNU getopt, ignored by rping
            }
            for (int k = 1; k < a.length(); k++) {
                char c = a.charAt(k);
                int at = c == ':' ? -1 : OPTSTRING.indexOf(c);
                if (at < 0) {
                    throw UsageException.usage();
                }
                boolean hasArg = at + 1 < OPTSTRING.length() && OPTSTRING.charAt(at + 1) == ':';
                String value = null;
                if (hasArg) {
                    if (k + 1 < a.length()) {
                        value = a.substring(k + 1);
                    } else if (i + 1 < args.length) {
                        value = args[++i];
                    } else {
                        throw UsageException.usage(); // getopt returns '?' (opterr = 0: no message)
                    }
                }
                String problem = o.apply(c, value);
                if (problem != null && invalid == null) {
                    invalid = problem;
                }
                if (hasArg) {
                    break;
                }
            }
        }
        if (invalid != null) {
            throw new UsageException(invalid, EINVAL);
        }
        if (o.server == null) {
            throw UsageException.usage();
        }
        return o;
    }

    /** Applies one option; returns rping's message for an invalid value (it keeps parsing), or null. */
    private String apply(char c, String value) throws UsageException {
        switch (c) {
            case 'a':
                address = value;
                return null;
            case 'I':
                sourceAddress = value;
                return null;
            case 'P':
                persistent = true;
                return null;
            case 'p':
                port = atoi(value) & 0xffff; // htobe16(atoi(optarg))
                return null;
            case 's':
                server = Boolean.TRUE;
                return null;
            case 'c':
                server = Boolean.FALSE;
                return null;
            case 'S': {
                int s = atoi(value);
                if (s < MIN_SIZE || s > MAX_SIZE) {
                    return "Invalid size " + s + " (valid range is " + MIN_SIZE + " to " + (MAX_SIZE + 1) + ")";
                }
                size = s;
                return null;
            }
            case 'C': {
                int n = atoi(value);
                if (n < 0) {
                    return "Invalid count " + n;
                }
                count = n;
                return null;
            }
            case 'v':
                verbose = true;
                return null;
            case 'V':
                validate = true;
                return null;
            case 'd':
                debug = true;
                return null;
            case 'q':
                // a QP made with ibv_create_qp and moved through INIT/RTR/RTS with rdma_init_qp_attr: verbs4j's
                // rdma_cm API has no rdma_init_qp_attr (the wire protocol would be the same)
                throw new UsageException("rping: -q (a self-created, self-modified QP) is not supported by verbs4j; "
                        + "without -q rdma_cm creates the QP, and the protocol on the wire is the same", EINVAL);
            default:
                // 't' is in rping 44's option string but has no case: it falls to the usage
                throw UsageException.usage();
        }
    }

    /**
     * {@code atoi}: leading white space, an optional sign, decimal digits; anything after is ignored; no
     * digits give 0. Out of range, glibc's {@code strtol} saturates at the long limits and the cast to
     * {@code int} keeps the low 32 bits.
     */
    static int atoi(String s) {
        int i = 0;
        int n = s.length();
        while (i < n && (s.charAt(i) == ' ' || (s.charAt(i) >= '\t' && s.charAt(i) <= '\r'))) {
            i++;
        }
        boolean negative = false;
        if (i < n && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
            negative = s.charAt(i) == '-';
            i++;
        }
        long v = 0;
        boolean saturated = false;
        for (; i < n && s.charAt(i) >= '0' && s.charAt(i) <= '9'; i++) {
            if (v > (Long.MAX_VALUE - 9) / 10) {
                saturated = true;
                continue;
            }
            v = v * 10 + (s.charAt(i) - '0');
        }
        if (saturated) {
            return negative ? (int) Long.MIN_VALUE : (int) Long.MAX_VALUE;
        }
        return (int) (negative ? -v : v);
    }

    /** rping 44's usage text (stdout), with verbs4j's note on -q. */
    static String usage(String prog) {
        return prog + " -s [-vVd] [-S size] [-C count] [-a addr] [-p port]\n"
                + prog + " -c [-vVd] [-S size] [-C count] [-I addr] -a addr [-p port]\n"
                + "\t-c\t\tclient side\n"
                + "\t-I\t\tSource address to bind to for client.\n"
                + "\t-s\t\tserver side.  To bind to any address with IPv6 use -a ::0\n"
                + "\t-v\t\tdisplay ping data to stdout\n"
                + "\t-V\t\tvalidate ping data\n"
                + "\t-d\t\tdebug printfs\n"
                + "\t-S size \tping data size\n"
                + "\t-C count\tping count times\n"
                + "\t-a addr\t\taddress\n"
                + "\t-p port\t\tport\n"
                + "\t-P\t\tpersistent server mode allowing multiple connections\n"
                + "\t-q\t\tuse self-created, self-modified QP (not supported by verbs4j)\n";
    }

    static void printUsage(String prog, PrintStream out) {
        out.print(usage(prog));
        out.flush();
    }
}
