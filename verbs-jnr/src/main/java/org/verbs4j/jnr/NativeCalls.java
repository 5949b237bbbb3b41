package org.verbs4j.jnr;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Type;

/**
 * Calls through native function pointers with jffi: the way to reach libibverbs' inline verbs and
 * the {@code verbs_context} ops, which have no exported symbol. Each {@link CallContext} is made once;
 * errno saving is off (these verbs return their errno).
 */
final class NativeCalls {
    static final Invoker INVOKER = Invoker.getInstance();

    /** {@code int f(void *, void *, void *)}: post_send, post_recv, post_srq_recv. */
    static final CallContext INT_PTR_PTR_PTR = context(Type.SINT32, Type.POINTER, Type.POINTER, Type.POINTER);
    /** {@code int f(void *, int, void *)}: poll_cq. */
    static final CallContext INT_PTR_INT_PTR = context(Type.SINT32, Type.POINTER, Type.SINT32, Type.POINTER);
    /** {@code int f(void *, int)}: req_notify_cq. */
    static final CallContext INT_PTR_INT = context(Type.SINT32, Type.POINTER, Type.SINT32);
    /** {@code int query_port(struct ibv_context *, uint8_t, struct ibv_port_attr *, size_t)}. */
    static final CallContext QUERY_PORT = context(Type.SINT32, Type.POINTER, Type.UINT8, Type.POINTER, Type.UINT64);

    /** {@code int query_device_ex(struct ibv_context *, const struct ibv_query_device_ex_input *, struct ibv_device_attr_ex *, size_t)}. */
    static final CallContext QUERY_DEVICE_EX = context(Type.SINT32, Type.POINTER, Type.POINTER, Type.POINTER,
            Type.UINT64);

    private NativeCalls() {
    }

    private static CallContext context(Type result, Type... params) {
        return CallContext.getCallContext(result, params, CallingConvention.DEFAULT, false);
    }
}
