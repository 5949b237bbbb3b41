package org.verbs4j.api.cm;

/**
 * {@link CmId#connect} got RDMA_CM_EVENT_REJECTED: the peer's application rejected the request (with
 * the private data it passed to {@link CmId#reject}), or nobody listens on that address and port.
 */
public class CmRejectedException extends CmException {
    private static final long serialVersionUID = 1L;

    private final byte[] privateData;

    public CmRejectedException(String verb, int status, byte[] privateData, String detail, String hint) {
        super(verb, CmEventType.REJECTED, status, detail, hint);
        this.privateData = privateData == null ? new byte[0] : privateData.clone();
    }

    /** The reject's private data (on IB/RoCE padded with zeros to 148 bytes; exact on iWARP). */
    public byte[] privateData() {
        return privateData.clone();
    }
}
