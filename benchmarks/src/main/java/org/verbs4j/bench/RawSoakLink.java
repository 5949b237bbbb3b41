package org.verbs4j.bench;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.Opcode;
import org.verbs4j.api.ReceiveRequests;
import org.verbs4j.api.SendFlags;
import org.verbs4j.api.SendRequests;
import org.verbs4j.api.WorkCompletions;
import org.verbs4j.bench.soak.SoakLink;

/**
 * The soak tool's raw-verbs pair ({@code verbs4j-soak}'s {@code raw-*} kinds): two RC queue pairs of
 * {@link ConnectedQueuePairs} (by hand on RoCE, through rdma_cm on iWARP), driven through
 * {@code ibv_post_send}, {@code ibv_post_recv} and {@code ibv_poll_cq} with one prepared work request each. It
 * lives in this package to reuse that set-up. The requester is {@code A}, the responder {@code B}; B's buffer
 * holds the ring, then its receive slots. A send is posted only while B has a receive posted for it, the way
 * an endpoint's credits do it (iWARP has no receiver-not-ready retry).
 */
public final class RawSoakLink implements SoakLink {
    private final ConnectedQueuePairs pair;
    private final Layout layout;
    private final int size;
    private final SendRequests send;
    private final ReceiveRequests recv;
    private final ByteBuffer requester;
    private final ByteBuffer responder;
    private final ByteBuffer[] sendViews;
    private final ByteBuffer[] receiveViews;
    private final MemoryRegion a;
    private final MemoryRegion b;
    private final long receiveBase;
    private long sent;
    private long receivesPosted;

    private RawSoakLink(ConnectedQueuePairs pair, Layout layout) {
        this.pair = pair;
        this.layout = layout;
        this.size = layout.messageSize();
        int depth = layout.depth();
        this.a = pair.a.mr();
        this.b = pair.b.mr();
        this.requester = a.buffer();
        this.responder = b.buffer();
        this.receiveBase = layout.ringBytes();
        this.sendViews = new ByteBuffer[depth];
        this.receiveViews = new ByteBuffer[depth];
        for (int i = 0; i < depth; i++) {
            sendViews[i] = requester.slice(i * size, size);
            receiveViews[i] = responder.slice((int) receiveBase + i * size, size);
        }
        this.send = SendRequests.allocate(1, 1);
        this.recv = ReceiveRequests.allocate(1, 1);
        send.count(1);
        recv.count(1);
        for (int slot = 0; slot < depth; slot++) {
            postReceive(slot);
        }
    }

    /**
     * The address rdma_cm reaches {@code device} at when none is given: {@code -Dverbs4j.cmAddress}, else the
     * fabric lab's ({@code FABRIC_LAB_RXE_IP}, {@code FABRIC_LAB_SIW_IP}).
     *
     * @throws IllegalArgumentException when there is none
     */
    public static InetAddress labAddress(String device) {
        return ConnectedQueuePairs.cmAddress(device);
    }

    /**
     * Connects two queue pairs on {@code device} with room for {@code layout.depth()} operations in flight,
     * and buffers for the slots, the ring and the receives.
     *
     * @param cmAddress the device's address, where the pair connects through rdma_cm (iWARP); it stands for
     *        {@code -Dverbs4j.cmAddress} while the pair connects, and the property is restored after
     */
    public static RawSoakLink open(String device, InetAddress cmAddress, Layout layout) {
        int depth = layout.depth();
        long buffer = layout.ringBytes() + (long) depth * layout.messageSize() + layout.requesterBytes();
        String before = System.getProperty(ConnectedQueuePairs.CM_ADDRESS_PROPERTY);
        System.setProperty(ConnectedQueuePairs.CM_ADDRESS_PROPERTY, cmAddress.getHostAddress());
        ConnectedQueuePairs p;
        try {
            p = ConnectedQueuePairs.open(device, new ConnectedQueuePairs.Shape(2 * depth + 16, depth, depth, 0, buffer));
        } finally {
            if (before == null) {
                System.clearProperty(ConnectedQueuePairs.CM_ADDRESS_PROPERTY);
            } else {
                System.setProperty(ConnectedQueuePairs.CM_ADDRESS_PROPERTY, before);
            }
        }
        try {
            if (p.a.mr().buffer() == null || p.b.mr().buffer() == null) {
                throw new IllegalStateException(device + ": the soak buffers have no ByteBuffer view");
            }
            return new RawSoakLink(p, layout);
        } catch (RuntimeException e) {
            p.close();
            throw e;
        }
    }

    private void postReceive(int slot) {
        recv.at(0).wrId(slot).sge(b.address() + receiveBase + (long) slot * size, size, b.lkey());
        pair.b.qp().postReceive(recv);
        receivesPosted++;
    }

    private void post(Opcode op, long wrId, long local, long remote) {
        send.at(0).clear().wrId(wrId).opcode(op).flags(SendFlags.SIGNALED).sge(a.address() + local, size, a.lkey());
        if (op != Opcode.SEND) {
            send.at(0).rdma(b.address() + remote, b.rkey());
        }
        pair.a.qp().postSend(send);
    }

    @Override
    public String description() {
        return "raw verbs: " + pair.description;
    }

    @Override
    public Layout layout() {
        return layout;
    }

    @Override
    public ByteBuffer requesterMemory() {
        return requester;
    }

    @Override
    public ByteBuffer responderMemory() {
        return responder;
    }

    @Override
    public ByteBuffer sendSlot(int slot) {
        return sendViews[slot].clear();
    }

    @Override
    public boolean trySend(int slot) {
        if (sent >= receivesPosted) {
            return false;
        }
        post(Opcode.SEND, slot, (long) slot * size, 0);
        sent++;
        return true;
    }

    @Override
    public void write(int localSlot, int ringSlot, long wrId) {
        post(Opcode.RDMA_WRITE, wrId, (long) localSlot * size, (long) ringSlot * size);
    }

    @Override
    public void read(int localSlot, int ringSlot, long wrId) {
        post(Opcode.RDMA_READ, wrId, (long) localSlot * size, (long) ringSlot * size);
    }

    @Override
    public int pollRequester(WorkCompletions wc) {
        return pair.a.sendCq().poll(wc);
    }

    @Override
    public int pollResponder(WorkCompletions wc) {
        return pair.b.recvCq().poll(wc);
    }

    @Override
    public ByteBuffer received(WorkCompletions wc, int i) {
        return receiveViews[(int) wc.wrId(i)].clear().limit(wc.byteLength(i));
    }

    @Override
    public void repost(WorkCompletions wc, int i) {
        postReceive((int) wc.wrId(i));
    }

    @Override
    public void close() {
        IllegalStateException failure = new IllegalStateException("closing " + description());
        LoopbackQueuePair.closeAll(failure, send, recv, pair);
        if (failure.getSuppressed().length > 0) {
            throw failure;
        }
    }

    @Override
    public String toString() {
        return description();
    }
}
