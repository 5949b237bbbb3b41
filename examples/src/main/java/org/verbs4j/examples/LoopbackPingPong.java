package org.verbs4j.examples;

import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.Opcode;
import org.verbs4j.api.ReceiveRequests;
import org.verbs4j.api.SendFlags;
import org.verbs4j.api.SendRequests;
import org.verbs4j.api.WaitStrategy;
import org.verbs4j.api.WorkCompletions;

/** The {@link Loopback} example's last step: a timed SEND/RECV ping-pong between A and B. */
final class LoopbackPingPong extends LoopbackStep {
    private final int iters;

    LoopbackPingPong(LoopbackPair pair, LoopbackChecks checks, int iters) {
        super(pair, checks);
        this.iters = iters;
    }

    /**
     * A sends to B, B answers A, {@code iters} times; one thread busy-polls the shared CQ. Every request is
     * signaled, so each round trip has four completions; the loop allocates nothing. Each side's request and
     * buffers are set up once and posted again every round.
     */
    void run(String deviceName) {
        try (SendRequests sendA = SendRequests.allocate(1, 1); SendRequests sendB = SendRequests.allocate(1, 1);
                ReceiveRequests recvA = ReceiveRequests.allocate(1, 1);
                ReceiveRequests recvB = ReceiveRequests.allocate(1, 1)) {
            sendA.at(0).wrId(PP_SEND_A).opcode(Opcode.SEND).flags(SendFlags.SIGNALED)
                    .sge(s.ma.address() + s.sendOff, s.size, s.ma.lkey());
            sendB.at(0).wrId(PP_SEND_B).opcode(Opcode.SEND).flags(SendFlags.SIGNALED)
                    .sge(s.mb.address() + s.sendOff, s.size, s.mb.lkey());
            recvA.at(0).wrId(PP_RECV_A).sge(s.ma.address() + s.recvOff, s.size, s.ma.lkey());
            recvB.at(0).wrId(PP_RECV_B).sge(s.mb.address() + s.recvOff, s.size, s.mb.lkey());
            s.a.postReceive(recvA);
            s.b.postReceive(recvB);
            WaitStrategy spin = WaitStrategy.busySpin();
            PingPongState st = new PingPongState();
            long t0 = System.nanoTime();
            for (int i = 0; i < iters && st.error == null; i++) {
                s.ma.putInt(s.sendOff, i);
                s.a.postSend(sendA);
                awaitMessage(s, spin, st, PP_RECV_B, i, 2L * i + 1);
                s.b.postReceive(recvB);
                s.mb.putInt(s.sendOff, ~i);
                s.b.postSend(sendB);
                awaitMessage(s, spin, st, PP_RECV_A, ~i, 2L * i + 2);
                s.a.postReceive(recvA);
            }
            long elapsed = System.nanoTime() - t0;
            while (st.error == null && st.sends < 2L * iters) {
                drainOnce(s, spin, st, -1, 0);
            }
            check(st.error == null && st.received == 2L * iters && st.sends == 2L * iters, "ping-pong: "
                    + (st.error != null ? st.error : st.received + " receives and " + st.sends + " send completions of "
                    + 2L * iters));
            report(String.format("ping-pong: %d round trips of %d bytes (SEND/RECV A->B->A), every byte_len and sequence "
                    + "number checked; average %.1f us per round trip", iters, s.size, elapsed / 1e3 / iters));
            System.out.printf("      (loopback on one device, %s: both QPs polled by one thread; not a network "
                    + "latency)%n", deviceName);
        }
    }

    private static final long PP_SEND_A = 0x1001;
    private static final long PP_SEND_B = 0x1002;
    private static final long PP_RECV_A = 0x2001;
    private static final long PP_RECV_B = 0x2002;

    private static final class PingPongState {
        long sends;
        long received;
        boolean gotIt;
        String error;
    }

    /**
     * Polls until the receive {@code wrId} completed with the right length and sequence number, and the send
     * that carried it completed too: its buffer is rewritten next, which is allowed only after its completion.
     */
    private void awaitMessage(LoopbackPair s, WaitStrategy spin, PingPongState st, long wrId, int seq, long sends) {
        st.gotIt = false;
        while ((!st.gotIt || st.sends < sends) && st.error == null) {
            drainOnce(s, spin, st, wrId, seq);
        }
    }

    private void drainOnce(LoopbackPair s, WaitStrategy spin, PingPongState st, long wrId, int seq) {
        WorkCompletions wc = s.wc;
        int n = spin.await(s.cq, wc, WAIT_NANOS);
        if (n == 0) {
            st.error = "no completion within 10 s (" + st.received + " receives so far)";
            return;
        }
        for (int i = 0; i < n; i++) {
            long id = wc.wrId(i);
            if (!wc.ok(i)) {
                st.error = wc.toString(i);
            } else if (id == PP_SEND_A || id == PP_SEND_B) {
                st.sends++;
            } else if (id == wrId) {
                MemoryRegion mr = id == PP_RECV_B ? s.mb : s.ma;
                if (wc.byteLength(i) != s.size || mr.getInt(s.recvOff) != seq) {
                    st.error = "receive " + wc.toString(i) + " with sequence " + mr.getInt(s.recvOff) + ", expected "
                            + seq + " and byte_len " + s.size;
                }
                st.received++;
                st.gotIt = true;
            } else {
                st.error = "unexpected " + wc.toString(i);
            }
        }
    }
}
