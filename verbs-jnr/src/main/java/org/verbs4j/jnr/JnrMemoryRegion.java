package org.verbs4j.jnr;

import java.nio.ByteBuffer;
import org.verbs4j.api.Access;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.VerbsException;
import org.verbs4j.api.internal.RawMemory;
import org.verbs4j.api.spi.AbstractResource;

/** {@code struct ibv_mr}; keys and address are read once at registration. */
final class JnrMemoryRegion extends AbstractResource implements MemoryRegion {
    private final JnrProtectionDomain pd;
    private final long mr;
    private final long address;
    private final long length;
    private final int lkey;
    private final int rkey;
    private final int access;
    /** Keeps a registered direct buffer reachable (its memory must not be freed while registered). */
    private final ByteBuffer buffer;
    /**
     * Frees native memory the region allocated when the region becomes unreachable, not at close: a thread
     * inside an accessor on another thread holds the region, so the memory is never freed under it.
     */
    private static final java.lang.ref.Cleaner RAW_MEMORY = java.lang.ref.Cleaner.create();

    JnrMemoryRegion(JnrProtectionDomain pd, long mr, int access, ByteBuffer buffer, long ownedRaw) {
        super(pd);
        this.pd = pd;
        this.mr = mr;
        this.address = RawMemory.getLong(mr + Layout.MR_ADDR);
        this.length = RawMemory.getLong(mr + Layout.MR_LENGTH);
        this.lkey = RawMemory.getInt(mr + Layout.MR_LKEY);
        this.rkey = RawMemory.getInt(mr + Layout.MR_RKEY);
        this.access = access;
        this.buffer = buffer;
        if (ownedRaw != 0) {
            RAW_MEMORY.register(this, () -> RawMemory.free(ownedRaw));
        }
        describeForLeakReport(String.format("%d bytes at 0x%x, lkey 0x%x, rkey 0x%x, %s", length, address, lkey, rkey,
                Access.toString(access)));
    }

    @Override
    protected String kind() {
        return "MemoryRegion";
    }

    @Override
    protected void destroy() {
        int rc = (int) JnrBackend.lib().deregMr.call(mr);
        if (rc != 0) {
            throw new VerbsException("ibv_dereg_mr", rc, toString());
        }
    }

    @Override
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    @Override
    public long address() {
        return address;
    }

    @Override
    public long length() {
        return length;
    }

    @Override
    public int lkey() {
        return lkey;
    }

    @Override
    public int rkey() {
        return rkey;
    }

    @Override
    public int access() {
        return access;
    }

    @Override
    public ByteBuffer buffer() {
        return buffer;
    }
}
