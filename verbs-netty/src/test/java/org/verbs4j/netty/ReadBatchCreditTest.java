package org.verbs4j.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.verbs4j.api.WorkCompletions;
import org.verbs4j.endpoint.EndpointOptions;
import org.verbs4j.endpoint.Endpoints;
import org.verbs4j.endpoint.RdmaEndpoint;

/**
 * A read batch's receive slots go back to the peer after {@code channelReadComplete}, with one credit update, so a
 * reply written during the batch leaves before the update: a raw endpoint as the peer watches its send credits while
 * the channel's handler holds {@code channelRead}.
 */
class ReadBatchCreditTest {
    /** How long the handler waits for a credit that must not come during its {@code channelRead}. */
    private static final long HOLD_NANOS = TimeUnit.MILLISECONDS.toNanos(300);

    @Test
    void theCreditComesBackAfterTheBatchAndTheReplyBeforeIt() throws Exception {
        AtomicReference<RdmaEndpoint> peer = new AtomicReference<>();
        CompletableFuture<long[]> duringRead = new CompletableFuture<>();
        // the raw endpoint counts a send after its post, which on the software device may already have delivered
        // it: its credit count is read here only once the test thread's send has returned
        CountDownLatch sendReturned = new CountDownLatch(1);
        ChannelInboundHandlerAdapter server = new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ByteBuf in = (ByteBuf) msg;
                byte b = in.getByte(in.readerIndex());
                ReferenceCountUtil.release(msg);
                ctx.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {(byte) (b + 1)}));
                // the peer's credit word as it is now, and as it is after a wait: an update posted before this call
                // (the slot given back before the message was handed on) would land meanwhile
                RdmaEndpoint p = peer.get();
                try {
                    if (!sendReturned.await(20, TimeUnit.SECONDS)) {
                        duringRead.completeExceptionally(new AssertionError("the send did not return"));
                        return;
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    duringRead.completeExceptionally(e);
                    return;
                }
                long first = p.sendCredits();
                long deadline = System.nanoTime() + HOLD_NANOS;
                long last = first;
                while (last == first && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                    last = p.sendCredits();
                }
                duringRead.complete(new long[] {first, last});
            }
        };
        try (Loopback lo = new Loopback().serve(server, false);
             RdmaEndpoint raw = Endpoints.connect(lo.address, EndpointOptions.defaults()
                     .messageSize(Loopback.MESSAGE_SIZE));
             WorkCompletions wc = WorkCompletions.allocate(4)) {
            peer.set(raw);
            long full = raw.sendCredits();
            assertTrue(full >= 2, "the channel's receive depth: " + full);
            raw.sendSlot(0).put(0, RdmaChannel.DATA).put(1, (byte) 41);
            raw.send(0, 2);
            sendReturned.countDown();
            long[] seen = duringRead.get(20, TimeUnit.SECONDS);
            assertEquals(full - 1, seen[0], "during channelRead the message's credit is not back");
            assertEquals(full - 1, seen[1], "nor " + TimeUnit.NANOSECONDS.toMillis(HOLD_NANOS) + " ms later");
            // the reply arrives (written during the batch), and after the batch the credit comes back
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            int n = 0;
            while (n == 0 && System.nanoTime() < deadline) {
                n = raw.pollReceive(wc);
            }
            assertEquals(1, n, "the reply");
            ByteBuffer reply = raw.message(wc, 0);
            assertEquals(2, reply.remaining());
            assertEquals(RdmaChannel.DATA, reply.get(0));
            assertEquals(42, reply.get(1));
            raw.repostReceive((int) wc.wrId(0));
            while (raw.sendCredits() < full && System.nanoTime() < deadline) {
                raw.pollSend(wc);
                Thread.onSpinWait();
            }
            assertEquals(full, raw.sendCredits(), "the credit is back after channelReadComplete");
        }
    }
}
