package org.verbs4j.softiwarp;

import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.verbs4j.api.Access;
import org.verbs4j.api.Errno;
import org.verbs4j.api.VerbsException;

/**
 * A device's STags: each is a 24-bit index into this table and an 8-bit key, as siw makes them
 * ({@code index << 8 | key}). A slot's key byte moves on each time the slot is reused, so that an STag of a
 * deregistered region never names the next region in its slot, and starts at a random value, so that a peer
 * cannot guess a region's STag from its index (siw starts its indexes at a random one); freed indexes are reused last (first in, first
 * out). Index 0 is never given out: STag 0 and siw's RTR STag 1 are never valid. Lookups take no lock and
 * allocate nothing; registration and deregistration lock the table.
 */
final class StagTable {
    private final int capacity;
    private final AtomicReferenceArray<SoftMemoryRegion> slots;
    private final byte[] keys;
    private final ArrayDeque<Integer> free = new ArrayDeque<>();
    private int nextFresh = 1;

    /** @param capacity the most regions at once (the device's {@code max_mr}) */
    StagTable(int capacity) {
        this.capacity = capacity;
        this.slots = new AtomicReferenceArray<>(capacity + 1);
        this.keys = new byte[capacity + 1];
        // each slot's first key is random, so that a peer cannot guess a region's STag from its index alone
        java.util.concurrent.ThreadLocalRandom.current().nextBytes(keys);
    }

    /** Gives {@code region} an STag and publishes it; throws ENOMEM when the table is full. */
    synchronized int add(SoftMemoryRegion region) {
        int index;
        if (nextFresh <= capacity) {
            index = nextFresh++;
        } else if (!free.isEmpty()) {
            index = free.poll();
        } else {
            throw new VerbsException("ibv_reg_mr", Errno.ENOMEM, "all " + capacity + " STags of the device are in use");
        }
        int stag = (index << 8) | (keys[index] & 0xff);
        region.assignStag(stag);
        slots.set(index, region);
        return stag;
    }

    /** Invalidates {@code stag}: no lookup finds it after this returns; the slot's next STag has the next key. */
    synchronized void remove(int stag) {
        int index = stag >>> 8;
        if (index >= 1 && index <= capacity && slots.get(index) != null && slots.get(index).stag() == stag) {
            slots.set(index, null);
            keys[index]++;
            free.add(index);
        }
    }

    /**
     * The region named by {@code stag}, checked for an access of {@code length} bytes at tagged offset
     * {@code offset} that needs the rights {@code access} ({@link Access} bits, 0 for a local read) from a QP
     * of protection domain {@code pd}. On success the region is {@linkplain SoftMemoryRegion#enter() entered}:
     * the caller moves its bytes and then calls {@link SoftMemoryRegion#leave()} (in a {@code finally}), so that
     * a deregistration racing the copy waits for it to end, and no byte lands in freed memory.
     *
     * @param stag the STag (an rkey from the peer, or a local SGE's lkey)
     * @param offset the tagged offset: the virtual address for a region registered at an address, the offset
     *        from its start for a zero-based one
     * @param length the number of bytes, 0 or more
     * @param access the rights the operation needs, e.g. {@link Access#REMOTE_WRITE}
     * @param pd the QP's protection domain
     * @return the region, entered
     * @throws TaggedAccessException with the reason, in siw's order: invalid STag, PD mismatch, rights, bounds
     */
    SoftMemoryRegion resolve(int stag, long offset, long length, int access, SoftProtectionDomain pd)
            throws TaggedAccessException {
        int index = stag >>> 8;
        SoftMemoryRegion r = index >= 1 && index <= capacity ? slots.get(index) : null;
        if (r == null || r.stag() != stag || !r.tryEnter()) {
            throw new TaggedAccessException(TaggedAccessError.INVALID_STAG, stag, offset, length);
        }
        TaggedAccessError e = r.check(offset, length, access, pd);
        if (e != null) {
            r.leave();
            throw new TaggedAccessException(e, stag, offset, length);
        }
        return r;
    }
}
