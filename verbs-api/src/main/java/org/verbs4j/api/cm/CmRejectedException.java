package org.verbs4j.api.cm;

/**
 * {@link CmId#connect} got RDMA_CM_EVENT_REJECTED: the peer's application rejected the request (with
 * the private data it passed to {@link CmId#reject}), or nobody listens on that address and port.
 *
 * <p>On a {@link PortSpace#UDP} id ({@link CmId#connectDatagram}) a reject arrives as a SIDR reply with a
 * failure status, which rdma_cm reports as RDMA_CM_EVENT_UNREACHABLE: then {@link #event()} is
 * {@link CmEventType#UNREACHABLE} and {@link #status()} the SIDR status (1 nobody listens on that port,
 * 2 the application rejected).
 */
public class CmRejectedException extends CmException {
    private static final long serialVersionUID = 1L;

    /** The private data of the reject. */
    private final byte[] privateData;

    /**
     * A connection the peer (or its CM) rejected.
     *
     * @param verb        the call that waited, e.g. {@code rdma_connect}
     * @param status      the REJECTED event's status (IB CM reject reason; 28 = consumer reject)
     * @param privateData the reject's private data; null for none
     * @param detail      what was asked, for the message
     * @param hint        what to check; may be null
     */
    public CmRejectedException(String verb, int status, byte[] privateData, String detail, String hint) {
        this(verb, CmEventType.REJECTED, status, privateData, detail, hint);
    }

    /**
     * A reject reported as {@code event} (REJECTED, or UNREACHABLE for a SIDR reject on a UDP id).
     *
     * @param verb the libibverbs or librdmacm call that failed, e.g. {@code ibv_post_send}
     * @param event the event that came
     * @param status its status (the IB CM reject reason)
     * @param privateData the private data bytes; null or empty for none
     * @param detail what was asked, for the message
     * @param hint what to check, for the message; may be null
     */
    public CmRejectedException(String verb, CmEventType event, int status, byte[] privateData, String detail,
            String hint) {
        super(verb, event, status, detail, hint);
        this.privateData = privateData == null ? new byte[0] : privateData.clone();
    }

    /**
     * The reject's private data (on IB/RoCE padded with zeros to 148 bytes, 136 on a UDP id; exact on
     * iWARP).
     *
     * @return the byte[]
     */
    public byte[] privateData() {
        return privateData.clone();
    }
}
