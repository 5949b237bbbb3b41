package org.verbs4j.jnr;

/**
 * The exported functions of libibverbs that verbs4j calls through JNR. Pointers are passed as
 * {@code long} addresses (x86_64 LP64), so no JNR {@code Pointer} or {@code Struct} object is made
 * per call. The inline verbs (post/poll/notify) have no symbol: see {@link HotPath}.
 */
public interface LibIbverbs {
    long ibv_get_device_list(long numDevicesOut);

    void ibv_free_device_list(long list);

    long ibv_get_device_name(long device);

    /** Returns the __be64 GUID as it is in memory: byte-swap for the number. */
    long ibv_get_device_guid(long device);

    long ibv_open_device(long device);

    int ibv_close_device(long context);

    int ibv_query_device(long context, long deviceAttrOut);

    /** The compat symbol; fills only the first 48 bytes. verbs4j calls verbs_context->query_port instead. */
    int ibv_query_port(long context, int port, long portAttrOut);

    int ibv_query_gid(long context, int port, int index, long gidOut);

    int _ibv_query_gid_ex(long context, int port, int index, long entryOut, int flags, long entrySize);

    long _ibv_query_gid_table(long context, long entriesOut, long maxEntries, int flags, long entrySize);

    int ibv_query_pkey(long context, int port, int index, long pkeyOut);

    long ibv_wc_status_str(int status);

    long ibv_node_type_str(int nodeType);

    long ibv_port_state_str(int state);
}
