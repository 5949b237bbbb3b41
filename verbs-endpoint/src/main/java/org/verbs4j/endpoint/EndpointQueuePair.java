package org.verbs4j.endpoint;

import java.nio.ByteBuffer;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.Opcode;
import org.verbs4j.api.QpAttributes;
import org.verbs4j.api.QpCapabilities;
import org.verbs4j.api.QpState;
import org.verbs4j.api.QpType;
import org.verbs4j.api.SendFlags;
import org.verbs4j.api.SendRequests;

/**
 * The escape hatch to an endpoint's queue pair ({@link RdmaEndpoint#queuePair}): post work requests of your
 * own (RDMA WRITE and READ with your own scatter lists, atomics) through the endpoint, and query the QP, without
 * being able to break the endpoint's accounting.
 *
 * <pre>{@code
 * EndpointQueuePair qp = ep.queuePair();
 * try (SendRequests wrs = SendRequests.allocate(2, 1)) {
 *     qp.localSge(wrs.at(0).clear().wrId(1).opcode(Opcode.RDMA_WRITE).flags(SendFlags.SIGNALED), 0, 4096);
 *     qp.remoteTarget(wrs.at(0), 0, 4096);              // the peer's RDMA region at offset 0
 *     qp.localSge(wrs.at(1).clear().wrId(2).opcode(Opcode.RDMA_READ).flags(SendFlags.SIGNALED), 4096, 64);
 *     qp.remoteTarget(wrs.at(1), 8192, 64);
 *     wrs.count(2);
 *     qp.postSend(wrs);                                  // both complete through ep.pollSend
 * }
 * }</pre>
 *
 * <h2>Contract</h2>
 * <ul>
 * <li>{@link #postSend} takes RDMA WRITE, RDMA READ and the atomics only, each {@link SendFlags#SIGNALED}, with a
 * work request id other than {@link RdmaEndpoint#INTERNAL_WR_ID}; their completions come back through
 * {@link RdmaEndpoint#pollSend} and count against {@link EndpointOptions#sendDepth} like the endpoint's own
 * writes. A send, or an RDMA WRITE with immediate, takes one of the peer's receives, which only the endpoint's
 * credits may hand out: those go through {@link RdmaEndpoint#send}, {@link RdmaEndpoint#sendWithImmediate} and
 * {@link RdmaEndpoint#writeWithImmediate}. Anything else is refused before anything is posted.</li>
 * <li>There is no receive, no poll, no state change and no close here: the receive slots, both completion
 * queues and the connection stay the endpoint's.</li>
 * <li>The memory your requests name must be registered in the endpoint's protection domain: the endpoint's RDMA
 * region ({@link #localSge}) or a buffer of yours registered with {@link #registerMemory}. It must stay as it is
 * (sends) or untouched by Java (read sinks) until the completion arrives, as for every post.</li>
 * </ul>
 */
public final class EndpointQueuePair {
    private final RdmaEndpoint endpoint;
    private final EndpointResources resources;
    private final SendQueue sendQueue;

    EndpointQueuePair(RdmaEndpoint endpoint, EndpointResources resources, SendQueue sendQueue) {
        this.endpoint = endpoint;
        this.resources = resources;
        this.sendQueue = sendQueue;
    }

    /**
     * Posts {@code wrs.count()} chained requests of your own, after checking each against the contract above;
     * nothing is posted when one is refused.
     *
     * @param wrs the chain; its first {@code count()} requests are posted ({@code ibv_post_send})
     * @throws IllegalArgumentException a request that is a send, unsignaled, carries the endpoint's work request
     *                                  id, or has an opcode the endpoint cannot account for
     * @throws IllegalStateException    when the requests do not fit the operations still allowed in flight
     *                                  ({@link #room})
     */
    public void postSend(SendRequests wrs) {
        endpoint.enterCall();
        try {
            check(wrs);
            sendQueue.checkRoom(wrs.count());
            sendQueue.post(wrs, wrs.count());
        } finally {
            endpoint.leaveCall();
        }
    }

    /** Throws when {@code length} bytes at {@code offset} are not all inside the local RDMA region {@code mr}. */
    static void checkLocal(MemoryRegion mr, long offset, int length) {
        if (offset < 0 || length < 0 || offset > mr.length() - length) {
            throw new IndexOutOfBoundsException("local offset " + offset + " + " + length + " bytes is outside "
                    + "this side's " + mr.length() + "-byte RDMA region");
        }
    }

    /** The contract's checks on each request of the chain. */
    static void check(SendRequests wrs) {
        for (int i = 0; i < wrs.count(); i++) {
            SendRequests.SendRequest r = wrs.at(i);
            Opcode op = Opcode.of(r.opcodeValue());
            if (op == Opcode.SEND || op == Opcode.SEND_WITH_IMM || op == Opcode.SEND_WITH_INV
                    || op == Opcode.RDMA_WRITE_WITH_IMM) {
                throw new IllegalArgumentException("request " + i + " is a " + op.text() + ": it takes one of the "
                        + "peer's receives, which only the endpoint's credits hand out; use RdmaEndpoint.send, "
                        + "sendWithImmediate or writeWithImmediate");
            }
            if (op != Opcode.RDMA_WRITE && op != Opcode.RDMA_READ && op != Opcode.ATOMIC_CMP_AND_SWP
                    && op != Opcode.ATOMIC_FETCH_AND_ADD) {
                throw new IllegalArgumentException("request " + i + " has opcode " + (op == null
                        ? "value " + r.opcodeValue() : op.text()) + ": through an endpoint only RDMA WRITE, RDMA "
                        + "READ and atomics may be posted");
            }
            if ((r.flags() & SendFlags.SIGNALED) == 0) {
                throw new IllegalArgumentException("request " + i + " is not signaled: the endpoint counts the "
                        + "operations in flight by their completions, so set SendFlags.SIGNALED");
            }
            if (r.wrId() == RdmaEndpoint.INTERNAL_WR_ID) {
                throw new IllegalArgumentException("request " + i + ": work request id " + RdmaEndpoint.INTERNAL_WR_ID
                        + " is the endpoint's own (its credit writes)");
            }
        }
    }

    /** {@return the operations that may be posted now: {@link EndpointOptions#sendDepth} less those in flight} */
    public int room() {
        endpoint.checkOpen();
        return sendQueue.room();
    }

    /**
     * Sets {@code r}'s only scatter/gather entry to {@code length} bytes of the endpoint's RDMA region at
     * {@code offset} (bounds-checked); returns {@code r}.
     *
     * @param r      the request to fill
     * @param offset the offset in this side's RDMA region, in bytes
     * @param length the bytes to send or receive
     * @return {@code r}
     * @throws IndexOutOfBoundsException when the range is outside the region
     * @throws IllegalStateException     when the endpoint has no RDMA region or is closed
     */
    public SendRequests.SendRequest localSge(SendRequests.SendRequest r, long offset, int length) {
        endpoint.checkOpen();
        MemoryRegion mr = endpoint.requireRdmaRegion();
        checkLocal(mr, offset, length);
        return r.sge(mr.address() + offset, length, mr.lkey());
    }

    /**
     * Sets {@code r}'s RDMA target to the peer's RDMA region at {@code offset}, after checking that
     * {@code [offset, offset + length)} lies in it; returns {@code r}.
     *
     * @param r      the request to fill
     * @param offset the offset in the peer's RDMA region, in bytes
     * @param length the bytes the request reads or writes there
     * @return {@code r}
     * @throws IndexOutOfBoundsException when the range is outside the peer's region
     */
    public SendRequests.SendRequest remoteTarget(SendRequests.SendRequest r, long offset, int length) {
        endpoint.checkOpen();
        RemoteRegion remote = endpoint.remoteRegion();
        return r.rdma(remote.at(offset, length), remote.rkey());
    }

    /**
     * Registers a direct buffer of yours in the endpoint's protection domain, for the scatter lists of your
     * requests. The endpoint owns the region: it is closed with the endpoint (or earlier by you).
     *
     * @param directBuffer a direct buffer; all of it, 0 to its capacity, is registered (position and limit do not
     *                     matter)
     * @param access       {@link org.verbs4j.api.Access} flags
     * @return the registered region ({@code ibv_reg_mr})
     * @throws org.verbs4j.api.VerbsException when the registration fails (ENOMEM: see the memlock limit)
     */
    public MemoryRegion registerMemory(ByteBuffer directBuffer, int access) {
        endpoint.checkOpen();
        MemoryRegion mr = resources.pd.registerMemory(directBuffer, access);
        resources.userRegions.add(mr);
        return mr;
    }

    /** {@return the queue pair's number (what the peer addresses)} */
    public int qpNumber() {
        return resources.qp.qpNumber();
    }

    /** {@return {@link QpType#RC}: endpoints are reliable-connected} */
    public QpType type() {
        return resources.qp.type();
    }

    /** {@return what the device gave at creation: {@code max_send_wr}, {@code max_inline_data}, ...} */
    public QpCapabilities capabilities() {
        return resources.qp.capabilities();
    }

    /**
     * Queries the queue pair ({@code ibv_query_qp}).
     *
     * @param mask the attributes to read, {@link org.verbs4j.api.QpAttrMask} bits
     * @return the attributes
     * @throws org.verbs4j.api.VerbsException when the query fails
     */
    public QpAttributes query(int mask) {
        endpoint.checkOpen();
        return resources.qp.query(mask);
    }

    /** {@return the queue pair's current state (RTS while connected, ERROR once the connection broke)} */
    public QpState state() {
        endpoint.checkOpen();
        return resources.qp.state();
    }

    @Override
    public String toString() {
        return "queue pair 0x" + Integer.toHexString(qpNumber()) + " of " + endpoint;
    }
}
