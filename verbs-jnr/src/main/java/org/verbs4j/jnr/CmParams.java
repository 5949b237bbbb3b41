package org.verbs4j.jnr;

import java.util.Arrays;
import org.verbs4j.api.cm.CmEvent;
import org.verbs4j.api.cm.CmEventType;
import org.verbs4j.api.cm.ConnectionParameters;
import org.verbs4j.api.cm.UdParameters;
import org.verbs4j.api.internal.RawMemory;

/**
 * {@code struct rdma_conn_param} from {@link ConnectionParameters}, and a {@code struct rdma_cm_event}
 * read into Java objects ({@link Decoded}) before it is acknowledged.
 */
final class CmParams {
    private CmParams() {
    }

    /** One event, copied out of librdmacm's memory. */
    record Decoded(long id, long listenId, CmEvent event, ConnectionParameters request, long multicastToken) {
    }

    /**
     * A new {@code struct rdma_conn_param} with its private data right behind it; the caller frees it with
     * {@link RawMemory#free}.
     */
    static long allocate(ConnectionParameters p) {
        byte[] d = p.privateData();
        long param = RawMemory.allocate(RdmacmLayout.CONN_PARAM_SIZE + d.length);
        RawMemory.zero(param, RdmacmLayout.CONN_PARAM_SIZE);
        if (d.length > 0) {
            long data = param + RdmacmLayout.CONN_PARAM_SIZE;
            RawMemory.copyFromArray(d, 0, d.length, data);
            RawMemory.putAddress(param + RdmacmLayout.CP_PRIVATE_DATA, data);
        }
        RawMemory.putByte(param + RdmacmLayout.CP_PRIVATE_DATA_LEN, (byte) d.length);
        RawMemory.putByte(param + RdmacmLayout.CP_RESPONDER_RESOURCES, (byte) p.responderResources());
        RawMemory.putByte(param + RdmacmLayout.CP_INITIATOR_DEPTH, (byte) p.initiatorDepth());
        RawMemory.putByte(param + RdmacmLayout.CP_FLOW_CONTROL, (byte) (p.flowControl() ? 1 : 0));
        RawMemory.putByte(param + RdmacmLayout.CP_RETRY_COUNT, (byte) p.retryCount());
        RawMemory.putByte(param + RdmacmLayout.CP_RNR_RETRY_COUNT, (byte) p.rnrRetryCount());
        return param;
    }

    /** The type of the event at {@code ev}. */
    static CmEventType type(long ev) {
        return CmEventType.of(RawMemory.getInt(ev + RdmacmLayout.EVENT_EVENT));
    }

    /** The id whose state gets the event at {@code ev}: the listener's for a CONNECT_REQUEST. */
    static long owner(long ev) {
        return RawMemory.getAddress(ev + (type(ev) == CmEventType.CONNECT_REQUEST
                ? RdmacmLayout.EVENT_LISTEN_ID : RdmacmLayout.EVENT_ID));
    }

    /**
     * Copies the event at {@code ev}. {@code udOwner}: whether the id it belongs to is a {@code RDMA_PS_UDP}
     * one, whose events carry {@code param.ud}, except REJECTED, which always carries {@code param.conn}
     * (both start with private_data and private_data_len).
     */
    static Decoded read(long ev, boolean udOwner) {
        long id = RawMemory.getAddress(ev + RdmacmLayout.EVENT_ID);
        long listenId = RawMemory.getAddress(ev + RdmacmLayout.EVENT_LISTEN_ID);
        int raw = RawMemory.getInt(ev + RdmacmLayout.EVENT_EVENT);
        int status = RawMemory.getInt(ev + RdmacmLayout.EVENT_STATUS);
        CmEventType type = CmEventType.of(raw);
        boolean ud = udOwner && type != CmEventType.REJECTED;
        long p = ev + RdmacmLayout.EVENT_PARAM;
        ConnectionParameters request = null;
        UdParameters udParams = null;
        byte[] data = null;
        if (type == CmEventType.CONNECT_REQUEST || type == CmEventType.CONNECT_RESPONSE
                || type == CmEventType.ESTABLISHED || type == CmEventType.REJECTED
                || (ud && type == CmEventType.UNREACHABLE)) {
            data = privateData(p);
            if (ud && type == CmEventType.ESTABLISHED) {
                udParams = udParameters(p, data);
            }
            if (type == CmEventType.CONNECT_REQUEST) {
                request = request(p, data, ud);
            }
        }
        long multicastToken = 0;
        if (ud && (type == CmEventType.MULTICAST_JOIN || type == CmEventType.MULTICAST_ERROR)) {
            // param.ud.private_data is the context given to rdma_join_multicast: which join this answers
            multicastToken = RawMemory.getAddress(p + RdmacmLayout.UD_PRIVATE_DATA);
            if (type == CmEventType.MULTICAST_JOIN) {
                udParams = udParameters(p, null);
            }
        }
        return new Decoded(id, listenId, new CmEvent(type, raw, status, data, udParams), request, multicastToken);
    }

    private static byte[] privateData(long p) {
        long dataPtr = RawMemory.getAddress(p + RdmacmLayout.CP_PRIVATE_DATA);
        int len = RawMemory.getByte(p + RdmacmLayout.CP_PRIVATE_DATA_LEN) & 0xff;
        byte[] data = new byte[dataPtr == 0 ? 0 : len];
        if (data.length > 0) {
            RawMemory.copyToArray(dataPtr, data, 0, data.length);
        }
        return data;
    }

    private static UdParameters udParameters(long p, byte[] data) {
        return new UdParameters(RawMemory.getInt(p + RdmacmLayout.UD_QP_NUM), RawMemory.getInt(p + RdmacmLayout.UD_QKEY),
                JnrQueuePair.readAhAttr(p + RdmacmLayout.UD_AH_ATTR), data);
    }

    /** A CONNECT_REQUEST's parameters; a SIDR request ({@code ud}) has private data only. */
    private static ConnectionParameters request(long p, byte[] data, boolean ud) {
        byte[] d = data.length > ConnectionParameters.ACCEPT_PRIVATE_DATA_MAX
                ? Arrays.copyOf(data, ConnectionParameters.ACCEPT_PRIVATE_DATA_MAX) : data;
        if (ud) {
            return ConnectionParameters.defaults().withPrivateData(d);
        }
        return new ConnectionParameters(d,
                RawMemory.getByte(p + RdmacmLayout.CP_RESPONDER_RESOURCES) & 0xff,
                RawMemory.getByte(p + RdmacmLayout.CP_INITIATOR_DEPTH) & 0xff,
                Math.min(7, RawMemory.getByte(p + RdmacmLayout.CP_RETRY_COUNT) & 0xff),
                Math.min(7, RawMemory.getByte(p + RdmacmLayout.CP_RNR_RETRY_COUNT) & 0xff),
                RawMemory.getByte(p + RdmacmLayout.CP_FLOW_CONTROL) != 0);
    }

    /** {@code rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, 1)}, after checking it is one byte. */
    static void setTypeOfService(LibRdmacm cm, long id, int tos) {
        if (tos < 0 || tos > 255) {
            throw new IllegalArgumentException("type of service is one byte, not " + tos);
        }
        long p = RawMemory.allocate(1);
        try {
            RawMemory.putByte(p, (byte) tos);
            if (cm.setOption.call(id, RdmacmLayout.RDMA_OPTION_ID, RdmacmLayout.RDMA_OPTION_ID_TOS, p, 1) != 0) {
                throw CmHints.callFailed("rdma_set_option", NativeFunction.errno(), "RDMA_OPTION_ID_TOS " + tos);
            }
        } finally {
            RawMemory.free(p);
        }
    }
}
