package org.verbs4j.bench.netty;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.verbs4j.endpoint.Endpoints;
import org.verbs4j.netty.RdmaChannelOption;

/**
 * netty-perf's client: each test over each transport, one connection per run (warm-up, then the measured loop on
 * the same connection). Netty runs on one event loop per transport; the endpoint API on the calling thread.
 */
final class PerfClient implements AutoCloseable {
    /** A run that makes no progress for this long fails. */
    private static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final NettyPerfOptions o;
    private final EventLoopGroup rdma;
    private final EventLoopGroup nio;
    /** The servers' event loops, when they run in this JVM (--local), for the allocation test; else null. */
    private final PerfServers local;

    PerfClient(NettyPerfOptions o, PerfServers local) {
        this.o = o;
        this.local = local;
        this.rdma = Transport.NETTY_RDMA.group(1, o.rdmaSpinNanos, o.rdmaMaxParkNanos);
        this.nio = Transport.NETTY_NIO.group(1, 0, 0);
    }

    private EventLoopGroup group(Transport t) {
        return t == Transport.NETTY_RDMA ? rdma : nio;
    }

    private Channel connect(Transport t, ChannelHandler handler) throws InterruptedException {
        Bootstrap b = new Bootstrap().group(group(t)).channel(t.channel()).handler(handler)
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, NettyPerfOptions.WATER_MARK);
        if (t == Transport.NETTY_RDMA) {
            b.option(RdmaChannelOption.ENDPOINT_OPTIONS, o.nettyEndpointOptions())
                    .option(RdmaChannelOption.REGISTERED_ALLOCATOR, o.rdmaRegistered);
        } else {
            b.option(ChannelOption.TCP_NODELAY, true);
        }
        if (o.byteBufAllocator() != null) {
            b.option(ChannelOption.ALLOCATOR, o.byteBufAllocator());
        }
        return b.connect(o.clientAddress(t.portOffset)).sync().channel();
    }

    private static ByteBuf echoHeader(Channel ch) {
        return ch.alloc().ioBuffer(ServerStream.HEADER_BYTES).writeLong(ServerStream.ECHO).writeLong(0);
    }

    /** Round trips of {@code size} bytes over a Netty transport: warm-up, then {@code -n} measured. */
    Row latency(Transport t, int size) throws Exception {
        if (t == Transport.RAW) {
            return rawLatency(size);
        }
        PingPongHandler h = new PingPongHandler(size, t.label + " client");
        Channel ch = connect(t, h);
        try {
            ch.writeAndFlush(echoHeader(ch)).sync();
            long w0 = System.nanoTime();
            await(h.start(o.warmup, null), () -> h.progress);
            double warmupMillis = (System.nanoTime() - w0) / 1e6;
            long[] rtt = new long[o.iters];
            await(h.start(o.iters, rtt), () -> h.progress);
            return Row.latency(Test.LATENCY, t.label, size, rtt, warmupMillis);
        } finally {
            ch.close().await(5, TimeUnit.SECONDS);
        }
    }

    private RawLink rawConnect() {
        return new RawLink(Endpoints.connect(o.clientAddress(Transport.RAW.portOffset), o.endpointOptions()));
    }

    private static void sendHeader(RawLink link, long first, long second) {
        ByteBuffer h = ByteBuffer.allocate(ServerStream.HEADER_BYTES);
        ServerStream.putHeader(h, first, second);
        link.sendAll(h, 0, ServerStream.HEADER_BYTES);
    }

    private Row rawLatency(int size) {
        MessagePattern p = new MessagePattern(size);
        MessagePattern.Check check = new MessagePattern.Check(p, "raw-endpoint client");
        try (RawLink link = rawConnect()) {
            sendHeader(link, ServerStream.ECHO, 0);
            long w0 = System.nanoTime();
            long index = 0;
            for (int i = 0; i < o.warmup; i++) {
                rawRoundTrip(link, p, check, index++);
            }
            double warmupMillis = (System.nanoTime() - w0) / 1e6;
            long[] rtt = new long[o.iters];
            for (int i = 0; i < o.iters; i++) {
                long t0 = System.nanoTime();
                rawRoundTrip(link, p, check, index++);
                rtt[i] = System.nanoTime() - t0;
            }
            return Row.latency(Test.LATENCY, Transport.RAW.label, size, rtt, warmupMillis);
        }
    }

    /** One message out in slots and its echo back, reading while sending (the echo may start before the last slot). */
    private static void rawRoundTrip(RawLink link, MessagePattern p, MessagePattern.Check check, long index) {
        int size = p.size;
        int sent = 0;
        int got = 0;
        long last = System.nanoTime();
        while (got < size) {
            if (sent < size) {
                ByteBuffer dst = link.slot();
                if (dst != null) {
                    int n = Math.min(link.slotBytes(), size - sent);
                    p.fill(dst, 0, index, sent, n);
                    link.send(n);
                    sent += n;
                }
            }
            ByteBuffer m = link.received();
            if (m != null) {
                int n = m.remaining();
                check.check(m, m.position(), n);
                got += n;
                if (got < size) {
                    link.release();
                } else {
                    link.releaseLater(); // after the next message's first slot, as the channel (and the server) order it
                }
                last = System.nanoTime();
            } else {
                checkStall(last, "no echo");
            }
        }
        if (got != size) {
            throw new IllegalStateException("raw-endpoint: the echo has " + got + " bytes, not " + size);
        }
    }

    /** A one-way stream of {@code -n} messages of {@code size} bytes (after a warm-up round of {@code -w}). */
    Row throughput(Transport t, int size) throws Exception {
        if (t == Transport.RAW) {
            return rawThroughput(size);
        }
        StreamHandler h = new StreamHandler(size);
        Channel ch = connect(t, h);
        try {
            double warmupMillis = Double.NaN;
            if (o.warmup > 0) {
                long w0 = System.nanoTime();
                await(h.start(o.warmup), () -> h.progress);
                warmupMillis = (System.nanoTime() - w0) / 1e6;
            }
            long nanos = await(h.start(o.iters), () -> h.progress);
            return Row.throughput(t.label, size, o.iters, nanos, warmupMillis);
        } finally {
            ch.close().await(5, TimeUnit.SECONDS);
        }
    }

    private Row rawThroughput(int size) {
        MessagePattern p = new MessagePattern(size);
        try (RawLink link = rawConnect()) {
            double warmupMillis = Double.NaN;
            if (o.warmup > 0) {
                long w0 = System.nanoTime();
                rawStream(link, p, o.warmup);
                warmupMillis = (System.nanoTime() - w0) / 1e6;
            }
            long nanos = rawStream(link, p, o.iters);
            return Row.throughput(Transport.RAW.label, size, o.iters, nanos, warmupMillis);
        }
    }

    /** Fails the raw-endpoint run when nothing has happened since {@code last} for {@link #STALL_NANOS}. */
    private static void checkStall(long last, String what) {
        if (System.nanoTime() - last > STALL_NANOS) {
            throw new IllegalStateException("raw-endpoint: " + what + " for " + STALL_NANOS / 1_000_000_000 + " s");
        }
    }

    private static long rawStream(RawLink link, MessagePattern p, long count) {
        long t0 = System.nanoTime();
        sendHeader(link, p.size, count);
        int slotBytes = link.slotBytes();
        long last = System.nanoTime();
        for (long i = 0; i < count; i++) {
            int from = 0;
            while (from < p.size) {
                ByteBuffer dst = link.slot();
                if (dst == null) {
                    checkStall(last, "no send credit");
                    Thread.onSpinWait();
                    continue;
                }
                int n = Math.min(slotBytes, p.size - from);
                p.fill(dst, 0, i, from, n);
                link.send(n);
                from += n;
                last = System.nanoTime();
            }
        }
        long ack = 0;
        int ackBytes = 0;
        while (ackBytes < ServerStream.ACK_BYTES) {
            ByteBuffer m = link.received();
            if (m == null) {
                checkStall(last, "no answer");
                Thread.onSpinWait();
                continue;
            }
            while (m.hasRemaining()) {
                if (ackBytes == ServerStream.ACK_BYTES) {
                    throw new IllegalStateException("raw-endpoint: the server sent more than its answer");
                }
                ack = ack << 8 | (m.get() & 0xff);
                ackBytes++;
            }
            link.release();
        }
        long nanos = System.nanoTime() - t0;
        if (ack != (long) p.size * count) {
            throw new IllegalStateException("raw-endpoint: the server got " + ack + " bytes, not " + (long) p.size * count);
        }
        return nanos;
    }

    /** Unary calls of {@code --grpc-size} bytes over gRPC on a Netty transport. */
    Row grpc(Transport t) throws InterruptedException {
        NettyChannelBuilder b = NettyChannelBuilder.forAddress(o.clientAddress(t == Transport.NETTY_RDMA
                ? Transport.GRPC_RDMA_PORT : Transport.GRPC_NIO_PORT))
                .channelType(t.channel()).eventLoopGroup(group(t)).usePlaintext().directExecutor();
        if (t == Transport.NETTY_RDMA) {
            b.withOption(RdmaChannelOption.ENDPOINT_OPTIONS, o.nettyEndpointOptions());
        }
        ManagedChannel channel = b.build();
        try {
            MessagePattern p = new MessagePattern(o.grpcSize);
            long index = 0;
            long w0 = System.nanoTime();
            for (int i = 0; i < o.warmup; i++) {
                call(channel, p, index++);
            }
            double warmupMillis = (System.nanoTime() - w0) / 1e6;
            long[] rtt = new long[o.iters];
            for (int i = 0; i < o.iters; i++) {
                long t0 = System.nanoTime();
                call(channel, p, index++);
                rtt[i] = System.nanoTime() - t0;
            }
            return Row.latency(Test.GRPC, "grpc-" + t.label, o.grpcSize, rtt, warmupMillis);
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    private static void call(ManagedChannel channel, MessagePattern p, long index) {
        byte[] request = new byte[p.size];
        p.fill(ByteBuffer.wrap(request), 0, index, 0, p.size);
        byte[] answer = ClientCalls.blockingUnaryCall(channel, GrpcEcho.UNARY,
                CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS), request);
        if (!Arrays.equals(request, answer)) {
            throw new IllegalStateException("gRPC: call " + index + " answered " + answer.length + " bytes that differ "
                    + "from its " + request.length);
        }
    }

    /**
     * The Netty ping-pong of {@link #latency} with the bytes each thread allocates in the measured loop: the client's
     * event loop, the server's (with {@code --local}), and the calling thread (which only waits).
     */
    Row allocation(Transport t, int size) throws Exception {
        PingPongHandler h = new PingPongHandler(size, t.label + " client");
        Channel ch = connect(t, h);
        try {
            ch.writeAndFlush(echoHeader(ch)).sync();
            long w0 = System.nanoTime();
            await(h.start(o.warmup, null), () -> h.progress);
            double warmupMillis = (System.nanoTime() - w0) / 1e6;
            long clientLoop = threadId(group(t));
            long serverLoop = local == null ? -1 : threadId(local.group(t));
            long caller = Thread.currentThread().getId();
            long[] ids = serverLoop < 0 ? new long[] {clientLoop, caller} : new long[] {clientLoop, caller, serverLoop};
            long[] before = allocated(ids);
            await(h.start(o.iters, null), () -> h.progress);
            long[] after = allocated(ids);
            double n = o.iters;
            return Row.allocation(t.label, size, o.iters, (after[0] - before[0]) / n,
                    ids.length > 2 ? (after[2] - before[2]) / n : Double.NaN, (after[1] - before[1]) / n, warmupMillis);
        } finally {
            ch.close().await(5, TimeUnit.SECONDS);
        }
    }

    private static long threadId(EventLoopGroup g) throws Exception {
        return g.next().submit(() -> Thread.currentThread().getId()).get(10, TimeUnit.SECONDS);
    }

    private static long[] allocated(long[] ids) {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long[] r = new long[ids.length];
        for (int i = 0; i < ids.length; i++) {
            r[i] = mx.getThreadAllocatedBytes(ids[i]);
        }
        return r;
    }

    /** Waits for {@code f}; fails when {@code progress} stays the same for {@link #STALL_NANOS}. */
    private static <T> T await(CompletableFuture<T> f, LongSupplier progress) throws Exception {
        long seen = progress.getAsLong();
        long since = System.nanoTime();
        while (true) {
            try {
                return f.get(200, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                long now = progress.getAsLong();
                if (now != seen) {
                    seen = now;
                    since = System.nanoTime();
                } else if (System.nanoTime() - since > STALL_NANOS) {
                    throw new IllegalStateException("no progress for " + STALL_NANOS / 1_000_000_000 + " s");
                }
            } catch (ExecutionException e) {
                Throwable c = e.getCause();
                throw c instanceof Exception x ? x : new IllegalStateException(c);
            }
        }
    }

    @Override
    public void close() throws InterruptedException {
        for (EventLoopGroup g : List.of(rdma, nio)) {
            g.shutdownGracefully(0, 2, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
        }
    }
}
