package org.verbs4j.jnr;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.verbs4j.api.cm.CmEvent;
import org.verbs4j.api.cm.CmEventType;
import org.verbs4j.api.cm.CmException;
import org.verbs4j.api.cm.ConnectionParameters;
import org.verbs4j.api.cm.PortSpace;

/**
 * The event state of one {@code rdma_cm_id}: the event thread of its {@link CmEventChannel} fills one
 * result slot per kind of wait (address, route, connection, disconnect, multicast join) and the queue of
 * connection requests, and signals; each waiting call checks its slot, the failure (close,
 * DEVICE_REMOVAL, the event thread's end) and its deadline. Holds no reference to the {@link JnrCmId}
 * (the event thread keeps the states, and must not keep the ids from being found unreachable).
 */
final class CmIdState {
    static final int ADDR = 0;
    static final int ROUTE = 1;
    static final int CONN = 2;
    static final int DISC = 3;
    static final int MCAST = 4;
    private static final Logger LOG = LoggerFactory.getLogger(CmIdState.class);

    /** A CONNECT_REQUEST not yet taken by {@code awaitRequest}: the new id's state and the peer's parameters. */
    record PendingRequest(CmIdState state, ConnectionParameters parameters) {
    }

    final long id;
    final PortSpace portSpace;
    private final LibRdmacm cm;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final CmEvent[] slots = new CmEvent[5];
    private final ArrayDeque<PendingRequest> requests = new ArrayDeque<>();
    private long pendingJoin;
    private boolean closed;
    private String failure;
    private CmEventType failureEvent;
    private int failureStatus;
    private volatile boolean disconnectCalled;
    /** Set by the DISCONNECTED event: read without the lock by loops that wait for the peer. */
    volatile boolean disconnected;
    /** The peer's address, for messages ("" until known). */
    volatile String peer = "";

    CmIdState(LibRdmacm cm, long id, PortSpace portSpace) {
        this.cm = cm;
        this.id = id;
        this.portSpace = portSpace;
    }

    // ---- called by the event thread ----

    void onEvent(CmEvent e) {
        if (e.type() == null) {
            return;
        }
        lock.lock();
        try {
            if (e.type() == CmEventType.DISCONNECTED && !disconnectCalled && !closed) {
                // answer the peer's disconnect at once: on IB/RoCE this sends the CM DREP, without which the
                // peer gets its DISCONNECTED only when its DREQ times out (harmless on iWARP). Done before the
                // event is visible and under the lock close() takes: once awaitDisconnected returns, the
                // application may close the id and its QP, and rdma_disconnect (which modifies id->qp) must
                // not run after that (it did, and crashed in libibverbs: RpingIT on siw0)
                disconnectCalled = true;
                cm.disconnect.call(id);
            }
            switch (e.type()) {
                case ADDR_RESOLVED, ADDR_ERROR -> slots[ADDR] = e;
                case ROUTE_RESOLVED, ROUTE_ERROR -> slots[ROUTE] = e;
                case ESTABLISHED, REJECTED, UNREACHABLE, CONNECT_ERROR, CONNECT_RESPONSE -> slots[CONN] = e;
                case DISCONNECTED -> {
                    slots[DISC] = e;
                    disconnected = true;
                }
                case DEVICE_REMOVAL -> failLocked(CmEventType.DEVICE_REMOVAL, e.status(),
                        "the RDMA device was removed (RDMA_CM_EVENT_DEVICE_REMOVAL): close this id");
                default -> {
                    return;
                }
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        if (e.type() == CmEventType.DEVICE_REMOVAL) {
            for (PendingRequest r : drainRequests()) {
                r.state().fail(CmEventType.DEVICE_REMOVAL, e.status(), "the RDMA device was removed");
            }
        }
    }

    /** MULTICAST_JOIN / MULTICAST_ERROR for the join whose context was {@code token}. */
    void onMulticastEvent(CmEvent e, long token) {
        lock.lock();
        try {
            if (token == pendingJoin) {
                slots[MCAST] = e;
                changed.signalAll();
                return;
            }
        } finally {
            lock.unlock();
        }
        if (e.type() == CmEventType.MULTICAST_ERROR) {
            LOG.warn("{}: RDMA_CM_EVENT_MULTICAST_ERROR (status {}) on a multicast group joined earlier: the group "
                    + "is gone; leave it and join again", this, e.status());
        }
    }

    /** Queues a connection request for {@code awaitRequest}; false when this listener is closed or failed. */
    boolean offerRequest(CmIdState child, ConnectionParameters params) {
        lock.lock();
        try {
            if (closed || failure != null) {
                return false;
            }
            requests.add(new PendingRequest(child, params));
            changed.signalAll();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Ends every wait on this id with {@code why} (the first reason given stays). */
    void fail(CmEventType event, int status, String why) {
        lock.lock();
        try {
            failLocked(event, status, why);
        } finally {
            lock.unlock();
        }
    }

    private void failLocked(CmEventType event, int status, String why) {
        if (failure == null) {
            failure = why;
            failureEvent = event;
            failureStatus = status;
        }
        changed.signalAll();
    }

    // ---- called by the id ----

    /** Marks the id closed and ends its waits with {@code why}; false when it already was. */
    boolean markClosed(String why) {
        lock.lock();
        try {
            if (closed) {
                return false;
            }
            closed = true;
            failLocked(null, 0, why);
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Takes the requests nobody took (for a listener that closes). */
    List<PendingRequest> drainRequests() {
        lock.lock();
        try {
            List<PendingRequest> l = new ArrayList<>(requests);
            requests.clear();
            return l;
        } finally {
            lock.unlock();
        }
    }

    /** Runs {@code r} under the lock the event thread's answer to a DISCONNECTED takes: never both at once. */
    int locked(java.util.function.IntSupplier r) {
        lock.lock();
        try {
            return r.getAsInt();
        } finally {
            lock.unlock();
        }
    }

    /** {@code rdma_disconnect}, unless the peer disconnected and this id already answered. */
    void disconnect() {
        lock.lock();
        try {
            if (slots[DISC] != null) {
                return;
            }
            disconnectCalled = true;
            if (cm.disconnect.call(id) != 0) {
                throw CmHints.callFailed("rdma_disconnect", NativeFunction.errno(), peer);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Forgets the last event of {@code slot}, before the call that makes the next one. */
    void clear(int slot) {
        lock.lock();
        try {
            slots[slot] = null;
        } finally {
            lock.unlock();
        }
    }

    /** Clears the multicast slot and expects the answer to the join with context {@code token}. */
    void expectJoin(long token) {
        lock.lock();
        try {
            slots[MCAST] = null;
            pendingJoin = token;
        } finally {
            lock.unlock();
        }
    }

    /** The next connection request, waiting up to {@code timeout}. */
    PendingRequest awaitRequest(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        lock.lock();
        try {
            while (true) {
                PendingRequest r = requests.poll();
                if (r != null) {
                    return r;
                }
                checkFailure("rdma_get_cm_event", "a CONNECT_REQUEST");
                waitUntil(deadline, "rdma_get_cm_event", "a CONNECT_REQUEST", timeout,
                        "no client connected: check the client's destination address and port");
            }
        } finally {
            lock.unlock();
        }
    }

    /** The event of {@code slot}, waiting up to {@code timeout} (plus a second: librdmacm's own timer goes first). */
    CmEvent await(int slot, Duration timeout, String verb, String what) {
        long deadline = System.nanoTime() + timeout.toNanos() + TimeUnit.SECONDS.toNanos(1);
        lock.lock();
        try {
            while (true) {
                if (slots[slot] != null) {
                    return slots[slot];
                }
                checkFailure(verb, what);
                waitUntil(deadline, verb, what, timeout, CmHints.timeout(slot));
            }
        } finally {
            lock.unlock();
        }
    }

    /** ESTABLISHED / REJECTED / UNREACHABLE / CONNECT_ERROR, or a DISCONNECTED that came first. */
    CmEvent awaitConnection(Duration timeout, String verb) {
        long deadline = System.nanoTime() + timeout.toNanos();
        lock.lock();
        try {
            while (true) {
                if (slots[CONN] != null && slots[CONN].type() != CmEventType.CONNECT_RESPONSE) {
                    return slots[CONN];
                }
                if (slots[DISC] != null) {
                    return slots[DISC];
                }
                checkFailure(verb, "RDMA_CM_EVENT_ESTABLISHED");
                waitUntil(deadline, verb, "RDMA_CM_EVENT_ESTABLISHED", timeout, CmHints.timeout(CONN));
            }
        } finally {
            lock.unlock();
        }
    }

    private void checkFailure(String verb, String what) {
        if (failure != null) {
            throw new CmException(verb, failureEvent, failureStatus, "while waiting for " + what + ": " + failure,
                    failureEvent == CmEventType.DEVICE_REMOVAL ? "close the CmId, its QP and PD, and open the device again"
                            : "");
        }
    }

    private void waitUntil(long deadline, String verb, String what, Duration timeout, String hint) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            throw new CmException(verb, null, 0, "no " + what + " within " + timeout.toMillis() + " ms"
                    + (peer.isEmpty() ? "" : " (" + peer + ")"), hint);
        }
        try {
            changed.awaitNanos(left);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CmException(verb, null, 0, "interrupted while waiting for " + what, "");
        }
    }

    @Override
    public String toString() {
        return "CmId[0x" + Long.toHexString(id) + (portSpace == PortSpace.UDP ? ", UDP" : "")
                + (peer.isEmpty() ? "" : ", " + peer) + "]";
    }
}
