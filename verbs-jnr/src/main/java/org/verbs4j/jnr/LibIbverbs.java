package org.verbs4j.jnr;

import static org.verbs4j.jnr.CType.POINTER;
import static org.verbs4j.jnr.CType.SINT32;
import static org.verbs4j.jnr.CType.SINT64;
import static org.verbs4j.jnr.CType.UINT32;
import static org.verbs4j.jnr.CType.UINT64;
import static org.verbs4j.jnr.CType.UINT8;
import static org.verbs4j.jnr.CType.VOID;


/**
 * The exported functions of libibverbs that verbs4j calls, each with its exact C signature. Pointers
 * are {@code long} addresses (x86_64 LP64), so no JNR {@code Pointer} or {@code Struct} object is made
 * per call. The inline verbs (post/poll/notify) have no symbol: they are called through the context's
 * ops table (see {@link NativeCalls}).
 *
 * <p>Each field is one function, named after it without the {@code ibv_} prefix ({@code allocPd} is
 * {@code ibv_alloc_pd}, {@code queryGidEx} {@code _ibv_query_gid_ex}); call it with
 * {@link NativeFunction#call}, whose {@code long} result a caller narrows to {@code int} where C returns one.
 * The device-list functions keep typed methods.
 */
final class LibIbverbs {
    private final NativeFunction getDeviceList;
    private final NativeFunction freeDeviceList;
    private final NativeFunction getDeviceGuid;
    private final NativeFunction openDevice;
    final NativeFunction closeDevice;
    final NativeFunction queryDevice;
    final NativeFunction queryPortCompat;
    final NativeFunction queryGid;
    final NativeFunction queryGidEx;
    final NativeFunction queryGidTable;
    final NativeFunction queryPkey;

    final NativeFunction allocPd;
    final NativeFunction deallocPd;
    final NativeFunction regMr;
    final NativeFunction deregMr;
    final NativeFunction createCompChannel;
    final NativeFunction destroyCompChannel;
    final NativeFunction createCq;
    final NativeFunction destroyCq;
    final NativeFunction resizeCq;
    final NativeFunction getCqEvent;
    final NativeFunction ackCqEvents;
    final NativeFunction createQp;
    final NativeFunction modifyQp;
    final NativeFunction queryQp;
    final NativeFunction destroyQp;
    final NativeFunction createSrq;
    final NativeFunction modifySrq;
    final NativeFunction querySrq;
    final NativeFunction destroySrq;
    final NativeFunction createAh;
    final NativeFunction destroyAh;
    final NativeFunction getAsyncEvent;
    final NativeFunction ackAsyncEvent;
    final NativeFunction wcStatusStr;
    final NativeFunction eventTypeStr;

    LibIbverbs(NativeLibrary lib) {
        getDeviceList = NativeFunction.of(lib, "ibv_get_device_list", POINTER, POINTER);
        freeDeviceList = NativeFunction.of(lib, "ibv_free_device_list", VOID, POINTER);
        getDeviceGuid = NativeFunction.of(lib, "ibv_get_device_guid", UINT64, POINTER);
        openDevice = NativeFunction.of(lib, "ibv_open_device", POINTER, POINTER);
        closeDevice = NativeFunction.of(lib, "ibv_close_device", SINT32, POINTER);
        queryDevice = NativeFunction.of(lib, "ibv_query_device", SINT32, POINTER, POINTER);
        queryPortCompat = NativeFunction.of(lib, "ibv_query_port", SINT32, POINTER, UINT8, POINTER);
        queryGid = NativeFunction.of(lib, "ibv_query_gid", SINT32, POINTER, UINT8, SINT32, POINTER);
        queryGidEx = NativeFunction.of(lib, "_ibv_query_gid_ex", SINT32, POINTER, UINT32, UINT32, POINTER, UINT32, UINT64);
        queryGidTable = NativeFunction.of(lib, "_ibv_query_gid_table", SINT64, POINTER, POINTER, UINT64, UINT32, UINT64);
        queryPkey = NativeFunction.of(lib, "ibv_query_pkey", SINT32, POINTER, UINT8, SINT32, POINTER);
        allocPd = NativeFunction.of(lib, "ibv_alloc_pd", POINTER, POINTER);
        deallocPd = NativeFunction.of(lib, "ibv_dealloc_pd", SINT32, POINTER);
        regMr = NativeFunction.of(lib, "ibv_reg_mr", POINTER, POINTER, POINTER, UINT64, SINT32);
        deregMr = NativeFunction.of(lib, "ibv_dereg_mr", SINT32, POINTER);
        createCompChannel = NativeFunction.of(lib, "ibv_create_comp_channel", POINTER, POINTER);
        destroyCompChannel = NativeFunction.of(lib, "ibv_destroy_comp_channel", SINT32, POINTER);
        createCq = NativeFunction.of(lib, "ibv_create_cq", POINTER, POINTER, SINT32, POINTER, POINTER, SINT32);
        destroyCq = NativeFunction.of(lib, "ibv_destroy_cq", SINT32, POINTER);
        resizeCq = NativeFunction.of(lib, "ibv_resize_cq", SINT32, POINTER, SINT32);
        getCqEvent = NativeFunction.of(lib, "ibv_get_cq_event", SINT32, POINTER, POINTER, POINTER);
        ackCqEvents = NativeFunction.of(lib, "ibv_ack_cq_events", VOID, POINTER, UINT32);
        createQp = NativeFunction.of(lib, "ibv_create_qp", POINTER, POINTER, POINTER);
        modifyQp = NativeFunction.of(lib, "ibv_modify_qp", SINT32, POINTER, POINTER, SINT32);
        queryQp = NativeFunction.of(lib, "ibv_query_qp", SINT32, POINTER, POINTER, SINT32, POINTER);
        destroyQp = NativeFunction.of(lib, "ibv_destroy_qp", SINT32, POINTER);
        createSrq = NativeFunction.of(lib, "ibv_create_srq", POINTER, POINTER, POINTER);
        modifySrq = NativeFunction.of(lib, "ibv_modify_srq", SINT32, POINTER, POINTER, SINT32);
        querySrq = NativeFunction.of(lib, "ibv_query_srq", SINT32, POINTER, POINTER);
        destroySrq = NativeFunction.of(lib, "ibv_destroy_srq", SINT32, POINTER);
        createAh = NativeFunction.of(lib, "ibv_create_ah", POINTER, POINTER, POINTER);
        destroyAh = NativeFunction.of(lib, "ibv_destroy_ah", SINT32, POINTER);
        getAsyncEvent = NativeFunction.of(lib, "ibv_get_async_event", SINT32, POINTER, POINTER);
        ackAsyncEvent = NativeFunction.of(lib, "ibv_ack_async_event", VOID, POINTER);
        wcStatusStr = NativeFunction.of(lib, "ibv_wc_status_str", POINTER, SINT32);
        eventTypeStr = NativeFunction.of(lib, "ibv_event_type_str", POINTER, SINT32);
    }

    long ibv_get_device_list(long numDevicesOut) {
        return getDeviceList.call(numDevicesOut);
    }

    void ibv_free_device_list(long list) {
        freeDeviceList.call(list);
    }

    /** The __be64 GUID as it is in memory: byte-swap for the number. */
    long ibv_get_device_guid(long device) {
        return getDeviceGuid.call(device);
    }

    long ibv_open_device(long device) {
        return openDevice.call(device);
    }
}
