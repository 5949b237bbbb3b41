package org.verbs4j.jnr;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.verbs4j.api.cm.CmEvent;
import org.verbs4j.api.cm.CmEventType;
import org.verbs4j.api.cm.CmException;
import org.verbs4j.api.cm.CmId;
import org.verbs4j.api.cm.ConnectionManager;
import org.verbs4j.api.cm.ConnectionParameters;
import org.verbs4j.api.cm.PortSpace;
import org.verbs4j.api.cm.UdParameters;
import org.verbs4j.api.internal.RawMemory;

/**
 * {@link ConnectionManager} over librdmacm: one {@code rdma_event_channel}, one daemon thread that
 * polls its fd (100 ms timeout, so {@link #close()} stops it), copies and acks each event at once (so
 * {@code rdma_destroy_id} never waits on us), then hands it to the {@link JnrCmId} it belongs to.
 */
final class JnrConnectionManager implements ConnectionManager {
    private static final Logger LOG = LoggerFactory.getLogger(JnrConnectionManager.class);
    private static final AtomicInteger COUNT = new AtomicInteger();

    final LibRdmacm cm;
    private final JnrBackend backend;
    private final long channel;
    private final int fd;
    /** Wakes the event thread, blocked in poll(2) with no time-out, when the manager closes. */
    private final int wakeFd;
    private final Map<Long, JnrCmId> ids = new ConcurrentHashMap<>();
    private final Map<Long, JnrDeviceContext> contexts = new ConcurrentHashMap<>();
    private final Thread thread;
    private volatile boolean closed;

    JnrConnectionManager(JnrBackend backend) {
        this.backend = backend;
        this.cm = LibRdmacm.get();
        long ch = cm.createEventChannel.call0();
        if (ch == 0) {
            int errno = NativeFunction.errno();
            throw new CmException("rdma_create_event_channel", errno, null,
                    "check that /dev/infiniband/rdma_cm exists and is readable and writable (modprobe rdma_ucm)");
        }
        channel = ch;
        fd = RawMemory.getInt(channel + LibRdmacm.CHANNEL_FD);
        try {
            wakeFd = LibC.eventFd();
        } catch (RuntimeException e) {
            cm.destroyEventChannel.call(channel);
            throw e;
        }
        thread = new Thread(this::run, "verbs4j-rdma-cm-" + COUNT.incrementAndGet());
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public CmId createId() {
        return createId(PortSpace.TCP);
    }

    @Override
    public CmId createId(PortSpace portSpace) {
        if (closed) {
            throw new IllegalStateException("the ConnectionManager is closed");
        }
        java.util.Objects.requireNonNull(portSpace, "portSpace");
        long out = RawMemory.allocate(8);
        try {
            if (cm.createId.call(channel, out, 0, portSpace.value()) != 0) {
                int errno = NativeFunction.errno();
                throw new CmException("rdma_create_id", errno, "RDMA_PS_" + portSpace,
                        JnrCmId.hint("rdma_create_id", errno));
            }
            long id = RawMemory.getAddress(out);
            JnrCmId c = new JnrCmId(this, id, null, portSpace);
            ids.put(id, c);
            return c;
        } finally {
            RawMemory.free(out);
        }
    }

    JnrDeviceContext contextFor(long verbs) {
        if (closed) {
            throw new IllegalStateException("the ConnectionManager is closed");
        }
        return contexts.computeIfAbsent(verbs, backend::adoptContext);
    }

    void unregister(JnrCmId id) {
        ids.remove(id.id, id);
    }

    /**
     * The event thread: sleeps in poll(2) until an rdma_cm event or {@link #close()} wakes it. No time-out: a
     * thread that woke up every so often to look at {@link #closed} would take the CPU from a busy-polling
     * data path for nothing (measured: 10 wake-ups a second per manager cost a soft-iWARP transfer, whose
     * transport runs in a kernel thread, about 1% of a CPU in the lab).
     */
    private void run() {
        long pollfds = RawMemory.allocate(16);
        try {
            while (!closed) {
                if (LibC.awaitEither(pollfds, fd, wakeFd) == 1 && !closed) {
                    readOne();
                }
            }
        } catch (Throwable t) {
            if (!closed) {
                LOG.error("rdma_cm event thread failed; failing every waiting call", t);
                for (JnrCmId id : ids.values()) {
                    id.fail(null, 0, "the rdma_cm event thread failed: " + t);
                }
            }
        } finally {
            RawMemory.free(pollfds);
        }
    }

    private void readOne() {
        long out = RawMemory.allocate(8);
        long ev;
        try {
            if (cm.getCmEvent.call(channel, out) != 0) {
                int errno = NativeFunction.errno();
                if (errno == 4 || errno == 11) { // EINTR, EAGAIN
                    return;
                }
                throw new CmException("rdma_get_cm_event", errno, null, "");
            }
            ev = RawMemory.getAddress(out);
        } finally {
            RawMemory.free(out);
        }
        long id = RawMemory.getAddress(ev + LibRdmacm.EVENT_ID);
        long listenId = RawMemory.getAddress(ev + LibRdmacm.EVENT_LISTEN_ID);
        int raw = RawMemory.getInt(ev + LibRdmacm.EVENT_EVENT);
        int status = RawMemory.getInt(ev + LibRdmacm.EVENT_STATUS);
        CmEventType type = CmEventType.of(raw);
        // librdmacm fills param.ud for events of UD ids (a CONNECT_REQUEST: of the listener's), except
        // REJECTED, which always carries param.conn; both start with private_data and private_data_len
        JnrCmId owner = ids.get(type == CmEventType.CONNECT_REQUEST ? listenId : id);
        boolean ud = owner != null && owner.portSpace() == PortSpace.UDP && type != CmEventType.REJECTED;
        ConnectionParameters params = null;
        UdParameters udParams = null;
        byte[] data = null;
        if (type == CmEventType.CONNECT_REQUEST || type == CmEventType.CONNECT_RESPONSE
                || type == CmEventType.ESTABLISHED || type == CmEventType.REJECTED
                || (ud && type == CmEventType.UNREACHABLE)) {
            long p = ev + LibRdmacm.EVENT_PARAM;
            long dataPtr = RawMemory.getAddress(p + LibRdmacm.CP_PRIVATE_DATA);
            int len = RawMemory.getByte(p + LibRdmacm.CP_PRIVATE_DATA_LEN) & 0xff;
            data = new byte[dataPtr == 0 ? 0 : len];
            if (data.length > 0) {
                RawMemory.copyToArray(dataPtr, data, 0, data.length);
            }
            if (ud && type == CmEventType.ESTABLISHED) {
                udParams = new UdParameters(RawMemory.getInt(p + LibRdmacm.UD_QP_NUM),
                        RawMemory.getInt(p + LibRdmacm.UD_QKEY), JnrQueuePair.readAhAttr(p + LibRdmacm.UD_AH_ATTR), data);
            }
            if (ud && type == CmEventType.CONNECT_REQUEST) {
                // a SIDR request: private data only (param.ud has no connection parameters)
                params = ConnectionParameters.defaults().withPrivateData(
                        data.length > ConnectionParameters.ACCEPT_PRIVATE_DATA_MAX
                                ? java.util.Arrays.copyOf(data, ConnectionParameters.ACCEPT_PRIVATE_DATA_MAX) : data);
            } else if (type == CmEventType.CONNECT_REQUEST) {
                params = new ConnectionParameters(data.length > ConnectionParameters.ACCEPT_PRIVATE_DATA_MAX
                        ? java.util.Arrays.copyOf(data, ConnectionParameters.ACCEPT_PRIVATE_DATA_MAX) : data,
                        RawMemory.getByte(p + LibRdmacm.CP_RESPONDER_RESOURCES) & 0xff,
                        RawMemory.getByte(p + LibRdmacm.CP_INITIATOR_DEPTH) & 0xff,
                        Math.min(7, RawMemory.getByte(p + LibRdmacm.CP_RETRY_COUNT) & 0xff),
                        Math.min(7, RawMemory.getByte(p + LibRdmacm.CP_RNR_RETRY_COUNT) & 0xff),
                        RawMemory.getByte(p + LibRdmacm.CP_FLOW_CONTROL) != 0);
            }
        }
        long mcastToken = 0;
        if (ud && (type == CmEventType.MULTICAST_JOIN || type == CmEventType.MULTICAST_ERROR)) {
            // param.ud.private_data is the context given to rdma_join_multicast: which join this answers
            long p = ev + LibRdmacm.EVENT_PARAM;
            mcastToken = RawMemory.getAddress(p + LibRdmacm.UD_PRIVATE_DATA);
            if (type == CmEventType.MULTICAST_JOIN) {
                udParams = new UdParameters(RawMemory.getInt(p + LibRdmacm.UD_QP_NUM),
                        RawMemory.getInt(p + LibRdmacm.UD_QKEY), JnrQueuePair.readAhAttr(p + LibRdmacm.UD_AH_ATTR), null);
            }
        }
        cm.ackCmEvent.call(ev); // before dispatch: rdma_destroy_id waits for the acks of its events
        CmEvent event = new CmEvent(type, raw, status, data, udParams);
        LOG.debug("rdma_cm event {} on id 0x{}{}", event, Long.toHexString(id), udParams == null ? "" : ": " + udParams);
        if (type == CmEventType.CONNECT_REQUEST) {
            JnrCmId listener = owner;
            JnrCmId child = new JnrCmId(this, id, listener, listener == null ? PortSpace.TCP : listener.portSpace());
            ids.put(id, child);
            if (listener == null || closed || !listener.offerRequest(child, params)) {
                LOG.debug("connect request for a closed listener: rejected");
                cm.reject.call(id, 0, 0);
                child.close();
            }
            return;
        }
        if (owner != null && mcastToken != 0) {
            owner.onMulticastEvent(event, mcastToken);
        } else if (owner != null) {
            owner.onEvent(event);
        }
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        RuntimeException first = null;
        for (JnrCmId id : new ArrayList<>(ids.values())) {
            try {
                id.closeBy("the ConnectionManager was closed");
            } catch (RuntimeException e) {
                first = first == null ? e : first;
            }
        }
        try {
            LibC.signal(wakeFd);
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            first = first == null ? e : first;
        }
        if (!thread.isAlive()) {
            cm.destroyEventChannel.call(channel);
            LibC.close(wakeFd);
        } else {
            LOG.warn("rdma_cm event thread did not stop; leaking its event channel");
        }
        List<JnrDeviceContext> ctxs = new ArrayList<>(contexts.values());
        contexts.clear();
        for (JnrDeviceContext c : ctxs) {
            try {
                c.close();
            } catch (RuntimeException e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw first;
        }
    }

    @Override
    public String toString() {
        return "ConnectionManager[fd " + fd + ", " + ids.size() + " ids" + (closed ? ", closed" : "") + "]";
    }
}
