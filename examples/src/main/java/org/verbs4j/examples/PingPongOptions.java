package org.verbs4j.examples;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import org.verbs4j.api.Mtu;

/**
 * The command line of {@code ibv_rc_pingpong} / {@code ibv_ud_pingpong} (rdma-core 44), parsed the way
 * GNU {@code getopt_long} does: short options may be clustered ({@code -ec}) and take their argument
 * attached or as the next word, long options may be abbreviated and take {@code --opt=VAL} or
 * {@code --opt VAL}, the host may appear anywhere, {@code --} ends the options. Numbers are read like
 * {@code strtoul(arg, NULL, 0)}: decimal, {@code 0x} hex or {@code 0} octal, trailing garbage ignored.
 */
final class PingPongOptions {
    /** Which tool: the option set, defaults and texts differ. */
    enum Tool {
        RC("rc-pingpong", "p:d:i:s:m:r:n:l:eg:oOPtcjN", 4096),
        UD("ud-pingpong", "p:d:i:s:r:n:l:eg:c", 1024);

        final String defaultName;
        final String shortOptions;
        final int defaultSize;

        Tool(String defaultName, String shortOptions, int defaultSize) {
            this.defaultName = defaultName;
            this.shortOptions = shortOptions;
            this.defaultSize = defaultSize;
        }
    }

    /** Long name, short letter. */
    private static final String[][] RC_LONG = {
        {"port", "p"}, {"ib-dev", "d"}, {"ib-port", "i"}, {"size", "s"}, {"mtu", "m"}, {"rx-depth", "r"},
        {"iters", "n"}, {"sl", "l"}, {"events", "e"}, {"gid-idx", "g"}, {"odp", "o"}, {"iodp", "O"},
        {"prefetch", "P"}, {"ts", "t"}, {"chk", "c"}, {"dm", "j"}, {"new_send", "N"}};
    private static final String[][] UD_LONG = {
        {"port", "p"}, {"ib-dev", "d"}, {"ib-port", "i"}, {"size", "s"}, {"rx-depth", "r"}, {"iters", "n"},
        {"sl", "l"}, {"events", "e"}, {"gid-idx", "g"}, {"chk", "c"}};

    final Tool tool;
    final String prog;
    int port = 18515;
    String deviceName;
    int ibPort = 1;
    /** Bytes per message ({@code unsigned int} in C; kept as the unsigned value). */
    long size;
    Mtu mtu = Mtu.MTU_1024;
    int rxDepth = 500;
    /** Exchanges ({@code unsigned int} in C; kept as the unsigned value). */
    long iters = 1000;
    int sl;
    boolean events;
    int gidIndex = -1;
    boolean validate;
    String serverName;
    /** Options rdma-core has and verbs4j does not support, as given (e.g. "-o"), or null. */
    String unsupported;

    private PingPongOptions(Tool tool, String prog) {
        this.tool = tool;
        this.prog = prog;
        this.size = tool.defaultSize;
    }

    /** Thrown by {@link #parse} when the C tool would print its usage and exit 1. */
    static final class UsageException extends Exception {
        private static final long serialVersionUID = 1L;

        /** The getopt diagnostic for stderr, or null when only the usage is printed. */
        final String diagnostic;

        UsageException(String diagnostic) {
            super(diagnostic == null ? "usage" : diagnostic, null, false, false);
            this.diagnostic = diagnostic;
        }
    }

    static PingPongOptions parse(Tool tool, String prog, String[] args) throws UsageException {
        PingPongOptions o = new PingPongOptions(tool, prog);
        String[][] longs = tool == Tool.RC ? RC_LONG : UD_LONG;
        List<String> operands = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--")) {
                for (int j = i + 1; j < args.length; j++) {
                    operands.add(args[j]);
                }
                break;
            }
            if (a.startsWith("--")) {
                String name = a.substring(2);
                String value = null;
                int eq = name.indexOf('=');
                if (eq >= 0) {
                    value = name.substring(eq + 1);
                    name = name.substring(0, eq);
                }
                String[] match = matchLong(longs, name, prog, a);
                char c = match[1].charAt(0);
                boolean hasArg = tool.shortOptions.indexOf(c + ":") >= 0;
                if (!hasArg && value != null) {
                    throw new UsageException(prog + ": option '--" + match[0] + "' doesn't allow an argument");
                }
                if (hasArg && value == null) {
                    if (i + 1 >= args.length) {
                        throw new UsageException(prog + ": option '--" + match[0] + "' requires an argument");
                    }
                    value = args[++i];
                }
                o.apply(c, value, "--" + match[0]);
                continue;
            }
            if (a.startsWith("-") && a.length() > 1) {
                for (int k = 1; k < a.length(); k++) {
                    char c = a.charAt(k);
                    int at = c == ':' ? -1 : tool.shortOptions.indexOf(c);
                    if (at < 0) {
                        throw new UsageException(prog + ": invalid option -- '" + c + "'");
                    }
                    boolean hasArg = at + 1 < tool.shortOptions.length() && tool.shortOptions.charAt(at + 1) == ':';
                    if (!hasArg) {
                        o.apply(c, null, "-" + c);
                        continue;
                    }
                    String value;
                    if (k + 1 < a.length()) {
                        value = a.substring(k + 1);
                    } else if (i + 1 < args.length) {
                        value = args[++i];
                    } else {
                        throw new UsageException(prog + ": option requires an argument -- '" + c + "'");
                    }
                    o.apply(c, value, "-" + c);
                    break;
                }
                continue;
            }
            operands.add(a);
        }
        if (operands.size() == 1) {
            o.serverName = operands.get(0);
        } else if (operands.size() > 1) {
            throw new UsageException(null);
        }
        return o;
    }

    private static String[] matchLong(String[][] longs, String name, String prog, String given)
            throws UsageException {
        String[] found = null;
        int matches = 0;
        for (String[] l : longs) {
            if (l[0].equals(name)) {
                return l;
            }
            if (!name.isEmpty() && l[0].startsWith(name)) {
                found = l;
                matches++;
            }
        }
        if (matches == 1) {
            return found;
        }
        String shown = given.indexOf('=') >= 0 ? given.substring(0, given.indexOf('=')) : given;
        if (matches > 1) {
            throw new UsageException(prog + ": option '" + shown + "' is ambiguous");
        }
        throw new UsageException(prog + ": unrecognized option '" + shown + "'");
    }

    private void apply(char c, String value, String given) throws UsageException {
        switch (c) {
            case 'p': {
                long v = strtoul(value);
                if (v > 65535) {
                    throw new UsageException(null);
                }
                port = (int) v;
                break;
            }
            case 'd':
                deviceName = value;
                break;
            case 'i':
                ibPort = (int) strtol(value);
                if (ibPort < 1) {
                    throw new UsageException(null);
                }
                break;
            case 's':
                size = strtoul(value);
                break;
            case 'm': {
                int bytes = (int) strtol(value);
                mtu = null;
                for (Mtu m : Mtu.values()) {
                    if (m.bytes() == bytes) {
                        mtu = m;
                    }
                }
                if (mtu == null) {
                    throw new UsageException(null);
                }
                break;
            }
            case 'r':
                rxDepth = (int) strtoul(value);
                break;
            case 'n':
                iters = strtoul(value);
                break;
            case 'l':
                sl = (int) strtol(value);
                break;
            case 'e':
                events = true;
                break;
            case 'g':
                gidIndex = (int) strtol(value);
                break;
            case 'c':
                validate = true;
                break;
            default:
                // -o -O -P -t -j -N: rdma-core 44 options verbs4j cannot honour (ODP, implicit ODP, prefetch,
                // completion timestamps, device memory, the ibv_wr_* send API). The first one is reported.
                if (unsupported == null) {
                    unsupported = given;
                }
                break;
        }
    }

    /** {@code strtoul(s, NULL, 0)} stored into an {@code unsigned int}: the low 32 bits, unsigned. */
    static long strtoul(String s) {
        return parseC(s) & 0xffffffffL;
    }

    /** {@code strtol(s, NULL, 0)} stored into an {@code int}. */
    static long strtol(String s) {
        return (int) parseC(s);
    }

    /** The number at the start of {@code s}, C style (base 0); 0 when there is none. */
    private static long parseC(String s) {
        int i = 0;
        int n = s.length();
        while (i < n && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
        boolean negative = false;
        if (i < n && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
            negative = s.charAt(i) == '-';
            i++;
        }
        int base = 10;
        if (i + 1 < n && s.charAt(i) == '0' && (s.charAt(i + 1) == 'x' || s.charAt(i + 1) == 'X')
                && i + 2 < n && Character.digit(s.charAt(i + 2), 16) >= 0) {
            base = 16;
            i += 2;
        } else if (i < n && s.charAt(i) == '0') {
            base = 8;
        }
        long v = 0;
        while (i < n) {
            int d = Character.digit(s.charAt(i), base);
            if (d < 0 || s.charAt(i) > 'z') {
                break;
            }
            v = v * base + d;
            if (v > 0xffffffffL * 2) {
                v = Long.MAX_VALUE / 2; // saturate, as strtoul does at ULONG_MAX
            }
            i++;
        }
        return negative ? -v : v;
    }

    /** The usage text, as the C tool prints it to stdout (with verbs4j's note on the unsupported options). */
    static String usage(Tool tool, String prog) {
        StringBuilder sb = new StringBuilder();
        sb.append("Usage:\n");
        sb.append("  ").append(prog).append("            start a server and wait for connection\n");
        sb.append("  ").append(prog).append(" <host>     connect to server at <host>\n");
        sb.append("\n");
        sb.append("Options:\n");
        sb.append("  -p, --port=<port>      listen on/connect to port <port> (default 18515)\n");
        sb.append("  -d, --ib-dev=<dev>     use IB device <dev> (default first device found)\n");
        sb.append("  -i, --ib-port=<port>   use port <port> of IB device (default 1)\n");
        if (tool == Tool.RC) {
            sb.append("  -s, --size=<size>      size of message to exchange (default 4096)\n");
            sb.append("  -m, --mtu=<size>       path MTU (default 1024)\n");
            sb.append("  -r, --rx-depth=<dep>   number of receives to post at a time (default 500)\n");
            sb.append("  -n, --iters=<iters>    number of exchanges (default 1000)\n");
            sb.append("  -l, --sl=<sl>          service level value\n");
            sb.append("  -e, --events           sleep on CQ events (default poll)\n");
            sb.append("  -g, --gid-idx=<gid index> local port gid index\n");
            sb.append("  -c, --chk              validate received buffer\n");
            sb.append("  -o, -O, -P, -t, -j, -N (ODP, implicit ODP, prefetch, timestamps, device memory,\n");
            sb.append("                         new send API): not supported by verbs4j\n");
        } else {
            sb.append("  -s, --size=<size>      size of message to exchange (default 1024)\n");
            sb.append("  -r, --rx-depth=<dep>   number of receives to post at a time (default 500)\n");
            sb.append("  -n, --iters=<iters>    number of exchanges (default 1000)\n");
            sb.append("  -l, --sl=<SL>          send messages with service level <SL> (default 0)\n");
            sb.append("  -e, --events           sleep on CQ events (default poll)\n");
            sb.append("  -g, --gid-idx=<gid index> local port gid index\n");
            sb.append("  -c, --chk              validate received buffer\n");
        }
        return sb.toString();
    }

    static void printUsage(Tool tool, String prog, PrintStream out) {
        out.print(usage(tool, prog));
        out.flush();
    }
}
