package org.verbs4j.api.cm;

/**
 * {@code enum rdma_port_space}: which kind of queue pair an id connects, and which port numbers it
 * shares (a TCP and a UDP id may both bind port 7000).
 *
 * <pre>{@code
 * CmId rc = cm.createId();                  // PortSpace.TCP: RC, connect / accept
 * CmId ud = cm.createId(PortSpace.UDP);     // UD: connectDatagram / accept, joinMulticast
 * }</pre>
 */
public enum PortSpace {
    /** {@code RDMA_PS_TCP}: reliable-connected (RC) queue pairs, connected with the IB CM / iWARP MPA handshake. */
    TCP(0x0106),
    /**
     * {@code RDMA_PS_UDP}: unreliable-datagram (UD) queue pairs. {@link CmId#connectDatagram} is an IB CM SIDR
     * exchange (service ID resolution) that returns the peer's QP number, Q_Key and address. InfiniBand and
     * RoCE only: iWARP has no UD.
     */
    UDP(0x0111);

    private final int value;

    PortSpace(int value) {
        this.value = value;
    }

    /** {@return the C value ({@code RDMA_PS_TCP} = 0x0106, {@code RDMA_PS_UDP} = 0x0111)} */
    public int value() {
        return value;
    }

    /** The Q_Key {@code rdma_create_qp} gives UD queue pairs of {@link #UDP} ids: {@code RDMA_UDP_QKEY}. */
    public static final int UDP_QKEY = 0x01234567;
}
