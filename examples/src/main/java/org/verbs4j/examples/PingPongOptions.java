package org.verbs4j.examples;

import java.util.LinkedHashMap;
import java.util.Map;
import org.verbs4j.api.Mtu;
import org.verbs4j.api.QpType;
import org.verbs4j.examples.cli.CommandLine;
import org.verbs4j.examples.cli.Option;
import org.verbs4j.examples.cli.OptionParser;
import org.verbs4j.examples.cli.Values;

/**
 * The command line of {@code ibv_rc_pingpong} / {@code ibv_ud_pingpong} (rdma-core 44): the same options with
 * the same names and defaults, read by the examples' {@link OptionParser} (getopt_long's rules). The options
 * of rdma-core that verbs4j cannot honour are refused by name.
 */
final class PingPongOptions {
    static final Option<Integer> PORT = Option.of('p', "port", "PORT", Values.intIn(0, 65535), 18515,
            "listen on/connect to port PORT");
    static final Option<String> DEVICE = Option.of('d', "ib-dev", "DEV", Values.string(), null,
            "use IB device DEV").defaultText("first device found");
    static final Option<Integer> IB_PORT = Option.of('i', "ib-port", "PORT", Values.intIn(1, 255), 1,
            "use port PORT of IB device");
    static final Option<Long> SIZE = Option.of('s', "size", "SIZE", Values.size(0, 0xffffffffL), 4096L,
            "size of message to exchange");
    static final Option<Mtu> MTU = Option.of('m', "mtu", "MTU", Values.choice(mtus()), Mtu.MTU_1024,
            "path MTU").defaultText("1024");
    static final Option<Integer> RX_DEPTH = Option.of('r', "rx-depth", "DEPTH", Values.intIn(1, Integer.MAX_VALUE - 1),
            500, "number of receives to post at a time");
    static final Option<Long> ITERS = Option.of('n', "iters", "ITERS", Values.longIn(0, 0xffffffffL), 1000L,
            "number of exchanges");
    static final Option<Integer> SL = Option.of('l', "sl", "SL", Values.intIn(0, 15), 0, "service level value");
    static final Option<Boolean> EVENTS = Option.flag('e', "events", "sleep on CQ events (default poll)");
    static final Option<Integer> GID_INDEX = Option.of('g', "gid-idx", "INDEX", Values.intIn(0, 65535), -1,
            "local port gid index").defaultText("none: no GRH");
    static final Option<Boolean> CHECK = Option.flag('c', "chk", "validate received buffer");

    /** RC ({@code ibv_rc_pingpong}) or UD ({@code ibv_ud_pingpong}). */
    final QpType type;
    /** The name in messages ({@code rc-pingpong}). */
    final String prog;
    /** {@code -p}: the TCP port of the address exchange. */
    final int port;
    /** {@code -d}: the device, or null for the first one. */
    final String deviceName;
    /** {@code -i}: the device's port. */
    final int ibPort;
    /** {@code -s}: bytes per message ({@code unsigned int} in C). */
    final long size;
    /** {@code -m}: the path MTU (RC). */
    final Mtu mtu;
    /** {@code -r}: receives posted at a time. */
    final int rxDepth;
    /** {@code -n}: exchanges ({@code unsigned int} in C). */
    final long iters;
    /** {@code -l}: the service level. */
    final int sl;
    /** {@code -e}: sleep on completion events instead of polling. */
    final boolean events;
    /** {@code -g}: the local GID index, or -1 for none (no GRH). */
    final int gidIndex;
    /** {@code -c}: check the received data. */
    final boolean validate;
    /** The server to connect to (client role), or null (server role). */
    final String serverName;

    private PingPongOptions(QpType type, String prog, CommandLine c) {
        this.type = type;
        this.prog = prog;
        port = c.get(PORT);
        deviceName = c.get(DEVICE);
        ibPort = c.get(IB_PORT);
        size = c.get(type == QpType.UD ? SIZE.withDefault(1024L) : SIZE);
        mtu = c.get(MTU);
        rxDepth = c.get(RX_DEPTH);
        iters = c.get(ITERS);
        sl = c.get(SL);
        events = c.get(EVENTS);
        gidIndex = c.get(GID_INDEX);
        validate = c.get(CHECK);
        serverName = c.operands().isEmpty() ? null : c.operands().get(0);
    }

    private static Map<String, Mtu> mtus() {
        Map<String, Mtu> m = new LinkedHashMap<>();
        for (Mtu mtu : Mtu.values()) {
            m.put(Integer.toString(mtu.bytes()), mtu);
        }
        return m;
    }

    /** The options of {@code ibv_rc_pingpong} (RC) or {@code ibv_ud_pingpong} (UD: no {@code -m}, 1024 bytes). */
    static OptionParser parser(QpType type, String prog) {
        OptionParser p = new OptionParser(prog)
                .synopsis("[options]", "start a server and wait for connection")
                .synopsis("[options] HOST", "connect to server at HOST")
                .operands(0, 1)
                .add(PORT, DEVICE, IB_PORT, type == QpType.UD ? SIZE.withDefault(1024L) : SIZE);
        if (type == QpType.RC) {
            p.add(MTU);
        }
        p.add(RX_DEPTH, ITERS, SL, EVENTS, GID_INDEX, CHECK);
        if (type == QpType.RC) {
            // rdma-core 44 options verbs4j cannot honour
            p.add(Option.unsupported('o', "odp", "on-demand paging"),
                    Option.unsupported('O', "iodp", "implicit on-demand paging"),
                    Option.unsupported('P', "prefetch", "ODP prefetch"),
                    Option.unsupported('t', "ts", "completion timestamps"),
                    Option.unsupported('j', "dm", "device memory"),
                    Option.unsupported('N', "new_send", "the ibv_wr_* send API"));
        }
        return p;
    }

    /** The settings of a parsed command line. */
    static PingPongOptions of(QpType type, String prog, CommandLine c) {
        return new PingPongOptions(type, prog, c);
    }
}
