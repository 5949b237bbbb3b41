package org.verbs4j.jnr;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * Calls through native function pointers (libibverbs' inline verbs and the {@code verbs_context} ops, which have
 * no exported symbol) through {@code java.lang.foreign} (JDK 22+). Replaces the jffi class of this name in the
 * multi-release jar, method for method.
 *
 * <p>Each shape is one address-less downcall handle in a {@code static final} field, called with
 * {@code invokeExact}, so the JIT inlines the whole call; the target is a segment made once per object
 * ({@link Target}), pointers are 64-bit integers: a call allocates nothing. The hot-path verbs (post send,
 * post receive, post SRQ receive, poll CQ, request notify) are {@code critical}: they run in the provider for
 * microseconds at most, never call back into Java, and skip the thread-state transitions; errno is not
 * captured (these verbs return their errno).
 */
final class NativeCalls {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option CRITICAL = Linker.Option.critical(false);

    /** {@code int f(void *, void *, void *)}: post_send, post_recv, post_srq_recv. */
    private static final MethodHandle POST =
            LINKER.downcallHandle(FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG), CRITICAL);
    /** {@code int f(void *, int, void *)}: poll_cq. */
    private static final MethodHandle POLL_CQ =
            LINKER.downcallHandle(FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG), CRITICAL);
    /** {@code int f(void *, int)}: req_notify_cq. */
    private static final MethodHandle REQ_NOTIFY_CQ =
            LINKER.downcallHandle(FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT), CRITICAL);
    /** {@code int query_port(struct ibv_context *, uint8_t, struct ibv_port_attr *, size_t)}: a system call. */
    private static final MethodHandle QUERY_PORT =
            LINKER.downcallHandle(FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_BYTE, JAVA_LONG, JAVA_LONG));
    /** {@code int query_device_ex(struct ibv_context *, const struct ibv_query_device_ex_input *, struct ibv_device_attr_ex *, size_t)}. */
    private static final MethodHandle QUERY_DEVICE_EX =
            LINKER.downcallHandle(FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG));

    private NativeCalls() {
    }

    /** A function pointer read from an ops table, resolved once per object: its address segment made once. */
    static final class Target {
        final long address;
        final MemorySegment segment;

        private Target(long address) {
            this.address = address;
            this.segment = MemorySegment.ofAddress(address);
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
        try {
            return (int) POST.invokeExact(fn.segment, queue, wr, badWr);
        } catch (Throwable t) {
            throw NativeCall.rethrow(t);
        }
    }

    /** {@code int poll_cq(struct ibv_cq *, int num_entries, struct ibv_wc *)}. */
    static int pollCq(Target fn, long cq, int max, long wc) {
        try {
            return (int) POLL_CQ.invokeExact(fn.segment, cq, max, wc);
        } catch (Throwable t) {
            throw NativeCall.rethrow(t);
        }
    }

    /** {@code int req_notify_cq(struct ibv_cq *, int solicited_only)}. */
    static int reqNotifyCq(Target fn, long cq, int solicitedOnly) {
        try {
            return (int) REQ_NOTIFY_CQ.invokeExact(fn.segment, cq, solicitedOnly);
        } catch (Throwable t) {
            throw NativeCall.rethrow(t);
        }
    }

    /** {@code int query_port(struct ibv_context *, uint8_t, struct ibv_port_attr *, size_t)}. */
    static int queryPort(Target fn, long ctx, int port, long attr, long size) {
        try {
            return (int) QUERY_PORT.invokeExact(fn.segment, ctx, (byte) port, attr, size);
        } catch (Throwable t) {
            throw NativeCall.rethrow(t);
        }
    }

    /** {@code int query_device_ex(struct ibv_context *, const struct ibv_query_device_ex_input *, struct ibv_device_attr_ex *, size_t)}. */
    static int queryDeviceEx(Target fn, long ctx, long input, long attr, long size) {
        try {
            return (int) QUERY_DEVICE_EX.invokeExact(fn.segment, ctx, input, attr, size);
        } catch (Throwable t) {
            throw NativeCall.rethrow(t);
        }
    }
}
