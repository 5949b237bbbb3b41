package org.verbs4j.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A peer process killed (SIGKILL) while it streams to this JVM's server channel: the accepted channel's pipeline
 * gets an {@link IOException} and {@code channelInactive} within a bounded time, on the software iWARP device (and
 * on the lab's devices in {@link RdmaChannelIT}).
 */
@Timeout(60)
class PeerProcessKilledTest {

    @Test
    void aKilledPeerProcessIsAnExceptionThenInactive() throws Exception {
        killPeerProcessWhileItStreams(new Loopback());
    }

    /**
     * The body of {@link #aKilledPeerProcessIsAnExceptionThenInactive}, on {@code lo}'s device: the peer process is
     * given this JVM's {@code verbs4j.*} system properties (the backend to use, if one is chosen).
     */
    static void killPeerProcessWhileItStreams(Loopback lo) throws Exception {
        AtomicLong bytes = new AtomicLong();
        CountDownLatch streaming = new CountDownLatch(1);
        CountDownLatch inactive = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        ChannelInboundHandlerAdapter sink = new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                if (bytes.addAndGet(((ByteBuf) msg).readableBytes()) > 1 << 20) {
                    streaming.countDown();
                }
                ((ByteBuf) msg).release();
            }

            @Override
            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                failure.compareAndSet(null, cause);
            }

            @Override
            public void channelInactive(ChannelHandlerContext ctx) {
                inactive.countDown();
            }
        };
        try (Loopback served = lo.serve(sink, false)) {
            List<String> command = new ArrayList<>();
            command.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
            for (String name : System.getProperties().stringPropertyNames()) {
                if (name.startsWith("verbs4j.")) {
                    command.add("-D" + name + "=" + System.getProperty(name));
                }
            }
            command.addAll(List.of("-cp", System.getProperty("java.class.path"), StreamingPeer.class.getName(),
                    served.address.getHostString(), String.valueOf(served.address.getPort())));
            Process peer = new ProcessBuilder(command).redirectErrorStream(true).start();
            try {
                BufferedReader out = new BufferedReader(new InputStreamReader(peer.getInputStream(), StandardCharsets.UTF_8));
                String line;
                while ((line = out.readLine()) != null && !line.equals("connected")) {
                    System.out.println("peer: " + line);
                }
                assertEquals("connected", line, "the peer process did not connect");
                // the rest of its output is drained, so that a full pipe cannot stall the peer before the kill
                Thread drain = new Thread(() -> {
                    try {
                        for (String l; (l = out.readLine()) != null; ) {
                            System.out.println("peer: " + l);
                        }
                    } catch (IOException e) {
                        // the peer was killed: its output ends
                    }
                }, "peer-output");
                drain.setDaemon(true);
                drain.start();
                assertTrue(streaming.await(20, TimeUnit.SECONDS), "the peer did not stream: " + bytes.get() + " bytes");
                peer.destroyForcibly();
                long t0 = System.nanoTime();
                assertTrue(inactive.await(20, TimeUnit.SECONDS), "no channelInactive within 20 s of the kill");
                long ms = (System.nanoTime() - t0) / 1_000_000;
                System.out.printf("killed peer: exception and channelInactive after %d ms, %d bytes read%n", ms, bytes.get());
                assertNotNull(failure.get(), "no exceptionCaught before channelInactive");
                assertInstanceOf(IOException.class, failure.get());
            } finally {
                peer.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
