package org.verbs4j.it;

import org.verbs4j.lab.QpPair;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.verbs4j.lab.QpPair.pattern;
import static org.verbs4j.lab.QpPair.take;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.verbs4j.api.AsyncEvent;
import org.verbs4j.api.AsyncEventType;
import org.verbs4j.api.DeviceAttributes;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.Errno;
import org.verbs4j.api.Opcode;
import org.verbs4j.api.Rdma;
import org.verbs4j.api.ReceiveRequests;
import org.verbs4j.api.SendFlags;
import org.verbs4j.api.SendRequests;
import org.verbs4j.api.SrqAttributes;
import org.verbs4j.api.VerbsException;
import org.verbs4j.api.WcOpcode;
import org.verbs4j.api.WcStatus;
import org.verbs4j.lab.QpPair.Side;
import org.verbs4j.lab.QpPair.Wc;

/**
 * A shared receive queue feeding both QPs of a pair: receives posted once on the SRQ complete for whichever
 * QP a message arrived on (qp_num says which), and the limit event fires when the SRQ runs low.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class CoreVerbsSrqIT {
    private static final int SLOT = 1024;

    static DeviceAttributes attributes(String device) {
        try (DeviceContext ctx = Rdma.open(device)) {
            return ctx.queryDevice();
        }
    }

    private static void postOnSrq(QpPair p, ReceiveRequests r, int first, int n) {
        for (int i = 0; i < n; i++) {
            int id = first + i;
            r.at(i).wrId(id).sge(p.b.mr.address() + (long) (id % 32) * SLOT, SLOT, p.b.mr.lkey());
        }
        r.count(n);
        p.srq.postReceive(r);
    }

    /** Sends {@code len} bytes of pattern {@code seed} from {@code from}'s buffer to its peer. */
    private static void send(QpPair p, Side from, SendRequests s, long wrId, int len, int seed) {
        long at = (32 + wrId % 8) * SLOT; // sources above the SRQ's receive slots (B's buffer holds both)
        from.mr.putBytes(at, pattern(len, seed));
        s.at(0).wrId(wrId).opcode(Opcode.SEND).flags(SendFlags.SIGNALED).sge(from.mr.address() + at, len,
                from.mr.lkey());
        from.qp.postSend(s);
    }

    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void receivesPostedOnTheSrqCompleteForBothQueuePairs(String device) {
        DeviceAttributes dev = attributes(device);
        assumeTrue(dev.supportsSrq(), device + " has max_srq 0: no shared receive queues");
        try (QpPair p = QpPair.open(device, new QpPair.Options().srq(64)); SendRequests s = SendRequests.allocate(1, 1);
                ReceiveRequests r = ReceiveRequests.allocate(16, 1)) {
            assertSame(p.srq, p.a.qp.srq());
            assertSame(p.srq, p.b.qp.srq());
            SrqAttributes q = query(p);
            if (q != null) {
                assertTrue(q.maxWr() >= 64, "max_wr " + q);
                assertEquals(0, q.limit(), "not armed: " + q);
            }
            // receives come from the SRQ: posting them on the QP is refused, clearly
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> p.a.qp.postReceive(r));
            assertTrue(e.getMessage().contains("SharedReceiveQueue"), e.getMessage());

            postOnSrq(p, r, 0, 8);
            // A -> B first (on iWARP the active side, the client, must send first), then B -> A, A -> B, B -> A
            send(p, p.a, s, 1, 100, 1);
            List<Wc> onB = new ArrayList<>(take(p.b.cq, 1));
            send(p, p.b, s, 2, 200, 2);
            send(p, p.a, s, 3, 300, 3);
            send(p, p.b, s, 4, 400, 4);
            Map<Integer, Integer> lengthBySeed = Map.of(1, 100, 2, 200, 3, 300, 4, 400);
            List<Wc> onA = take(p.a.cq, 4);
            onB.addAll(take(p.b.cq, 3));
            List<Wc> receives = new ArrayList<>();
            for (Wc w : concat(onA, onB)) {
                assertEquals(WcStatus.SUCCESS, w.status(), w.toString());
                if (w.opcode() == WcOpcode.RECV) {
                    receives.add(w);
                } else {
                    assertEquals(WcOpcode.SEND, w.opcode(), w.toString());
                }
            }
            assertEquals(4, receives.size(), "four receives: " + onA + " " + onB);
            Map<Long, Integer> receivedBy = new HashMap<>();
            for (Wc w : receives) {
                assertTrue(w.wrId() >= 0 && w.wrId() < 4, "the first four SRQ receives are used, in order: " + w);
                assertTrue(receivedBy.put(w.wrId(), w.qpNum()) == null, "each SRQ receive is used once: " + receives);
            }
            int countA = 0;
            for (Wc w : receives) {
                // which message landed in this receive? the one sent to the QP in qp_num
                boolean forA = w.qpNum() == p.a.qp.qpNumber();
                assertTrue(forA || w.qpNum() == p.b.qp.qpNumber(), "qp_num is one of the pair's: " + w);
                countA += forA ? 1 : 0;
                byte[] got = p.b.mr.getBytes(w.wrId() * SLOT, w.byteLen());
                int seed = -1;
                for (int k = 1; k <= 4; k++) {
                    if (lengthBySeed.get(k) == w.byteLen() && java.util.Arrays.equals(pattern(w.byteLen(), k), got)) {
                        seed = k;
                    }
                }
                assertTrue(seed > 0, "receive " + w + " holds one of the sent messages");
                // B sent seeds 2 and 4 (received by A), A sent 1 and 3 (received by B)
                assertEquals(forA, seed % 2 == 0, "message " + seed + " completed on the QP it was sent to: " + w);
            }
            assertEquals(2, countA, "two receives completed for A, two for B: " + receives);
            assertTrue(onA.stream().anyMatch(w -> w.opcode() == WcOpcode.RECV && w.qpNum() == p.a.qp.qpNumber()));
        }
    }

    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void limitEventWhenTheSrqRunsLow(String device) throws InterruptedException {
        DeviceAttributes dev = attributes(device);
        assumeTrue(dev.supportsSrq(), device + " has max_srq 0: no shared receive queues");
        try (QpPair p = QpPair.open(device, new QpPair.Options().srq(64)); SendRequests s = SendRequests.allocate(1, 1);
                ReceiveRequests r = ReceiveRequests.allocate(16, 1)) {
            List<AsyncEvent> events = new CopyOnWriteArrayList<>();
            CountDownLatch limit = new CountDownLatch(1);
            p.ctx.setAsyncEventListener(ev -> {
                events.add(ev);
                if (ev.type() == AsyncEventType.SRQ_LIMIT_REACHED) {
                    limit.countDown();
                }
            });
            try {
                postOnSrq(p, r, 0, 6);
                try {
                    p.srq.armLimit(4);
                } catch (VerbsException e) {
                    assertTrue(e.errno() == Errno.EOPNOTSUPP || e.errno() == Errno.EINVAL, e.getMessage());
                    Assumptions.abort(device + " cannot arm the SRQ limit (ibv_modify_srq IBV_SRQ_LIMIT): " + e.getMessage());
                }
                SrqAttributes armed = query(p);
                if (armed != null) {
                    assertEquals(4, armed.limit(), "armed limit reads back");
                }
                // 6 posted; the first receive leaves 5, the second 4, the third 3 < 4: the event
                send(p, p.a, s, 1, 64, 1);
                send(p, p.a, s, 2, 64, 2);
                take(p.b.cq, 2);
                take(p.a.cq, 2);
                assertEquals(0, eventsOfType(events, AsyncEventType.SRQ_LIMIT_REACHED),
                        "no limit event while 4 receives are left: " + events);
                send(p, p.a, s, 3, 64, 3);
                take(p.b.cq, 1);
                take(p.a.cq, 1);
                assertTrue(limit.await(20, TimeUnit.SECONDS), device + ": no SRQ_LIMIT_REACHED within 20 s after the SRQ "
                        + "fell below its limit; events: " + events);
                AsyncEvent ev = events.stream().filter(x -> x.type() == AsyncEventType.SRQ_LIMIT_REACHED).findFirst()
                        .orElseThrow();
                assertSame(p.srq, ev.sharedReceiveQueue(), "the event names the SRQ object: " + ev);
                assertEquals("SRQ limit reached", ev.type().text());
                SrqAttributes after = query(p);
                System.out.println(device + ": SRQ after the limit event: " + after + "; events " + events);
                // the event is one-shot: it disarms the limit (rxe reads back 0)
                QpPair.sleep(300);
                send(p, p.a, s, 4, 64, 4);
                take(p.b.cq, 1);
                take(p.a.cq, 1);
                QpPair.sleep(300);
                assertEquals(1, eventsOfType(events, AsyncEventType.SRQ_LIMIT_REACHED), "one-shot: " + events);
            } finally {
                p.ctx.setAsyncEventListener(null);
            }
        }
    }

    /**
     * {@code ibv_query_srq}, or null where the provider does not implement it: siw's (rdma-core 44) returns
     * EOPNOTSUPP, which verbs4j reports as a clear VerbsException.
     */
    static SrqAttributes query(QpPair p) {
        try {
            return p.srq.query();
        } catch (VerbsException e) {
            assertEquals(Errno.EOPNOTSUPP, e.errno(), e.getMessage());
            assertEquals("ibv_query_srq", e.verb());
            assertTrue(e.hint().contains("does not support"), e.getMessage());
            System.out.println("OBSERVED " + p.device + ": " + e.getMessage());
            return null;
        }
    }


    private static long eventsOfType(List<AsyncEvent> events, AsyncEventType t) {
        return events.stream().filter(e -> e.type() == t).count();
    }

    private static <T> List<T> concat(List<T> x, List<T> y) {
        List<T> all = new ArrayList<>(x);
        all.addAll(y);
        return all;
    }
}
