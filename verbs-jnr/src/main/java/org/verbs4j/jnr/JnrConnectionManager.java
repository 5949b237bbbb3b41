package org.verbs4j.jnr;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.verbs4j.api.cm.CmId;
import org.verbs4j.api.cm.ConnectionManager;
import org.verbs4j.api.cm.PortSpace;
import org.verbs4j.api.spi.AbstractResource;

/**
 * {@link ConnectionManager} over librdmacm: one {@link CmEventChannel} (the {@code rdma_event_channel} and
 * its event thread), the {@link JnrCmId}s made on it (its children, closed with it), and the device
 * contexts librdmacm opened for them (released with it; refused while they are still in use).
 */
final class JnrConnectionManager extends AbstractResource implements ConnectionManager {
    final LibRdmacm cm;
    private final JnrBackend backend;
    private final CmEventChannel events;
    private final Map<Long, JnrDeviceContext> contexts = new ConcurrentHashMap<>();

    JnrConnectionManager(JnrBackend backend) {
        super(null);
        this.backend = backend;
        try {
            this.cm = LibRdmacm.get();
            this.events = new CmEventChannel(cm);
        } catch (RuntimeException | Error e) {
            abandon();
            throw e;
        }
        describeForLeakReport("rdma_cm event channel, " + events);
    }

    @Override
    public CmId createId() {
        return createId(PortSpace.TCP);
    }

    @Override
    public CmId createId(PortSpace portSpace) {
        enter();
        try {
            Objects.requireNonNull(portSpace, "portSpace");
            return adopt(events.createId(portSpace), false);
        } finally {
            leave();
        }
    }

    /** The {@link JnrCmId} of a connection request's id, taken by {@code awaitRequest}. */
    JnrCmId adopt(CmIdState request) {
        return adopt(request, true);
    }

    private JnrCmId adopt(CmIdState s, boolean fromRequest) {
        try {
            return new JnrCmId(this, s, fromRequest);
        } catch (RuntimeException e) { // this manager closed meanwhile: nobody will use the native id
            events.discard(s, "its ConnectionManager was closed");
            throw e;
        }
    }

    CmEventChannel events() {
        return events;
    }

    JnrDeviceContext contextFor(long verbs) {
        enter();
        try {
            return contexts.computeIfAbsent(verbs, backend::adoptContext);
        } finally {
            leave();
        }
    }

    @Override
    protected String kind() {
        return "ConnectionManager";
    }

    /** Its ids close with it (each with its queue pair). */
    @Override
    protected boolean closesChildren() {
        return true;
    }

    /**
     * Refuses while a device context librdmacm opened is still in use (its PDs, CQs, channels are the
     * application's to close first); otherwise ends every wait on every id.
     */
    @Override
    protected void beforeClose() {
        for (JnrDeviceContext c : contexts.values()) {
            List<AbstractResource> inUse = c.openChildren();
            if (!inUse.isEmpty()) {
                throw new IllegalStateException("cannot close " + this + ": the device context librdmacm opened for "
                        + c.device().name() + " is still in use by " + inUse + ". Close those first");
            }
        }
        events.failAll("the ConnectionManager was closed");
    }

    /** After its ids closed: closes the event channel (with the requests nobody took) and releases the contexts. */
    @Override
    protected void destroy() {
        try {
            events.close();
        } finally {
            List<JnrDeviceContext> ctxs = new ArrayList<>(contexts.values());
            contexts.clear();
            closeAll(ctxs);
        }
    }

    /** {@return the event channel's file descriptor} (for tests) */
    int eventFd() {
        return events.fd();
    }

    @Override
    public String toString() {
        return "ConnectionManager[" + events + (isClosed() ? ", closed" : "") + "]";
    }
}
