package org.verbs4j.jnr;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.verbs4j.api.AsyncEvent;
import org.verbs4j.api.AsyncEventListener;
import org.verbs4j.api.AsyncEventType;
import org.verbs4j.api.CompletionChannel;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.DeviceAttributes;
import org.verbs4j.api.DeviceAttributesEx;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.Errno;
import org.verbs4j.api.Gid;
import org.verbs4j.api.GidEntry;
import org.verbs4j.api.GidType;
import org.verbs4j.api.LinkLayer;
import org.verbs4j.api.Mtu;
import org.verbs4j.api.PortAttributes;
import org.verbs4j.api.PortState;
import org.verbs4j.api.RdmaDevice;
import org.verbs4j.api.VerbsException;
import org.verbs4j.api.internal.RawMemory;
import org.verbs4j.api.spi.AbstractResource;

/** An open {@code ibv_context}. */
final class JnrDeviceContext extends AbstractResource implements DeviceContext {
    private static final Logger LOG = LoggerFactory.getLogger(JnrDeviceContext.class);

    private final RdmaDevice device;
    private final long ctx;
    /** False for a context someone else opened (librdmacm's): close() then leaves it open. */
    private final boolean owned;
    /** Native CQ / QP / SRQ address to its Java object, for completion and async events. */
    private final Map<Long, Object> objects = new ConcurrentHashMap<>();
    private volatile AsyncEventListener asyncListener;
    /** Delivers the async events while a listener is set. */
    private PollThread asyncThread;
    /** {@code verbs_context->query_port}, or 0 when the context is not extended (then the 48-byte compat call). */
    private final NativeCalls.Target queryPortFn;
    /** {@code verbs_context->query_device_ex}, or 0 (then the attributes of {@code ibv_query_device}). */
    private final NativeCalls.Target queryDeviceExFn;

    JnrDeviceContext(RdmaDevice device, long ctx) {
        this(device, ctx, true);
    }

    JnrDeviceContext(RdmaDevice device, long ctx, boolean owned) {
        super(null);
        this.device = device;
        this.ctx = ctx;
        this.owned = owned;
        this.queryPortFn = NativeCalls.target(extendedOp(ctx, Layout.VERBS_CONTEXT_QUERY_PORT));
        this.queryDeviceExFn = NativeCalls.target(extendedOp(ctx, Layout.VERBS_CONTEXT_QUERY_DEVICE_EX));
        describeForLeakReport(device.name() + " context 0x" + Long.toHexString(ctx));
    }

    /** The address of a {@code verbs_context} op, or 0 when the context is not extended or too old for it. */
    static long extendedOp(long ctx, int opOffset) {
        if (RawMemory.getLong(ctx + Layout.CONTEXT_ABI_COMPAT) != -1L) {
            return 0;
        }
        long vctx = ctx - Layout.VERBS_CONTEXT_CONTEXT;
        long sz = RawMemory.getLong(vctx + Layout.VERBS_CONTEXT_SZ);
        if (sz < Layout.VERBS_CONTEXT_SIZE - opOffset) {
            return 0;
        }
        return RawMemory.getAddress(vctx + opOffset);
    }

    /** The native {@code struct ibv_context *}. */
    long address() {
        checkOpen();
        return ctx;
    }

    @Override
    protected String kind() {
        return "DeviceContext";
    }

    void register(long address, Object o) {
        objects.put(address, o);
    }

    void unregister(long address) {
        objects.remove(address);
    }

    Object lookup(long address) {
        return objects.get(address);
    }

    @Override
    protected void destroy() {
        stopAsyncThread();
        if (!owned) {
            return;
        }
        int rc = (int) JnrBackend.lib().closeDevice.call(ctx);
        if (rc != 0) {
            throw new VerbsException("ibv_close_device", JnrBackend.lastErrno(), device.name());
        }
    }

    @Override
    public RdmaDevice device() {
        return device;
    }

    @Override
    public ProtectionDomain allocProtectionDomain() {
        enter();
        try {
            return new JnrProtectionDomain(this, created(JnrBackend.lib().allocPd.call(ctx), "ibv_alloc_pd", device.name()));
        } finally {
            leave();
        }
    }

    /** {@code handle}, the result of a create verb, or the exception naming {@code verb} and errno when it is NULL. */
    private static long created(long handle, String verb, String detail) {
        if (handle == 0) {
            throw new VerbsException(verb, JnrBackend.lastErrno(), detail);
        }
        return handle;
    }

    @Override
    public CompletionChannel createCompletionChannel() {
        enter();
        try {
            long ch = created(JnrBackend.lib().createCompChannel.call(ctx), "ibv_create_comp_channel", device.name());
            try {
                LibC.setNonBlocking(RawMemory.getInt(ch + Layout.COMP_CHANNEL_FD), device.name() + " completion channel");
            } catch (RuntimeException e) {
                JnrBackend.lib().destroyCompChannel.call(ch);
                throw e;
            }
            return new JnrCompletionChannel(this, ch);
        } finally {
            leave();
        }
    }

    @Override
    public org.verbs4j.api.CompletionWaitSet createCompletionWaitSet() {
        checkOpen();
        return new JnrCompletionWaitSet(device.name());
    }

    @Override
    public CompletionQueue createCompletionQueue(int entries, CompletionChannel channel, int compVector) {
        enter();
        try {
            if (entries < 1) {
                throw new IllegalArgumentException("a CQ needs at least one entry, got " + entries);
            }
            JnrCompletionChannel ch = null;
            if (channel != null) {
                if (!(channel instanceof JnrCompletionChannel) || channel.context() != this) {
                    throw new IllegalArgumentException(channel + " is not from " + this);
                }
                ch = (JnrCompletionChannel) channel;
            }
            try (Use u = AbstractResource.use(ch)) {
                long cq = created(JnrBackend.lib().createCq.call(ctx, entries, 0, ch == null ? 0 : ch.address(), compVector),
                        "ibv_create_cq", device.name() + ", " + entries + " entries, comp_vector " + compVector);
                return new JnrCompletionQueue(this, ch, cq);
            }
        } finally {
            leave();
        }
    }

    @Override
    public int numCompVectors() {
        enter();
        try {
            return RawMemory.getInt(ctx + Layout.CONTEXT_NUM_COMP_VECTORS);
        } finally {
            leave();
        }
    }

    @Override
    public synchronized void setAsyncEventListener(AsyncEventListener listener) {
        enter();
        try {
            asyncListener = listener;
            if (listener == null) {
                stopAsyncThread();
            } else if (asyncThread == null) {
                LibC.setNonBlocking(RawMemory.getInt(ctx + Layout.CONTEXT_ASYNC_FD), device.name() + " async event");
                asyncThread = new PollThread("verbs4j-async-" + device.name(), RawMemory.getInt(ctx + Layout.CONTEXT_ASYNC_FD),
                        Layout.ASYNC_EVENT_SIZE, this::deliverAsyncEvent,
                        t -> LOG.warn("async event thread of {} failed; no more async events", device.name(), t));
            }
        } finally {
            leave();
        }
    }

    private synchronized void stopAsyncThread() {
        PollThread t = asyncThread;
        asyncThread = null;
        asyncListener = null;
        if (t == null) {
            return;
        }
        if (!t.stop(2000)) {
            LOG.warn("async event thread of {} did not stop; leaking its wake-up descriptor", device.name());
        }
    }

    /** On the async event thread, when the async fd is readable: one event (read into {@code ev}) to the listener, then its ack. */
    private void deliverAsyncEvent(long ev) {
        if (asyncListener == null || JnrBackend.lib().getAsyncEvent.call(ctx, ev) != 0) {
            return;
        }
        try {
            AsyncEvent event = toEvent(ev);
            AsyncEventListener l = asyncListener;
            if (l != null) {
                l.onEvent(event);
            }
        } catch (RuntimeException e) {
            LOG.warn("async event listener of {} failed", device.name(), e);
        } finally {
            // destroying a QP/CQ/SRQ waits until its events are acknowledged
            JnrBackend.lib().ackAsyncEvent.call(ev);
        }
    }

    private AsyncEvent toEvent(long ev) {
        int typeValue = RawMemory.getInt(ev + Layout.AE_EVENT_TYPE);
        AsyncEventType type = AsyncEventType.of(typeValue);
        if (type == null) {
            LOG.warn("{}: async event of unknown type {}", device.name(), typeValue);
            return new AsyncEvent(AsyncEventType.DEVICE_FATAL, (long) typeValue, 0);
        }
        switch (type) {
            case CQ_ERR:
            case QP_FATAL:
            case QP_REQ_ERR:
            case QP_ACCESS_ERR:
            case COMM_EST:
            case SQ_DRAINED:
            case PATH_MIG:
            case PATH_MIG_ERR:
            case QP_LAST_WQE_REACHED:
            case SRQ_ERR:
            case SRQ_LIMIT_REACHED:
            case WQ_FATAL: {
                long element = RawMemory.getAddress(ev + Layout.AE_ELEMENT);
                Object o = objects.get(element);
                return new AsyncEvent(type, o != null ? o : element, 0);
            }
            case DEVICE_FATAL:
                return new AsyncEvent(type, null, 0);
            default:
                return new AsyncEvent(type, null, RawMemory.getInt(ev + Layout.AE_ELEMENT));
        }
    }

    @Override
    public DeviceAttributes queryDevice() {
        enter();
        try {
            long a = RawMemory.allocate(Layout.DEVICE_ATTR_SIZE);
            try {
                int rc = (int) JnrBackend.lib().queryDevice.call(ctx, a);
                if (rc != 0) {
                    throw new VerbsException("ibv_query_device", rc, device.name());
                }
                return DeviceQuery.attributes(a);
            } finally {
                RawMemory.free(a);
            }
        } finally {
            leave();
        }
    }

    @Override
    public DeviceAttributesEx queryDeviceEx() {
        enter();
        try {
            DeviceAttributesEx x = DeviceQuery.extended(device.name(), ctx, queryDeviceExFn);
            return x != null ? x : DeviceAttributesEx.of(queryDevice());
        } finally {
            leave();
        }
    }

    @Override
    public PortAttributes queryPort(int port) {
        enter();
        try {
            checkPortRange(port);
            long a = RawMemory.allocate(Layout.PORT_ATTR_SIZE);
            try {
                int rc;
                if (!queryPortFn.isNull()) {
                    rc = NativeCalls.queryPort(queryPortFn, ctx, port, a, Layout.PORT_ATTR_SIZE);
                } else {
                    rc = (int) JnrBackend.lib().queryPortCompat.call(ctx, port, a);
                }
                if (rc != 0) {
                    throw new VerbsException("ibv_query_port", rc, device.name() + " port " + port,
                            "Check the port number: the device has ports 1.." + queryDevice().physPortCnt());
                }
                return new PortAttributes(port,
                        PortState.of(RawMemory.getInt(a + Layout.PA_STATE)),
                        Mtu.of(RawMemory.getInt(a + Layout.PA_MAX_MTU)),
                        Mtu.of(RawMemory.getInt(a + Layout.PA_ACTIVE_MTU)),
                        RawMemory.getInt(a + Layout.PA_GID_TBL_LEN),
                        RawMemory.getInt(a + Layout.PA_PORT_CAP_FLAGS),
                        RawMemory.getUInt(a + Layout.PA_MAX_MSG_SZ),
                        RawMemory.getInt(a + Layout.PA_BAD_PKEY_CNTR),
                        RawMemory.getInt(a + Layout.PA_QKEY_VIOL_CNTR),
                        RawMemory.getUShort(a + Layout.PA_PKEY_TBL_LEN),
                        RawMemory.getUShort(a + Layout.PA_LID),
                        RawMemory.getUShort(a + Layout.PA_SM_LID),
                        RawMemory.getUByte(a + Layout.PA_LMC),
                        RawMemory.getUByte(a + Layout.PA_MAX_VL_NUM),
                        RawMemory.getUByte(a + Layout.PA_SM_SL),
                        RawMemory.getUByte(a + Layout.PA_SUBNET_TIMEOUT),
                        RawMemory.getUByte(a + Layout.PA_INIT_TYPE_REPLY),
                        RawMemory.getUByte(a + Layout.PA_ACTIVE_WIDTH),
                        RawMemory.getUByte(a + Layout.PA_ACTIVE_SPEED),
                        RawMemory.getUByte(a + Layout.PA_PHYS_STATE),
                        LinkLayer.of(RawMemory.getUByte(a + Layout.PA_LINK_LAYER)),
                        RawMemory.getUByte(a + Layout.PA_FLAGS),
                        !queryPortFn.isNull() ? RawMemory.getUShort(a + Layout.PA_PORT_CAP_FLAGS2) : 0);
            } finally {
                RawMemory.free(a);
            }
        } finally {
            leave();
        }
    }

    private void checkPortRange(int port) {
        if (port < 1 || port > 255) {
            throw new IllegalArgumentException("port numbers start at 1 (got " + port + ")");
        }
    }

    @Override
    public Gid queryGid(int port, int index) {
        return queryEntry("ibv_query_gid", JnrBackend.lib().queryGid, port, index, Gid.SIZE, g -> {
            byte[] raw = new byte[Gid.SIZE];
            RawMemory.copyToArray(g, raw, 0, Gid.SIZE);
            return Gid.of(raw);
        });
    }

    /**
     * {@code verb(ctx, port, index, out)} (ibv_query_gid, ibv_query_pkey) into {@code bytes} of scratch memory,
     * read by {@code read} before it is freed; fails naming the verb, errno, port and index.
     */
    private <T> T queryEntry(String verb, NativeFunction fn, int port, int index, int bytes, LongFunction<T> read) {
        enter();
        try {
            checkPortRange(port);
            long out = RawMemory.allocate(bytes);
            try {
                if (fn.call(ctx, port, index, out) != 0) {
                    throw new VerbsException(verb, JnrBackend.lastErrno(), device.name() + " port " + port + " index " + index);
                }
                return read.apply(out);
            } finally {
                RawMemory.free(out);
            }
        } finally {
            leave();
        }
    }

    @Override
    public GidEntry queryGidEntry(int port, int index) {
        enter();
        try {
            checkPortRange(port);
            long e = RawMemory.allocate(Layout.GID_ENTRY_SIZE);
            try {
                int rc = (int) JnrBackend.lib().queryGidEx.call(ctx, port, index, e, 0, Layout.GID_ENTRY_SIZE);
                if (rc != 0) {
                    throw new VerbsException("ibv_query_gid_ex", rc, device.name() + " port " + port + " index " + index,
                            rc == Errno.ENODATA ? "That GID table slot is empty; list the valid ones with queryGidTable() "
                                    + "or ibv_devinfo -v" : "Check the GID index against the port's GID table (ibv_devinfo -v)");
                }
                return readGidEntry(e);
            } finally {
                RawMemory.free(e);
            }
        } finally {
            leave();
        }
    }

    private static GidEntry readGidEntry(long e) {
        byte[] raw = new byte[Gid.SIZE];
        RawMemory.copyToArray(e + Layout.GE_GID, raw, 0, Gid.SIZE);
        return new GidEntry(RawMemory.getInt(e + Layout.GE_PORT_NUM), RawMemory.getInt(e + Layout.GE_GID_INDEX),
                Gid.of(raw), GidType.of(RawMemory.getInt(e + Layout.GE_GID_TYPE)),
                RawMemory.getInt(e + Layout.GE_NDEV_IFINDEX));
    }

    @Override
    public List<GidEntry> queryGidTable() {
        enter();
        try {
            int max = 0;
            for (PortAttributes p : queryPorts()) {
                max += p.gidTableLength();
            }
            if (max == 0) {
                return List.of();
            }
            long t = RawMemory.allocate((long) max * Layout.GID_ENTRY_SIZE);
            try {
                long n = JnrBackend.lib().queryGidTable.call(ctx, t, max, 0, Layout.GID_ENTRY_SIZE);
                if (n < 0) {
                    throw new VerbsException("ibv_query_gid_table", (int) -n, device.name());
                }
                List<GidEntry> out = new ArrayList<>((int) n);
                for (int i = 0; i < n; i++) {
                    out.add(readGidEntry(t + (long) i * Layout.GID_ENTRY_SIZE));
                }
                return List.copyOf(out);
            } finally {
                RawMemory.free(t);
            }
        } finally {
            leave();
        }
    }

    @Override
    public int queryPkey(int port, int index) {
        return queryEntry("ibv_query_pkey", JnrBackend.lib().queryPkey, port, index, 2,
                p -> Short.reverseBytes(RawMemory.getShort(p)) & 0xffff); // __be16
    }

    @Override
    public String toString() {
        return "DeviceContext[" + device.name() + "]";
    }
}
