package org.verbs4j.endpoint;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.verbs4j.api.WorkCompletions;
import org.verbs4j.lab.Lab;
import org.verbs4j.lab.Race;

/**
 * An endpoint closed by one thread while another sends, writes, polls and reposts on it, {@link Race#REPS} times
 * per lab device: each call returns or throws {@link IllegalStateException} saying closed, {@code close()}
 * returns, nothing hangs. The peer keeps receiving and sending on its own thread until the connection ends.
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class EndpointCloseRaceIT {
    private static final Duration T = Duration.ofSeconds(30);
    private static final ExecutorService SERVER = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "endpoint-race-peer");
        t.setDaemon(true);
        return t;
    });

    @AfterAll
    static void stop() {
        SERVER.shutdownNow();
    }

    /** The peer's loop: repost what arrives, send when it has a credit, reap its sends; ends on any failure. */
    static final class Peer implements Runnable {
        final RdmaEndpoint ep;
        volatile boolean stop;

        Peer(RdmaEndpoint ep) {
            this.ep = ep;
        }

        @Override
        public void run() {
            try (WorkCompletions wc = WorkCompletions.allocate(4)) {
                int inFlight = 0;
                while (!stop) {
                    int n = ep.pollReceive(wc);
                    for (int i = 0; i < n; i++) {
                        if (!wc.ok(i)) {
                            return; // the connection ended
                        }
                        ep.repostReceive((int) wc.wrId(i));
                    }
                    if (inFlight == 0 && ep.trySend(0, 32)) {
                        inFlight++;
                    }
                    inFlight -= ep.pollSend(wc);
                    if (n == 0) {
                        Thread.onSpinWait();
                    }
                }
            } catch (RuntimeException e) {
                // the racing side closed: the connection is broken, as expected
            }
        }
    }

    /** One repetition: the raced endpoint, its peer and the peer's thread. */
    record Connected(RdmaEndpoint ep, Peer peer, Future<?> peerLoop, WorkCompletions wc, int[] turn) {
        void step() {
            switch (turn[0]++ % 4) {
                case 0 -> {
                    if (ep.trySend(1, 64)) {
                        awaitSend();
                    }
                }
                case 1 -> {
                    ep.write(0, 64, 0, 7);
                    awaitSend();
                }
                case 2 -> ep.pollSend(wc);
                default -> {
                    int n = ep.pollReceive(wc);
                    for (int i = 0; i < n; i++) {
                        ep.repostReceive((int) wc.wrId(i));
                    }
                }
            }
        }

        private void awaitSend() {
            long deadline = System.nanoTime() + T.toNanos();
            while (ep.pollSend(wc) == 0) {
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError(ep + ": no send completion in " + T);
                }
                Thread.onSpinWait();
            }
        }

        void closePeer() throws Exception {
            peer.stop = true;
            peerLoop.get(T.toMillis(), TimeUnit.MILLISECONDS);
            peer.ep.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"rxe", "siw"})
    void closeRacesSendWritePollAndRepost(String fabric) throws Exception {
        String ip = Lab.env(fabric.equals("rxe") ? "FABRIC_LAB_RXE_IP" : "FABRIC_LAB_SIW_IP");
        EndpointOptions o = EndpointOptions.defaults().messageSize(256).sendDepth(4).receiveDepth(4)
                .rdmaRegionSize(4096).timeout(T);
        InetSocketAddress at = new InetSocketAddress(ip, org.verbs4j.lab.TestPorts.next());
        try (EndpointServer listener = Endpoints.listen(at, o); WorkCompletions wc = WorkCompletions.allocate(4)) {
            Race.of(fabric + " RdmaEndpoint.trySend/write/pollSend/pollReceive+repostReceive vs close", () -> {
                Future<RdmaEndpoint> accepted = SERVER.submit(() -> listener.accept(T));
                RdmaEndpoint client = Endpoints.connect(at, o);
                Peer peer = new Peer(accepted.get(T.toMillis(), TimeUnit.MILLISECONDS));
                return new Connected(client, peer, SERVER.submit(peer), wc, new int[1]);
            })
                    .racer(Connected::step)
                    .closer(c -> c.ep.close())
                    .afterClose(c -> {
                        assertTrue(c.ep.isClosed(), "isClosed()");
                        assertThrows(IllegalStateException.class, () -> c.ep.pollSend(c.wc), "pollSend after close");
                        assertThrows(IllegalStateException.class, () -> c.ep.write(0, 8, 0, 1), "write after close");
                    })
                    .cleanup(Connected::closePeer)
                    .run();
        }
    }
}
