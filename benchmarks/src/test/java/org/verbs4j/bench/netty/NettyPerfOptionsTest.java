package org.verbs4j.bench.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.verbs4j.examples.cli.OptionParser;

/** netty-perf's command line: the settings it makes, and a usage error (exit 2, no stack trace) for a bad one. */
class NettyPerfOptionsTest {
    private static NettyPerfOptions parse(String... args) throws Exception {
        return NettyPerfOptions.of(NettyPerfOptions.PARSER.parse(args));
    }

    @Test
    void defaults() throws Exception {
        NettyPerfOptions o = parse("10.0.0.1");
        assertFalse(o.server());
        assertEquals("10.0.0.1", o.host);
        assertEquals(List.of(64, 4096, 65536), o.sizes);
        assertEquals(10_000, o.iters);
        assertEquals(2_000, o.warmup);
        assertEquals(NettyPerfOptions.DEFAULT_PORT, o.port);
        assertEquals(EnumSet.allOf(org.verbs4j.bench.netty.Test.class), o.tests);
        assertEquals(16384, o.endpointOptions().messageSize());
        assertEquals(16, o.endpointOptions().sendDepth());
        assertEquals(org.verbs4j.netty.RdmaIoHandler.DEFAULT_SPIN_NANOS, o.rdmaSpinNanos);
        assertEquals(org.verbs4j.netty.RdmaIoHandler.DEFAULT_MAX_PARK_NANOS, o.rdmaMaxParkNanos);
        assertEquals(200_000, parse("--rdma-max-park", "200", "h").rdmaMaxParkNanos);
        assertEquals(null, o.byteBufAllocator());
        assertEquals(io.netty.buffer.PooledByteBufAllocator.DEFAULT, parse("--allocator", "pooled", "h").byteBufAllocator());
        assertEquals(0, o.nettyEndpointOptions().rdmaRegionSize());
        assertFalse(o.rdmaRegistered);
        NettyPerfOptions zc = parse("--rdma-region", "8M", "--rdma-registered", "h");
        assertEquals(8 << 20, zc.nettyEndpointOptions().rdmaRegionSize());
        assertEquals(0, zc.endpointOptions().rdmaRegionSize(), "the raw endpoint has no region");
        assertTrue(zc.rdmaRegistered);
    }

    @Test
    void serverAndLocal() throws Exception {
        NettyPerfOptions server = parse("-p", "19000");
        assertTrue(server.server());
        assertEquals("0.0.0.0", server.bind);
        assertEquals(19002, server.serverAddress(Transport.NETTY_NIO.portOffset).getPort());
        NettyPerfOptions local = parse("--local", "-s", "1,4K,1M", "--only", "latency,grpc", "-n", "5", "-w", "0");
        assertTrue(local.local);
        assertFalse(local.server());
        assertEquals("127.0.0.1", local.host);
        assertEquals("127.0.0.1", local.bind);
        assertEquals(List.of(1, 4096, 1 << 20), local.sizes);
        assertEquals(EnumSet.of(org.verbs4j.bench.netty.Test.LATENCY, org.verbs4j.bench.netty.Test.GRPC), local.tests);
        assertEquals(0, local.warmup);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "--bogus", "-s 0 h", "-s 64,x h", "-s , h", "-n 4 h", "-n abc h", "-w -1 h", "-p 0 h", "-p 70000 h",
        "--only speed h", "--only latency,nothing h", "-m 10 h", "-t 0 h", "--allocator fast h", "--rdma-spin -1 h", "--rdma-max-park 15 h", "--max-alloc -1 h", "--max-alloc 0", "a b",
        "-b 1.2.3.4 h", "--local -b 1.2.3.4", "--csv x.csv", "--only grpc", "-d nosuchdevice0", "-d x 1.2.3.4", "-s"})
    void aBadCommandLineIsAUsageError(String line) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = NettyPerf.run(line.split(" "), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        String e = err.toString(StandardCharsets.UTF_8);
        assertEquals(OptionParser.EXIT_USAGE, rc, line + ": " + e);
        assertTrue(e.startsWith("netty-perf: "), e);
        assertTrue(e.contains("Usage: netty-perf"), e);
        assertFalse(e.contains("\tat "), "a stack trace: " + e);
        assertEquals("", out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void helpListsTheOptions() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int rc = NettyPerf.run(new String[] {"-h"}, new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
        assertEquals(0, rc);
        String help = out.toString(StandardCharsets.UTF_8);
        for (String o : List.of("--local", "--sizes", "--iters", "--warmup", "--port", "--only", "--csv", "--ib-dev",
                "--rdma-region", "--rdma-registered")) {
            assertTrue(help.contains(o), o + " in " + help);
        }
    }
}
