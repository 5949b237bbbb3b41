package org.verbs4j.jnr;

import static com.kenai.jffi.Type.POINTER;
import static com.kenai.jffi.Type.SINT32;
import static com.kenai.jffi.Type.SINT64;
import static com.kenai.jffi.Type.UINT32;
import static com.kenai.jffi.Type.UINT64;
import static com.kenai.jffi.Type.UINT8;
import static com.kenai.jffi.Type.VOID;

import com.kenai.jffi.Library;

/**
 * The exported functions of libibverbs that verbs4j calls, each with its exact C signature. Pointers
 * are {@code long} addresses (x86_64 LP64), so no JNR {@code Pointer} or {@code Struct} object is made
 * per call. The inline verbs (post/poll/notify) have no symbol: they are called through the context's
 * ops table (see {@link NativeCalls}).
 */
final class LibIbverbs {
    private final NativeFunction getDeviceList;
    private final NativeFunction freeDeviceList;
    private final NativeFunction getDeviceGuid;
    private final NativeFunction openDevice;
    private final NativeFunction closeDevice;
    private final NativeFunction queryDevice;
    private final NativeFunction queryPortCompat;
    private final NativeFunction queryGid;
    private final NativeFunction queryGidEx;
    private final NativeFunction queryGidTable;
    private final NativeFunction queryPkey;

    private final NativeFunction allocPd;
    private final NativeFunction deallocPd;
    private final NativeFunction regMr;
    private final NativeFunction deregMr;
    private final NativeFunction createCompChannel;
    private final NativeFunction destroyCompChannel;
    private final NativeFunction createCq;
    private final NativeFunction destroyCq;
    private final NativeFunction resizeCq;
    private final NativeFunction getCqEvent;
    private final NativeFunction ackCqEvents;
    private final NativeFunction createQp;
    private final NativeFunction modifyQp;
    private final NativeFunction queryQp;
    private final NativeFunction destroyQp;
    private final NativeFunction createSrq;
    private final NativeFunction modifySrq;
    private final NativeFunction querySrq;
    private final NativeFunction destroySrq;
    private final NativeFunction createAh;
    private final NativeFunction destroyAh;
    private final NativeFunction getAsyncEvent;
    private final NativeFunction ackAsyncEvent;
    private final NativeFunction wcStatusStr;
    private final NativeFunction eventTypeStr;

    LibIbverbs(Library lib) {
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

    int ibv_close_device(long context) {
        return (int) closeDevice.call(context);
    }

    int ibv_query_device(long context, long deviceAttrOut) {
        return (int) queryDevice.call(context, deviceAttrOut);
    }

    /** The compat symbol; fills only the first 48 bytes. verbs4j calls verbs_context->query_port instead. */
    int ibv_query_port(long context, int port, long portAttrOut) {
        return (int) queryPortCompat.call(context, port, portAttrOut);
    }

    int ibv_query_gid(long context, int port, int index, long gidOut) {
        return (int) queryGid.call(context, port, index, gidOut);
    }

    int _ibv_query_gid_ex(long context, int port, int index, long entryOut, int flags, long entrySize) {
        return (int) queryGidEx.call(context, port, index, entryOut, flags, entrySize);
    }

    long _ibv_query_gid_table(long context, long entriesOut, long maxEntries, int flags, long entrySize) {
        return queryGidTable.call(context, entriesOut, maxEntries, flags, entrySize);
    }

    int ibv_query_pkey(long context, int port, int index, long pkeyOut) {
        return (int) queryPkey.call(context, port, index, pkeyOut);
    }

    long ibv_alloc_pd(long context) {
        return allocPd.call(context);
    }

    int ibv_dealloc_pd(long pd) {
        return (int) deallocPd.call(pd);
    }

    long ibv_reg_mr(long pd, long addr, long length, int access) {
        return regMr.call(pd, addr, length, access);
    }

    int ibv_dereg_mr(long mr) {
        return (int) deregMr.call(mr);
    }

    long ibv_create_comp_channel(long context) {
        return createCompChannel.call(context);
    }

    int ibv_destroy_comp_channel(long channel) {
        return (int) destroyCompChannel.call(channel);
    }

    long ibv_create_cq(long context, int cqe, long cqContext, long channel, int compVector) {
        return createCq.call(context, cqe, cqContext, channel, compVector);
    }

    int ibv_destroy_cq(long cq) {
        return (int) destroyCq.call(cq);
    }

    int ibv_resize_cq(long cq, int cqe) {
        return (int) resizeCq.call(cq, cqe);
    }

    int ibv_get_cq_event(long channel, long cqOut, long cqContextOut) {
        return (int) getCqEvent.call(channel, cqOut, cqContextOut);
    }

    void ibv_ack_cq_events(long cq, int n) {
        ackCqEvents.call(cq, n);
    }

    long ibv_create_qp(long pd, long initAttr) {
        return createQp.call(pd, initAttr);
    }

    int ibv_modify_qp(long qp, long attr, int mask) {
        return (int) modifyQp.call(qp, attr, mask);
    }

    int ibv_query_qp(long qp, long attr, int mask, long initAttr) {
        return (int) queryQp.call(qp, attr, mask, initAttr);
    }

    int ibv_destroy_qp(long qp) {
        return (int) destroyQp.call(qp);
    }

    long ibv_create_srq(long pd, long initAttr) {
        return createSrq.call(pd, initAttr);
    }

    int ibv_modify_srq(long srq, long attr, int mask) {
        return (int) modifySrq.call(srq, attr, mask);
    }

    int ibv_query_srq(long srq, long attr) {
        return (int) querySrq.call(srq, attr);
    }

    int ibv_destroy_srq(long srq) {
        return (int) destroySrq.call(srq);
    }

    long ibv_create_ah(long pd, long ahAttr) {
        return createAh.call(pd, ahAttr);
    }

    int ibv_destroy_ah(long ah) {
        return (int) destroyAh.call(ah);
    }

    int ibv_get_async_event(long context, long eventOut) {
        return (int) getAsyncEvent.call(context, eventOut);
    }

    void ibv_ack_async_event(long event) {
        ackAsyncEvent.call(event);
    }

    long ibv_wc_status_str(int status) {
        return wcStatusStr.call(status);
    }

    long ibv_event_type_str(int type) {
        return eventTypeStr.call(type);
    }
}
