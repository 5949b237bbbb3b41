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
}
