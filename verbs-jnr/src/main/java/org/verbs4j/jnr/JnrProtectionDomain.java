package org.verbs4j.jnr;

import java.nio.ByteBuffer;
import org.verbs4j.api.Access;
import org.verbs4j.api.AddressHandle;
import org.verbs4j.api.AddressVector;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.Errno;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.QpInitAttributes;
import org.verbs4j.api.QueuePair;
import org.verbs4j.api.SharedReceiveQueue;
import org.verbs4j.api.VerbsException;
import org.verbs4j.api.internal.RawMemory;
import org.verbs4j.api.spi.AbstractResource;

/** {@code struct ibv_pd}. */
final class JnrProtectionDomain extends AbstractResource implements ProtectionDomain {
    private final JnrDeviceContext context;
    private final long pd;

    JnrProtectionDomain(JnrDeviceContext context, long pd) {
        super(context);
        this.context = context;
        this.pd = pd;
        describeForLeakReport(context.device().name() + " pd 0x" + Long.toHexString(pd));
    }

    long address() {
        checkOpen();
        return pd;
    }

    JnrDeviceContext jnrContext() {
        return context;
    }

    @Override
    protected String kind() {
        return "ProtectionDomain";
    }

    @Override
    protected void destroy() {
        int rc = (int) JnrBackend.lib().deallocPd.call(pd);
        if (rc != 0) {
            throw new VerbsException("ibv_dealloc_pd", rc, toString());
        }
    }

    @Override
    public DeviceContext context() {
        return context;
    }

    @Override
    public MemoryRegion registerMemory(long address, long length, int access) {
        return register(address, length, access, null, 0);
    }

    @Override
    public MemoryRegion registerMemory(ByteBuffer directBuffer, int access) {
        return register(RawMemory.addressOf(directBuffer), directBuffer.capacity(), access, directBuffer, 0);
    }

    @Override
    public MemoryRegion allocateMemory(long length, int access) {
        enter();
        try {
            RawMemory.PageAligned m = RawMemory.allocatePageAligned(length, RawMemory.PAGE_SIZE);
            try {
                return register(m.address(), length, access, m.buffer(), m.ownedRaw());
            } catch (RuntimeException e) {
                m.freeOwned();
                throw e;
            }
        } finally {
            leave();
        }
    }

    private MemoryRegion register(long address, long length, int access, ByteBuffer buffer, long ownedRaw) {
        enter();
        try {
            Access.check(access);
            if (length <= 0) {
                throw new IllegalArgumentException("cannot register " + length + " bytes");
            }
            long mr = JnrBackend.lib().regMr.call(pd, address, length, access);
            if (mr == 0) {
                int errno = JnrBackend.lastErrno();
                throw new VerbsException("ibv_reg_mr", errno, length + " bytes at 0x" + Long.toHexString(address)
                        + ", access " + Access.toString(access) + ", " + context.device().name());
            }
            return new JnrMemoryRegion(this, mr, access, buffer, ownedRaw);
        } finally {
            leave();
        }
    }

    @Override
    public QueuePair createQueuePair(QpInitAttributes attributes) {
        enter();
        try {
            return JnrQueuePair.create(this, attributes);
        } finally {
            leave();
        }
    }

    @Override
    public SharedReceiveQueue createSharedReceiveQueue(int maxWr, int maxSge, int limit) {
        enter();
        try {
            return JnrSharedReceiveQueue.create(this, maxWr, maxSge, limit);
        } finally {
            leave();
        }
    }

    @Override
    public AddressHandle createAddressHandle(AddressVector av) {
        enter();
        try {
            long attr = RawMemory.allocate(Layout.AH_ATTR_SIZE);
            try {
                JnrQueuePair.writeAhAttr(attr, av);
                long ah = JnrBackend.lib().createAh.call(pd, attr);
                if (ah == 0) {
                    int errno = JnrBackend.lastErrno();
                    throw new VerbsException("ibv_create_ah", errno, av.toString(), errno == Errno.EINVAL
                            ? "Check the address vector: RoCE needs a GRH (AddressVector.global) with a valid sgid "
                                    + "index; InfiniBand needs the destination LID"
                            : null);
                }
                return new JnrAddressHandle(this, ah, av);
            } finally {
                RawMemory.free(attr);
            }
        } finally {
            leave();
        }
    }
}
