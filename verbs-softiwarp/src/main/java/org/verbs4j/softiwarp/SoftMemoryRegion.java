package org.verbs4j.softiwarp;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.verbs4j.api.Access;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.internal.RawMemory;
import org.verbs4j.api.spi.AbstractResource;

/**
 * A registered region of native memory or of a direct buffer, named by one STag that is both its lkey and its
 * rkey (as in siw). Nothing is pinned: the JVM does not move native memory, and a direct buffer is held by
 * the region so that its memory stays allocated while the region is open.
 */
final class SoftMemoryRegion extends AbstractResource implements MemoryRegion {
    private final SoftProtectionDomain pd;
    private final long address;
    private final long length;
    private final int access;
    /** Held so the buffer's memory lives as long as the region; null for raw memory. */
    private final ByteBuffer buffer;
    /** Frees what {@link ProtectionDomain#allocateMemory} took outside a buffer, once the region is unreachable. */
    private static final java.lang.ref.Cleaner RAW_MEMORY = java.lang.ref.Cleaner.create();
    private volatile int stag;
    /** {@link #ioView}'s buffer, made at its first call. */
    private volatile ByteBuffer ioView;
    /**
     * Sets of duplicates of {@link #ioView} that messages being sent from this region borrow ({@link #lendViews}) and
     * give back when they are all written: messages in turn, from any QP, allocate nothing. Emptied when the region
     * is destroyed, so that no duplicate outlives it (each holds the region's memory allocated).
     */
    private final AtomicReferenceArray<ByteBuffer[]> viewSets = new AtomicReferenceArray<>(VIEW_SETS);
    /** The most view sets kept: messages sent from the region at once beyond that make their own. */
    static final int VIEW_SETS = 4;

    SoftMemoryRegion(SoftProtectionDomain pd, long address, long length, int access, ByteBuffer buffer, long ownedRaw) {
        super(pd);
        this.pd = pd;
        this.address = address;
        this.length = length;
        this.access = access;
        this.buffer = buffer;
        if (ownedRaw != 0) {
            RAW_MEMORY.register(this, () -> RawMemory.free(ownedRaw));
        }
        try {
            pd.softContext().softDevice().stags().add(this);
        } catch (RuntimeException e) {
            abandon();
            throw e;
        }
        describeForLeakReport(pd.softContext().softDevice().name() + " mr stag 0x" + Integer.toHexString(stag)
                + ", " + length + " bytes at 0x" + Long.toHexString(address));
    }

    void assignStag(int stag) {
        this.stag = stag;
    }

    int stag() {
        return stag;
    }

    /** Enters the region's guard without throwing: false when it is closed or being closed. */
    boolean tryEnter() {
        try {
            enter();
            return true;
        } catch (IllegalStateException e) {
            return false;
        }
    }

    /** {@return null when the access is allowed, else why not} In siw's order: PD, rights, wrap, bounds. */
    TaggedAccessError check(long offset, long len, int need, SoftProtectionDomain from) {
        if (from != pd) {
            return TaggedAccessError.STAG_NOT_ASSOCIATED;
        }
        if ((access & need) != need) {
            return TaggedAccessError.ACCESS_RIGHTS;
        }
        long base = (access & Access.ZERO_BASED) != 0 ? 0 : address;
        if (len < 0) {
            return TaggedAccessError.BASE_BOUNDS;
        }
        long end = offset + len;
        if (Long.compareUnsigned(end, offset) < 0) {
            return TaggedAccessError.TO_WRAP;
        }
        if (Long.compareUnsigned(offset, base) < 0 || Long.compareUnsigned(end, base + length) > 0) {
            return TaggedAccessError.BASE_BOUNDS;
        }
        return null;
    }

    /**
     * {@return the native address of tagged offset {@code offset}} Call only for an offset {@link #check} accepted,
     * between {@code resolve} and {@link #leave()}.
     */
    long addressOf(long offset) {
        return (access & Access.ZERO_BASED) != 0 ? address + offset : offset;
    }

    /**
     * {@return a direct buffer over the whole region, position 0, for gathering writes straight from it, or null
     * when the region is over raw memory (registered by address)} Made once; callers take duplicates of it. It holds
     * the region's memory allocated as long as it is reachable.
     */
    ByteBuffer ioView() {
        ByteBuffer v = ioView;
        if (v == null && buffer != null && buffer.capacity() == length && RawMemory.addressOf(buffer) == address) {
            v = buffer.duplicate();
            v.clear();
            ioView = v;
        }
        return v;
    }

    /**
     * {@return a set of {@code length} places for duplicates of {@link #ioView}, those already made kept} For a
     * message sent from this region between {@code resolve} and {@link #leave()}; give it back with
     * {@link #takeBackViews} before leaving, or drop it.
     */
    ByteBuffer[] lendViews(int length) {
        for (int i = 0; i < VIEW_SETS; i++) {
            ByteBuffer[] set = viewSets.getPlain(i) != null ? viewSets.getAndSet(i, null) : null;
            if (set != null) {
                return set;
            }
        }
        return new ByteBuffer[length];
    }

    /** Keeps a set {@link #lendViews} lent, if there is room; call before {@link #leave()}. */
    void takeBackViews(ByteBuffer[] set) {
        for (int i = 0; i < VIEW_SETS; i++) {
            if (viewSets.getPlain(i) == null && viewSets.compareAndSet(i, null, set)) {
                return;
            }
        }
    }

    @Override
    protected String kind() {
        return "MemoryRegion";
    }

    @Override
    protected void destroy() {
        pd.softContext().softDevice().stags().remove(stag);
        for (int i = 0; i < VIEW_SETS; i++) {
            viewSets.set(i, null);
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
        return stag;
    }

    @Override
    public int rkey() {
        return stag;
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
