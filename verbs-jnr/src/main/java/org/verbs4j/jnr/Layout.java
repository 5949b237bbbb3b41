package org.verbs4j.jnr;

/**
 * Offsets and sizes of the libibverbs structs verbs4j reads and writes (rdma-core, x86_64 LP64;
 * stable ABI since rdma-core 17). Every value here is checked against the installed headers by
 * {@code LayoutIT}, which compiles an offsetof probe in the lab: a wrong offset corrupts memory.
 */
final class Layout {
    private Layout() {
    }

    // struct ibv_device
    /** Offset of {@code node_type} in {@code struct ibv_device}, in bytes. */
    public static final int DEVICE_NODE_TYPE = 16;
    /** Offset of {@code transport_type} in {@code struct ibv_device}, in bytes. */
    public static final int DEVICE_TRANSPORT_TYPE = 20;
    /** Offset of {@code name} in {@code struct ibv_device}, in bytes. */
    public static final int DEVICE_NAME = 24;
    /** Length of the {@code name} array in {@code struct ibv_device}, in bytes (NUL included). */
    public static final int DEVICE_NAME_MAX = 64;

    // struct ibv_context
    /** Offset of {@code device} in {@code struct ibv_context}, in bytes. */
    public static final int CONTEXT_DEVICE = 0;
    /** Offset of {@code ops} in {@code struct ibv_context}, in bytes. */
    public static final int CONTEXT_OPS = 8;
    /** Offset of {@code cmd_fd} in {@code struct ibv_context}, in bytes. */
    public static final int CONTEXT_CMD_FD = 264;
    /** Offset of {@code async_fd} in {@code struct ibv_context}, in bytes. */
    public static final int CONTEXT_ASYNC_FD = 268;
    /** Offset of {@code num_comp_vectors} in {@code struct ibv_context}, in bytes. */
    public static final int CONTEXT_NUM_COMP_VECTORS = 272;
    /** Offset of {@code abi_compat} in {@code struct ibv_context}, in bytes. */
    public static final int CONTEXT_ABI_COMPAT = 320;

    // struct ibv_context_ops (offsets inside ops)
    /** Offset of the {@code poll_cq} function pointer in {@code struct ibv_context_ops}, in bytes. */
    public static final int OPS_POLL_CQ = 88;
    /** Offset of the {@code req_notify_cq} function pointer in {@code struct ibv_context_ops}, in bytes. */
    public static final int OPS_REQ_NOTIFY_CQ = 96;
    /** Offset of the {@code post_srq_recv} function pointer in {@code struct ibv_context_ops}, in bytes. */
    public static final int OPS_POST_SRQ_RECV = 160;
    /** Offset of the {@code post_send} function pointer in {@code struct ibv_context_ops}, in bytes. */
    public static final int OPS_POST_SEND = 200;
    /** Offset of the {@code post_recv} function pointer in {@code struct ibv_context_ops}, in bytes. */
    public static final int OPS_POST_RECV = 208;

    // struct verbs_context: lies in front of ibv_context, whose offset inside it is 320
    /** Offset of {@code context} in {@code struct verbs_context}, in bytes. */
    public static final int VERBS_CONTEXT_CONTEXT = 320;
    /** {@code sizeof(struct verbs_context)}, in bytes. */
    public static final int VERBS_CONTEXT_SIZE = 648;
    /** Offset of {@code query_port} in {@code struct verbs_context}, in bytes. */
    public static final int VERBS_CONTEXT_QUERY_PORT = 0;
    /** Offset of {@code sz} in {@code struct verbs_context}, in bytes. */
    public static final int VERBS_CONTEXT_SZ = 312;
    public static final int VERBS_CONTEXT_QUERY_DEVICE_EX = 216;

    // struct ibv_device_attr
    /** {@code sizeof(struct ibv_device_attr)}, in bytes. */
    public static final int DEVICE_ATTR_SIZE = 232;
    /** Offset of {@code fw_ver} in {@code struct ibv_device_attr}, in bytes. */
    public static final int DA_FW_VER = 0;
    /** Length of the {@code fw_ver} array in {@code struct ibv_device_attr}, in bytes (NUL included). */
    public static final int DA_FW_VER_LEN = 64;
    /** Offset of {@code node_guid} in {@code struct ibv_device_attr}, in bytes. */
    public static final int DA_NODE_GUID = 64;
    /** Offset of {@code sys_image_guid} in {@code struct ibv_device_attr}, in bytes. */
    public static final int DA_SYS_IMAGE_GUID = 72;
    /** Offset of {@code max_mr_size} in {@code struct ibv_device_attr}, in bytes. */
    public static final int DA_MAX_MR_SIZE = 80;
    /** Offset of {@code page_size_cap} in {@code struct ibv_device_attr}, in bytes. */
    public static final int DA_PAGE_SIZE_CAP = 88;
    /** Offset of {@code vendor_id} in {@code struct ibv_device_attr}, in bytes. */
    public static final int DA_VENDOR_ID = 96;
    /** Offset of {@code vendor_part_id} in {@code struct ibv_device_attr}, in bytes. */
    public static final int DA_VENDOR_PART_ID = 100;
    /** Offset of {@code hw_ver} in {@code struct ibv_device_attr}, in bytes. */
    public static final int DA_HW_VER = 104;
    /** Offset of {@code max_qp} in {@code struct ibv_device_attr}, in bytes. */
    public static final int DA_MAX_QP = 108;
    /** Offset of {@code max_qp_wr} in {@code struct ibv_device_attr}, in bytes. */
    public static final int DA_MAX_QP_WR = 112;
    /** Offset of {@code device_cap_flags} in {@code struct ibv_device_attr}, in bytes. */
    public static final int DA_DEVICE_CAP_FLAGS = 116;
    /** Offset of {@code max_sge} in {@code struct ibv_device_attr}, in bytes. */
    public static final int DA_MAX_SGE = 120;
    /** Offset of {@code max_sge_rd} in {@code struct ibv_device_attr}, in bytes. */
    public static final int DA_MAX_SGE_RD = 124;
    /** Offset of {@code max_cq} in {@code struct ibv_device_attr}, in bytes. */
    public static final int DA_MAX_CQ = 128;
    /** Offset of {@code max_cqe} in {@code struct ibv_device_attr}, in bytes. */
    public static final int DA_MAX_CQE = 132;
    /** Offset of {@code max_mr} in {@code struct ibv_device_attr}, in bytes. */
    public static final int DA_MAX_MR = 136;
    /** Offset of {@code max_pd} in {@code struct ibv_device_attr}, in bytes. */
    public static final int DA_MAX_PD = 140;
    /** Offset of {@code max_qp_rd_atom} in {@code struct ibv_device_attr}, in bytes. */
    public static final int DA_MAX_QP_RD_ATOM = 144;
    /** Offset of {@code max_ee_rd_atom} in {@code struct ibv_device_attr}, in bytes. */
    public static final int DA_MAX_EE_RD_ATOM = 148;
    /** Offset of {@code max_res_rd_atom} in {@code struct ibv_device_attr}, in bytes. */
    public static final int DA_MAX_RES_RD_ATOM = 152;
    /** Offset of {@code max_qp_init_rd_atom} in {@code struct ibv_device_attr}, in bytes. */
    public static final int DA_MAX_QP_INIT_RD_ATOM = 156;
    /** Offset of {@code max_ee_init_rd_atom} in {@code struct ibv_device_attr}, in bytes. */
    public static final int DA_MAX_EE_INIT_RD_ATOM = 160;
    /** Offset of {@code atomic_cap} in {@code struct ibv_device_attr}, in bytes. */
    public static final int DA_ATOMIC_CAP = 164;
    /** Offset of {@code max_ee} in {@code struct ibv_device_attr}, in bytes. */
    public static final int DA_MAX_EE = 168;
    /** Offset of {@code max_rdd} in {@code struct ibv_device_attr}, in bytes. */
    public static final int DA_MAX_RDD = 172;
    /** Offset of {@code max_mw} in {@code struct ibv_device_attr}, in bytes. */
    public static final int DA_MAX_MW = 176;
    /** Offset of {@code max_raw_ipv6_qp} in {@code struct ibv_device_attr}, in bytes. */
    public static final int DA_MAX_RAW_IPV6_QP = 180;
    /** Offset of {@code max_raw_ethy_qp} in {@code struct ibv_device_attr}, in bytes. */
    public static final int DA_MAX_RAW_ETHY_QP = 184;
    /** Offset of {@code max_mcast_grp} in {@code struct ibv_device_attr}, in bytes. */
    public static final int DA_MAX_MCAST_GRP = 188;
    /** Offset of {@code max_mcast_qp_attach} in {@code struct ibv_device_attr}, in bytes. */
    public static final int DA_MAX_MCAST_QP_ATTACH = 192;
    /** Offset of {@code max_total_mcast_qp_attach} in {@code struct ibv_device_attr}, in bytes. */
    public static final int DA_MAX_TOTAL_MCAST_QP_ATTACH = 196;
    /** Offset of {@code max_ah} in {@code struct ibv_device_attr}, in bytes. */
    public static final int DA_MAX_AH = 200;
    /** Offset of {@code max_fmr} in {@code struct ibv_device_attr}, in bytes. */
    public static final int DA_MAX_FMR = 204;
    /** Offset of {@code max_map_per_fmr} in {@code struct ibv_device_attr}, in bytes. */
    public static final int DA_MAX_MAP_PER_FMR = 208;
    /** Offset of {@code max_srq} in {@code struct ibv_device_attr}, in bytes. */
    public static final int DA_MAX_SRQ = 212;
    /** Offset of {@code max_srq_wr} in {@code struct ibv_device_attr}, in bytes. */
    public static final int DA_MAX_SRQ_WR = 216;
    /** Offset of {@code max_srq_sge} in {@code struct ibv_device_attr}, in bytes. */
    public static final int DA_MAX_SRQ_SGE = 220;
    /** Offset of {@code max_pkeys} in {@code struct ibv_device_attr}, in bytes. */
    public static final int DA_MAX_PKEYS = 224;
    /** Offset of {@code local_ca_ack_delay} in {@code struct ibv_device_attr}, in bytes. */
    public static final int DA_LOCAL_CA_ACK_DELAY = 226;
    /** Offset of {@code phys_port_cnt} in {@code struct ibv_device_attr}, in bytes. */
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
    /** {@code sizeof(struct ibv_port_attr)}, in bytes. */
    public static final int PORT_ATTR_SIZE = 52;
    /** Offset of {@code state} in {@code struct ibv_port_attr}, in bytes. */
    public static final int PA_STATE = 0;
    /** Offset of {@code max_mtu} in {@code struct ibv_port_attr}, in bytes. */
    public static final int PA_MAX_MTU = 4;
    /** Offset of {@code active_mtu} in {@code struct ibv_port_attr}, in bytes. */
    public static final int PA_ACTIVE_MTU = 8;
    /** Offset of {@code gid_tbl_len} in {@code struct ibv_port_attr}, in bytes. */
    public static final int PA_GID_TBL_LEN = 12;
    /** Offset of {@code port_cap_flags} in {@code struct ibv_port_attr}, in bytes. */
    public static final int PA_PORT_CAP_FLAGS = 16;
    /** Offset of {@code max_msg_sz} in {@code struct ibv_port_attr}, in bytes. */
    public static final int PA_MAX_MSG_SZ = 20;
    /** Offset of {@code bad_pkey_cntr} in {@code struct ibv_port_attr}, in bytes. */
    public static final int PA_BAD_PKEY_CNTR = 24;
    /** Offset of {@code qkey_viol_cntr} in {@code struct ibv_port_attr}, in bytes. */
    public static final int PA_QKEY_VIOL_CNTR = 28;
    /** Offset of {@code pkey_tbl_len} in {@code struct ibv_port_attr}, in bytes. */
    public static final int PA_PKEY_TBL_LEN = 32;
    /** Offset of {@code lid} in {@code struct ibv_port_attr}, in bytes. */
    public static final int PA_LID = 34;
    /** Offset of {@code sm_lid} in {@code struct ibv_port_attr}, in bytes. */
    public static final int PA_SM_LID = 36;
    /** Offset of {@code lmc} in {@code struct ibv_port_attr}, in bytes. */
    public static final int PA_LMC = 38;
    /** Offset of {@code max_vl_num} in {@code struct ibv_port_attr}, in bytes. */
    public static final int PA_MAX_VL_NUM = 39;
    /** Offset of {@code sm_sl} in {@code struct ibv_port_attr}, in bytes. */
    public static final int PA_SM_SL = 40;
    /** Offset of {@code subnet_timeout} in {@code struct ibv_port_attr}, in bytes. */
    public static final int PA_SUBNET_TIMEOUT = 41;
    /** Offset of {@code init_type_reply} in {@code struct ibv_port_attr}, in bytes. */
    public static final int PA_INIT_TYPE_REPLY = 42;
    /** Offset of {@code active_width} in {@code struct ibv_port_attr}, in bytes. */
    public static final int PA_ACTIVE_WIDTH = 43;
    /** Offset of {@code active_speed} in {@code struct ibv_port_attr}, in bytes. */
    public static final int PA_ACTIVE_SPEED = 44;
    /** Offset of {@code phys_state} in {@code struct ibv_port_attr}, in bytes. */
    public static final int PA_PHYS_STATE = 45;
    /** Offset of {@code link_layer} in {@code struct ibv_port_attr}, in bytes. */
    public static final int PA_LINK_LAYER = 46;
    /** Offset of {@code flags} in {@code struct ibv_port_attr}, in bytes. */
    public static final int PA_FLAGS = 47;
    /** Offset of {@code port_cap_flags2} in {@code struct ibv_port_attr}, in bytes. */
    public static final int PA_PORT_CAP_FLAGS2 = 48;

    // struct ibv_gid_entry
    /** {@code sizeof(struct ibv_gid_entry)}, in bytes. */
    public static final int GID_ENTRY_SIZE = 32;
    /** Offset of {@code gid} in {@code struct ibv_gid_entry}, in bytes. */
    public static final int GE_GID = 0;
    /** Offset of {@code gid_index} in {@code struct ibv_gid_entry}, in bytes. */
    public static final int GE_GID_INDEX = 16;
    /** Offset of {@code port_num} in {@code struct ibv_gid_entry}, in bytes. */
    public static final int GE_PORT_NUM = 20;
    /** Offset of {@code gid_type} in {@code struct ibv_gid_entry}, in bytes. */
    public static final int GE_GID_TYPE = 24;
    /** Offset of {@code ndev_ifindex} in {@code struct ibv_gid_entry}, in bytes. */
    public static final int GE_NDEV_IFINDEX = 28;

    // struct ibv_pd
    /** Offset of {@code context} in {@code struct ibv_pd}, in bytes. */
    public static final int PD_CONTEXT = 0;

    // struct ibv_mr
    /** Offset of {@code context} in {@code struct ibv_mr}, in bytes. */
    public static final int MR_CONTEXT = 0;
    /** Offset of {@code pd} in {@code struct ibv_mr}, in bytes. */
    public static final int MR_PD = 8;
    /** Offset of {@code addr} in {@code struct ibv_mr}, in bytes. */
    public static final int MR_ADDR = 16;
    /** Offset of {@code length} in {@code struct ibv_mr}, in bytes. */
    public static final int MR_LENGTH = 24;
    /** Offset of {@code handle} in {@code struct ibv_mr}, in bytes. */
    public static final int MR_HANDLE = 32;
    /** Offset of {@code lkey} in {@code struct ibv_mr}, in bytes. */
    public static final int MR_LKEY = 36;
    /** Offset of {@code rkey} in {@code struct ibv_mr}, in bytes. */
    public static final int MR_RKEY = 40;

    // struct ibv_comp_channel
    /** Offset of {@code context} in {@code struct ibv_comp_channel}, in bytes. */
    public static final int COMP_CHANNEL_CONTEXT = 0;
    /** Offset of {@code fd} in {@code struct ibv_comp_channel}, in bytes. */
    public static final int COMP_CHANNEL_FD = 8;

    // struct ibv_cq
    /** Offset of {@code context} in {@code struct ibv_cq}, in bytes. */
    public static final int CQ_CONTEXT = 0;
    /** Offset of {@code channel} in {@code struct ibv_cq}, in bytes. */
    public static final int CQ_CHANNEL = 8;
    /** Offset of {@code cqe} in {@code struct ibv_cq}, in bytes. */
    public static final int CQ_CQE = 28;

    // struct ibv_qp
    /** Offset of {@code context} in {@code struct ibv_qp}, in bytes. */
    public static final int QP_CONTEXT = 0;
    /** Offset of {@code pd} in {@code struct ibv_qp}, in bytes. */
    public static final int QP_PD = 16;
    /** Offset of {@code send_cq} in {@code struct ibv_qp}, in bytes. */
    public static final int QP_SEND_CQ = 24;
    /** Offset of {@code recv_cq} in {@code struct ibv_qp}, in bytes. */
    public static final int QP_RECV_CQ = 32;
    /** Offset of {@code srq} in {@code struct ibv_qp}, in bytes. */
    public static final int QP_SRQ = 40;
    /** Offset of {@code qp_num} in {@code struct ibv_qp}, in bytes. */
    public static final int QP_QP_NUM = 52;
    /** Offset of {@code state} in {@code struct ibv_qp}, in bytes. */
    public static final int QP_STATE = 56;
    /** Offset of {@code qp_type} in {@code struct ibv_qp}, in bytes. */
    public static final int QP_QP_TYPE = 60;

    // struct ibv_srq
    /** Offset of {@code context} in {@code struct ibv_srq}, in bytes. */
    public static final int SRQ_CONTEXT = 0;

    // struct ibv_qp_init_attr (cap fields flattened: offset of cap + offset inside ibv_qp_cap)
    /** {@code sizeof(struct ibv_qp_init_attr)}, in bytes. */
    public static final int QP_INIT_ATTR_SIZE = 64;
    /** Offset of {@code qp_context} in {@code struct ibv_qp_init_attr}, in bytes. */
    public static final int QIA_QP_CONTEXT = 0;
    /** Offset of {@code send_cq} in {@code struct ibv_qp_init_attr}, in bytes. */
    public static final int QIA_SEND_CQ = 8;
    /** Offset of {@code recv_cq} in {@code struct ibv_qp_init_attr}, in bytes. */
    public static final int QIA_RECV_CQ = 16;
    /** Offset of {@code srq} in {@code struct ibv_qp_init_attr}, in bytes. */
    public static final int QIA_SRQ = 24;
    /** Offset of {@code cap} (a {@code struct ibv_qp_cap}) in {@code struct ibv_qp_init_attr}, in bytes. */
    public static final int QIA_CAP = 32;
    /** Offset of {@code qp_type} in {@code struct ibv_qp_init_attr}, in bytes. */
    public static final int QIA_QP_TYPE = 52;
    /** Offset of {@code sq_sig_all} in {@code struct ibv_qp_init_attr}, in bytes. */
    public static final int QIA_SQ_SIG_ALL = 56;

    // struct ibv_qp_cap
    /** {@code sizeof(struct ibv_qp_cap)}, in bytes. */
    public static final int QP_CAP_SIZE = 20;
    /** Offset of {@code max_send_wr} in {@code struct ibv_qp_cap}, in bytes. */
    public static final int QC_MAX_SEND_WR = 0;
    /** Offset of {@code max_recv_wr} in {@code struct ibv_qp_cap}, in bytes. */
    public static final int QC_MAX_RECV_WR = 4;
    /** Offset of {@code max_send_sge} in {@code struct ibv_qp_cap}, in bytes. */
    public static final int QC_MAX_SEND_SGE = 8;
    /** Offset of {@code max_recv_sge} in {@code struct ibv_qp_cap}, in bytes. */
    public static final int QC_MAX_RECV_SGE = 12;
    /** Offset of {@code max_inline_data} in {@code struct ibv_qp_cap}, in bytes. */
    public static final int QC_MAX_INLINE_DATA = 16;

    // struct ibv_qp_attr
    /** {@code sizeof(struct ibv_qp_attr)}, in bytes. */
    public static final int QP_ATTR_SIZE = 144;
    /** Offset of {@code qp_state} in {@code struct ibv_qp_attr}, in bytes. */
    public static final int QA_QP_STATE = 0;
    /** Offset of {@code cur_qp_state} in {@code struct ibv_qp_attr}, in bytes. */
    public static final int QA_CUR_QP_STATE = 4;
    /** Offset of {@code path_mtu} in {@code struct ibv_qp_attr}, in bytes. */
    public static final int QA_PATH_MTU = 8;
    /** Offset of {@code path_mig_state} in {@code struct ibv_qp_attr}, in bytes. */
    public static final int QA_PATH_MIG_STATE = 12;
    /** Offset of {@code qkey} in {@code struct ibv_qp_attr}, in bytes. */
    public static final int QA_QKEY = 16;
    /** Offset of {@code rq_psn} in {@code struct ibv_qp_attr}, in bytes. */
    public static final int QA_RQ_PSN = 20;
    /** Offset of {@code sq_psn} in {@code struct ibv_qp_attr}, in bytes. */
    public static final int QA_SQ_PSN = 24;
    /** Offset of {@code dest_qp_num} in {@code struct ibv_qp_attr}, in bytes. */
    public static final int QA_DEST_QP_NUM = 28;
    /** Offset of {@code qp_access_flags} in {@code struct ibv_qp_attr}, in bytes. */
    public static final int QA_QP_ACCESS_FLAGS = 32;
    /** Offset of {@code cap} in {@code struct ibv_qp_attr}, in bytes. */
    public static final int QA_CAP = 36;
    /** Offset of {@code ah_attr} in {@code struct ibv_qp_attr}, in bytes. */
    public static final int QA_AH_ATTR = 56;
    /** Offset of {@code alt_ah_attr} in {@code struct ibv_qp_attr}, in bytes. */
    public static final int QA_ALT_AH_ATTR = 88;
    /** Offset of {@code pkey_index} in {@code struct ibv_qp_attr}, in bytes. */
    public static final int QA_PKEY_INDEX = 120;
    /** Offset of {@code alt_pkey_index} in {@code struct ibv_qp_attr}, in bytes. */
    public static final int QA_ALT_PKEY_INDEX = 122;
    /** Offset of {@code en_sqd_async_notify} in {@code struct ibv_qp_attr}, in bytes. */
    public static final int QA_EN_SQD_ASYNC_NOTIFY = 124;
    /** Offset of {@code sq_draining} in {@code struct ibv_qp_attr}, in bytes. */
    public static final int QA_SQ_DRAINING = 125;
    /** Offset of {@code max_rd_atomic} in {@code struct ibv_qp_attr}, in bytes. */
    public static final int QA_MAX_RD_ATOMIC = 126;
    /** Offset of {@code max_dest_rd_atomic} in {@code struct ibv_qp_attr}, in bytes. */
    public static final int QA_MAX_DEST_RD_ATOMIC = 127;
    /** Offset of {@code min_rnr_timer} in {@code struct ibv_qp_attr}, in bytes. */
    public static final int QA_MIN_RNR_TIMER = 128;
    /** Offset of {@code port_num} in {@code struct ibv_qp_attr}, in bytes. */
    public static final int QA_PORT_NUM = 129;
    /** Offset of {@code timeout} in {@code struct ibv_qp_attr}, in bytes. */
    public static final int QA_TIMEOUT = 130;
    /** Offset of {@code retry_cnt} in {@code struct ibv_qp_attr}, in bytes. */
    public static final int QA_RETRY_CNT = 131;
    /** Offset of {@code rnr_retry} in {@code struct ibv_qp_attr}, in bytes. */
    public static final int QA_RNR_RETRY = 132;
    /** Offset of {@code alt_port_num} in {@code struct ibv_qp_attr}, in bytes. */
    public static final int QA_ALT_PORT_NUM = 133;
    /** Offset of {@code alt_timeout} in {@code struct ibv_qp_attr}, in bytes. */
    public static final int QA_ALT_TIMEOUT = 134;
    /** Offset of {@code rate_limit} in {@code struct ibv_qp_attr}, in bytes. */
    public static final int QA_RATE_LIMIT = 136;

    // struct ibv_ah_attr
    /** {@code sizeof(struct ibv_ah_attr)}, in bytes. */
    public static final int AH_ATTR_SIZE = 32;
    /** Offset of {@code grh} in {@code struct ibv_ah_attr}, in bytes. */
    public static final int AA_GRH = 0;
    /** Offset of {@code dlid} in {@code struct ibv_ah_attr}, in bytes. */
    public static final int AA_DLID = 24;
    /** Offset of {@code sl} in {@code struct ibv_ah_attr}, in bytes. */
    public static final int AA_SL = 26;
    /** Offset of {@code src_path_bits} in {@code struct ibv_ah_attr}, in bytes. */
    public static final int AA_SRC_PATH_BITS = 27;
    /** Offset of {@code static_rate} in {@code struct ibv_ah_attr}, in bytes. */
    public static final int AA_STATIC_RATE = 28;
    /** Offset of {@code is_global} in {@code struct ibv_ah_attr}, in bytes. */
    public static final int AA_IS_GLOBAL = 29;
    /** Offset of {@code port_num} in {@code struct ibv_ah_attr}, in bytes. */
    public static final int AA_PORT_NUM = 30;

    // struct ibv_global_route
    /** Offset of {@code dgid} in {@code struct ibv_global_route}, in bytes. */
    public static final int GR_DGID = 0;
    /** Offset of {@code flow_label} in {@code struct ibv_global_route}, in bytes. */
    public static final int GR_FLOW_LABEL = 16;
    /** Offset of {@code sgid_index} in {@code struct ibv_global_route}, in bytes. */
    public static final int GR_SGID_INDEX = 20;
    /** Offset of {@code hop_limit} in {@code struct ibv_global_route}, in bytes. */
    public static final int GR_HOP_LIMIT = 21;
    /** Offset of {@code traffic_class} in {@code struct ibv_global_route}, in bytes. */
    public static final int GR_TRAFFIC_CLASS = 22;

    // struct ibv_srq_init_attr / ibv_srq_attr
    /** {@code sizeof(struct ibv_srq_init_attr)}, in bytes. */
    public static final int SRQ_INIT_ATTR_SIZE = 24;
    /** Offset of {@code srq_context} in {@code struct ibv_srq_init_attr}, in bytes. */
    public static final int SIA_SRQ_CONTEXT = 0;
    /** Offset of {@code attr} in {@code struct ibv_srq_init_attr}, in bytes. */
    public static final int SIA_ATTR = 8;
    /** {@code sizeof(struct ibv_srq_attr)}, in bytes. */
    public static final int SRQ_ATTR_SIZE = 12;
    /** Offset of {@code max_wr} in {@code struct ibv_srq_attr}, in bytes. */
    public static final int SA_MAX_WR = 0;
    /** Offset of {@code max_sge} in {@code struct ibv_srq_attr}, in bytes. */
    public static final int SA_MAX_SGE = 4;
    /** Offset of {@code srq_limit} in {@code struct ibv_srq_attr}, in bytes. */
    public static final int SA_SRQ_LIMIT = 8;

    // struct ibv_async_event
    /** {@code sizeof(struct ibv_async_event)}, in bytes. */
    public static final int ASYNC_EVENT_SIZE = 16;
    /** Offset of {@code element} in {@code struct ibv_async_event}, in bytes. */
    public static final int AE_ELEMENT = 0;
    /** Offset of {@code event_type} in {@code struct ibv_async_event}, in bytes. */
    public static final int AE_EVENT_TYPE = 8;
}
