package org.verbs4j.api;

import java.util.List;

/**
 * An open device ({@code struct ibv_context}): queries, and the factory of everything else
 * (protection domains, completion queues and channels). Close it last: closing it while
 * objects made from it are open is refused with a message that names them.
 */
public interface DeviceContext extends AutoCloseable {

    /** {@return the device this context was opened on} */
    RdmaDevice device();

    /** {@return {@code ibv_query_device}} */
    DeviceAttributes queryDevice();

    /**
     * {@code ibv_query_device_ex}: the classic attributes and the extended ones. A backend or provider without
     * the extended query reports zeros for the extended fields, as libibverbs does; this default does that.
     *
     * @return the device's attributes ({@code struct ibv_device_attr_ex})
     */
    default DeviceAttributesEx queryDeviceEx() {
        return DeviceAttributesEx.of(queryDevice());
    }

    /**
     * {@code ibv_query_port} for port {@code port} (1-based).
     *
     * @param port the port number, from 1
     * @return the port's attributes ({@code struct ibv_port_attr})
     */
    PortAttributes queryPort(int port);

    /** {@return every port, 1..{@code phys_port_cnt}} */
    default List<PortAttributes> queryPorts() {
        int n = queryDevice().physPortCnt();
        PortAttributes[] ports = new PortAttributes[n];
        for (int p = 1; p <= n; p++) {
            ports[p - 1] = queryPort(p);
        }
        return List.of(ports);
    }

    /**
     * {@code ibv_query_gid}: the GID at {@code index} of {@code port}'s table (zero for an empty slot).
     *
     * @param port the port number, from 1
     * @param index the GID index, 0..{@code gid_tbl_len-1}
     * @return the GID ({@link Gid#ZERO} for an empty slot)
     */
    Gid queryGid(int port, int index);

    /**
     * {@code ibv_query_gid_ex}: the entry at {@code index}, with its type; throws when the slot is empty.
     *
     * @param port the port number, from 1
     * @param index the GID index, 0..{@code gid_tbl_len-1}
     * @return the entry with its type and net device
     */
    GidEntry queryGidEntry(int port, int index);

    /** {@return {@code ibv_query_gid_table}: every valid GID of every port, with types} */
    List<GidEntry> queryGidTable();

    /**
     * {@code ibv_query_pkey}: the P_Key at {@code index} of {@code port}'s P_Key table, host order.
     *
     * @param port the port number, from 1
     * @param index the P_Key index, 0..{@code pkey_tbl_len-1}
     * @return the P_Key, 16 bits
     */
    int queryPkey(int port, int index);

    /** {@return {@code ibv_alloc_pd}} */
    ProtectionDomain allocProtectionDomain();

    /** {@return {@code ibv_create_comp_channel}} */
    CompletionChannel createCompletionChannel();

    /**
     * {@return a new, empty {@link CompletionWaitSet}: one thread sleeps on several completion channels at once}
     * The set takes the channels of every device context of this context's backend, and does not belong to this
     * context: it may stay open after the context closes (close the set yourself).
     *
     * @throws UnsupportedOperationException when the backend has no wait set
     */
    default CompletionWaitSet createCompletionWaitSet() {
        throw new UnsupportedOperationException(device().name() + ": this backend has no completion wait set");
    }

    /**
     * {@code ibv_create_cq} with at least {@code entries} entries; events go to {@code channel} (may be
     * {@code null}) on completion vector {@code compVector} (0..{@link #numCompVectors()}-1).
     *
     * @param entries the minimum number of entries ({@code cqe}); the device may give more
     * @param channel the completion channel; null for none
     * @param compVector the completion vector (interrupt queue), 0..{@link #numCompVectors()}-1
     * @return the new completion queue, which the caller closes
     */
    CompletionQueue createCompletionQueue(int entries, CompletionChannel channel, int compVector);

    /**
     * {@code ibv_create_cq} without a channel (polling only).
     *
     * @param entries the minimum number of entries; the device may give more
     * @return the new completion queue, which the caller closes
     */
    default CompletionQueue createCompletionQueue(int entries) {
        return createCompletionQueue(entries, null, 0);
    }

    /** {@return how many completion vectors (interrupt queues) the device has} */
    int numCompVectors();

    /**
     * Delivers the device's asynchronous events ({@code ibv_get_async_event}, acknowledged after the
     * listener returns) to {@code listener} on a daemon thread; {@code null} stops delivery.
     *
     * @param listener the listener, called on the context's event thread; null to stop listening
     */
    void setAsyncEventListener(AsyncEventListener listener);

    /** {@return true once closed} */
    boolean isClosed();

    /** {@code ibv_close_device}. Harmless when already closed. */
    @Override
    void close();
}
