package org.verbs4j.api;

import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import org.verbs4j.api.spi.FabricProvider;
import org.verbs4j.api.spi.Fabrics;

/**
 * Brings a queue pair from RESET to RTS by hand, from the peer's {@link QpEndpoint}: the manual connection of
 * {@code ibv_rc_pingpong} and perftest, for RC, UC and UD, with the fabric's rules (address vector, source
 * GID, path MTU, timers) from the port's fabric provider. The QP goes to INIT when prepared, so receives can
 * be posted before the peer is known; {@link #connect} takes it through RTR to RTS.
 *
 * <pre>{@code
 * QpConnector c = QpConnector.prepare(ctx, qp, 1, FabricOptions.defaults());  // RESET -> INIT
 * String mine = c.localEndpoint().toWire();        // send to the peer (ibv_rc_pingpong's text)
 * c.connect(QpEndpoint.parseWire(theirs));         // RC/UC: INIT -> RTR -> RTS; UD: RTR -> RTS
 * AddressHandle ah = c.addressHandle(peer);        // UD: where each send goes (close it after use)
 * }</pre>
 *
 * What {@link #builder} can set beyond the port and the {@link FabricOptions} (timers, GID, MTU, SL...):
 * the remote access flags (RC and UC), the RDMA READ / atomic depth (RC), the first PSN and the Q_Key (UD).
 *
 * <p>iWARP queue pairs cannot be connected by hand (the kernel's iw_cm makes the TCP/MPA connection):
 * {@link Builder#prepare()} refuses them; use rdma_cm ({@link org.verbs4j.api.cm.ConnectionManager}) or the
 * endpoint API. Not thread-safe: one thread sets a queue pair up.
 */
public final class QpConnector {
    /** Q_Key of UD queue pairs when none is given: the one {@code ibv_ud_pingpong} uses. */
    public static final int DEFAULT_QKEY = 0x11111111;
    /** Remote access of an RC queue pair when none is given: the peer may RDMA write and read its memory. */
    public static final int DEFAULT_RC_ACCESS = Access.REMOTE_WRITE | Access.REMOTE_READ;
    /** Remote access of a UC queue pair when none is given (UC has no reads or atomics). */
    public static final int DEFAULT_UC_ACCESS = Access.REMOTE_WRITE;

    private final DeviceContext ctx;
    private final QueuePair qp;
    private final FabricProvider fabric;
    private final FabricOptions options;
    private final PortAttributes port;
    private final GidEntry sourceGid;
    private final int psn;
    private final int rdAtomic;
    private final QpAttributes init;
    private final QpEndpoint local;

    private QpConnector(Builder b, FabricProvider fabric, PortAttributes port, GidEntry sourceGid, int psn) {
        this.ctx = b.ctx;
        this.qp = b.qp;
        this.fabric = fabric;
        this.options = b.options;
        this.port = port;
        this.sourceGid = sourceGid;
        this.psn = psn;
        this.rdAtomic = b.rdAtomic;
        QpType type = qp.type();
        int access = b.access >= 0 ? b.access : type == QpType.RC ? DEFAULT_RC_ACCESS : DEFAULT_UC_ACCESS;
        if (type == QpType.RC) {
            access |= fabric.readSinkExtraAccess();
        }
        // LOCAL_WRITE is a memory-region flag; a QP's access flags are the remote ones
        this.init = fabric.initAttributes(type, port, access & ~Access.LOCAL_WRITE, b.qkey, options);
        this.local = fabric.localEndpoint(port, sourceGid, qp.qpNumber(), psn);
    }

    /**
     * Prepares {@code qp} on {@code port} with the defaults (see {@link Builder}) and moves it to INIT: the same
     * as {@code builder(ctx, qp).port(port).options(options).prepare()}.
     *
     * @param ctx the open device context of the QP
     * @param qp the queue pair
     * @param port the port number, from 1
     * @param options the fabric options; null for the defaults
     * @return the connector, with the local endpoint ready to send to the peer
     */
    public static QpConnector prepare(DeviceContext ctx, QueuePair qp, int port, FabricOptions options) {
        return builder(ctx, qp).port(port).options(options).prepare();
    }

    /**
     * A builder for {@code qp}, a queue pair in RESET created in {@code ctx}; port 1 and default options.
     *
     * @param ctx the open device context of the QP
     * @param qp the queue pair
     * @return a new builder
     */
    public static Builder builder(DeviceContext ctx, QueuePair qp) {
        return new Builder(ctx, qp);
    }

    /** What {@link QpConnector} is prepared with; every setting has a default. */
    public static final class Builder {
        private final DeviceContext ctx;
        private final QueuePair qp;
        private int port = 1;
        private FabricOptions options = FabricOptions.defaults();
        private int access = -1;
        private int rdAtomic = FabricProvider.DEFAULT_RD_ATOMIC;
        private int psn = -1;
        private int qkey = DEFAULT_QKEY;

        private Builder(DeviceContext ctx, QueuePair qp) {
            this.ctx = Objects.requireNonNull(ctx, "ctx");
            this.qp = Objects.requireNonNull(qp, "qp");
        }

        /**
         * The port the QP uses (default 1).
         *
         * @param port the port number, from 1
         * @return this builder
         */
        public Builder port(int port) {
            if (port < 1 || port > 255) {
                throw new IllegalArgumentException("port " + port + " is out of range (1..255)");
            }
            this.port = port;
            return this;
        }

        /**
         * The fabric's overridable defaults: GID, path MTU, SL, traffic class, hop limit, timers.
         *
         * @param options the fabric options; null for the defaults
         * @return this object
         */
        public Builder options(FabricOptions options) {
            this.options = FabricOptions.orDefaults(options);
            return this;
        }

        /**
         * The remote access flags ({@link Access}) the QP accepts, RC and UC only; {@code LOCAL_WRITE} is
         * ignored. Default {@link #DEFAULT_RC_ACCESS} / {@link #DEFAULT_UC_ACCESS}. On iWARP an RC QP also gets
         * what an RDMA READ sink needs there.
         *
         * @param flags {@link Access} flags remote peers may use
         * @return this builder
         */
        public Builder access(int flags) {
            if (flags < 0) {
                throw new IllegalArgumentException("access flags " + flags + " are negative");
            }
            this.access = flags;
            return this;
        }

        /**
         * RC: how many RDMA READs / atomics may be outstanding in each direction ({@code max_rd_atomic} and
         * {@code max_dest_rd_atomic}), default 1; at most what the device
         * allows ({@link DeviceAttributes#maxQpRdAtom()}), or RTR / RTS fails.
         *
         * @param depth RDMA READs / atomics in flight in each direction
         * @return this builder
         */
        public Builder rdAtomic(int depth) {
            if (depth < 0 || depth > 255) {
                throw new IllegalArgumentException("rdAtomic " + depth + " is out of range (0..255)");
            }
            this.rdAtomic = depth;
            return this;
        }

        /**
         * The first send PSN (24 bits), default random.
         *
         * @param psn the packet sequence number (24 bits)
         * @return this builder
         */
        public Builder psn(int psn) {
            if (psn < 0 || psn > 0xffffff) {
                throw new IllegalArgumentException("PSN " + psn + " does not fit in 24 bits");
            }
            this.psn = psn;
            return this;
        }

        /**
         * UD: the Q_Key of the QP (receives accept datagrams with it), default {@link #DEFAULT_QKEY}.
         *
         * @param qkey the Q_Key
         * @return this object
         */
        public Builder qkey(int qkey) {
            this.qkey = qkey;
            return this;
        }

        /**
         * Picks the port's fabric provider, the source GID and the PSN, and moves the QP from RESET to INIT.
         *
         * @return the connector
         * @throws UnsupportedOperationException when the fabric cannot connect a QP by hand (iWARP) or has no
         *                                       queue pairs of this type
         * @throws IllegalStateException         when the QP is not in RESET, or the port cannot carry traffic
         * @throws IllegalArgumentException      when the options ask for what the port does not have (a GID index)
         * @throws VerbsException                when a query or {@code ibv_modify_qp} fails
         */
        public QpConnector prepare() {
            QpType type = qp.type();
            if (type != QpType.RC && type != QpType.UC && type != QpType.UD) {
                throw new IllegalArgumentException("QpConnector connects RC, UC and UD queue pairs, not " + type);
            }
            PortAttributes attrs = ctx.queryPort(port);
            FabricProvider fabric = Fabrics.forPort(ctx.device(), attrs, options);
            String where = ctx.device().name() + " port " + port;
            if (!fabric.supportsManualConnection()) {
                throw new UnsupportedOperationException(where + " is on the " + fabric.name() + " fabric, whose queue "
                        + "pairs cannot be connected by hand (no LID/QPN/PSN/GID exchange: the kernel's iw_cm makes "
                        + "the TCP/MPA connection): use rdma_cm (org.verbs4j.api.cm.ConnectionManager) or the "
                        + "endpoint API (org.verbs4j.endpoint.Endpoints) with the peer's IP address");
            }
            if (type == QpType.UD && !fabric.supportsUnreliableDatagram()) {
                throw new UnsupportedOperationException(where + " is on the " + fabric.name() + " fabric, which has "
                        + "no unreliable datagram queue pairs");
            }
            QpState state = qp.state();
            if (state != QpState.RESET) {
                throw new IllegalStateException(String.format("QP 0x%x is in %s: QpConnector starts from RESET (a new "
                        + "queue pair, or one moved back with modify(new QpAttributes().state(QpState.RESET)))",
                        qp.qpNumber(), state));
            }
            GidEntry gid = fabric.sourceGid(attrs, ctx.queryGidTable(), options);
            int first = psn >= 0 ? psn : ThreadLocalRandom.current().nextInt(1 << 24);
            QpConnector c = new QpConnector(this, fabric, attrs, gid, first);
            qp.modify(c.init);
            return c;
        }
    }

    /**
     * {@return what the peer needs to connect to this QP: LID, QP number, first PSN, GID ({@link QpEndpoint#toWire()})}
     */
    public QpEndpoint localEndpoint() {
        return local;
    }

    /** {@return the first send PSN} */
    public int psn() {
        return psn;
    }

    /** {@return the local GID entry the QP sends from, or {@code null} when the fabric does not address by GID} */
    public GidEntry sourceGid() {
        return sourceGid;
    }

    /** {@return the path MTU this side can use: the port's active MTU, lowered by {@link FabricOptions#mtu}} */
    public Mtu pathMtu() {
        return fabric.pathMtu(port, options);
    }

    /** {@return the name of the port's fabric ({@code ib}, {@code roce})} */
    public String fabricName() {
        return fabric.name();
    }

    /** {@return the queue pair this connector moves} */
    public QueuePair queuePair() {
        return qp;
    }

    /**
     * The INIT attributes {@link Builder#prepare()} used. A QP moved back to RESET (which drops every posted
     * request) returns to INIT with {@code qp.modify(initAttributes())}; the object is reusable.
     *
     * @return the attributes and mask for {@code ibv_modify_qp}
     */
    public QpAttributes initAttributes() {
        return init;
    }

    /**
     * {@link #readyToReceive(QpEndpoint, Mtu)} then {@link #readyToSend()}: the QP is in RTS after it.
     *
     * @param remote the peer's endpoint
     * @return the path MTU of the connection (RC, UC; for UD the port's)
     */
    public Mtu connect(QpEndpoint remote) {
        return connect(remote, null);
    }

    /**
     * As {@link #connect(QpEndpoint)}, with the path MTU lowered to the peer's {@code peerMtu} when smaller.
     *
     * @param remote the peer's endpoint
     * @param peerMtu the peer's path MTU; null when it did not say
     * @return the path MTU the QP was moved with
     */
    public Mtu connect(QpEndpoint remote, Mtu peerMtu) {
        Mtu mtu = readyToReceive(remote, peerMtu);
        readyToSend();
        return mtu;
    }

    /**
     * INIT → RTR towards {@code remote}: RC and UC get its QP number, PSN and address vector, the path MTU
     * ({@link #pathMtu()}, or {@code peerMtu} when smaller, null for unknown); RC also the READ/atomic depth
     * and the minimum RNR timer. UD takes only the state ({@code remote} may be null).
     *
     * @param remote the peer's endpoint
     * @param peerMtu the peer's path MTU; null when it did not say
     * @return the path MTU of the connection (RC, UC; for UD the port's)
     */
    public Mtu readyToReceive(QpEndpoint remote, Mtu peerMtu) {
        QpType type = qp.type();
        if (type != QpType.UD) {
            Objects.requireNonNull(remote, "remote (the peer's QpEndpoint)");
        }
        Mtu mtu = pathMtu();
        if (peerMtu != null && (mtu == null || peerMtu.bytes() < mtu.bytes())) {
            mtu = peerMtu;
        }
        qp.modify(fabric.readyToReceiveAttributes(type, port, sourceGid, remote, mtu, rdAtomic, options));
        return mtu;
    }

    /** RTR → RTS with this side's PSN; RC also with the transport timers (options, or the fabric's defaults). */
    public void readyToSend() {
        qp.modify(fabric.readyToSendAttributes(qp.type(), psn, rdAtomic, options));
    }

    /**
     * The address vector that reaches {@code remote} from this port (what RTR of RC/UC uses).
     *
     * @param remote the peer's endpoint
     * @return a new address vector
     */
    public AddressVector addressVector(QpEndpoint remote) {
        return fabric.addressVector(port, sourceGid, Objects.requireNonNull(remote, "remote"), options);
    }

    /**
     * UD: an address handle for sends to {@code remote}, in the QP's protection domain; the caller closes it.
     * Put it in each send with {@code ud(ah, remote.qpn(), qkey)}.
     *
     * @param remote the peer's endpoint
     * @return a new address handle, which the caller closes
     */
    public AddressHandle addressHandle(QpEndpoint remote) {
        return qp.protectionDomain().createAddressHandle(addressVector(remote));
    }

    @Override
    public String toString() {
        return String.format("QpConnector[%s QP 0x%x on %s port %d (%s), psn 0x%06x]", qp.type(), qp.qpNumber(),
                ctx.device().name(), port.portNumber(), fabric.name(), psn);
    }
}
