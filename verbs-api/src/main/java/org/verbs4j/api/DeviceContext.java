package org.verbs4j.api;

import java.util.List;

/**
 * An open device ({@code struct ibv_context}): queries, and the factory of everything else
 * (protection domains, completion queues and channels). Close it last: closing it while
 * objects made from it are open is refused with a message that names them.
 */
public interface DeviceContext extends AutoCloseable {

    /** The device this context was opened on. */
    RdmaDevice device();

    /** {@code ibv_query_device}. */
    DeviceAttributes queryDevice();

    /**
     * {@code ibv_query_device_ex}: the classic attributes and the extended ones. A backend or provider without
     * the extended query reports zeros for the extended fields, as libibverbs does; this default does that.
     */
    default DeviceAttributesEx queryDeviceEx() {
        return DeviceAttributesEx.of(queryDevice());
    }

    /** {@code ibv_query_port} for port {@code port} (1-based). */
    PortAttributes queryPort(int port);

    /** Every port, 1..{@code phys_port_cnt}. */
    default List<PortAttributes> queryPorts() {
        int n = queryDevice().physPortCnt();
        PortAttributes[] ports = new PortAttributes[n];
        for (int p = 1; p <= n; p++) {
            ports[p - 1] = queryPort(p);
        }
        return List.of(ports);
    }

    /** {@code ibv_query_gid}: the GID at {@code index} of {@code port}'s table (zero for an empty slot). */
    Gid queryGid(int port, int index);

    /** {@code ibv_query_gid_ex}: the entry at {@code index}, with its type; throws when the slot is empty. */
    GidEntry queryGidEntry(int port, int index);

    /** {@code ibv_query_gid_table}: every valid GID of every port, with types. */
    List<GidEntry> queryGidTable();

    /** {@code ibv_query_pkey}: the P_Key at {@code index} of {@code port}'s P_Key table, host order. */
    int queryPkey(int port, int index);

    /** {@code ibv_alloc_pd}. */
    ProtectionDomain allocProtectionDomain();

    /** {@code ibv_create_comp_channel}. */
    CompletionChannel createCompletionChannel();

    /**
     * {@code ibv_create_cq} with at least {@code entries} entries; events go to {@code channel} (may be
     * {@code null}) on completion vector {@code compVector} (0..{@link #numCompVectors()}-1).
     */
    CompletionQueue createCompletionQueue(int entries, CompletionChannel channel, int compVector);

    /** {@code ibv_create_cq} without a channel (polling only). */
    default CompletionQueue createCompletionQueue(int entries) {
        return createCompletionQueue(entries, null, 0);
    }

    /** How many completion vectors (interrupt queues) the device has. */
    int numCompVectors();

    /**
     * Delivers the device's asynchronous events ({@code ibv_get_async_event}, acknowledged after the
     * listener returns) to {@code listener} on a daemon thread; {@code null} stops delivery.
     */
    void setAsyncEventListener(AsyncEventListener listener);

    /** True once closed. */
    boolean isClosed();

    /** {@code ibv_close_device}. Harmless when already closed. */
    @Override
    void close();
}
