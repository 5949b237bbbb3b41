package org.verbs4j.netty;

import java.nio.ByteBuffer;

/**
 * The first half of one channel's RDMA region: where its rendezvous messages wait for the peer's reads. Copied
 * writes take room in a first-in, first-out ring; with the {@linkplain RdmaChannelOption#REGISTERED_ALLOCATOR
 * registered allocator} the half is split, its second part lent in blocks to large buffers ({@link RegionByteBuf}),
 * which are announced as they are. The announcements wait here, in their order, until the peer releases them (it
 * releases the oldest first, by count). The two parts never take room from each other, so buffers an application
 * holds never stop a copied write. The channel's event loop uses it; the lent part is any thread's.
 */
final class RendezvousStaging {
    private final RegionRing copies;
    private final RegionBlocks lending;
    /** The announcements not released yet, oldest first (a ring): null for a copy, else the lent buffer. */
    private final RegionByteBuf[] announced;
    private int first;
    private int count;

    /**
     * @param region   the channel's RDMA region
     * @param capacity the bytes of the staging half (from offset 0)
     * @param entries  the most announcements held at once
     * @param lend     whether to lend half of it to the registered allocator
     * @param peerHalf the peer's receiving half: no announcement may be larger
     */
    RendezvousStaging(ByteBuffer region, long capacity, int entries, boolean lend, long peerHalf) {
        long lent = lend && capacity >= 2L * RegionBlocks.MIN_BLOCK_BYTES ? capacity / 2 : 0;
        this.copies = new RegionRing(capacity - lent, entries);
        this.lending = lent == 0 ? null : new RegionBlocks(region, capacity - lent, lent, peerHalf);
        this.announced = new RegionByteBuf[entries];
    }

    /** {@return the bytes copies may take: the largest copied piece is at most that} */
    long copyCapacity() {
        return copies.capacity();
    }

    /** {@return the lent part, or null without the registered allocator (or with a tiny region)} */
    RegionBlocks lending() {
        return lending;
    }

    /** {@return the announcements the peer has not released yet} */
    int held() {
        return count;
    }

    /** {@return whether another announcement must wait for a release} */
    boolean full() {
        return count == announced.length;
    }

    /** {@return the offset of room for a copied piece of {@code length} bytes, now announced; -1 if none now} */
    long stageCopy(int length) {
        if (full()) {
            return -1;
        }
        long at = copies.allocate(length);
        if (at >= 0) {
            push(null);
        }
        return at;
    }

    /** Takes back the newest announcement, a copy that did not go out after all. */
    void dropNewestCopy() {
        if (count == 0 || announced[(first + count - 1) % announced.length] != null) {
            throw new IllegalStateException("the newest announcement is not a copy");
        }
        count--;
        copies.dropNewest();
    }

    /** Announces a lent buffer, whose {@link RegionByteBuf#announcing} said yes. The caller checked {@link #full}. */
    void announceLent(RegionByteBuf buf) {
        if (full()) {
            throw new IllegalStateException("no room for another announcement");
        }
        push(buf);
    }

    /** The peer has read the {@code n} oldest announcements (at most {@link #held}): their room is free again. */
    void release(int n) {
        for (int k = 0; k < n; k++) {
            RegionByteBuf b = announced[first];
            announced[first] = null;
            first = first + 1 == announced.length ? 0 : first + 1;
            count--;
            if (b == null) {
                copies.free();
            } else {
                b.readByPeer();
            }
        }
    }

    /** The channel closed: nothing more is lent. */
    void close() {
        if (lending != null) {
            lending.close();
        }
    }

    private void push(RegionByteBuf buf) {
        int cell = first + count;
        if (cell >= announced.length) {
            cell -= announced.length;
        }
        announced[cell] = buf;
        count++;
    }
}
