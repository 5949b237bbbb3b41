package org.verbs4j.softiwarp;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.verbs4j.api.AsyncEvent;
import org.verbs4j.api.AsyncEventListener;
import org.verbs4j.api.CompletionChannel;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.DeviceAttributes;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.Errno;
import org.verbs4j.api.Gid;
import org.verbs4j.api.GidEntry;
import org.verbs4j.api.GidType;
import org.verbs4j.api.PortAttributes;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.RdmaDevice;
import org.verbs4j.api.VerbsException;
import org.verbs4j.api.spi.AbstractResource;

/**
 * An open software iWARP device: its queries, the factory of its PDs, CQs and completion channels, and the
 * {@link ProgressEngine} thread of its connected QPs (started with the first, stopped when the context closes).
 */
final class SoftDeviceContext extends AbstractResource implements DeviceContext {
    private final SoftIwarpDevice device;
    private static final Logger LOG = LoggerFactory.getLogger(SoftDeviceContext.class);
    private volatile AsyncEventListener asyncListener;
    private ExecutorService eventThread;
    private volatile ProgressEngine progress;

    SoftDeviceContext(SoftIwarpDevice device) {
        super(null);
        this.device = device;
        describeForLeakReport(device.name() + " context");
    }

    SoftIwarpDevice softDevice() {
        return device;
    }

    AsyncEventListener asyncListener() {
        return asyncListener;
    }

    @Override
    protected String kind() {
        return "DeviceContext";
    }

    /** {@return the progress thread of the context's connected QPs, or null before the first connects} */
    ProgressEngine progress() {
        return progress;
    }

    /** {@return the progress thread, started now if this is the context's first connected QP} */
    synchronized ProgressEngine startProgress() {
        if (progress == null) {
            try {
                progress = new ProgressEngine(device.name());
            } catch (java.io.IOException e) {
                throw new VerbsException("progress thread", Errno.EIO, device.name() + ": no selector: " + e);
            }
        }
        return progress;
    }

    @Override
    protected void destroy() {
        asyncListener = null;
        synchronized (this) {
            if (eventThread != null) {
                eventThread.shutdown();
            }
            if (progress != null) {
                progress.stop();
                progress = null;
            }
        }
    }

    @Override
    public RdmaDevice device() {
        return device;
    }

    @Override
    public DeviceAttributes queryDevice() {
        checkOpen();
        return SiwAttributes.device(device);
    }

    @Override
    public PortAttributes queryPort(int port) {
        checkPort("ibv_query_port", port);
        return SiwAttributes.port(device);
    }

    @Override
    public Gid queryGid(int port, int index) {
        checkPort("ibv_query_gid", port);
        checkIndex("ibv_query_gid", port, index, 1);
        return device.gid();
    }

    @Override
    public GidEntry queryGidEntry(int port, int index) {
        checkPort("ibv_query_gid_ex", port);
        checkIndex("ibv_query_gid_ex", port, index, 1);
        return new GidEntry(port, index, device.gid(), GidType.IB, 0);
    }

    @Override
    public List<GidEntry> queryGidTable() {
        checkOpen();
        return List.of(queryGidEntry(1, 0));
    }

    @Override
    public int queryPkey(int port, int index) {
        checkPort("ibv_query_pkey", port);
        // iWARP has no partitions: siw's P_Key table is empty (pkey_tbl_len 0), so every index is outside it
        throw new VerbsException("ibv_query_pkey", Errno.EINVAL, device.name() + " port " + port + " index " + index
                + ": an iWARP device has no P_Key table");
    }

    private void checkPort(String verb, int port) {
        checkOpen();
        if (port != 1) {
            throw new VerbsException(verb, Errno.EINVAL, device.name() + " port " + port + ": the device has port 1 only");
        }
    }

    private void checkIndex(String verb, int port, int index, int length) {
        if (index < 0 || index >= length) {
            throw new VerbsException(verb, Errno.EINVAL, device.name() + " port " + port + " index " + index
                    + ": the table has " + length + (length == 1 ? " entry" : " entries"));
        }
    }

    @Override
    public ProtectionDomain allocProtectionDomain() {
        enter();
        try {
            return new SoftProtectionDomain(this);
        } finally {
            leave();
        }
    }

    @Override
    public CompletionChannel createCompletionChannel() {
        enter();
        try {
            return new SoftCompletionChannel(this);
        } finally {
            leave();
        }
    }

    @Override
    public org.verbs4j.api.CompletionWaitSet createCompletionWaitSet() {
        checkOpen();
        return new SoftCompletionWaitSet(softDevice().name());
    }

    @Override
    public CompletionQueue createCompletionQueue(int entries, CompletionChannel channel, int compVector) {
        if (channel != null && (!(channel instanceof SoftCompletionChannel) || channel.context() != this)) {
            throw new IllegalArgumentException(channel + " is not a channel of " + this);
        }
        if (compVector != 0) {
            throw new VerbsException("ibv_create_cq", Errno.EINVAL, "completion vector " + compVector
                    + ": the device has one (0)");
        }
        enter();
        try {
            return new SoftCompletionQueue(this, entries, (SoftCompletionChannel) channel);
        } finally {
            leave();
        }
    }

    /** Delivers {@code event} to the listener, if there is one, on the context's event thread. */
    void raise(AsyncEvent event) {
        AsyncEventListener l = asyncListener;
        if (l != null) {
            events().execute(() -> {
                try {
                    l.onEvent(event);
                } catch (RuntimeException e) {
                    LOG.warn("the async event listener of {} failed on {}", device.name(), event, e);
                }
            });
        }
    }

    /**
     * The context's event thread, named as the libibverbs backend names its own ({@code verbs4j-async-DEVICE}):
     * started with the first listener, ended by close.
     */
    private synchronized ExecutorService events() {
        if (eventThread == null) {
            ThreadPoolExecutor e = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
                    r -> {
                        Thread t = new Thread(r, "verbs4j-async-" + device.name());
                        t.setDaemon(true);
                        return t;
                    });
            e.prestartCoreThread();
            eventThread = e;
        }
        return eventThread;
    }

    @Override
    public int numCompVectors() {
        return 1;
    }

    @Override
    public void setAsyncEventListener(AsyncEventListener listener) {
        checkOpen();
        asyncListener = listener;
        if (listener != null) {
            events();
        }
    }
}
