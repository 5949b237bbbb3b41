package org.verbs4j.softiwarp;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.verbs4j.api.Access;
import org.verbs4j.api.CompletionWaitSet;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.Opcode;
import org.verbs4j.api.ReceiveRequests;
import org.verbs4j.api.SendRequests;
import org.verbs4j.api.WorkCompletions;

/**
 * A thread waits on a completion channel (or a wait set) in a loop, asleep on its QP's socket and delivering what
 * arrives, while the peer sends to it, and the QP, the CQ and the channel are closed under it at a random moment,
 * in their dependency order: every wait returns or throws {@link IllegalStateException} saying closed, every close
 * returns, nothing hangs, and no other exception escapes.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ChannelWaitCloseRaceTest {
    private static final int REPS = 40;

    @Test
    void closingUnderAChannelWaiterThatReadsItsSocket() throws Exception {
        race(false);
    }

    @Test
    void closingUnderAWaitSetWaiterThatReadsItsSocket() throws Exception {
        race(true);
    }

    private static void race(boolean viaSet) throws Exception {
        int asleepAtClose = 0;
        for (int rep = 0; rep < REPS; rep++) {
            ConnectedPair p = new ConnectedPair(16, DataPathTest.SETTINGS, true, false, false);
            CompletionWaitSet set = viaSet ? p.b.ctx.createCompletionWaitSet() : null;
            if (set != null) {
                set.add(p.b.channel);
            }
            MemoryRegion ma = p.a.memory(64, Access.LOCAL_WRITE);
            MemoryRegion mb = p.b.memory(64, Access.LOCAL_WRITE);
            try (ReceiveRequests r = ReceiveRequests.allocate(1, 1)) {
                for (int i = 0; i < 16; i++) {
                    r.count(1).at(0).clear().wrId(i).sge(mb, 0, 64);
                    p.b.qp.postReceive(r);
                }
            }
            AtomicReference<Throwable> unexpected = new AtomicReference<>();
            AtomicBoolean stop = new AtomicBoolean();
            Thread waiter = new Thread(() -> {
                try (WorkCompletions w = WorkCompletions.allocate(4)) {
                    while (!stop.get()) {
                        p.b.cq.requestNotify(false);
                        if (set != null) {
                            set.await(50, TimeUnit.MILLISECONDS);
                        } else {
                            p.b.channel.awaitEvent(50, TimeUnit.MILLISECONDS);
                        }
                        p.b.cq.poll(w);
                    }
                } catch (IllegalStateException e) {
                    if (!String.valueOf(e.getMessage()).contains("closed")) {
                        unexpected.set(e);
                    }
                } catch (Throwable t) {
                    unexpected.set(t);
                }
            }, "channel waiter");
            Thread sender = new Thread(() -> {
                try (SendRequests s = SendRequests.allocate(1, 1)) {
                    s.count(1).at(0).clear().wrId(1).opcode(Opcode.SEND).sge(ma, 0, 8);
                    for (int i = 0; i < 12 && !stop.get(); i++) {
                        p.a.qp.postSend(s); // B's receives run out after 16 and its QP errs: allowed here
                        Thread.sleep(0, 200_000);
                    }
                } catch (IllegalStateException | org.verbs4j.api.VerbsException e) {
                    // the peer's QP went away: A's QP errs
                } catch (Throwable t) {
                    unexpected.set(t);
                }
            }, "sender");
            waiter.start();
            sender.start();
            java.util.concurrent.locks.LockSupport.parkNanos(ThreadLocalRandom.current().nextInt(3_000_000));
            long start = System.nanoTime();
            asleepAtClose += p.b.qp.dataPath().waiterAsleep() ? 1 : 0;
            p.b.qp.close();
            p.b.cq.close();
            if (set != null) {
                set.remove(p.b.channel);
            }
            p.b.channel.close();
            if (set != null) {
                set.close();
            }
            stop.set(true);
            waiter.join(5_000);
            sender.join(5_000);
            assertFalse(waiter.isAlive() || sender.isAlive(), "rep " + rep + ": a thread hangs");
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5), "rep " + rep + ": the closes hung");
            if (unexpected.get() != null) {
                throw new AssertionError("rep " + rep + " (" + (viaSet ? "set" : "channel") + ")", unexpected.get());
            }
            mb.close();
            ma.close();
            p.close();
        }
        // the race is the one meant: the waiter was asleep on the QP's socket when its QP closed, often
        assertTrue(asleepAtClose >= REPS / 4, "the waiter slept on the socket at " + asleepAtClose + " closes of " + REPS);
    }
}
