package org.verbs4j.api.spi;

import org.verbs4j.api.FabricOptions;
import java.util.List;
import org.verbs4j.api.AddressVector;
import org.verbs4j.api.GidEntry;
import org.verbs4j.api.Mtu;
import org.verbs4j.api.PortAttributes;
import org.verbs4j.api.QpAttrMask;
import org.verbs4j.api.QpAttributes;
import org.verbs4j.api.QpEndpoint;
import org.verbs4j.api.QpState;
import org.verbs4j.api.QpType;
import org.verbs4j.api.RdmaDevice;

/**
 * One fabric's rules: InfiniBand, RoCE or iWARP. Application code never branches on the fabric; it asks
 * {@link Fabrics#forPort} for the provider of the port it uses and lets it choose addresses and
 * connection attributes. Providers are found with {@link java.util.ServiceLoader}: list the
 * implementation in {@code META-INF/services/org.verbs4j.api.spi.FabricProvider}.
 *
 * <p>The decisions take plain values (device, port attributes, GID table), so each provider's logic is
 * testable on attributes recorded on real hardware.
 */
public interface FabricProvider {

    /**
     * {@return the provider's name: {@code ib}, {@code roce} or {@code iwarp}} Selectable with
     * {@link FabricOptions#provider}.
     */
    String name();

    /**
     * Whether this provider's fabric is the one of this port, decided from the device's transport type and the
     * port's link layer.
     *
     * @param device the device the port belongs to
     * @param port   the port's attributes ({@code ibv_query_port})
     * @return true when this provider serves the port
     */
    boolean serves(RdmaDevice device, PortAttributes port);

    /**
     * The local GID entry to address from, or {@code null} when the fabric does not address by GID
     * (InfiniBand inside a subnet still returns GID 0, for a GRH when one is needed).
     *
     * @param port     the port's attributes
     * @param gidTable the port's GID table ({@code ibv_query_gid_table})
     * @param options  the caller's choices ({@link FabricOptions#gidIndex}, ...); null for the defaults
     * @return the chosen entry, or null when the fabric needs none
     * @throws IllegalArgumentException when the options ask for a GID the table does not have, with the
     *                                  table's valid entries in the message
     */
    GidEntry sourceGid(PortAttributes port, List<GidEntry> gidTable, FabricOptions options);

    /**
     * What this side sends to the peer for a manual connection (the fields of rdma-core's pingpong exchange).
     *
     * @param port      the local port's attributes (its LID)
     * @param sourceGid the local GID entry from {@link #sourceGid}, or null
     * @param qpn       the local queue pair number (24 bits)
     * @param psn       the local initial packet sequence number (24 bits)
     * @return the local endpoint to send to the peer
     */
    QpEndpoint localEndpoint(PortAttributes port, GidEntry sourceGid, int qpn, int psn);

    /**
     * The address vector that reaches {@code remote} from this port (RTR of RC/UC, or a UD address handle).
     *
     * @param port      the local port's attributes
     * @param sourceGid the local GID entry from {@link #sourceGid}, or null
     * @param remote    the peer's endpoint (LID, GID, QP number)
     * @param options   the caller's choices (hop limit, service level, ...); null for the defaults
     * @return a new address vector towards {@code remote}
     */
    AddressVector addressVector(PortAttributes port, GidEntry sourceGid, QpEndpoint remote, FabricOptions options);

    /** {@return false for iWARP, whose queue pairs connect through rdma_cm only} Default true (IB, RoCE). */
    default boolean supportsManualConnection() {
        return true;
    }

    /** {@return false for iWARP, which has no unreliable datagram queue pairs} Default true. */
    default boolean supportsUnreliableDatagram() {
        return true;
    }

    /**
     * Access flags an RDMA READ sink buffer needs besides local write: {@code REMOTE_WRITE} on iWARP
     * (the read response is placed like a write), none elsewhere (the default: the local NIC writes it).
     *
     * @return {@link org.verbs4j.api.Access} flags to add to {@code LOCAL_WRITE}, 0 for none
     */
    default int readSinkExtraAccess() {
        return 0;
    }

    /** {@return true for iWARP, where the side that connected sends first (MPA)} Default false. */
    default boolean activeSideSendsFirst() {
        return false;
    }

    /** {@return false for iWARP, which has no receiver-not-ready retry (senders need credits)} Default true. */
    default boolean hasRnrRetry() {
        return true;
    }

    /**
     * False for iWARP: no immediate data (RDMAP has no SEND or RDMA WRITE with immediate), so those requests
     * are refused before they are posted. Default true.
     *
     * @return true when SEND and RDMA WRITE with immediate work on this fabric
     */
    default boolean supportsImmediateData() {
        return true;
    }

    // ---- the QP transitions of a manual connection (rdma_cm does these itself) ----
    // org.verbs4j.api.QpConnector runs them; the per-type overloads pick the attributes each QP type takes
    // (ibv_modify_qp refuses with EINVAL an attribute the transition does not allow for the type).

    /** Default local ACK timeout exponent: 4.096 µs × 2^14 ≈ 67 ms (what rdma-core's pingpong tools use). */
    int DEFAULT_TIMEOUT = 14;
    /**
     * Default transport retries: 6. Not the maximum, 7, because Soft-RoCE (rxe) treats a {@code retry_cnt} of 7
     * like an RNR retry of 7, as "retry forever", so a dead peer would never end in {@code RETRY_EXC_ERR}; with 6
     * a broken connection surfaces after 4.096 µs × 2^timeout × 7 on every provider.
     */
    int DEFAULT_RETRY = 6;
    /** Default RNR retries: 7, "retry forever" (a receiver that is slow to post receives is not an error). */
    int DEFAULT_RNR_RETRY = 7;
    /** Default minimum RNR NAK timer: 12 = 0.64 ms. */
    int DEFAULT_MIN_RNR_TIMER = 12;
    /** Default outstanding RDMA READs / atomics per QP in each direction. */
    int DEFAULT_RD_ATOMIC = 1;

    /**
     * RESET → INIT of an RC/UC queue pair on {@code port}: the port, the P_Key index ({@code options.pkeyIndex()},
     * default 0) and the remote access flags the QP accepts.
     *
     * @param port        the port the QP uses
     * @param accessFlags the {@link org.verbs4j.api.Access} flags remote peers may use on the QP
     * @param options     the caller's choices; null for the defaults
     * @return the attributes and mask for {@code ibv_modify_qp}
     */
    default QpAttributes initAttributes(PortAttributes port, int accessFlags, FabricOptions options) {
        FabricOptions o = FabricOptions.orDefaults(options);
        return new QpAttributes().state(QpState.INIT).port(port.portNumber())
                .pkeyIndex(o.pkeyIndex() >= 0 ? o.pkeyIndex() : 0).accessFlags(accessFlags);
    }

    /**
     * RESET → INIT of a queue pair of {@code type}: RC and UC as {@link #initAttributes(PortAttributes, int,
     * FabricOptions)}; UD takes the Q_Key instead of access flags.
     *
     * @param type        the QP's type
     * @param port        the port the QP uses
     * @param accessFlags the {@link org.verbs4j.api.Access} flags remote peers may use (RC, UC; ignored for UD)
     * @param qkey        the Q_Key (UD only; ignored otherwise)
     * @param options     the caller's choices; null for the defaults
     * @return the attributes and mask for {@code ibv_modify_qp}
     */
    default QpAttributes initAttributes(QpType type, PortAttributes port, int accessFlags, int qkey,
            FabricOptions options) {
        QpAttributes a = initAttributes(port, accessFlags, options);
        // UD: the same port and P_Key index, with a Q_Key instead of access flags
        return type != QpType.UD ? a : a.mask(a.mask() & ~QpAttrMask.ACCESS_FLAGS).qkey(qkey);
    }

    /**
     * The path MTU to use on {@code port}: the port's active MTU, lowered to {@code options.mtu()} when set.
     * Both ends must agree; the smaller of the two ends' values is what the connection can carry.
     *
     * @param port    the local port
     * @param options the caller's choices; null for the defaults
     * @return the MTU, or null when neither the port nor the options give one
     */
    default Mtu pathMtu(PortAttributes port, FabricOptions options) {
        Mtu active = port.activeMtu();
        Mtu wanted = options != null ? options.mtu() : null;
        if (wanted == null || active == null) {
            return active != null ? active : wanted;
        }
        return wanted.bytes() < active.bytes() ? wanted : active;
    }

    /**
     * INIT → RTR of an RC queue pair towards {@code remote}: the address vector ({@link #addressVector}),
     * path MTU ({@link #pathMtu}; pass the smaller of both ends' when they differ), the peer's QP number
     * and PSN, {@code max_dest_rd_atomic} = {@code rdAtomic} and the minimum RNR timer.
     *
     * @param port      the local port
     * @param sourceGid the local GID entry from {@link #sourceGid}, or null
     * @param remote    the peer's endpoint
     * @param pathMtu   the path MTU; null for {@link #pathMtu}
     * @param rdAtomic  incoming RDMA READs / atomics the QP accepts at once
     * @param options   the caller's choices; null for the defaults
     * @return the attributes and mask for {@code ibv_modify_qp}
     */
    default QpAttributes readyToReceiveAttributes(PortAttributes port, GidEntry sourceGid, QpEndpoint remote,
            Mtu pathMtu, int rdAtomic, FabricOptions options) {
        FabricOptions o = FabricOptions.orDefaults(options);
        return new QpAttributes().state(QpState.RTR)
                .addressVector(addressVector(port, sourceGid, remote, o))
                .pathMtu(pathMtu != null ? pathMtu : pathMtu(port, o))
                .destQpNum(remote.qpn()).rqPsn(remote.psn())
                .maxDestRdAtomic(rdAtomic)
                .minRnrTimer(o.minRnrTimer() >= 0 ? o.minRnrTimer() : DEFAULT_MIN_RNR_TIMER);
    }

    /**
     * INIT → RTR of a queue pair of {@code type}: RC as {@link #readyToReceiveAttributes(PortAttributes, GidEntry,
     * QpEndpoint, Mtu, int, FabricOptions)}; UC the same without {@code max_dest_rd_atomic} and the RNR timer
     * (no reads, atomics or RNR NAKs; {@code rdAtomic} is ignored); UD the state only ({@code remote} is not
     * used and may be null: a datagram QP has no fixed peer).
     *
     * @param type      the QP's type
     * @param port      the local port
     * @param sourceGid the local GID entry from {@link #sourceGid}, or null
     * @param remote    the peer's endpoint (RC, UC); may be null for UD
     * @param pathMtu   the path MTU; null for {@link #pathMtu}
     * @param rdAtomic  incoming RDMA READs / atomics the QP accepts at once (RC only)
     * @param options   the caller's choices; null for the defaults
     * @return the attributes and mask for {@code ibv_modify_qp}
     */
    default QpAttributes readyToReceiveAttributes(QpType type, PortAttributes port, GidEntry sourceGid,
            QpEndpoint remote, Mtu pathMtu, int rdAtomic, FabricOptions options) {
        if (type == QpType.UD) {
            return new QpAttributes().state(QpState.RTR);
        }
        QpAttributes a = readyToReceiveAttributes(port, sourceGid, remote, pathMtu, rdAtomic, options);
        // UC: no reads, atomics or RNR NAKs, so neither their depth nor the RNR timer
        return type == QpType.RC ? a : a.mask(a.mask() & ~(QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER));
    }

    /**
     * RTR → RTS of an RC queue pair: our send PSN, {@code max_rd_atomic} = {@code rdAtomic}, and the
     * transport timers (timeout, retry count, RNR retry; defaults {@link #DEFAULT_TIMEOUT},
     * {@link #DEFAULT_RETRY}, {@link #DEFAULT_RNR_RETRY}).
     *
     * @param psn      the local initial send PSN (24 bits)
     * @param rdAtomic outgoing RDMA READs / atomics in flight at once
     * @param options  the caller's choices; null for the defaults
     * @return the attributes and mask for {@code ibv_modify_qp}
     */
    default QpAttributes readyToSendAttributes(int psn, int rdAtomic, FabricOptions options) {
        FabricOptions o = FabricOptions.orDefaults(options);
        return new QpAttributes().state(QpState.RTS).sqPsn(psn).maxRdAtomic(rdAtomic)
                .timeout(o.timeout() >= 0 ? o.timeout() : DEFAULT_TIMEOUT)
                .retryCount(o.retryCount() >= 0 ? o.retryCount() : DEFAULT_RETRY)
                .rnrRetry(o.rnrRetry() >= 0 ? o.rnrRetry() : DEFAULT_RNR_RETRY);
    }

    /**
     * RTR → RTS of a queue pair of {@code type}: RC as {@link #readyToSendAttributes(int, int, FabricOptions)};
     * UC and UD take only the send PSN (no acknowledgements, so no timers; {@code rdAtomic} is ignored).
     *
     * @param type     the QP's type
     * @param psn      the local initial send PSN (24 bits)
     * @param rdAtomic outgoing RDMA READs / atomics in flight at once (RC only)
     * @param options  the caller's choices; null for the defaults
     * @return the attributes and mask for {@code ibv_modify_qp}
     */
    default QpAttributes readyToSendAttributes(QpType type, int psn, int rdAtomic, FabricOptions options) {
        if (type == QpType.RC) {
            return readyToSendAttributes(psn, rdAtomic, options);
        }
        return new QpAttributes().state(QpState.RTS).sqPsn(psn);
    }
}
