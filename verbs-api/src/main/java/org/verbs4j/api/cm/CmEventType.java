package org.verbs4j.api.cm;

/** {@code enum rdma_cm_event_type}, with librdmacm's values and {@code rdma_event_str} texts. */
public enum CmEventType {
    /** {@code RDMA_CM_EVENT_ADDR_RESOLVED} (0). */
    ADDR_RESOLVED(0),
    /** {@code RDMA_CM_EVENT_ADDR_ERROR} (1). */
    ADDR_ERROR(1),
    /** {@code RDMA_CM_EVENT_ROUTE_RESOLVED} (2). */
    ROUTE_RESOLVED(2),
    /** {@code RDMA_CM_EVENT_ROUTE_ERROR} (3). */
    ROUTE_ERROR(3),
    /** {@code RDMA_CM_EVENT_CONNECT_REQUEST} (4). */
    CONNECT_REQUEST(4),
    /** {@code RDMA_CM_EVENT_CONNECT_RESPONSE} (5). */
    CONNECT_RESPONSE(5),
    /** {@code RDMA_CM_EVENT_CONNECT_ERROR} (6). */
    CONNECT_ERROR(6),
    /** {@code RDMA_CM_EVENT_UNREACHABLE} (7). */
    UNREACHABLE(7),
    /** {@code RDMA_CM_EVENT_REJECTED} (8). */
    REJECTED(8),
    /** {@code RDMA_CM_EVENT_ESTABLISHED} (9). */
    ESTABLISHED(9),
    /** {@code RDMA_CM_EVENT_DISCONNECTED} (10). */
    DISCONNECTED(10),
    /** {@code RDMA_CM_EVENT_DEVICE_REMOVAL} (11). */
    DEVICE_REMOVAL(11),
    /** {@code RDMA_CM_EVENT_MULTICAST_JOIN} (12). */
    MULTICAST_JOIN(12),
    /** {@code RDMA_CM_EVENT_MULTICAST_ERROR} (13). */
    MULTICAST_ERROR(13),
    /** {@code RDMA_CM_EVENT_ADDR_CHANGE} (14). */
    ADDR_CHANGE(14),
    /** {@code RDMA_CM_EVENT_TIMEWAIT_EXIT} (15). */
    TIMEWAIT_EXIT(15);

    private final int value;

    CmEventType(int value) {
        this.value = value;
    }

    /** {@return the C value} */
    public int value() {
        return value;
    }

    /** {@return what {@code rdma_event_str} prints, e.g. {@code RDMA_CM_EVENT_ESTABLISHED}} */
    public String text() {
        return "RDMA_CM_EVENT_" + name();
    }

    /**
     * The type with this C value, or {@code null}.
     *
     * @param value the native {@code enum rdma_cm_event_type} value
     * @return the type, or null for an unknown value
     */
    public static CmEventType of(int value) {
        for (CmEventType t : values()) {
            if (t.value == value) {
                return t;
            }
        }
        return null;
    }
}
