package org.verbs4j.bench.netty;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.WriteBufferWaterMark;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.verbs4j.api.Rdma;
import org.verbs4j.api.RdmaDevice;
import org.verbs4j.endpoint.EndpointOptions;
import org.verbs4j.netty.RdmaIoHandler;
import org.verbs4j.examples.cli.CommandLine;
import org.verbs4j.examples.cli.Option;
import org.verbs4j.examples.cli.OptionParser;
import org.verbs4j.examples.cli.UsageException;
import org.verbs4j.examples.cli.ValueType;
import org.verbs4j.examples.cli.Values;

/** netty-perf's command line ({@link NettyPerf}) and the settings it makes. */
final class NettyPerfOptions {
    static final int DEFAULT_PORT = 18700;
    /** The client channels' write-buffer water marks (both Netty transports): a few messages of 64 KiB in flight. */
    static final WriteBufferWaterMark WATER_MARK = new WriteBufferWaterMark(512 * 1024, 1024 * 1024);

    static final Option<Boolean> LOCAL = Option.flag(Option.NO_SHORT, "local",
            "run the servers and the client in this JVM (ADDRESS default 127.0.0.1: the software device jsiw_lo)");
    static final Option<String> DEVICE = Option.of('d', "ib-dev", "DEVICE", Values.string(), null,
            "the address is DEVICE's first IP address (rdma_cm picks the device by address)");
    static final Option<String> BIND = Option.of('b', "bind", "ADDR", Values.string(), null,
            "server: listen on ADDR").defaultText("-d's address, else 0.0.0.0: every device");
    static final Option<List<Integer>> SIZES = Option.of('s', "sizes", "SIZES", sizes(), List.of(64, 4096, 65536),
            "message sizes, comma-separated, K and M allowed").defaultText("64,4K,64K");
    static final Option<Integer> ITERS = Option.of('n', "iters", "N", Values.intIn(5, Integer.MAX_VALUE), 10_000,
            "measured round trips / streamed messages / calls per transport and size");
    static final Option<Integer> WARMUP = Option.of('w', "warmup", "W", Values.intIn(0, Integer.MAX_VALUE), 2_000,
            "warm-up iterations before each measured run (not counted)");
    static final Option<Integer> PORT = Option.of('p', "port", "PORT", Values.intIn(1, 65535 - Transport.PORTS), DEFAULT_PORT,
            "the first of the " + Transport.PORTS + " ports (netty-rdma, raw-endpoint, netty-nio, gRPC rdma, gRPC nio)");
    static final Option<Set<Test>> ONLY = Option.of(Option.NO_SHORT, "only", "TESTS", tests(), EnumSet.allOf(Test.class),
            "client: the tests to run, comma-separated: latency, throughput, grpc, alloc").defaultText("all");
    static final Option<Integer> MESSAGE_SIZE = Option.of('m', "message-size", "BYTES",
            intSize(64, 1 << 26), 16384,
            "the endpoints' send and receive slot size (both verbs4j transports)");
    static final Option<Integer> DEPTH = Option.of('t', "depth", "N", Values.intIn(1, 4096), 16,
            "the endpoints' send and receive depth (both verbs4j transports)");
    static final Option<Integer> GRPC_SIZE = Option.of(Option.NO_SHORT, "grpc-size", "BYTES",
            intSize(1, 4 << 20), 64, "the gRPC calls' request and answer bytes");
    static final Option<String> ALLOCATOR = Option.of(Option.NO_SHORT, "allocator", "NAME",
            Values.choice(java.util.Map.of("default", "default", "pooled", "pooled", "unpooled", "unpooled")), "default",
            "the ByteBufAllocator of every Netty channel: default (Netty's: adaptive in 4.2), pooled, unpooled");
    static final Option<Integer> RDMA_SPIN = Option.of(Option.NO_SHORT, "rdma-spin", "MICROS", Values.intIn(0, 10_000_000),
            (int) (RdmaIoHandler.DEFAULT_SPIN_NANOS / 1000),
            "how long RdmaIoHandler's loops poll without work before they nap, then sleep (RdmaIoHandler.newFactory)");
    static final Option<Integer> RDMA_MAX_PARK = Option.of(Option.NO_SHORT, "rdma-max-park", "MICROS",
            Values.intIn((int) (RdmaIoHandler.MIN_PARK_NANOS / 1000), 10_000_000),
            (int) (RdmaIoHandler.DEFAULT_MAX_PARK_NANOS / 1000),
            "the longest nap of RdmaIoHandler's loops after the spin, and about how long they nap before they sleep "
                    + "(RdmaIoHandler.newFactory)");
    static final Option<Integer> RDMA_REGION = Option.of(Option.NO_SHORT, "rdma-region", "BYTES",
            intSize(0, 1 << 30), 0, "netty-rdma: both sides' RDMA region (RdmaChannelOption.RDMA_REGION_SIZE): writes "
                    + "of 64 KiB and more, and larger than a slot, go by rendezvous (an RDMA READ); 0: off");
    static final Option<Boolean> RDMA_REGISTERED = Option.flag(Option.NO_SHORT, "rdma-registered",
            "netty-rdma: both sides' channels hand out buffers of their registered allocator "
                    + "(RdmaChannelOption.REGISTERED_ALLOCATOR): a write of one is not copied (with --rdma-region, large "
                    + "ones live in the region)");
    static final Option<Integer> MAX_ALLOC = Option.of(Option.NO_SHORT, "max-alloc", "BYTES", Values.intIn(0, 1 << 30),
            null, "alloc: exit 1 when a netty-rdma event loop allocates more than BYTES per message")
            .defaultText("no limit");
    static final Option<String> CSV = Option.of(Option.NO_SHORT, "csv", "FILE", Values.string(), null,
            "client: also write the rows to FILE as CSV");

    static final OptionParser PARSER = new OptionParser("netty-perf")
            .synopsis("[options]", "server: every transport's listener, until killed")
            .synopsis("[options] HOST", "client: run the tests against the server at HOST")
            .synopsis("--local [options] [ADDRESS]", "server and client in one JVM")
            .operands(0, 1)
            .add(LOCAL, DEVICE, BIND, SIZES, ITERS, WARMUP, PORT, ONLY, MESSAGE_SIZE, DEPTH, GRPC_SIZE, ALLOCATOR, RDMA_SPIN, RDMA_MAX_PARK, RDMA_REGION, RDMA_REGISTERED, MAX_ALLOC, CSV)
            .note("Netty over verbs4j (RdmaChannel) against verbs4j's endpoint API by hand and against Netty's NIO TCP\n"
                    + "transport on the same IP address; gRPC unary calls over both Netty transports; bytes allocated per\n"
                    + "message on the Netty-over-verbs4j path. Latency: round trips. See docs/netty.md#performance.");

    boolean local;
    /** The client's peer; for --local also the servers' address. Null on a server. */
    String host;
    String bind;
    List<Integer> sizes;
    int iters;
    int warmup;
    int port;
    Set<Test> tests;
    int messageSize;
    int depth;
    int grpcSize;
    String allocator;
    long rdmaSpinNanos;
    long rdmaMaxParkNanos;
    int rdmaRegion;
    boolean rdmaRegistered;
    /** {@code --max-alloc}, or null. */
    Integer maxAlloc;
    String csv;

    static NettyPerfOptions of(CommandLine c) throws UsageException {
        NettyPerfOptions o = new NettyPerfOptions();
        o.local = c.get(LOCAL);
        o.sizes = c.get(SIZES);
        o.iters = c.get(ITERS);
        o.warmup = c.get(WARMUP);
        o.port = c.get(PORT);
        o.tests = c.get(ONLY);
        o.messageSize = c.get(MESSAGE_SIZE);
        o.depth = c.get(DEPTH);
        o.grpcSize = c.get(GRPC_SIZE);
        o.csv = c.get(CSV);
        o.allocator = c.get(ALLOCATOR);
        o.rdmaSpinNanos = c.get(RDMA_SPIN) * 1000L;
        o.rdmaMaxParkNanos = c.get(RDMA_MAX_PARK) * 1000L;
        o.rdmaRegion = c.get(RDMA_REGION);
        o.rdmaRegistered = c.get(RDMA_REGISTERED);
        o.maxAlloc = c.get(MAX_ALLOC);
        String device = c.get(DEVICE);
        String operand = c.operands().isEmpty() ? null : c.operands().get(0);
        if (device != null && operand != null) {
            throw new UsageException("give -d DEVICE or an address, not both");
        }
        String deviceAddress = device == null ? null : addressOf(device);
        o.bind = c.get(BIND);
        if (o.local) {
            o.host = operand != null ? operand : deviceAddress != null ? deviceAddress : "127.0.0.1";
            if (o.bind != null) {
                throw new UsageException("-b is for a server: with --local the servers listen on the address");
            }
            o.bind = o.host;
        } else {
            o.host = operand;
        }
        if (!o.local && o.host == null) {
            if (o.bind == null) {
                o.bind = deviceAddress != null ? deviceAddress : "0.0.0.0";
            }
            if (c.given(CSV) || c.given(ONLY) || c.given(MAX_ALLOC)) {
                throw new UsageException("--csv, --only and --max-alloc are the client's: give the server's HOST");
            }
        } else if (!o.local && c.given(BIND)) {
            throw new UsageException("-b is for a server, not a client");
        }
        return o;
    }

    /** {@return the first IPv4 (else IPv6) address of the RDMA device {@code name}} */
    private static String addressOf(String name) throws UsageException {
        RdmaDevice d;
        try {
            d = Rdma.device(name);
        } catch (RuntimeException e) {
            throw new UsageException("-d " + name + ": " + e.getMessage());
        }
        List<InetAddress> a = d.addresses();
        if (a.isEmpty()) {
            throw new UsageException("-d " + name + ": its net devices " + d.netDevices() + " have no IP address");
        }
        return a.get(0).getHostAddress();
    }

    boolean server() {
        return !local && host == null;
    }

    boolean runs(Test t) {
        return tests.contains(t);
    }

    InetSocketAddress serverAddress(int offset) {
        return new InetSocketAddress(bind, port + offset);
    }

    InetSocketAddress clientAddress(int offset) {
        return new InetSocketAddress(host, port + offset);
    }

    /** {@return the allocator of {@code --allocator}, or null for Netty's default} */
    ByteBufAllocator byteBufAllocator() {
        return switch (allocator) {
            case "pooled" -> PooledByteBufAllocator.DEFAULT;
            case "unpooled" -> UnpooledByteBufAllocator.DEFAULT;
            default -> null;
        };
    }

    /** The endpoints of both verbs4j transports: {@code -m}, {@code -t}. */
    EndpointOptions endpointOptions() {
        return EndpointOptions.defaults().messageSize(messageSize).sendDepth(depth).receiveDepth(depth);
    }

    /** netty-rdma's endpoints: {@link #endpointOptions} and {@code --rdma-region}. */
    EndpointOptions nettyEndpointOptions() {
        return endpointOptions().rdmaRegionSize(rdmaRegion);
    }

    private static ValueType<Integer> intSize(int min, int max) {
        ValueType<Long> size = Values.size(min, max);
        return text -> size.parse(text).intValue();
    }

    private static ValueType<List<Integer>> sizes() {
        ValueType<Long> one = Values.size(1, 64 << 20);
        return text -> {
            List<Integer> r = new ArrayList<>();
            for (String s : text.split(",", -1)) {
                r.add(one.parse(s.trim()).intValue());
            }
            return List.copyOf(r);
        };
    }

    private static ValueType<Set<Test>> tests() {
        ValueType<Test> one = Values.enumOf(Test.class);
        return text -> {
            EnumSet<Test> r = EnumSet.noneOf(Test.class);
            for (String s : text.split(",", -1)) {
                r.add(one.parse(s.trim().toLowerCase(Locale.ROOT)));
            }
            return r;
        };
    }
}
