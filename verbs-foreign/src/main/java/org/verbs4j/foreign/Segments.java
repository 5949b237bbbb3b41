package org.verbs4j.foreign;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.util.Objects;
import org.verbs4j.api.Access;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.ProtectionDomain;

/**
 * Memory regions over {@link MemorySegment}s: {@link #register register} a native segment of any {@link Arena}
 * with a protection domain, and see a registered region as a {@link #segment segment}.
 *
 * <pre>{@code
 * try (Arena arena = Arena.ofShared();
 *      MemoryRegion mr = Segments.register(pd, arena.allocate(1 << 20, 4096),
 *              Access.LOCAL_WRITE | Access.REMOTE_WRITE)) {
 *     MemorySegment view = Segments.segment(mr);      // the same bytes the NIC reads and writes
 *     view.set(ValueLayout.JAVA_LONG, 0, 42L);
 *     ...
 * }   // the region is closed before the arena frees its memory
 * }</pre>
 *
 * <p><b>Closing the arena.</b> The NIC reads and writes a registered segment by its address, outside the arena's
 * control: closing the {@link Arena} of a registered segment (an {@link Arena#ofConfined() confined} or
 * {@link Arena#ofShared() shared} arena, or {@link Arena#global() never}) frees memory the NIC may still write, a
 * use after free that this library cannot detect or prevent. Close the region first, after the last work request
 * that uses it has completed, and only then the arena, as a try-with-resources statement that opens the arena
 * before the region does. Memory of an {@link Arena#ofAuto() automatic} arena needs no care: a region keeps the
 * segment reachable, so its memory is not freed while the region is reachable, closed or not.
 */
public final class Segments {
    /** The access flags with which the NIC writes the memory: refused for a read-only segment. */
    private static final int WRITES = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_ATOMIC;

    /** Holds each segment registered by address for as long as its region is reachable (see {@link #register}). */
    private static final Cleaner KEEP_ALIVE = Cleaner.create();

    private Segments() {
    }

    /**
     * {@code ibv_reg_mr} over all the bytes of a native segment, from its {@link MemorySegment#address() address}
     * for its {@link MemorySegment#byteSize() byteSize}.
     *
     * <p>The region keeps the segment reachable for as long as the region itself is reachable, so memory of an
     * {@link Arena#ofAuto() automatic} arena is not freed under the NIC: a segment of up to
     * {@link Integer#MAX_VALUE} bytes is registered as the direct buffer {@link MemorySegment#asByteBuffer()}
     * makes of it (the buffer holds the segment, and the region holds the buffer, its {@link MemoryRegion#buffer()});
     * a larger one is registered by its address, and the segment is tied to the region object by a
     * {@link Cleaner} that lets it go once the region is unreachable. Closing an explicit arena is the caller's
     * to order: see the class description.
     *
     * <p>A read-only segment may be registered for the NIC to read it (to send it, or for a peer's RDMA READ), not
     * with {@link Access#LOCAL_WRITE}, {@link Access#REMOTE_WRITE} or {@link Access#REMOTE_ATOMIC}. The region's
     * own accessors ({@link MemoryRegion#putLong} and the like) do not know the segment was read-only: write it
     * only through the segment, or not at all.
     *
     * @param pd      the protection domain
     * @param segment a native segment (of an {@link Arena}, or a mapped file) whose arena is open, at least one byte
     *                long
     * @param access  {@link Access} flags
     * @return the new memory region, which the caller closes (before the segment's arena)
     * @throws IllegalArgumentException when the segment is a heap segment, is empty, or is read-only and
     *                                  {@code access} lets the NIC write it
     * @throws IllegalStateException    when the segment's arena is closed already
     */
    public static MemoryRegion register(ProtectionDomain pd, MemorySegment segment, int access) {
        Objects.requireNonNull(pd, "pd");
        checkRegistrable(segment, access);
        if (segment.byteSize() <= Integer.MAX_VALUE) {
            return pd.registerMemory(segment.asByteBuffer(), access);
        }
        return registerByAddress(pd, segment, access);
    }

    /**
     * Registers a checked segment by its address and keeps it reachable from the region: the path of segments that
     * no buffer can cover. Package-private so that a test can take it with a small segment.
     */
    static MemoryRegion registerByAddress(ProtectionDomain pd, MemorySegment segment, int access) {
        MemoryRegion mr = pd.registerMemory(segment.address(), segment.byteSize(), access);
        // the action holds the segment, the cleaner holds the action until the region is phantom reachable
        KEEP_ALIVE.register(mr, () -> Reference.reachabilityFence(segment));
        return mr;
    }

    private static void checkRegistrable(MemorySegment segment, int access) {
        Objects.requireNonNull(segment, "segment");
        if (!segment.isNative()) {
            throw new IllegalArgumentException("a heap segment cannot be registered: the garbage collector may move "
                    + "it while the NIC reads or writes it; allocate the memory from an Arena instead "
                    + "(e.g. Arena.ofShared().allocate(length, 4096)): " + segment);
        }
        if (!segment.scope().isAlive()) {
            throw new IllegalStateException("the segment's arena is closed, its memory freed: register a segment "
                    + "of an open arena: " + segment);
        }
        if (segment.byteSize() == 0) {
            throw new IllegalArgumentException("an empty segment cannot be registered (ibv_reg_mr needs at least "
                    + "one byte): " + segment);
        }
        if (segment.isReadOnly() && (access & WRITES) != 0) {
            throw new IllegalArgumentException("the segment is read-only, so the NIC may not write it: register it "
                    + "without " + Access.toString(access & WRITES) + " (access " + Access.toString(access)
                    + "): " + segment);
        }
    }

    /**
     * A segment over exactly the bytes of {@code mr}: from its {@link MemoryRegion#address() address} for its
     * {@link MemoryRegion#length() length}. Reading and writing it is reading and writing what the NIC reads and
     * writes; as with the region's accessors, read bytes the NIC writes after the completion that says they
     * arrived.
     *
     * <p>The segment keeps the region's memory allocated for as long as the segment is reachable, even after the
     * region is closed (the memory is then no longer registered, but still valid). For a region over a direct
     * buffer ({@link ProtectionDomain#registerMemory(ByteBuffer, int)}, {@link ProtectionDomain#allocateMemory} up to
     * {@link Integer#MAX_VALUE} bytes, and {@link #register} up to that size) it is the buffer's segment
     * ({@link MemorySegment#ofBuffer}): for a region registered from a segment that has the scope of that segment, so
     * it is confined to the same thread and closed with the same arena, and read-only if that segment was. For a
     * region without a buffer it is a segment of a new {@link Arena#ofAuto() automatic} arena that holds the
     * region; it is made with the restricted method {@link MemorySegment#reinterpret(long, Arena,
     * java.util.function.Consumer)}, which needs native access for this module (or a warning is printed).
     * For memory registered by raw address ({@link ProtectionDomain#registerMemory(long, long, int)}) the
     * caller keeps the memory allocated, as for the region.
     *
     * @param mr an open memory region
     * @return a segment over the region's bytes
     * @throws IllegalStateException when the region is closed, or was registered from a segment whose arena is
     *                               closed since (its memory is freed: close the region)
     */
    @SuppressWarnings("restricted") // reinterpret: the region's own length, over memory the region keeps alive
    public static MemorySegment segment(MemoryRegion mr) {
        Objects.requireNonNull(mr, "mr");
        if (mr.isClosed()) {
            throw new IllegalStateException(mr + " is closed: take the segment of a region while it is registered");
        }
        ByteBuffer buffer = mr.buffer();
        if (buffer != null) {
            MemorySegment view = MemorySegment.ofBuffer(buffer.duplicate().clear());
            if (view.address() == mr.address() && view.byteSize() == mr.length()) {
                if (!view.scope().isAlive()) {
                    throw new IllegalStateException(mr + " was registered from a segment whose arena is closed: "
                            + "its memory is freed under the region; close the region before the arena");
                }
                return view;
            }
        }
        return MemorySegment.ofAddress(mr.address())
                .reinterpret(mr.length(), Arena.ofAuto(), unused -> Reference.reachabilityFence(mr));
    }
}
