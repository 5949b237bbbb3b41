package org.verbs4j.api;

import java.util.Objects;

/**
 * The extended attributes of a device ({@code struct ibv_device_attr_ex}, from {@code ibv_query_device_ex}):
 * the classic {@link DeviceAttributes} plus the capabilities {@code ibv_devinfo -v} prints after
 * {@code local_ca_ack_delay}. A device whose provider has no {@code query_device_ex} reports zeros for every
 * extended field, as libibverbs does.
 *
 * <pre>{@code
 * DeviceAttributesEx x = ctx.queryDeviceEx();
 * boolean odp = (x.odpGeneralCaps() & DeviceAttributesEx.ODP_SUPPORT) != 0;
 * }</pre>
 *
 * @param attributes               {@code orig_attr}
 * @param odpGeneralCaps           {@code odp_caps.general_caps}: {@link #ODP_SUPPORT}, {@link #ODP_SUPPORT_IMPLICIT}
 * @param rcOdpCaps                {@code odp_caps.per_transport_caps.rc_odp_caps}: {@code IBV_ODP_SUPPORT_*} bits
 * @param ucOdpCaps                {@code uc_odp_caps}
 * @param udOdpCaps                {@code ud_odp_caps}
 * @param xrcOdpCaps               {@code xrc_odp_caps}
 * @param completionTimestampMask  {@code completion_timestamp_mask}, 0 when the device has no completion timestamps
 * @param hcaCoreClock             {@code hca_core_clock} in kHz, 0 when not reported
 * @param deviceCapFlagsEx         {@code device_cap_flags_ex}: the 32 classic bits plus the extended ones above them
 * @param maxTso                   {@code tso_caps.max_tso}
 * @param tsoSupportedQpts         {@code tso_caps.supported_qpts}: bit {@code 1 << qp_type}
 * @param maxRwqIndirectionTables  {@code rss_caps.max_rwq_indirection_tables}
 * @param maxRwqIndirectionTableSize {@code rss_caps.max_rwq_indirection_table_size}
 * @param rxHashFunction           {@code rss_caps.rx_hash_function}
 * @param rxHashFieldsMask         {@code rss_caps.rx_hash_fields_mask}
 * @param rssSupportedQpts         {@code rss_caps.supported_qpts}
 * @param maxWqTypeRq              {@code max_wq_type_rq}
 * @param qpRateLimitMin           {@code packet_pacing_caps.qp_rate_limit_min}, kbps
 * @param qpRateLimitMax           {@code packet_pacing_caps.qp_rate_limit_max}, kbps
 * @param packetPacingSupportedQpts {@code packet_pacing_caps.supported_qpts}
 * @param rawPacketCaps            {@code raw_packet_caps}: {@code IBV_RAW_PACKET_CAP_*} bits
 * @param tmMaxRndvHdrSize         {@code tm_caps.max_rndv_hdr_size}
 * @param tmMaxNumTags             {@code tm_caps.max_num_tags}, 0 when tag matching is not supported
 * @param tmFlags                  {@code tm_caps.flags}
 * @param tmMaxOps                 {@code tm_caps.max_ops}
 * @param tmMaxSge                 {@code tm_caps.max_sge}
 * @param maxCqCount               {@code cq_mod_caps.max_cq_count}
 * @param maxCqPeriod              {@code cq_mod_caps.max_cq_period}, microseconds
 * @param maxDmSize                {@code max_dm_size}: on-device memory, bytes
 */
public record DeviceAttributesEx(
        DeviceAttributes attributes,
        long odpGeneralCaps,
        int rcOdpCaps,
        int ucOdpCaps,
        int udOdpCaps,
        int xrcOdpCaps,
        long completionTimestampMask,
        long hcaCoreClock,
        long deviceCapFlagsEx,
        int maxTso,
        int tsoSupportedQpts,
        int maxRwqIndirectionTables,
        int maxRwqIndirectionTableSize,
        int rxHashFunction,
        long rxHashFieldsMask,
        int rssSupportedQpts,
        int maxWqTypeRq,
        int qpRateLimitMin,
        int qpRateLimitMax,
        int packetPacingSupportedQpts,
        int rawPacketCaps,
        int tmMaxRndvHdrSize,
        int tmMaxNumTags,
        int tmFlags,
        int tmMaxOps,
        int tmMaxSge,
        int maxCqCount,
        int maxCqPeriod,
        long maxDmSize) {

    /** {@code IBV_ODP_SUPPORT} in {@link #odpGeneralCaps()}. */
    public static final long ODP_SUPPORT = 1;
    /** {@code IBV_ODP_SUPPORT_IMPLICIT} in {@link #odpGeneralCaps()}. */
    public static final long ODP_SUPPORT_IMPLICIT = 2;

    /**
     * The attributes as {@code ibv_query_device_ex} reports them.
     *
     * @param attributes see {@link #attributes()}
     * @param odpGeneralCaps see {@link #odpGeneralCaps()}
     * @param rcOdpCaps see {@link #rcOdpCaps()}
     * @param ucOdpCaps see {@link #ucOdpCaps()}
     * @param udOdpCaps see {@link #udOdpCaps()}
     * @param xrcOdpCaps see {@link #xrcOdpCaps()}
     * @param completionTimestampMask see {@link #completionTimestampMask()}
     * @param hcaCoreClock see {@link #hcaCoreClock()}
     * @param deviceCapFlagsEx see {@link #deviceCapFlagsEx()}
     * @param maxTso see {@link #maxTso()}
     * @param tsoSupportedQpts see {@link #tsoSupportedQpts()}
     * @param maxRwqIndirectionTables see {@link #maxRwqIndirectionTables()}
     * @param maxRwqIndirectionTableSize see {@link #maxRwqIndirectionTableSize()}
     * @param rxHashFunction see {@link #rxHashFunction()}
     * @param rxHashFieldsMask see {@link #rxHashFieldsMask()}
     * @param rssSupportedQpts see {@link #rssSupportedQpts()}
     * @param maxWqTypeRq see {@link #maxWqTypeRq()}
     * @param qpRateLimitMin see {@link #qpRateLimitMin()}
     * @param qpRateLimitMax see {@link #qpRateLimitMax()}
     * @param packetPacingSupportedQpts see {@link #packetPacingSupportedQpts()}
     * @param rawPacketCaps see {@link #rawPacketCaps()}
     * @param tmMaxRndvHdrSize see {@link #tmMaxRndvHdrSize()}
     * @param tmMaxNumTags see {@link #tmMaxNumTags()}
     * @param tmFlags see {@link #tmFlags()}
     * @param tmMaxOps see {@link #tmMaxOps()}
     * @param tmMaxSge see {@link #tmMaxSge()}
     * @param maxCqCount see {@link #maxCqCount()}
     * @param maxCqPeriod see {@link #maxCqPeriod()}
     * @param maxDmSize see {@link #maxDmSize()}
     * @throws NullPointerException when {@code attributes} is null
     */
    public DeviceAttributesEx {
        Objects.requireNonNull(attributes, "attributes");
    }

    /**
     * What libibverbs reports for a provider without {@code query_device_ex}: the classic attributes, zeros.
     *
     * @param attributes the classic attributes
     * @return them, with every extended field 0
     */
    public static DeviceAttributesEx of(DeviceAttributes attributes) {
        return new DeviceAttributesEx(attributes, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                0, 0, 0, 0, 0, 0);
    }
}
