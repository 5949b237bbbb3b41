package org.verbs4j.jnr;

/**
 * Offsets, sizes and values of the librdmacm structs and constants verbs4j reads and writes
 * ({@code <rdma/rdma_cma.h>}, rdma-core, x86_64 LP64), main and test code alike. Every value here is
 * checked against the installed headers by {@code LayoutIT}, which compiles an offsetof probe in the lab.
 */
final class RdmacmLayout {
    private RdmacmLayout() {
    }

    // enum rdma_port_space
    static final int RDMA_PS_TCP = 0x0106;
    static final int RDMA_PS_UDP = 0x0111;
    static final int RDMA_UDP_QKEY = 0x01234567;
    // rdma_set_option
    static final int RDMA_OPTION_ID = 0;
    static final int RDMA_OPTION_ID_TOS = 0;

    // struct rdma_cm_id
    static final int ID_VERBS = 0;
    static final int ID_CHANNEL = 8;
    static final int ID_CONTEXT = 16;
    static final int ID_QP = 24;
    /** {@code route.addr.src_addr}: a {@code sockaddr_storage} after the four pointers. */
    static final int ID_ROUTE_SRC_ADDR = 32;
    /** {@code route.addr.dst_addr}: the next {@code sockaddr_storage} (128 bytes on). */
    static final int ID_ROUTE_DST_ADDR = ID_ROUTE_SRC_ADDR + 128;
    static final int ID_PORT_NUM = 348;
    // struct rdma_cm_event
    static final int EVENT_ID = 0;
    static final int EVENT_LISTEN_ID = 8;
    static final int EVENT_EVENT = 16;
    static final int EVENT_STATUS = 20;
    static final int EVENT_PARAM = 24;
    // struct rdma_conn_param
    static final int CONN_PARAM_SIZE = 24;
    static final int CP_PRIVATE_DATA = 0;
    static final int CP_PRIVATE_DATA_LEN = 8;
    static final int CP_RESPONDER_RESOURCES = 9;
    static final int CP_INITIATOR_DEPTH = 10;
    static final int CP_FLOW_CONTROL = 11;
    static final int CP_RETRY_COUNT = 12;
    static final int CP_RNR_RETRY_COUNT = 13;
    static final int CP_SRQ = 14;
    static final int CP_QP_NUM = 16;
    // struct rdma_ud_param (param.ud of an event on a RDMA_PS_UDP id; REJECTED events carry param.conn)
    static final int UD_PARAM_SIZE = 56;
    static final int UD_PRIVATE_DATA = 0;
    static final int UD_PRIVATE_DATA_LEN = 8;
    static final int UD_AH_ATTR = 16;
    static final int UD_QP_NUM = 48;
    static final int UD_QKEY = 52;
    // struct rdma_event_channel
    static final int CHANNEL_FD = 0;
}
