package org.verbs4j.softiwarp;

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

/** A protection domain of a software iWARP device: its regions are reachable only from its own QPs. */
final class SoftProtectionDomain extends AbstractResource implements ProtectionDomain {
    private final SoftDeviceContext context;

    SoftProtectionDomain(SoftDeviceContext context) {
        super(context);
        this.context = context;
        describeForLeakReport(context.softDevice().name() + " pd");
    }

    SoftDeviceContext softContext() {
        return context;
    }

    /**
     * The region {@code stag} names, checked for an access from a QP of this PD; see {@link StagTable#resolve}:
     * the region is returned entered, and the caller leaves it when its bytes are moved.
     */
    SoftMemoryRegion resolve(int stag, long offset, long length, int access) throws TaggedAccessException {
        return context.softDevice().stags().resolve(stag, offset, length, access, this);
    }

    @Override
    protected String kind() {
        return "ProtectionDomain";
    }

    @Override
    protected void destroy() {
        // nothing outside the Java heap: the regions, the only memory, are closed already
    }

    @Override
    public DeviceContext context() {
        return context;
    }

    @Override
    public MemoryRegion registerMemory(long address, long length, int access) {
        if (address == 0) {
            throw new VerbsException("ibv_reg_mr", Errno.EFAULT, "address 0");
        }
        return register(address, length, access, null, 0);
    }

    @Override
    public MemoryRegion registerMemory(ByteBuffer directBuffer, int access) {
        if (!directBuffer.isDirect()) {
            throw new IllegalArgumentException("only a direct buffer can be registered: " + directBuffer);
        }
        return register(RawMemory.addressOf(directBuffer), directBuffer.capacity(), access, directBuffer, 0);
    }

    @Override
    public MemoryRegion allocateMemory(long length, int access) {
        RawMemory.PageAligned m = RawMemory.allocatePageAligned(length, SiwAttributes.PAGE_SIZE);
        try {
            return register(m.address(), length, access, m.buffer(), m.ownedRaw());
        } catch (RuntimeException e) {
            m.freeOwned();
            throw e;
        }
    }

    private MemoryRegion register(long address, long length, int access, ByteBuffer buffer, long ownedRaw) {
        enter();
        try {
            Access.check(access);
            if (length <= 0) {
                throw new IllegalArgumentException("cannot register " + length + " bytes");
            }
            return new SoftMemoryRegion(this, address, length, access, buffer, ownedRaw);
        } finally {
            leave();
        }
    }

    @Override
    public QueuePair createQueuePair(QpInitAttributes attributes) {
        enter();
        try {
            return SoftQueuePair.create(this, attributes);
        } finally {
            leave();
        }
    }

    @Override
    public SharedReceiveQueue createSharedReceiveQueue(int maxWr, int maxSge, int limit) {
        enter();
        try {
            return new SoftSharedReceiveQueue(this, maxWr, maxSge, limit);
        } finally {
            leave();
        }
    }

    @Override
    public AddressHandle createAddressHandle(AddressVector av) {
        checkOpen();
        // iWARP is connected only: no UD, no address handles (siw has no create_ah)
        throw new VerbsException("ibv_create_ah", Errno.EOPNOTSUPP, "iWARP has no address handles");
    }
}
