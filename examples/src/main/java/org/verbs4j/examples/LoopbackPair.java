package org.verbs4j.examples;

import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.QueuePair;
import org.verbs4j.api.ReceiveRequests;
import org.verbs4j.api.SendRequests;
import org.verbs4j.api.WorkCompletions;

/**
 * What the {@link Loopback} steps work on: the two connected QPs (A and B), their regions, the CQ both share
 * and one request array of each kind, and where each step's data sits in the regions (one buffer per QP, the
 * same layout on both sides).
 */
final class LoopbackPair {
    final QueuePair a;
    final QueuePair b;
    final MemoryRegion ma;
    final MemoryRegion mb;
    final CompletionQueue cq;
    final SendRequests wr;
    final ReceiveRequests rr;
    final WorkCompletions wc;
    final int size;
    final long sendOff = 0;
    final long recvOff;
    final long rdmaOff;
    final long atomicOff;

    LoopbackPair(int size, QueuePair a, QueuePair b, MemoryRegion ma, MemoryRegion mb, CompletionQueue cq,
            SendRequests wr, ReceiveRequests rr, WorkCompletions wc) {
        this.size = size;
        this.recvOff = size;
        this.rdmaOff = 2L * size;
        this.atomicOff = atomicOffset(size);
        this.a = a;
        this.b = b;
        this.ma = ma;
        this.mb = mb;
        this.cq = cq;
        this.wr = wr;
        this.rr = rr;
        this.wc = wc;
    }

    /** Atomics need an 8-byte aligned target: after the send, receive and RDMA areas. */
    private static long atomicOffset(int size) {
        return (3L * size + 7) & ~7L;
    }

    /** Bytes of each region: whole pages, so that both regions are page-aligned and the same size. */
    static long bufferLength(int size) {
        return (atomicOffset(size) + 64 + 4095) & ~4095L;
    }
}
