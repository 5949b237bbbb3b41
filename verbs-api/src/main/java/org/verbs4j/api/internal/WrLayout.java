package org.verbs4j.api.internal;

/**
 * The native layouts of the structs the API's flyweights write and read, in one place: {@code struct
 * ibv_send_wr}, {@code ibv_recv_wr}, {@code ibv_sge} and {@code ibv_wc} (rdma-core's {@code verbs.h},
 * x86_64; checked against the installed headers by an offsetof probe in the lab). For backends and the
 * API's own classes only: this package is not exported to users.
 */
public final class WrLayout {
    private WrLayout() {
    }

    /** What {@code ibv_send_wr} and {@code ibv_recv_wr} share, and {@code struct ibv_sge}. */
    public static final class Wr {
        private Wr() {
        }

        /** {@code offsetof(wr_id)}, the same in {@code ibv_send_wr} and {@code ibv_recv_wr}. */
        public static final int WR_ID = 0;
        /** {@code offsetof(next)}. */
        public static final int NEXT = 8;
        /** {@code offsetof(sg_list)}. */
        public static final int SG_LIST = 16;
        /** {@code offsetof(num_sge)}. */
        public static final int NUM_SGE = 24;
        /** {@code sizeof(struct ibv_sge)} and its fields. */
        public static final int SGE_SIZE = 16;
        /** Offset of {@code addr} in {@code struct ibv_sge}, in bytes. */
        public static final int SGE_ADDR = 0;
        /** Offset of {@code length} in {@code struct ibv_sge}, in bytes. */
        public static final int SGE_LENGTH = 8;
        /** Offset of {@code lkey} in {@code struct ibv_sge}, in bytes. */
        public static final int SGE_LKEY = 12;
    }

    /** {@code struct ibv_send_wr}. */
    public static final class SendWr {
        private SendWr() {
        }

        /** {@code sizeof(struct ibv_send_wr)}, in bytes. */
        public static final int WR_SIZE = 128;
        /** Offset of {@code opcode} in {@code struct ibv_send_wr}, in bytes. */
        public static final int OPCODE_OFFSET = 28;
        /** Offset of {@code send_flags} in {@code struct ibv_send_wr}, in bytes. */
        public static final int SEND_FLAGS_OFFSET = 32;
        /** Offset of {@code imm_data} in {@code struct ibv_send_wr}, in bytes. */
        public static final int IMM_DATA_OFFSET = 36;
        /** Offset of {@code wr.rdma.remote_addr} in {@code struct ibv_send_wr}, in bytes. */
        public static final int RDMA_REMOTE_ADDR_OFFSET = 40;
        /** Offset of {@code wr.rdma.rkey} in {@code struct ibv_send_wr}, in bytes. */
        public static final int RDMA_RKEY_OFFSET = 48;
        /** Offset of {@code wr.atomic.remote_addr} in {@code struct ibv_send_wr}, in bytes. */
        public static final int ATOMIC_REMOTE_ADDR_OFFSET = 40;
        /** Offset of {@code wr.atomic.compare_add} in {@code struct ibv_send_wr}, in bytes. */
        public static final int ATOMIC_COMPARE_ADD_OFFSET = 48;
        /** Offset of {@code wr.atomic.swap} in {@code struct ibv_send_wr}, in bytes. */
        public static final int ATOMIC_SWAP_OFFSET = 56;
        /** Offset of {@code wr.atomic.rkey} in {@code struct ibv_send_wr}, in bytes. */
        public static final int ATOMIC_RKEY_OFFSET = 64;
        /** Offset of {@code wr.ud.ah} in {@code struct ibv_send_wr}, in bytes. */
        public static final int UD_AH_OFFSET = 40;
        /** Offset of {@code wr.ud.remote_qpn} in {@code struct ibv_send_wr}, in bytes. */
        public static final int UD_REMOTE_QPN_OFFSET = 48;
        /** Offset of {@code wr.ud.remote_qkey} in {@code struct ibv_send_wr}, in bytes. */
        public static final int UD_REMOTE_QKEY_OFFSET = 52;
    }

    /** {@code struct ibv_recv_wr}: the shared header ({@link Wr}) and nothing more. */
    public static final class RecvWr {
        private RecvWr() {
        }

        /** {@code sizeof(struct ibv_recv_wr)}, in bytes. */
        public static final int WR_SIZE = 32;
    }

    /** {@code struct ibv_wc}. */
    public static final class Wc {
        private Wc() {
        }

        /** {@code sizeof(struct ibv_wc)}, in bytes. */
        public static final int WC_SIZE = 48;
        /** Offset of {@code wr_id} in {@code struct ibv_wc}, in bytes. */
        public static final int WR_ID_OFFSET = 0;
        /** Offset of {@code status} in {@code struct ibv_wc}, in bytes. */
        public static final int STATUS_OFFSET = 8;
        /** Offset of {@code opcode} in {@code struct ibv_wc}, in bytes. */
        public static final int OPCODE_OFFSET = 12;
        /** Offset of {@code vendor_err} in {@code struct ibv_wc}, in bytes. */
        public static final int VENDOR_ERR_OFFSET = 16;
        /** Offset of {@code byte_len} in {@code struct ibv_wc}, in bytes. */
        public static final int BYTE_LEN_OFFSET = 20;
        /** Offset of {@code imm_data} in {@code struct ibv_wc}, in bytes. */
        public static final int IMM_DATA_OFFSET = 24;
        /** Offset of {@code qp_num} in {@code struct ibv_wc}, in bytes. */
        public static final int QP_NUM_OFFSET = 28;
        /** Offset of {@code src_qp} in {@code struct ibv_wc}, in bytes. */
        public static final int SRC_QP_OFFSET = 32;
        /** Offset of {@code wc_flags} in {@code struct ibv_wc}, in bytes. */
        public static final int WC_FLAGS_OFFSET = 36;
        /** Offset of {@code pkey_index} in {@code struct ibv_wc}, in bytes. */
        public static final int PKEY_INDEX_OFFSET = 40;
        /** Offset of {@code slid} in {@code struct ibv_wc}, in bytes. */
        public static final int SLID_OFFSET = 42;
        /** Offset of {@code sl} in {@code struct ibv_wc}, in bytes. */
        public static final int SL_OFFSET = 44;
        /** Offset of {@code dlid_path_bits} in {@code struct ibv_wc}, in bytes. */
        public static final int DLID_PATH_BITS_OFFSET = 45;
    }
}
