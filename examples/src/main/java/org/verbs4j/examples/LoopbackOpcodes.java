package org.verbs4j.examples;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.verbs4j.api.CompletionChannel;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.Opcode;
import org.verbs4j.api.SendFlags;
import org.verbs4j.api.SendRequests.SendRequest;
import org.verbs4j.api.WaitStrategy;
import org.verbs4j.api.WcOpcode;

/**
 * The {@link Loopback} example's opcode steps: A sends, writes, reads and runs atomics on B, and each step
 * checks what arrived (bytes, completion opcode, byte_len, immediate data); then one blocking wait through the
 * completion channel.
 */
final class LoopbackOpcodes extends LoopbackStep {
    private static final int IMM = 0x12345678;

    LoopbackOpcodes(LoopbackPair pair, LoopbackChecks checks) {
        super(pair, checks);
    }

    /** Puts step {@code seed}'s pattern at {@code srcOff} of {@code src}, clears where it should arrive; returns it. */
    private byte[] stage(MemoryRegion src, long srcOff, MemoryRegion dst, long dstOff, int seed) {
        byte[] data = pattern(s.size, seed);
        src.putBytes(srcOff, data);
        dst.fill(dstOff, s.size, (byte) 0);
        return data;
    }

    /** A signaled request of the pair's {@code size} bytes from A's region at {@code localOff}, in the shared request array. */
    private SendRequest request(long wrId, Opcode opcode, long localOff) {
        return s.wr.at(0).clear().wrId(wrId).opcode(opcode).flags(SendFlags.SIGNALED)
                .sge(s.ma.address() + localOff, s.size, s.ma.lkey());
    }

    void send() {
        byte[] data = stage(s.ma, s.sendOff, s.mb, s.recvOff, 1);
        postReceive(s.b, s.rr, 0xB1, s.mb, s.recvOff, s.size);
        request(0xA1, Opcode.SEND, s.sendOff);
        s.a.postSend(s.wr);
        List<Completion> got = collect(s, WaitStrategy.busySpin(), 0xA1, 0xB1);
        expect(got.get(0), WcOpcode.SEND, s.a, "SEND send completion");
        Completion r = expect(got.get(1), WcOpcode.RECV, s.b, "SEND receive completion");
        boolean same = Arrays.equals(data, s.mb.getBytes(s.recvOff, s.size));
        check(same && r.byteLen == s.size && !r.hasImm, "SEND: bytes equal " + same + ", receive " + r);
        report(String.format("SEND: %d bytes compared; receive completion RECV, byte_len %d, no imm", s.size, r.byteLen));
    }

    void sendWithImm() {
        byte[] data = stage(s.ma, s.sendOff, s.mb, s.recvOff, 2);
        postReceive(s.b, s.rr, 0xB2, s.mb, s.recvOff, s.size);
        request(0xA2, Opcode.SEND_WITH_IMM, s.sendOff).immData(IMM);
        s.a.postSend(s.wr);
        List<Completion> got = collect(s, WaitStrategy.busySpin(), 0xA2, 0xB2);
        expect(got.get(0), WcOpcode.SEND, s.a, "SEND_WITH_IMM send completion");
        Completion r = expect(got.get(1), WcOpcode.RECV, s.b, "SEND_WITH_IMM receive completion");
        boolean same = Arrays.equals(data, s.mb.getBytes(s.recvOff, s.size));
        check(same && r.byteLen == s.size && r.hasImm && r.imm == IMM, "SEND_WITH_IMM: bytes equal " + same
                + ", receive " + r + ", expected imm 0x" + Integer.toHexString(IMM));
        report(String.format("SEND_WITH_IMM: %d bytes compared; receive completion RECV, byte_len %d, imm 0x%08x",
                s.size, r.byteLen, r.imm));
    }

    void rdmaWrite() {
        byte[] data = stage(s.ma, s.sendOff, s.mb, s.rdmaOff, 3);
        request(0xA3, Opcode.RDMA_WRITE, s.sendOff).rdma(s.mb.address() + s.rdmaOff, s.mb.rkey());
        s.a.postSend(s.wr);
        expect(collect(s, WaitStrategy.busySpin(), 0xA3).get(0), WcOpcode.RDMA_WRITE, s.a, "RDMA_WRITE completion");
        boolean same = Arrays.equals(data, s.mb.getBytes(s.rdmaOff, s.size));
        int extra = s.cq.poll(s.wc);
        check(same && extra == 0, "RDMA_WRITE: bytes equal " + same + ", unexpected completions " + extra);
        report(String.format("RDMA_WRITE: %d bytes compared at B's address 0x%x (rkey 0x%x); no receive consumed",
                s.size, s.mb.address() + s.rdmaOff, s.mb.rkey()));
    }

    void rdmaWriteWithImm() {
        byte[] data = stage(s.ma, s.sendOff, s.mb, s.rdmaOff, 4);
        // the data goes where the write says; the receive only takes the immediate: it needs no buffer
        s.rr.at(0).wrId(0xB4).numSge(0);
        s.b.postReceive(s.rr);
        request(0xA4, Opcode.RDMA_WRITE_WITH_IMM, s.sendOff).immData(IMM + 1)
                .rdma(s.mb.address() + s.rdmaOff, s.mb.rkey());
        s.a.postSend(s.wr);
        List<Completion> got = collect(s, WaitStrategy.busySpin(), 0xA4, 0xB4);
        expect(got.get(0), WcOpcode.RDMA_WRITE, s.a, "RDMA_WRITE_WITH_IMM send completion");
        Completion r = expect(got.get(1), WcOpcode.RECV_RDMA_WITH_IMM, s.b, "RDMA_WRITE_WITH_IMM receive completion");
        boolean same = Arrays.equals(data, s.mb.getBytes(s.rdmaOff, s.size));
        check(same && r.byteLen == s.size && r.hasImm && r.imm == IMM + 1, "RDMA_WRITE_WITH_IMM: bytes equal " + same
                + ", receive " + r);
        report(String.format("RDMA_WRITE_WITH_IMM: %d bytes compared; receive completion RECV_RDMA_WITH_IMM, byte_len %d, "
                + "imm 0x%08x", s.size, r.byteLen, r.imm));
    }

    void rdmaRead() {
        byte[] data = stage(s.mb, s.rdmaOff, s.ma, s.rdmaOff, 5);
        request(0xA5, Opcode.RDMA_READ, s.rdmaOff).rdma(s.mb.address() + s.rdmaOff, s.mb.rkey());
        s.a.postSend(s.wr);
        Completion c = expect(collect(s, WaitStrategy.busySpin(), 0xA5).get(0), WcOpcode.RDMA_READ, s.a,
                "RDMA_READ completion");
        boolean same = Arrays.equals(data, s.ma.getBytes(s.rdmaOff, s.size));
        check(same && c.byteLen == s.size, "RDMA_READ: bytes equal " + same + ", completion " + c);
        report(String.format("RDMA_READ: %d bytes compared; completion RDMA_READ, byte_len %d", s.size, c.byteLen));
    }

    void compareAndSwap() {
        long target = s.mb.address() + s.atomicOff;
        long swap = 0x1122334455667788L;
        s.mb.putLong(s.atomicOff, 42L);
        s.ma.putLong(s.atomicOff, -1L);
        s.wr.at(0).clear().wrId(0xA6).opcode(Opcode.ATOMIC_CMP_AND_SWP).flags(SendFlags.SIGNALED)
                .sge(s.ma.address() + s.atomicOff, 8, s.ma.lkey()).atomic(target, s.mb.rkey(), 42L, swap);
        s.a.postSend(s.wr);
        Completion c = expect(collect(s, WaitStrategy.busySpin(), 0xA6).get(0), WcOpcode.COMP_SWAP, s.a,
                "ATOMIC_CMP_AND_SWP completion");
        long old = s.ma.getLong(s.atomicOff);
        long now = s.mb.getLong(s.atomicOff);
        check(old == 42L && now == swap && c.byteLen == 8, String.format("ATOMIC_CMP_AND_SWP: returned %d (expected 42),"
                + " remote 0x%x (expected 0x%x), %s", old, now, swap, c));
        report(String.format("ATOMIC_CMP_AND_SWP: compare 42 matched, old value %d returned, remote now 0x%x; byte_len %d",
                old, now, c.byteLen));
    }

    void fetchAndAdd() {
        long target = s.mb.address() + s.atomicOff + 8;
        s.mb.putLong(s.atomicOff + 8, 1000L);
        s.ma.putLong(s.atomicOff + 8, -1L);
        s.wr.at(0).clear().wrId(0xA7).opcode(Opcode.ATOMIC_FETCH_AND_ADD).flags(SendFlags.SIGNALED)
                .sge(s.ma.address() + s.atomicOff + 8, 8, s.ma.lkey()).atomic(target, s.mb.rkey(), 5L, 0L);
        s.a.postSend(s.wr);
        Completion c = expect(collect(s, WaitStrategy.busySpin(), 0xA7).get(0), WcOpcode.FETCH_ADD, s.a,
                "ATOMIC_FETCH_AND_ADD completion");
        long old = s.ma.getLong(s.atomicOff + 8);
        long now = s.mb.getLong(s.atomicOff + 8);
        check(old == 1000L && now == 1005L && c.byteLen == 8, String.format("ATOMIC_FETCH_AND_ADD: returned %d "
                + "(expected 1000), remote %d (expected 1005), %s", old, now, c));
        report(String.format("ATOMIC_FETCH_AND_ADD: add 5 to 1000, old value %d returned, remote now %d; byte_len %d",
                old, now, c.byteLen));
    }

    /** Arm the CQ, post, sleep in ibv_get_cq_event until the channel fires, then collect with blocking(). */
    void blockingWait(CompletionChannel channel) {
        check(s.cq.poll(s.wc) == 0, "CQ not empty before the blocking wait");
        byte[] data = stage(s.ma, s.sendOff, s.mb, s.recvOff, 6);
        postReceive(s.b, s.rr, 0xB8, s.mb, s.recvOff, s.size);
        s.cq.requestNotify(false);
        request(0xA8, Opcode.SEND, s.sendOff);
        s.a.postSend(s.wr);
        long t0 = System.nanoTime();
        CompletionQueue fired = channel.awaitEvent(10, TimeUnit.SECONDS);
        long woke = System.nanoTime() - t0;
        check(fired == s.cq, "completion channel: expected an event for the CQ within 10 s, got " + fired);
        List<Completion> got = collect(s, WaitStrategy.blocking(), 0xA8, 0xB8);
        expect(got.get(0), WcOpcode.SEND, s.a, "blocking SEND completion");
        Completion r = expect(got.get(1), WcOpcode.RECV, s.b, "blocking receive completion");
        boolean same = Arrays.equals(data, s.mb.getBytes(s.recvOff, s.size));
        check(same && r.byteLen == s.size, "blocking wait: bytes equal " + same + ", receive " + r);
        report(String.format("blocking wait: CQ armed, event on channel fd %d after %.0f us, WaitStrategy.blocking() "
                + "collected SEND + RECV; %d bytes compared, byte_len %d", channel.fd(), woke / 1e3, s.size, r.byteLen));
    }
}
