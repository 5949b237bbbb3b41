package org.verbs4j.bench.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import java.util.concurrent.CompletableFuture;

/**
 * The client of a Netty throughput round ({@link ServerStream}): the header, then the messages as fast as the
 * channel stays writable (write-buffer water marks), flushed in batches; the round ends with the server's answer,
 * the byte count it checked. The time is the first write's to the answer's.
 */
final class StreamHandler extends RunHandler<Long> {
    /** Flush after this many bytes written, not only when the channel turns unwritable. */
    private static final int FLUSH_BYTES = 256 * 1024;

    private final MessagePattern pattern;
    private long count;
    private long sent;
    private long ack;
    private int ackBytes;
    private long t0;
    /** Messages written, for the caller's watch on progress. */
    volatile long progress;

    StreamHandler(int size) {
        this.pattern = new MessagePattern(size);
    }

    /** Streams {@code n} messages on the event loop; the future has the nanoseconds to the server's answer. */
    CompletableFuture<Long> start(long n) {
        CompletableFuture<Long> f = new CompletableFuture<>();
        ctx.executor().execute(() -> {
            finished = f;
            count = n;
            sent = 0;
            ack = 0;
            ackBytes = 0;
            t0 = System.nanoTime();
            ctx.write(ctx.alloc().ioBuffer(ServerStream.HEADER_BYTES).writeLong(pattern.size).writeLong(n), ctx.voidPromise());
            pump();
        });
        return f;
    }

    private void pump() {
        int unflushed = 0;
        while (sent < count && ctx.channel().isWritable()) {
            ByteBuf m = ctx.alloc().directBuffer(pattern.size);
            pattern.fill(m, sent++);
            ctx.write(m, ctx.voidPromise());
            unflushed += pattern.size;
            if (unflushed >= FLUSH_BYTES) {
                ctx.flush();
                unflushed = 0;
            }
        }
        progress = sent;
        ctx.flush();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable() && finished != null && sent < count) {
            pump();
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf buf = (ByteBuf) msg;
        try {
            while (buf.isReadable() && ackBytes < ServerStream.ACK_BYTES) {
                ack = ack << 8 | buf.readUnsignedByte();
                ackBytes++;
            }
            if (buf.isReadable()) {
                fail(new IllegalStateException("the server sent more than its answer"));
                return;
            }
        } finally {
            buf.release();
        }
        if (ackBytes == ServerStream.ACK_BYTES) {
            long nanos = System.nanoTime() - t0;
            long want = (long) pattern.size * count;
            if (ack != want || sent != count) {
                fail(new IllegalStateException("the server got " + ack + " bytes, not " + want));
            } else {
                finished.complete(nanos);
            }
        }
    }
}
