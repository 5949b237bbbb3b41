package org.verbs4j.jnr;

import static org.verbs4j.jnr.CType.POINTER;
import static org.verbs4j.jnr.CType.SINT32;
import static org.verbs4j.jnr.CType.UINT8;
import static org.verbs4j.jnr.CType.VOID;


/**
 * The functions of librdmacm verbs4j calls, with their exact C signatures. They return -1 and set
 * errno on failure (read it with {@link NativeFunction#errno()}). The structs they take are in
 * {@link RdmacmLayout}.
 */
final class LibRdmacm {
    private static volatile LibRdmacm instance;
    private static volatile String failure;

    final NativeFunction createEventChannel;
    final NativeFunction destroyEventChannel;
    final NativeFunction createId;
    final NativeFunction destroyId;
    final NativeFunction bindAddr;
    final NativeFunction resolveAddr;
    final NativeFunction resolveRoute;
    final NativeFunction createQp;
    final NativeFunction connect;
    final NativeFunction listen;
    final NativeFunction accept;
    final NativeFunction reject;
    final NativeFunction disconnect;
    final NativeFunction getCmEvent;
    final NativeFunction ackCmEvent;
    final NativeFunction eventStr;
    final NativeFunction setOption;
    final NativeFunction joinMulticast;
    final NativeFunction leaveMulticast;

    private LibRdmacm(NativeLibrary lib) {
        createEventChannel = NativeFunction.of(lib, "rdma_create_event_channel", POINTER);
        destroyEventChannel = NativeFunction.of(lib, "rdma_destroy_event_channel", VOID, POINTER);
        createId = NativeFunction.of(lib, "rdma_create_id", SINT32, POINTER, POINTER, POINTER, SINT32);
        destroyId = NativeFunction.of(lib, "rdma_destroy_id", SINT32, POINTER);
        bindAddr = NativeFunction.of(lib, "rdma_bind_addr", SINT32, POINTER, POINTER);
        resolveAddr = NativeFunction.of(lib, "rdma_resolve_addr", SINT32, POINTER, POINTER, POINTER, SINT32);
        resolveRoute = NativeFunction.of(lib, "rdma_resolve_route", SINT32, POINTER, SINT32);
        createQp = NativeFunction.of(lib, "rdma_create_qp", SINT32, POINTER, POINTER, POINTER);
        connect = NativeFunction.of(lib, "rdma_connect", SINT32, POINTER, POINTER);
        listen = NativeFunction.of(lib, "rdma_listen", SINT32, POINTER, SINT32);
        accept = NativeFunction.of(lib, "rdma_accept", SINT32, POINTER, POINTER);
        reject = NativeFunction.of(lib, "rdma_reject", SINT32, POINTER, POINTER, UINT8);
        disconnect = NativeFunction.of(lib, "rdma_disconnect", SINT32, POINTER);
        getCmEvent = NativeFunction.of(lib, "rdma_get_cm_event", SINT32, POINTER, POINTER);
        ackCmEvent = NativeFunction.of(lib, "rdma_ack_cm_event", SINT32, POINTER);
        eventStr = NativeFunction.of(lib, "rdma_event_str", POINTER, SINT32);
        setOption = NativeFunction.of(lib, "rdma_set_option", SINT32, POINTER, SINT32, SINT32, POINTER,
                CType.UINT64);
        joinMulticast = NativeFunction.of(lib, "rdma_join_multicast", SINT32, POINTER, POINTER, POINTER);
        leaveMulticast = NativeFunction.of(lib, "rdma_leave_multicast", SINT32, POINTER, POINTER);
    }

    /** librdmacm, loaded once; throws with what to install when it is missing. */
    static LibRdmacm get() {
        LibRdmacm l = instance;
        if (l != null) {
            return l;
        }
        synchronized (LibRdmacm.class) {
            if (instance == null && failure == null) {
                JnrBackend.lib(); // libibverbs first: librdmacm needs it, and its failure message is clearer
                try {
                    instance = new LibRdmacm(NativeLibrary.open("librdmacm.so.1"));
                } catch (UnsatisfiedLinkError e) {
                    failure = "librdmacm.so.1 could not be loaded (" + e.getMessage()
                            + "). Install rdma-core's librdmacm1 (Debian/Ubuntu) or librdmacm (RHEL/Fedora)";
                } catch (IllegalStateException e) {
                    failure = e.getMessage();
                }
            }
            if (instance == null) {
                throw new org.verbs4j.api.VerbsException("dlopen(librdmacm.so.1)", 0, null, failure);
            }
            return instance;
        }
    }

    /** {@code rdma_event_str}. */
    String eventName(int event) {
        long p = eventStr.call(event);
        return p == 0 ? "RDMA_CM_EVENT_" + event : org.verbs4j.api.internal.RawMemory.getString(p, 64);
    }
}
