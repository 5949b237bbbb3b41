package org.verbs4j.jnr;

/**
 * Offsets and sizes of the libibverbs structs verbs4j reads and writes (rdma-core, x86_64 LP64;
 * stable ABI since rdma-core 17). Every value here is checked against the installed headers by
 * {@code LayoutIT}, which compiles an offsetof probe in the lab: a wrong offset corrupts memory.
 */
public final class Layout {
    private Layout() {
    }

    // struct ibv_device
    public static final int DEVICE_NODE_TYPE = 16;
    public static final int DEVICE_TRANSPORT_TYPE = 20;
    public static final int DEVICE_NAME = 24;
    public static final int DEVICE_NAME_MAX = 64;

    // struct ibv_context
    public static final int CONTEXT_DEVICE = 0;
    public static final int CONTEXT_OPS = 8;
    public static final int CONTEXT_CMD_FD = 264;
    public static final int CONTEXT_ASYNC_FD = 268;
    public static final int CONTEXT_NUM_COMP_VECTORS = 272;
    public static final int CONTEXT_ABI_COMPAT = 320;

    // struct ibv_context_ops (offsets inside ops)
    public static final int OPS_POLL_CQ = 88;
    public static final int OPS_REQ_NOTIFY_CQ = 96;
    public static final int OPS_POST_SRQ_RECV = 160;
    public static final int OPS_POST_SEND = 200;
    public static final int OPS_POST_RECV = 208;

    // struct verbs_context: lies in front of ibv_context, whose offset inside it is 320
    public static final int VERBS_CONTEXT_CONTEXT = 320;
    public static final int VERBS_CONTEXT_SIZE = 648;
    public static final int VERBS_CONTEXT_QUERY_PORT = 0;
    public static final int VERBS_CONTEXT_SZ = 312;
    public static final int VERBS_CONTEXT_QUERY_DEVICE_EX = 216;

    // struct ibv_device_attr
    public static final int DEVICE_ATTR_SIZE = 232;
    public static final int DA_FW_VER = 0;
    public static final int DA_FW_VER_LEN = 64;
    public static final int DA_NODE_GUID = 64;
    public static final int DA_SYS_IMAGE_GUID = 72;
    public static final int DA_MAX_MR_SIZE = 80;
    public static final int DA_PAGE_SIZE_CAP = 88;
    public static final int DA_VENDOR_ID = 96;
    public static final int DA_VENDOR_PART_ID = 100;
    public static final int DA_HW_VER = 104;
    public static final int DA_MAX_QP = 108;
    public static final int DA_MAX_QP_WR = 112;
    public static final int DA_DEVICE_CAP_FLAGS = 116;
    public static final int DA_MAX_SGE = 120;
    public static final int DA_MAX_SGE_RD = 124;
    public static final int DA_MAX_CQ = 128;
    public static final int DA_MAX_CQE = 132;
    public static final int DA_MAX_MR = 136;
    public static final int DA_MAX_PD = 140;
    public static final int DA_MAX_QP_RD_ATOM = 144;
    public static final int DA_MAX_EE_RD_ATOM = 148;
    public static final int DA_MAX_RES_RD_ATOM = 152;
    public static final int DA_MAX_QP_INIT_RD_ATOM = 156;
    public static final int DA_MAX_EE_INIT_RD_ATOM = 160;
    public static final int DA_ATOMIC_CAP = 164;
    public static final int DA_MAX_EE = 168;
    public static final int DA_MAX_RDD = 172;
    public static final int DA_MAX_MW = 176;
    public static final int DA_MAX_RAW_IPV6_QP = 180;
    public static final int DA_MAX_RAW_ETHY_QP = 184;
    public static final int DA_MAX_MCAST_GRP = 188;
    public static final int DA_MAX_MCAST_QP_ATTACH = 192;
    public static final int DA_MAX_TOTAL_MCAST_QP_ATTACH = 196;
    public static final int DA_MAX_AH = 200;
    public static final int DA_MAX_FMR = 204;
    public static final int DA_MAX_MAP_PER_FMR = 208;
    public static final int DA_MAX_SRQ = 212;
    public static final int DA_MAX_SRQ_WR = 216;
    public static final int DA_MAX_SRQ_SGE = 220;
    public static final int DA_MAX_PKEYS = 224;
    public static final int DA_LOCAL_CA_ACK_DELAY = 226;
    public static final int DA_PHYS_PORT_CNT = 227;

    // struct ibv_device_attr_ex (orig_attr at 0), as rdma-core 44's verbs.h lays it out; a newer
    // libibverbs fills only the attr_size bytes it is given
    public static final int DEVICE_ATTR_EX_SIZE = 400;
    public static final int DAX_ODP_GENERAL_CAPS = 240;
    public static final int DAX_RC_ODP_CAPS = 248;
    public static final int DAX_UC_ODP_CAPS = 252;
    public static final int DAX_UD_ODP_CAPS = 256;
    public static final int DAX_COMPLETION_TIMESTAMP_MASK = 264;
    public static final int DAX_HCA_CORE_CLOCK = 272;
    public static final int DAX_DEVICE_CAP_FLAGS_EX = 280;
    public static final int DAX_MAX_TSO = 288;
    public static final int DAX_TSO_SUPPORTED_QPTS = 292;
    public static final int DAX_RSS_SUPPORTED_QPTS = 296;
    public static final int DAX_MAX_RWQ_INDIRECTION_TABLES = 300;
    public static final int DAX_MAX_RWQ_INDIRECTION_TABLE_SIZE = 304;
    public static final int DAX_RX_HASH_FIELDS_MASK = 312;
    public static final int DAX_RX_HASH_FUNCTION = 320;
    public static final int DAX_MAX_WQ_TYPE_RQ = 328;
    public static final int DAX_QP_RATE_LIMIT_MIN = 332;
    public static final int DAX_QP_RATE_LIMIT_MAX = 336;
    public static final int DAX_PACKET_PACING_SUPPORTED_QPTS = 340;
    public static final int DAX_RAW_PACKET_CAPS = 344;
    public static final int DAX_TM_MAX_RNDV_HDR_SIZE = 348;
    public static final int DAX_TM_MAX_NUM_TAGS = 352;
    public static final int DAX_TM_FLAGS = 356;
    public static final int DAX_TM_MAX_OPS = 360;
    public static final int DAX_TM_MAX_SGE = 364;
    public static final int DAX_MAX_CQ_COUNT = 368;
    public static final int DAX_MAX_CQ_PERIOD = 370;
    public static final int DAX_MAX_DM_SIZE = 376;
    public static final int DAX_XRC_ODP_CAPS = 392;

    // struct ibv_port_attr
    public static final int PORT_ATTR_SIZE = 52;
    public static final int PA_STATE = 0;
    public static final int PA_MAX_MTU = 4;
    public static final int PA_ACTIVE_MTU = 8;
    public static final int PA_GID_TBL_LEN = 12;
    public static final int PA_PORT_CAP_FLAGS = 16;
    public static final int PA_MAX_MSG_SZ = 20;
    public static final int PA_BAD_PKEY_CNTR = 24;
    public static final int PA_QKEY_VIOL_CNTR = 28;
    public static final int PA_PKEY_TBL_LEN = 32;
    public static final int PA_LID = 34;
    public static final int PA_SM_LID = 36;
    public static final int PA_LMC = 38;
    public static final int PA_MAX_VL_NUM = 39;
    public static final int PA_SM_SL = 40;
    public static final int PA_SUBNET_TIMEOUT = 41;
    public static final int PA_INIT_TYPE_REPLY = 42;
    public static final int PA_ACTIVE_WIDTH = 43;
    public static final int PA_ACTIVE_SPEED = 44;
    public static final int PA_PHYS_STATE = 45;
    public static final int PA_LINK_LAYER = 46;
    public static final int PA_FLAGS = 47;
    public static final int PA_PORT_CAP_FLAGS2 = 48;

    // struct ibv_gid_entry
    public static final int GID_ENTRY_SIZE = 32;
    public static final int GE_GID = 0;
    public static final int GE_GID_INDEX = 16;
    public static final int GE_PORT_NUM = 20;
    public static final int GE_GID_TYPE = 24;
    public static final int GE_NDEV_IFINDEX = 28;

    // struct ibv_pd
    public static final int PD_CONTEXT = 0;

    // struct ibv_mr
    public static final int MR_CONTEXT = 0;
    public static final int MR_PD = 8;
    public static final int MR_ADDR = 16;
    public static final int MR_LENGTH = 24;
    public static final int MR_HANDLE = 32;
    public static final int MR_LKEY = 36;
    public static final int MR_RKEY = 40;

    // struct ibv_comp_channel
    public static final int COMP_CHANNEL_CONTEXT = 0;
    public static final int COMP_CHANNEL_FD = 8;

    // struct ibv_cq
    public static final int CQ_CONTEXT = 0;
    public static final int CQ_CHANNEL = 8;
    public static final int CQ_CQE = 28;

    // struct ibv_qp
    public static final int QP_CONTEXT = 0;
    public static final int QP_PD = 16;
    public static final int QP_SEND_CQ = 24;
    public static final int QP_RECV_CQ = 32;
    public static final int QP_SRQ = 40;
    public static final int QP_QP_NUM = 52;
    public static final int QP_STATE = 56;
    public static final int QP_QP_TYPE = 60;

    // struct ibv_srq
    public static final int SRQ_CONTEXT = 0;

    // struct ibv_qp_init_attr (cap fields flattened: offset of cap + offset inside ibv_qp_cap)
    public static final int QP_INIT_ATTR_SIZE = 64;
    public static final int QIA_QP_CONTEXT = 0;
    public static final int QIA_SEND_CQ = 8;
    public static final int QIA_RECV_CQ = 16;
    public static final int QIA_SRQ = 24;
    public static final int QIA_CAP = 32;
    public static final int QIA_QP_TYPE = 52;
    public static final int QIA_SQ_SIG_ALL = 56;

    // struct ibv_qp_cap
    public static final int QP_CAP_SIZE = 20;
    public static final int QC_MAX_SEND_WR = 0;
    public static final int QC_MAX_RECV_WR = 4;
    public static final int QC_MAX_SEND_SGE = 8;
    public static final int QC_MAX_RECV_SGE = 12;
    public static final int QC_MAX_INLINE_DATA = 16;

    // struct ibv_qp_attr
    public static final int QP_ATTR_SIZE = 144;
    public static final int QA_QP_STATE = 0;
    public static final int QA_CUR_QP_STATE = 4;
    public static final int QA_PATH_MTU = 8;
    public static final int QA_PATH_MIG_STATE = 12;
    public static final int QA_QKEY = 16;
    public static final int QA_RQ_PSN = 20;
    public static final int QA_SQ_PSN = 24;
    public static final int QA_DEST_QP_NUM = 28;
    public static final int QA_QP_ACCESS_FLAGS = 32;
    public static final int QA_CAP = 36;
    public static final int QA_AH_ATTR = 56;
    public static final int QA_ALT_AH_ATTR = 88;
    public static final int QA_PKEY_INDEX = 120;
    public static final int QA_ALT_PKEY_INDEX = 122;
    public static final int QA_EN_SQD_ASYNC_NOTIFY = 124;
    public static final int QA_SQ_DRAINING = 125;
    public static final int QA_MAX_RD_ATOMIC = 126;
    public static final int QA_MAX_DEST_RD_ATOMIC = 127;
    public static final int QA_MIN_RNR_TIMER = 128;
    public static final int QA_PORT_NUM = 129;
    public static final int QA_TIMEOUT = 130;
    public static final int QA_RETRY_CNT = 131;
    public static final int QA_RNR_RETRY = 132;
    public static final int QA_ALT_PORT_NUM = 133;
    public static final int QA_ALT_TIMEOUT = 134;
    public static final int QA_RATE_LIMIT = 136;

    // struct ibv_ah_attr
    public static final int AH_ATTR_SIZE = 32;
    public static final int AA_GRH = 0;
    public static final int AA_DLID = 24;
    public static final int AA_SL = 26;
    public static final int AA_SRC_PATH_BITS = 27;
    public static final int AA_STATIC_RATE = 28;
    public static final int AA_IS_GLOBAL = 29;
    public static final int AA_PORT_NUM = 30;

    // struct ibv_global_route
    public static final int GR_DGID = 0;
    public static final int GR_FLOW_LABEL = 16;
    public static final int GR_SGID_INDEX = 20;
    public static final int GR_HOP_LIMIT = 21;
    public static final int GR_TRAFFIC_CLASS = 22;

    // struct ibv_srq_init_attr / ibv_srq_attr
    public static final int SRQ_INIT_ATTR_SIZE = 24;
    public static final int SIA_SRQ_CONTEXT = 0;
    public static final int SIA_ATTR = 8;
    public static final int SRQ_ATTR_SIZE = 12;
    public static final int SA_MAX_WR = 0;
    public static final int SA_MAX_SGE = 4;
    public static final int SA_SRQ_LIMIT = 8;

    // struct ibv_async_event
    public static final int ASYNC_EVENT_SIZE = 16;
    public static final int AE_ELEMENT = 0;
    public static final int AE_EVENT_TYPE = 8;
}
