package org.verbs4j.bench.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import java.util.concurrent.CompletableFuture;

/**
 * The client of a Netty ping-pong, driven on the channel's event loop as Netty programs are: when the whole echo
 * of a message is back (the transport may cut it into pieces), the round trip is recorded and the next message
 * goes. Nothing allocated per message but the pooled buffer of the message itself: writes take the void promise.
 */
final class PingPongHandler extends RunHandler<Void> {
    private final MessagePattern pattern;
    private final MessagePattern.Check check;
    private long index;
    private long received;
    private long t0;
    private long[] rtt;
    private int target;
    private int done;
    /** Round trips completed, for the caller's watch on progress. */
    volatile long progress;

    PingPongHandler(int size, String what) {
        this.pattern = new MessagePattern(size);
        this.check = new MessagePattern.Check(pattern, what);
    }

    /** Runs {@code n} round trips on the event loop, their times into {@code rtt} (or nowhere when null). */
    CompletableFuture<Void> start(int n, long[] rtt) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        ctx.executor().execute(() -> {
            this.finished = f;
            this.rtt = rtt;
            this.target = n;
            this.done = 0;
            if (n == 0) {
                f.complete(null);
            } else {
                sendNext();
            }
        });
        return f;
    }

    private void sendNext() {
        ByteBuf m = ctx.alloc().directBuffer(pattern.size);
        pattern.fill(m, index++);
        received = 0;
        t0 = System.nanoTime();
        ctx.writeAndFlush(m, ctx.voidPromise());
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf buf = (ByteBuf) msg;
        try {
            check.check(buf);
            received += buf.readableBytes();
        } catch (RuntimeException e) {
            fail(e);
            return;
        } finally {
            buf.release();
        }
        if (received < pattern.size) {
            return;
        }
        long t = System.nanoTime() - t0;
        if (received > pattern.size || finished == null || finished.isDone()) {
            fail(new IllegalStateException("the echo has " + received + " bytes, not " + pattern.size));
            return;
        }
        if (rtt != null) {
            rtt[done] = t;
        }
        done++;
        progress++;
        if (done == target) {
            finished.complete(null);
        } else {
            sendNext();
        }
    }
}
