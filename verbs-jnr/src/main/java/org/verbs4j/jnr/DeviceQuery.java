package org.verbs4j.jnr;

import org.verbs4j.api.AtomicCapability;
import org.verbs4j.api.DeviceAttributes;
import org.verbs4j.api.DeviceAttributesEx;
import org.verbs4j.api.Errno;
import org.verbs4j.api.VerbsException;
import org.verbs4j.api.internal.RawMemory;

/** Reads {@code struct ibv_device_attr} and {@code struct ibv_device_attr_ex}, and calls {@code query_device_ex}. */
final class DeviceQuery {
    private DeviceQuery() {
    }

    /** The {@code struct ibv_device_attr} at {@code a}. */
    static DeviceAttributes attributes(long a) {
        return new DeviceAttributes(
                RawMemory.getString(a + Layout.DA_FW_VER, Layout.DA_FW_VER_LEN),
                Long.reverseBytes(RawMemory.getLong(a + Layout.DA_NODE_GUID)),
                Long.reverseBytes(RawMemory.getLong(a + Layout.DA_SYS_IMAGE_GUID)),
                RawMemory.getLong(a + Layout.DA_MAX_MR_SIZE),
                RawMemory.getLong(a + Layout.DA_PAGE_SIZE_CAP),
                RawMemory.getInt(a + Layout.DA_VENDOR_ID),
                RawMemory.getInt(a + Layout.DA_VENDOR_PART_ID),
                RawMemory.getInt(a + Layout.DA_HW_VER),
                RawMemory.getInt(a + Layout.DA_MAX_QP),
                RawMemory.getInt(a + Layout.DA_MAX_QP_WR),
                RawMemory.getInt(a + Layout.DA_DEVICE_CAP_FLAGS),
                RawMemory.getInt(a + Layout.DA_MAX_SGE),
                RawMemory.getInt(a + Layout.DA_MAX_SGE_RD),
                RawMemory.getInt(a + Layout.DA_MAX_CQ),
                RawMemory.getInt(a + Layout.DA_MAX_CQE),
                RawMemory.getInt(a + Layout.DA_MAX_MR),
                RawMemory.getInt(a + Layout.DA_MAX_PD),
                RawMemory.getInt(a + Layout.DA_MAX_QP_RD_ATOM),
                RawMemory.getInt(a + Layout.DA_MAX_EE_RD_ATOM),
                RawMemory.getInt(a + Layout.DA_MAX_RES_RD_ATOM),
                RawMemory.getInt(a + Layout.DA_MAX_QP_INIT_RD_ATOM),
                RawMemory.getInt(a + Layout.DA_MAX_EE_INIT_RD_ATOM),
                AtomicCapability.of(RawMemory.getInt(a + Layout.DA_ATOMIC_CAP)),
                RawMemory.getInt(a + Layout.DA_MAX_EE),
                RawMemory.getInt(a + Layout.DA_MAX_RDD),
                RawMemory.getInt(a + Layout.DA_MAX_MW),
                RawMemory.getInt(a + Layout.DA_MAX_RAW_IPV6_QP),
                RawMemory.getInt(a + Layout.DA_MAX_RAW_ETHY_QP),
                RawMemory.getInt(a + Layout.DA_MAX_MCAST_GRP),
                RawMemory.getInt(a + Layout.DA_MAX_MCAST_QP_ATTACH),
                RawMemory.getInt(a + Layout.DA_MAX_TOTAL_MCAST_QP_ATTACH),
                RawMemory.getInt(a + Layout.DA_MAX_AH),
                RawMemory.getInt(a + Layout.DA_MAX_FMR),
                RawMemory.getInt(a + Layout.DA_MAX_MAP_PER_FMR),
                RawMemory.getInt(a + Layout.DA_MAX_SRQ),
                RawMemory.getInt(a + Layout.DA_MAX_SRQ_WR),
                RawMemory.getInt(a + Layout.DA_MAX_SRQ_SGE),
                RawMemory.getUShort(a + Layout.DA_MAX_PKEYS),
                RawMemory.getUByte(a + Layout.DA_LOCAL_CA_ACK_DELAY),
                RawMemory.getUByte(a + Layout.DA_PHYS_PORT_CNT));
    }

    /**
     * {@code ibv_query_device_ex} through {@code verbs_context->query_device_ex} ({@code fn}, an inline verb
     * with no exported symbol), or null when the provider has none ({@code fn} 0, EOPNOTSUPP or ENOSYS):
     * then, as libibverbs' inline does, the caller falls back to {@code ibv_query_device}.
     */
    static DeviceAttributesEx extended(String device, long ctx, NativeCalls.Target fn) {
        if (fn.isNull()) {
            return null;
        }
        long a = RawMemory.allocate(Layout.DEVICE_ATTR_EX_SIZE);
        try {
            RawMemory.zero(a, Layout.DEVICE_ATTR_EX_SIZE);
            int rc = NativeCalls.queryDeviceEx(fn, ctx, 0L, a, Layout.DEVICE_ATTR_EX_SIZE);
            if (rc == Errno.EOPNOTSUPP || rc == Errno.ENOSYS) {
                return null;
            }
            if (rc != 0) {
                throw new VerbsException("ibv_query_device_ex", rc, device);
            }
            return new DeviceAttributesEx(attributes(a),
                    RawMemory.getLong(a + Layout.DAX_ODP_GENERAL_CAPS),
                    RawMemory.getInt(a + Layout.DAX_RC_ODP_CAPS),
                    RawMemory.getInt(a + Layout.DAX_UC_ODP_CAPS),
                    RawMemory.getInt(a + Layout.DAX_UD_ODP_CAPS),
                    RawMemory.getInt(a + Layout.DAX_XRC_ODP_CAPS),
                    RawMemory.getLong(a + Layout.DAX_COMPLETION_TIMESTAMP_MASK),
                    RawMemory.getLong(a + Layout.DAX_HCA_CORE_CLOCK),
                    RawMemory.getLong(a + Layout.DAX_DEVICE_CAP_FLAGS_EX),
                    RawMemory.getInt(a + Layout.DAX_MAX_TSO),
                    RawMemory.getInt(a + Layout.DAX_TSO_SUPPORTED_QPTS),
                    RawMemory.getInt(a + Layout.DAX_MAX_RWQ_INDIRECTION_TABLES),
                    RawMemory.getInt(a + Layout.DAX_MAX_RWQ_INDIRECTION_TABLE_SIZE),
                    RawMemory.getUByte(a + Layout.DAX_RX_HASH_FUNCTION),
                    RawMemory.getLong(a + Layout.DAX_RX_HASH_FIELDS_MASK),
                    RawMemory.getInt(a + Layout.DAX_RSS_SUPPORTED_QPTS),
                    RawMemory.getInt(a + Layout.DAX_MAX_WQ_TYPE_RQ),
                    RawMemory.getInt(a + Layout.DAX_QP_RATE_LIMIT_MIN),
                    RawMemory.getInt(a + Layout.DAX_QP_RATE_LIMIT_MAX),
                    RawMemory.getInt(a + Layout.DAX_PACKET_PACING_SUPPORTED_QPTS),
                    RawMemory.getInt(a + Layout.DAX_RAW_PACKET_CAPS),
                    RawMemory.getInt(a + Layout.DAX_TM_MAX_RNDV_HDR_SIZE),
                    RawMemory.getInt(a + Layout.DAX_TM_MAX_NUM_TAGS),
                    RawMemory.getInt(a + Layout.DAX_TM_FLAGS),
                    RawMemory.getInt(a + Layout.DAX_TM_MAX_OPS),
                    RawMemory.getInt(a + Layout.DAX_TM_MAX_SGE),
                    RawMemory.getUShort(a + Layout.DAX_MAX_CQ_COUNT),
                    RawMemory.getUShort(a + Layout.DAX_MAX_CQ_PERIOD),
                    RawMemory.getLong(a + Layout.DAX_MAX_DM_SIZE));
        } finally {
            RawMemory.free(a);
        }
    }
}
