package org.verbs4j.api.cm;

import java.util.Arrays;

/**
 * {@code struct rdma_conn_param}: what {@link CmId#connect} and {@link CmId#accept} send. Immutable;
 * the {@code with*} methods return a copy.
 *
 * <p>Private data limits (RDMA_PS_TCP): {@link #CONNECT_PRIVATE_DATA_MAX} bytes for connect (the IB CM
 * REQ holds 92, librdmacm's header takes 36), {@link #ACCEPT_PRIVATE_DATA_MAX} for accept and
 * {@link CmId#reject} takes up to {@link #REJECT_PRIVATE_DATA_MAX}. The same limits are enforced on iWARP
 * so code runs on every fabric.
 *
 * <p>On a {@link PortSpace#UDP} id the exchange is an IB CM SIDR request and reply:
 * {@link CmId#connectDatagram} carries up to {@link #UD_CONNECT_PRIVATE_DATA_MAX} bytes (the SIDR REQ holds
 * 216, librdmacm's header takes 36), {@link CmId#accept} and {@link CmId#reject} up to
 * {@link #UD_ACCEPT_PRIVATE_DATA_MAX} (the SIDR REP's private data); only the private data of the
 * parameters is used there.
 */
public final class ConnectionParameters {
    public static final int CONNECT_PRIVATE_DATA_MAX = 56;
    public static final int ACCEPT_PRIVATE_DATA_MAX = 196;
    public static final int REJECT_PRIVATE_DATA_MAX = 148;
    /** {@link CmId#connectDatagram} on a {@link PortSpace#UDP} id (SIDR REQ). */
    public static final int UD_CONNECT_PRIVATE_DATA_MAX = 180;
    /** {@link CmId#accept} and {@link CmId#reject} on a {@link PortSpace#UDP} id (SIDR REP). */
    public static final int UD_ACCEPT_PRIVATE_DATA_MAX = 136;

    private final byte[] privateData;
    private final int responderResources;
    private final int initiatorDepth;
    private final int retryCount;
    private final int rnrRetryCount;
    private final boolean flowControl;

    public ConnectionParameters(byte[] privateData, int responderResources, int initiatorDepth, int retryCount,
            int rnrRetryCount, boolean flowControl) {
        this.privateData = privateData == null ? new byte[0] : privateData.clone();
        if (this.privateData.length > ACCEPT_PRIVATE_DATA_MAX) {
            throw new IllegalArgumentException("private data is " + this.privateData.length + " bytes; rdma_cm carries "
                    + "at most " + CONNECT_PRIVATE_DATA_MAX + " with connect and " + ACCEPT_PRIVATE_DATA_MAX + " with accept");
        }
        this.responderResources = check("responderResources", responderResources, 255);
        this.initiatorDepth = check("initiatorDepth", initiatorDepth, 255);
        this.retryCount = check("retryCount", retryCount, 7);
        this.rnrRetryCount = check("rnrRetryCount", rnrRetryCount, 7);
        this.flowControl = flowControl;
    }

    /**
     * No private data, 1 RDMA read/atomic in each direction, retry 6, RNR retry 7 (infinite), flow control on.
     * Retry 6, not 7: Soft-RoCE (rxe) treats a retry count of 7 as "retry forever", so a dead peer would never end in
     * {@code RETRY_EXC_ERR}.
     */
    public static ConnectionParameters defaults() {
        return new ConnectionParameters(null, 1, 1, 6, 7, true);
    }

    private static int check(String name, int v, int max) {
        if (v < 0 || v > max) {
            throw new IllegalArgumentException(name + " must be 0.." + max + ", not " + v);
        }
        return v;
    }

    public ConnectionParameters withPrivateData(byte[] data) {
        return new ConnectionParameters(data, responderResources, initiatorDepth, retryCount, rnrRetryCount, flowControl);
    }

    public ConnectionParameters withResponderResources(int n) {
        return new ConnectionParameters(privateData, n, initiatorDepth, retryCount, rnrRetryCount, flowControl);
    }

    public ConnectionParameters withInitiatorDepth(int n) {
        return new ConnectionParameters(privateData, responderResources, n, retryCount, rnrRetryCount, flowControl);
    }

    public ConnectionParameters withRetryCount(int n) {
        return new ConnectionParameters(privateData, responderResources, initiatorDepth, n, rnrRetryCount, flowControl);
    }

    public ConnectionParameters withRnrRetryCount(int n) {
        return new ConnectionParameters(privateData, responderResources, initiatorDepth, retryCount, n, flowControl);
    }

    public ConnectionParameters withFlowControl(boolean on) {
        return new ConnectionParameters(privateData, responderResources, initiatorDepth, retryCount, rnrRetryCount, on);
    }

    /** A copy of the private data (empty, never null). */
    public byte[] privateData() {
        return privateData.clone();
    }

    public int responderResources() {
        return responderResources;
    }

    public int initiatorDepth() {
        return initiatorDepth;
    }

    public int retryCount() {
        return retryCount;
    }

    public int rnrRetryCount() {
        return rnrRetryCount;
    }

    public boolean flowControl() {
        return flowControl;
    }

    @Override
    public String toString() {
        return "ConnectionParameters[privateData=" + privateData.length + " bytes, responderResources=" + responderResources
                + ", initiatorDepth=" + initiatorDepth + ", retryCount=" + retryCount + ", rnrRetryCount=" + rnrRetryCount
                + ", flowControl=" + flowControl + "]";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConnectionParameters p && Arrays.equals(privateData, p.privateData)
                && responderResources == p.responderResources && initiatorDepth == p.initiatorDepth
                && retryCount == p.retryCount && rnrRetryCount == p.rnrRetryCount && flowControl == p.flowControl;
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(privateData) * 31 + responderResources * 7 + initiatorDepth;
    }
}
