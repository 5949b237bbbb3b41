package org.verbs4j.jnr;

import java.util.ArrayList;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.verbs4j.api.cm.CmEventType;
import org.verbs4j.api.cm.CmException;
import org.verbs4j.api.cm.PortSpace;
import org.verbs4j.api.internal.RawMemory;

/**
 * One {@code rdma_event_channel}, the ids made on it and its event thread, which sleeps until an event
 * comes, copies and acks it at once (so {@code rdma_destroy_id} never waits on us), then hands it to the
 * {@link CmIdState} of the id it belongs to. A CONNECT_REQUEST makes the new id's state and queues it on
 * its listener's. Holds no reference to the {@link JnrConnectionManager} or its {@link JnrCmId}s, so that
 * they can be found unreachable (and reported as leaks) while the thread runs.
 */
final class CmEventChannel {
    private static final Logger LOG = LoggerFactory.getLogger(CmEventChannel.class);
    private static final AtomicInteger COUNT = new AtomicInteger();

    private final LibRdmacm cm;
    private final long channel;
    private final int fd;
    private final Map<Long, CmIdState> states = new ConcurrentHashMap<>();
    private final PollThread thread;
    private volatile boolean stopped;

    CmEventChannel(LibRdmacm cm) {
        this.cm = cm;
        long ch = cm.createEventChannel.call0();
        if (ch == 0) {
            int errno = NativeFunction.errno();
            // librdmacm says ENODEV when the kernel has no RDMA support at all: say that, not "load rdma_ucm"
            boolean noKernelRdma = !java.nio.file.Files.isDirectory(java.nio.file.Path.of("/sys/class/infiniband"));
            throw new CmException("rdma_create_event_channel", errno, null, noKernelRdma
                    ? "this machine's kernel has no RDMA support (no /sys/class/infiniband): load the RDMA modules "
                            + "(ib_core, rdma_ucm and a device driver such as rdma_rxe or siw) or use a kernel built with them"
                    : "check that /dev/infiniband/rdma_cm exists and is readable and writable (modprobe rdma_ucm)");
        }
        channel = ch;
        fd = RawMemory.getInt(channel + RdmacmLayout.CHANNEL_FD);
        try {
            // rdma_destroy_id drops its id's pending events: a blocking read after the poll could then wait
            // for ever, and the thread would not stop (seen as "did not stop" over 10^4 connect cycles)
            LibC.setNonBlocking(fd, "rdma_cm event channel");
            thread = new PollThread("verbs4j-rdma-cm-" + COUNT.incrementAndGet(), fd, 8, this::readOne, this::failed);
        } catch (RuntimeException e) {
            cm.destroyEventChannel.call(channel);
            throw e;
        }
    }

    /** {@return the channel's file descriptor} */
    int fd() {
        return fd;
    }

    /** {@code rdma_create_id} on this channel: the new id's state, registered for its events. */
    CmIdState createId(PortSpace portSpace) {
        long out = RawMemory.allocate(8);
        try {
            if (cm.createId.call(channel, out, 0, portSpace.value()) != 0) {
                int errno = NativeFunction.errno();
                throw new CmException("rdma_create_id", errno, "RDMA_PS_" + portSpace,
                        CmHints.forErrno("rdma_create_id", errno));
            }
            CmIdState s = new CmIdState(cm, RawMemory.getAddress(out), portSpace);
            states.put(s.id, s);
            return s;
        } finally {
            RawMemory.free(out);
        }
    }

    /** {@code rdma_destroy_id} after its events stop coming to {@code s}; throws when librdmacm fails it. */
    void destroyId(CmIdState s) {
        states.remove(s.id, s);
        if (cm.destroyId.call(s.id) != 0) {
            throw new CmException("rdma_destroy_id", NativeFunction.errno(), null, "");
        }
    }

    /** Rejects and destroys the id of a connection request nobody will accept. */
    void discard(CmIdState request, String why) {
        if (request.markClosed(why)) {
            cm.reject.call(request.id, 0, 0);
            destroyId(request);
        }
    }

    /** Ends every wait on every id of this channel with {@code why}. */
    void failAll(String why) {
        for (CmIdState s : states.values()) {
            s.fail(null, 0, why);
        }
    }

    /**
     * Stops the event thread, rejects and destroys the ids still registered (requests nobody took), then
     * destroys the channel (left alone, with a warning, if the thread does not stop).
     */
    void close() {
        stopped = true;
        boolean ended = thread.stop(10_000);
        RuntimeException first = null;
        for (CmIdState s : new ArrayList<>(states.values())) {
            try {
                discard(s, "its ConnectionManager was closed");
            } catch (RuntimeException e) {
                first = first == null ? e : first;
            }
        }
        if (ended) {
            cm.destroyEventChannel.call(channel);
        } else {
            LOG.warn("rdma_cm event thread did not stop; leaking its event channel");
        }
        if (first != null) {
            throw first;
        }
    }

    private void failed(Throwable t) {
        LOG.error("rdma_cm event thread failed; failing every waiting call", t);
        failAll("the rdma_cm event thread failed: " + t);
    }

    /** On the event thread, when the channel's fd is readable; {@code out} is its 8 bytes for the event pointer. */
    private void readOne(long out) {
        if (cm.getCmEvent.call(channel, out) != 0) {
            int errno = NativeFunction.errno();
            if (errno == org.verbs4j.api.Errno.EINTR || errno == org.verbs4j.api.Errno.EAGAIN) {
                return;
            }
            throw new CmException("rdma_get_cm_event", errno, null, "");
        }
        long ev = RawMemory.getAddress(out);
        CmIdState owner = states.get(CmParams.owner(ev));
        CmParams.Decoded d = CmParams.read(ev, owner != null && owner.portSpace == PortSpace.UDP);
        cm.ackCmEvent.call(ev); // before dispatch: rdma_destroy_id waits for the acks of its events
        LOG.debug("rdma_cm event {} on id 0x{}{}", d.event(), Long.toHexString(d.id()),
                d.event().ud() == null ? "" : ": " + d.event().ud());
        if (d.event().type() == CmEventType.CONNECT_REQUEST) {
            CmIdState child = new CmIdState(cm, d.id(), owner == null ? PortSpace.TCP : owner.portSpace);
            states.put(child.id, child);
            if (owner == null || stopped || !owner.offerRequest(child, d.request())) {
                LOG.debug("connect request for a closed listener: rejected");
                discard(child, "its listener was closed");
            }
            return;
        }
        if (owner != null && d.multicastToken() != 0) {
            owner.onMulticastEvent(d.event(), d.multicastToken());
        } else if (owner != null) {
            owner.onEvent(d.event());
        }
    }

    @Override
    public String toString() {
        return "fd " + fd + ", " + states.size() + " ids";
    }
}
