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
}
