package org.verbs4j.api;

/**
 * Memory region and queue pair access flags ({@code enum ibv_access_flags}), combined with {@code |}.
 * Remote write and remote atomic need local write, as libibverbs requires.
 *
 * <pre>{@code
 * MemoryRegion mr = pd.allocateMemory(4096, Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ);
 * }</pre>
 */
public final class Access {
    /** {@code IBV_ACCESS_LOCAL_WRITE}: the local NIC may write the memory (receives, READ sinks, atomic results). */
    public static final int LOCAL_WRITE = 1;
    /** {@code IBV_ACCESS_REMOTE_WRITE}: peers may RDMA WRITE into it (needs {@link #LOCAL_WRITE}). */
    public static final int REMOTE_WRITE = 1 << 1;
    /** {@code IBV_ACCESS_REMOTE_READ}: peers may RDMA READ it. */
    public static final int REMOTE_READ = 1 << 2;
    /** {@code IBV_ACCESS_REMOTE_ATOMIC}: peers may run atomics on it (needs {@link #LOCAL_WRITE}). */
    public static final int REMOTE_ATOMIC = 1 << 3;
    /** {@code IBV_ACCESS_MW_BIND}: memory windows may be bound to the region. */
    public static final int MW_BIND = 1 << 4;
    /** {@code IBV_ACCESS_ZERO_BASED}: remote addresses count from the region's start, not its virtual address. */
    public static final int ZERO_BASED = 1 << 5;
    /** {@code IBV_ACCESS_ON_DEMAND}: on-demand paging, where the device supports it (not pinned up front). */
    public static final int ON_DEMAND = 1 << 6;
    /** {@code IBV_ACCESS_HUGETLB}: the memory is backed by huge pages. */
    public static final int HUGETLB = 1 << 7;
    /** {@code IBV_ACCESS_RELAXED_ORDERING}: the device may reorder PCIe writes to the region (a hint). */
    public static final int RELAXED_ORDERING = 1 << 20;
    /** Every remote access plus local write: what a buffer that peers read, write and update needs. */
    public static final int ALL_REMOTE = LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ | REMOTE_ATOMIC;

    private Access() {
    }

    /**
     * Names of the set flags, e.g. "LOCAL_WRITE|REMOTE_READ".
     *
     * @param flags {@link Access} bits
     * @return the names joined with {@code |}, unknown bits as hex
     */
    public static String toString(int flags) {
        StringBuilder sb = new StringBuilder();
        String[] names = {"LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC", "MW_BIND", "ZERO_BASED",
            "ON_DEMAND", "HUGETLB"};
        for (int i = 0; i < names.length; i++) {
            if ((flags & (1 << i)) != 0) {
                sb.append(sb.length() > 0 ? "|" : "").append(names[i]);
            }
        }
        if ((flags & RELAXED_ORDERING) != 0) {
            sb.append(sb.length() > 0 ? "|" : "").append("RELAXED_ORDERING");
        }
        int unknown = flags & ~(0xff | RELAXED_ORDERING);
        if (unknown != 0) {
            sb.append(sb.length() > 0 ? "|" : "").append("0x").append(Integer.toHexString(unknown));
        }
        return sb.length() == 0 ? "0" : sb.toString();
    }

    /**
     * Throws when remote write or atomic is asked without local write (the verb would fail with EINVAL).
     *
     * @param flags the {@link Access} bits to check
     */
    public static void check(int flags) {
        if ((flags & (REMOTE_WRITE | REMOTE_ATOMIC)) != 0 && (flags & LOCAL_WRITE) == 0) {
            throw new IllegalArgumentException("access " + toString(flags)
                    + ": REMOTE_WRITE and REMOTE_ATOMIC need LOCAL_WRITE too");
        }
    }
}
