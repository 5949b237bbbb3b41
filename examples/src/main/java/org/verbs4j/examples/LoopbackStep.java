package org.verbs4j.examples;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.QueuePair;
import org.verbs4j.api.ReceiveRequests;
import org.verbs4j.api.WaitStrategy;
import org.verbs4j.api.WcOpcode;
import org.verbs4j.api.WcStatus;
import org.verbs4j.examples.LoopbackChecks.Failure;

/** What the {@link Loopback} steps share: the pair's layout, collecting completions, and the checks. */
abstract class LoopbackStep {
    static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);

    /** The pair every step works on. */
    final LoopbackPair s;
    final LoopbackChecks checks;

    LoopbackStep(LoopbackPair pair, LoopbackChecks checks) {
        this.s = pair;
        this.checks = checks;
    }

    /** One work completion copied out of the batch. */
    static final class Completion {
        long wrId;
        WcStatus status;
        WcOpcode opcode;
        int byteLen;
        boolean hasImm;
        int imm;
        int qpNum;
        String text;

        @Override
        public String toString() {
            return text;
        }
    }

    static void postReceive(QueuePair qp, ReceiveRequests rr, long wrId, MemoryRegion mr, long offset, int len) {
        rr.at(0).wrId(wrId).sge(mr.address() + offset, len, mr.lkey());
        qp.postReceive(rr);
    }

    /**
     * Waits with {@code wait} until a completion arrived for each of {@code wrIds}; returns them in that order.
     * A failed or unexpected completion, or 10 s without one, ends the run.
     */
    static List<Completion> collect(LoopbackPair s, WaitStrategy wait, long... wrIds) {
        Completion[] out = new Completion[wrIds.length];
        int have = 0;
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (have < wrIds.length) {
            int n = wait.await(s.cq, s.wc, Math.max(0, deadline - System.nanoTime()));
            if (n == 0) {
                throw new Failure(have + " of " + wrIds.length + " completions after 10 s");
            }
            for (int i = 0; i < n; i++) {
                Completion c = new Completion();
                c.wrId = s.wc.wrId(i);
                c.status = s.wc.status(i);
                c.opcode = s.wc.ok(i) ? s.wc.opcode(i) : null;
                c.byteLen = s.wc.byteLength(i);
                c.hasImm = s.wc.hasImmData(i);
                c.imm = c.hasImm ? s.wc.immData(i) : 0;
                c.qpNum = s.wc.qpNum(i);
                c.text = s.wc.toString(i);
                if (c.status != WcStatus.SUCCESS) {
                    throw new Failure("completion failed: " + c.text + " (" + (c.status == null ? "?" : c.status.text())
                            + ")");
                }
                int k = indexOf(wrIds, c.wrId);
                if (k < 0 || out[k] != null) {
                    throw new Failure("unexpected completion " + c.text);
                }
                out[k] = c;
                have++;
            }
        }
        return List.of(out);
    }

    static int indexOf(long[] ids, long id) {
        for (int i = 0; i < ids.length; i++) {
            if (ids[i] == id) {
                return i;
            }
        }
        return -1;
    }

    Completion expect(Completion c, WcOpcode opcode, QueuePair qp, String what) {
        check(c.opcode == opcode && c.qpNum == qp.qpNumber(), what + ": expected " + opcode + " on QP 0x"
                + Integer.toHexString(qp.qpNumber()) + ", got " + c);
        return c;
    }

    void check(boolean passed, String what) {
        checks.check(passed, what);
    }

    void report(String step) {
        checks.report(step);
    }

    /** A recognisable byte pattern per step. */
    static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (seed * 31 + i * 7 + (i >>> 8));
        }
        return b;
    }
}
