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
    /** The most private data {@code rdma_connect} carries on InfiniBand and RoCE (the IB CM REQ), in bytes. */
    public static final int CONNECT_PRIVATE_DATA_MAX = 56;
    /** The most private data {@code rdma_accept} carries (the IB CM REP), in bytes. */
    public static final int ACCEPT_PRIVATE_DATA_MAX = 196;
    /** The most private data {@code rdma_reject} carries (the IB CM REJ), in bytes. */
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

    /**
     * {@code struct rdma_conn_param} for {@link CmId#connect} and {@link CmId#accept}.
     *
     * @param privateData        bytes for the peer (copied; null for none), at most {@link #ACCEPT_PRIVATE_DATA_MAX}
     * @param responderResources incoming RDMA READs / atomics this side accepts at once ({@code responder_resources})
     * @param initiatorDepth     outgoing RDMA READs / atomics this side has in flight at once ({@code initiator_depth})
     * @param retryCount         transport retries, 0..7 ({@code retry_count})
     * @param rnrRetryCount      RNR retries, 0..7, 7 meaning forever ({@code rnr_retry_count})
     * @param flowControl        whether the hardware flow control is on ({@code flow_control})
     * @throws IllegalArgumentException when the private data is too long or a value is out of range
     */
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
     * {@return the defaults: no private data, 1 RDMA read/atomic in each direction, retry 6, RNR retry 7 (infinite),
     * flow control on} Retry 6, not 7: Soft-RoCE (rxe) treats a retry count of 7 as "retry forever", so a dead peer
     * would never end in {@code RETRY_EXC_ERR}.
     */
    public static ConnectionParameters defaults() {
        return new ConnectionParameters(null, 1, 1, org.verbs4j.api.spi.FabricProvider.DEFAULT_RETRY,
                org.verbs4j.api.spi.FabricProvider.DEFAULT_RNR_RETRY, true);
    }

    private static int check(String name, int v, int max) {
        if (v < 0 || v > max) {
            throw new IllegalArgumentException(name + " must be 0.." + max + ", not " + v);
        }
        return v;
    }

    /**
     * A copy of these parameters with another {@code private_data}.
     *
     * @param data the private data for the peer (copied; null for none)
     * @return the new parameters; this object is unchanged
     */
    public ConnectionParameters withPrivateData(byte[] data) {
        return new ConnectionParameters(data, responderResources, initiatorDepth, retryCount, rnrRetryCount, flowControl);
    }

    /**
     * A copy of these parameters with another {@code responder_resources}.
     *
     * @param n incoming RDMA READs / atomics accepted at once
     * @return the new parameters; this object is unchanged
     */
    public ConnectionParameters withResponderResources(int n) {
        return new ConnectionParameters(privateData, n, initiatorDepth, retryCount, rnrRetryCount, flowControl);
    }

    /**
     * A copy of these parameters with another {@code initiator_depth}.
     *
     * @param n outgoing RDMA READs / atomics in flight at once
     * @return the new parameters; this object is unchanged
     */
    public ConnectionParameters withInitiatorDepth(int n) {
        return new ConnectionParameters(privateData, responderResources, n, retryCount, rnrRetryCount, flowControl);
    }

    /**
     * A copy of these parameters with another {@code retry_count}.
     *
     * @param n transport retries, 0..7
     * @return the new parameters; this object is unchanged
     */
    public ConnectionParameters withRetryCount(int n) {
        return new ConnectionParameters(privateData, responderResources, initiatorDepth, n, rnrRetryCount, flowControl);
    }

    /**
     * A copy of these parameters with another {@code rnr_retry_count}.
     *
     * @param n RNR retries, 0..7 (7 = forever)
     * @return the new parameters; this object is unchanged
     */
    public ConnectionParameters withRnrRetryCount(int n) {
        return new ConnectionParameters(privateData, responderResources, initiatorDepth, retryCount, n, flowControl);
    }

    /**
     * A copy of these parameters with another {@code flow_control}.
     *
     * @param on whether hardware flow control is on
     * @return the new parameters; this object is unchanged
     */
    public ConnectionParameters withFlowControl(boolean on) {
        return new ConnectionParameters(privateData, responderResources, initiatorDepth, retryCount, rnrRetryCount, on);
    }

    /** {@return a copy of the private data (empty, never null)} */
    public byte[] privateData() {
        return privateData.clone();
    }

    /** {@return the responder resources ({@code responder_resources} of {@code struct rdma_conn_param})} */
    public int responderResources() {
        return responderResources;
    }

    /** {@return the initiator depth ({@code initiator_depth} of {@code struct rdma_conn_param})} */
    public int initiatorDepth() {
        return initiatorDepth;
    }

    /** {@return the retry count ({@code retry_count} of {@code struct rdma_conn_param})} */
    public int retryCount() {
        return retryCount;
    }

    /** {@return the RNR retry count ({@code rnr_retry_count} of {@code struct rdma_conn_param})} */
    public int rnrRetryCount() {
        return rnrRetryCount;
    }

    /** {@return whether flow control} */
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
