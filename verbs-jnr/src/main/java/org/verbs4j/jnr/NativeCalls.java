package org.verbs4j.jnr;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Type;

/**
 * Calls through native function pointers: the way to reach libibverbs' inline verbs and the
 * {@code verbs_context} ops, which have no exported symbol. This is the jffi mechanism (JDK 17-21): each
 * {@link CallContext} is made once; errno saving is off (these verbs return their errno). The multi-release
 * jar's JDK 22+ class of this name makes the same calls through {@code java.lang.foreign} downcall handles.
 */
final class NativeCalls {
    private static final Invoker INVOKER = Invoker.getInstance();

    /** {@code int f(void *, void *, void *)}: post_send, post_recv, post_srq_recv. */
    private static final CallContext INT_PTR_PTR_PTR = context(Type.SINT32, Type.POINTER, Type.POINTER, Type.POINTER);
    /** {@code int f(void *, int, void *)}: poll_cq. */
    private static final CallContext INT_PTR_INT_PTR = context(Type.SINT32, Type.POINTER, Type.SINT32, Type.POINTER);
    /** {@code int f(void *, int)}: req_notify_cq. */
    private static final CallContext INT_PTR_INT = context(Type.SINT32, Type.POINTER, Type.SINT32);
    /** {@code int query_port(struct ibv_context *, uint8_t, struct ibv_port_attr *, size_t)}. */
    private static final CallContext QUERY_PORT = context(Type.SINT32, Type.POINTER, Type.UINT8, Type.POINTER, Type.UINT64);
    /** {@code int query_device_ex(struct ibv_context *, const struct ibv_query_device_ex_input *, struct ibv_device_attr_ex *, size_t)}. */
    private static final CallContext QUERY_DEVICE_EX = context(Type.SINT32, Type.POINTER, Type.POINTER, Type.POINTER,
            Type.UINT64);

    private NativeCalls() {
    }

    /**
     * A function pointer read from an ops table, resolved once per object (as the mechanism needs it: a plain
     * address for jffi, an address segment for {@code java.lang.foreign}, made once, not per call).
     */
    static final class Target {
        final long address;

        private Target(long address) {
            this.address = address;
        }

        /** {@return whether the pointer is NULL (the provider has no such op)} */
        boolean isNull() {
            return address == 0;
        }
    }

    static Target target(long address) {
        return new Target(address);
    }

    /** {@code post_send}, {@code post_recv} or {@code post_srq_recv}: {@code int f(void *queue, void *wr, void **bad_wr)}. */
    static int post(Target fn, long queue, long wr, long badWr) {
        return (int) INVOKER.invokeL3NoErrno(INT_PTR_PTR_PTR, fn.address, queue, wr, badWr);
    }

    /** {@code int poll_cq(struct ibv_cq *, int num_entries, struct ibv_wc *)}. */
    static int pollCq(Target fn, long cq, int max, long wc) {
        return (int) INVOKER.invokeL3NoErrno(INT_PTR_INT_PTR, fn.address, cq, max, wc);
    }

    /** {@code int req_notify_cq(struct ibv_cq *, int solicited_only)}. */
    static int reqNotifyCq(Target fn, long cq, int solicitedOnly) {
        return (int) INVOKER.invokeL2NoErrno(INT_PTR_INT, fn.address, cq, solicitedOnly);
    }

    /** {@code int query_port(struct ibv_context *, uint8_t, struct ibv_port_attr *, size_t)}. */
    static int queryPort(Target fn, long ctx, int port, long attr, long size) {
        return (int) INVOKER.invokeL4NoErrno(QUERY_PORT, fn.address, ctx, port, attr, size);
    }

    /** {@code int query_device_ex(struct ibv_context *, const struct ibv_query_device_ex_input *, struct ibv_device_attr_ex *, size_t)}. */
    static int queryDeviceEx(Target fn, long ctx, long input, long attr, long size) {
        return (int) INVOKER.invokeL4NoErrno(QUERY_DEVICE_EX, fn.address, ctx, input, attr, size);
    }

    private static CallContext context(Type result, Type... params) {
        return CallContext.getCallContext(result, params, CallingConvention.DEFAULT, false);
    }
}
