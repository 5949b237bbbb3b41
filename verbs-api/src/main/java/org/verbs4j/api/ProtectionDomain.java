package org.verbs4j.api;

import java.nio.ByteBuffer;

/**
 * A protection domain ({@code struct ibv_pd}): memory regions, queue pairs, shared receive queues and
 * address handles made from it can only be used together. Close everything made from it first.
 *
 * <pre>{@code
 * try (ProtectionDomain pd = ctx.allocProtectionDomain();
 *      MemoryRegion mr = pd.allocateMemory(1 << 20, Access.LOCAL_WRITE | Access.REMOTE_WRITE)) {
 *     ...
 * }
 * }</pre>
 */
public interface ProtectionDomain extends AutoCloseable {

    /** {@return the context} */
    DeviceContext context();

    /**
     * {@code ibv_reg_mr} over memory the caller owns. The caller keeps the memory alive and unmoved until
     * the region is closed: the NIC reads and writes it directly. A raw address cannot be checked: the
     * region's accessors and the checked scatter/gather entries trust that {@code length} bytes at
     * {@code address} are the caller's memory for as long as the region object is in use, and memory freed
     * under them crashes the JVM. Prefer the direct-buffer or allocating forms.
     *
     * @param address the native address of the first byte to register
     * @param length the length in bytes
     * @return the new memory region, which the caller closes
     * @param access {@link Access} flags
     */
    MemoryRegion registerMemory(long address, long length, int access);

    /**
     * {@code ibv_reg_mr} over a direct buffer, from its address 0 to its capacity (position and limit are
     * ignored). The region keeps a reference to the buffer, so it cannot be freed while registered.
     *
     * @param directBuffer a direct buffer; all of it, 0 to its capacity, is registered (position and limit do not
     *                     matter)
     * @param access {@link Access} flags
     * @return the new memory region, which the caller closes
     */
    MemoryRegion registerMemory(ByteBuffer directBuffer, int access);

    /**
     * Allocates {@code length} zeroed, page-aligned bytes and registers them. Closing the region deregisters
     * them; the memory itself is freed once the region object is unreachable, so that an accessor racing the
     * close on another thread never touches freed memory.
     *
     * @param length the length in bytes
     * @param access {@link Access} flags
     * @return the new memory region, which the caller closes
     */
    MemoryRegion allocateMemory(long length, int access);

    /**
     * {@code ibv_create_qp}. The QP starts in {@link QpState#RESET}.
     *
     * @param attributes the type, CQs, SRQ and capabilities of the new queue pair
     * @return the new queue pair, which the caller closes
     */
    QueuePair createQueuePair(QpInitAttributes attributes);

    /**
     * {@code ibv_create_srq}; {@code limit} &gt; 0 arms the limit event at once.
     *
     * @param maxWr the most outstanding work requests
     * @param maxSge the most scatter/gather entries per request
     * @param limit the SRQ limit; above 0 it arms the limit event
     * @return the new shared receive queue, which the caller closes
     */
    SharedReceiveQueue createSharedReceiveQueue(int maxWr, int maxSge, int limit);

    /**
     * {@code ibv_create_ah}: the destination of UD sends.
     *
     * @param av the address vector
     * @return the new address handle, which the caller closes
     */
    AddressHandle createAddressHandle(AddressVector av);

    /** {@return whether closed} */
    boolean isClosed();

    /** {@code ibv_dealloc_pd}; refused while objects made from this PD are open. */
    @Override
    void close();
}
