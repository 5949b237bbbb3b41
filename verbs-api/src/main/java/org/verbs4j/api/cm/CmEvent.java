package org.verbs4j.api.cm;

/**
 * One {@code struct rdma_cm_event}, copied before it was acknowledged.
 *
 * @param type   the event ({@code null} only for a value this version does not know: see {@code rawType})
 * @param rawType the C value of {@code event}
 * @param status {@code status}: 0, a negative errno, or (IB/RoCE REJECTED) the IB CM reject reason
 * @param privateData the private data the event carried (empty when none)
 * @param ud     on a {@link PortSpace#UDP} id, the event's {@code param.ud} (ESTABLISHED: the peer's QP
 *               number, Q_Key and address); {@code null} otherwise
 */
public record CmEvent(CmEventType type, int rawType, int status, byte[] privateData, UdParameters ud) {

    /**
     * Keeps {@code privateData} (an empty array for null).
     *
     * @param type        the event, or null for a value this version does not know
     * @param rawType     the C value of {@code event}
     * @param status      {@code status}: 0, a negative errno, or the IB CM reject reason
     * @param privateData the private data the event carried; null for none
     * @param ud          the event's {@code param.ud} on a UDP id, else null
     */
    public CmEvent {
        privateData = privateData == null ? new byte[0] : privateData;
    }

    /**
     * An event without UD parameters.
     *
     * @param type        the event, or null for a value this version does not know
     * @param rawType     the C value of {@code event}
     * @param status      {@code status}: 0, a negative errno, or the IB CM reject reason
     * @param privateData the private data bytes; null or empty for none
     */
    public CmEvent(CmEventType type, int rawType, int status, byte[] privateData) {
        this(type, rawType, status, privateData, null);
    }

    @Override
    public String toString() {
        return (type == null ? "RDMA_CM_EVENT_" + rawType : type.text()) + " (status " + status + ")";
    }
}
