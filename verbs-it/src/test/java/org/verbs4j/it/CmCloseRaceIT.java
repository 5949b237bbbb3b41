package org.verbs4j.it;

import org.verbs4j.lab.ClosedChecks;

import org.verbs4j.lab.QpPair;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.QpInitAttributes;
import org.verbs4j.api.QpType;
import org.verbs4j.api.QueuePair;
import org.verbs4j.api.Rdma;
import org.verbs4j.api.cm.CmException;
import org.verbs4j.api.cm.CmId;
import org.verbs4j.api.cm.ConnectionManager;
import org.verbs4j.api.cm.ConnectionParameters;
import org.verbs4j.api.cm.ConnectionRequest;
import org.verbs4j.lab.Race;

/**
 * rdma_cm waits racing a close, on the lab devices: a listener blocked in {@link CmId#awaitRequest} while its id
 * or its {@link ConnectionManager} is closed, and an {@link CmId#connect} to a peer that never answers while the
 * connecting id is closed. The documented ending of a wait is a {@link CmException} saying closed; a call
 * after the close throws {@link IllegalStateException}; the close returns, and ends the wait, within {@link #WAKE}.
 * {@link Race#REPS} repetitions per device in all, half of them each race.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class CmCloseRaceIT {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final Duration RESOLVE = Duration.ofSeconds(5);
    /** How soon a close must end the wait and return (the lab VM is slow; the promise is "at once"). */
    private static final Duration WAKE = Duration.ofSeconds(2);
    /**
     * siw's rdma_destroy_id of an id whose MPA request is unanswered blocks in the kernel for about 10 s (the
     * waiting connect is woken at once all the same): the close may take that long there.
     */
    private static final Duration SIW_DESTROY = Duration.ofSeconds(30);

    private static boolean iwarp(String device) {
        return Rdma.device(device).transportType() == org.verbs4j.api.TransportType.IWARP;
    }

    /**
     * The connect race's share of the CmId's repetitions: half, except on iWARP, where each close takes about
     * 10 s in the kernel (see {@link #SIW_DESTROY}): one in 20 there (10 of the default 200, at least 2), and the
     * await race makes up the rest.
     */
    private static int connectReps(String device) {
        return iwarp(device) ? Math.max(Math.min(2, Race.REPS / 2), Race.REPS / 20) : Race.REPS / 2;
    }
    /** How a wait ends when its id or manager is closed. */
    private static final Predicate<Throwable> WAIT_ENDED = Race.is(CmException.class, "closed");

    /** One repetition's listener, and the manager that closes when it is its own. */
    record Listening(ConnectionManager manager, CmId listener, boolean closeManager) {
    }

    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void awaitRequestRacesCloseOfItsIdAndOfItsManager(String device) {
        InetSocketAddress any = new InetSocketAddress(QpPair.ipOf(device), 0);
        try (ConnectionManager shared = Rdma.connectionManager()) {
            int[] rep = new int[1];
            Race.of(device + " CmId.awaitRequest vs CmId.close / ConnectionManager.close", () -> {
                boolean own = rep[0]++ % 2 == 1;
                ConnectionManager m = own ? Rdma.connectionManager() : shared;
                CmId l = m.createId();
                l.bind(any);
                l.listen(4);
                return new Listening(m, l, own);
            })
                    .racer(l -> l.listener.awaitRequest(WAIT))
                    .racerMayEndWith(WAIT_ENDED)
                    .closer(l -> {
                        if (l.closeManager) {
                            l.manager.close();
                        } else {
                            l.listener.close();
                        }
                    })
                    .delays(Duration.ofMillis(3), 0)
                    .wakesWithin(WAKE)
                    .reps(Race.REPS - connectReps(device))
                    .afterClose(l -> {
                        assertTrue(l.listener.isClosed(), "the listener is closed");
                        ClosedChecks.closedFor(l.listener, () -> l.listener.listen(4));
                        if (l.closeManager) {
                            assertTrue(l.manager.isClosed(), "the manager is closed");
                            ClosedChecks.closedFor(l.manager, l.manager::createId);
                        }
                    })
                    .cleanup(l -> QpPair.closeAllQuietly(null, l.listener, l.closeManager ? l.manager : null))
                    .run();
        }
    }

    /** A server that takes connection requests and never answers them, so that a connect waits. */
    static final class SilentServer implements AutoCloseable {
        final ConnectionManager manager = Rdma.connectionManager();
        final CmId listener = manager.createId();
        final Queue<CmId> held = new ConcurrentLinkedQueue<>();
        private final Thread taker;
        private volatile boolean stop;

        SilentServer(InetSocketAddress at) {
            listener.bind(at);
            listener.listen(64);
            taker = new Thread(() -> {
                while (!stop) {
                    try {
                        ConnectionRequest r = listener.awaitRequest(Duration.ofMillis(200));
                        held.add(r.id());
                    } catch (CmException | IllegalStateException e) {
                        // a time-out, or the close below
                    }
                }
            }, "silent-cm-server");
            taker.setDaemon(true);
            taker.start();
        }

        /** Rejects and closes the requests taken so far. */
        void dropHeld() {
            for (CmId id; (id = held.poll()) != null; ) {
                try {
                    id.reject(null);
                } catch (RuntimeException e) {
                    // the client's id is gone already: closing is all that is left
                }
                id.close();
            }
        }

        @Override
        public void close() throws InterruptedException {
            stop = true;
            taker.join(5000);
            dropHeld();
            manager.close();
        }
    }

    /** One repetition's connecting id, with its QP. */
    record Connecting(CmId id, QueuePair qp) {
    }

    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void connectToASilentPeerRacesClose(String device) throws Exception {
        InetSocketAddress at = new InetSocketAddress(QpPair.ipOf(device), QpPair.nextCmPort());
        ProtectionDomain[] pd = new ProtectionDomain[1];
        CompletionQueue[] cq = new CompletionQueue[1];
        try (SilentServer server = new SilentServer(at); ConnectionManager cm = Rdma.connectionManager()) {
            try {
                Race.of(device + " CmId.connect (silent peer) vs CmId.close", () -> {
                    CmId id = cm.createId();
                    id.resolveAddress(at, RESOLVE);
                    id.resolveRoute(RESOLVE);
                    if (pd[0] == null) {
                        pd[0] = id.context().allocProtectionDomain();
                        cq[0] = id.context().createCompletionQueue(16);
                    } else if (pd[0].context() != id.context()) {
                        fail("librdmacm opened another context for " + device);
                    }
                    QueuePair qp = id.createQueuePair(pd[0], new QpInitAttributes(QpType.RC, cq[0], cq[0])
                            .maxSendWr(4).maxRecvWr(4));
                    return new Connecting(id, qp);
                })
                        .racer(c -> {
                            c.id.connect(ConnectionParameters.defaults(), WAIT);
                            fail("connect returned, but the peer never accepts");
                        })
                        .racerMayEndWith(WAIT_ENDED)
                        .closer(c -> c.id.close())
                        .delays(Duration.ofMillis(3), 0)
                        .wakesWithin(WAKE)
                        .closesWithin(iwarp(device) ? SIW_DESTROY : WAKE)
                        .reps(connectReps(device))
                        .afterClose(c -> {
                            assertTrue(c.id.isClosed(), "the id is closed");
                            assertTrue(c.qp.isClosed(), "the id's close closed its queue pair");
                            ClosedChecks.closedFor(c.id, () -> c.id.connect(ConnectionParameters.defaults(), WAIT));
                        })
                        .cleanup(c -> {
                            QpPair.closeAllQuietly(null, c.id);
                            server.dropHeld();
                        })
                        .run();
            } finally {
                QpPair.closeAllQuietly(null, cq[0], pd[0]);
            }
        }
    }
}
