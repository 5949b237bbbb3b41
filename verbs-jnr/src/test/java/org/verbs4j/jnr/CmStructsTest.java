package org.verbs4j.jnr;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;
import org.verbs4j.api.cm.CmEventType;
import org.verbs4j.api.cm.ConnectionParameters;
import org.verbs4j.api.internal.RawMemory;

/**
 * What verbs4j writes into and reads from librdmacm's structs ({@link SockAddr}, {@link CmParams}), on the
 * host: the bytes at the offsets of {@link LibcLayout} and {@link RdmacmLayout} (which {@code LayoutIT}
 * proves against the headers).
 */
class CmStructsTest {

    @Test
    void sockaddrInHasFamilyPortInNetworkOrderAndAddress() throws Exception {
        long s = SockAddr.allocate(new InetSocketAddress(InetAddress.getByName("10.77.0.1"), 0x1234));
        try {
            assertEquals(LibcLayout.AF_INET, RawMemory.getShort(s + LibcLayout.SIN_FAMILY));
            assertEquals(0x12, RawMemory.getByte(s + LibcLayout.SIN_PORT));
            assertEquals(0x34, RawMemory.getByte(s + LibcLayout.SIN_PORT + 1));
            byte[] ip = new byte[4];
            RawMemory.copyToArray(s + LibcLayout.SIN_ADDR, ip, 0, 4);
            assertArrayEquals(new byte[] {10, 77, 0, 1}, ip);
            assertEquals(0L, RawMemory.getLong(s + 8), "sin_zero");
        } finally {
            RawMemory.free(s);
        }
    }

    @Test
    void sockaddrIn6HasAddressAndScope() throws Exception {
        Inet6Address v6 = Inet6Address.getByAddress(null, InetAddress.getByName("fe80::1").getAddress(), 3);
        long s = SockAddr.allocate(new InetSocketAddress(v6, 7471));
        try {
            assertEquals(LibcLayout.AF_INET6, RawMemory.getShort(s + LibcLayout.SIN6_FAMILY));
            assertEquals((short) 7471, Short.reverseBytes(RawMemory.getShort(s + LibcLayout.SIN6_PORT)));
            assertEquals(0, RawMemory.getInt(s + LibcLayout.SIN6_FLOWINFO));
            byte[] ip = new byte[16];
            RawMemory.copyToArray(s + LibcLayout.SIN6_ADDR, ip, 0, 16);
            assertArrayEquals(v6.getAddress(), ip);
            assertEquals(3, RawMemory.getInt(s + LibcLayout.SIN6_SCOPE_ID));
        } finally {
            RawMemory.free(s);
        }
        assertThrows(IllegalArgumentException.class,
                () -> SockAddr.allocate(InetSocketAddress.createUnresolved("nowhere", 1)));
    }

    @Test
    void connParamCarriesEveryFieldAndThePrivateData() {
        byte[] data = {1, 2, 3, 4, 5};
        long p = CmParams.allocate(new ConnectionParameters(data, 4, 3, 6, 5, true));
        try {
            assertEquals(data.length, RawMemory.getByte(p + RdmacmLayout.CP_PRIVATE_DATA_LEN));
            long at = RawMemory.getAddress(p + RdmacmLayout.CP_PRIVATE_DATA);
            byte[] got = new byte[data.length];
            RawMemory.copyToArray(at, got, 0, got.length);
            assertArrayEquals(data, got);
            assertEquals(4, RawMemory.getByte(p + RdmacmLayout.CP_RESPONDER_RESOURCES));
            assertEquals(3, RawMemory.getByte(p + RdmacmLayout.CP_INITIATOR_DEPTH));
            assertEquals(1, RawMemory.getByte(p + RdmacmLayout.CP_FLOW_CONTROL));
            assertEquals(6, RawMemory.getByte(p + RdmacmLayout.CP_RETRY_COUNT));
            assertEquals(5, RawMemory.getByte(p + RdmacmLayout.CP_RNR_RETRY_COUNT));
            assertEquals(0, RawMemory.getByte(p + RdmacmLayout.CP_SRQ));
            assertEquals(0, RawMemory.getInt(p + RdmacmLayout.CP_QP_NUM));
        } finally {
            RawMemory.free(p);
        }
    }

    @Test
    void aConnectRequestIsReadWithItsParametersAndItsListener() {
        long ev = RawMemory.allocate(RdmacmLayout.EVENT_PARAM + RdmacmLayout.UD_PARAM_SIZE);
        long data = RawMemory.allocate(3);
        try {
            RawMemory.zero(ev, RdmacmLayout.EVENT_PARAM + RdmacmLayout.UD_PARAM_SIZE);
            RawMemory.copyFromArray(new byte[] {7, 8, 9}, 0, 3, data);
            RawMemory.putAddress(ev + RdmacmLayout.EVENT_ID, 0x1000L);
            RawMemory.putAddress(ev + RdmacmLayout.EVENT_LISTEN_ID, 0x2000L);
            RawMemory.putInt(ev + RdmacmLayout.EVENT_EVENT, CmEventType.CONNECT_REQUEST.value());
            long p = ev + RdmacmLayout.EVENT_PARAM;
            RawMemory.putAddress(p + RdmacmLayout.CP_PRIVATE_DATA, data);
            RawMemory.putByte(p + RdmacmLayout.CP_PRIVATE_DATA_LEN, (byte) 3);
            RawMemory.putByte(p + RdmacmLayout.CP_RESPONDER_RESOURCES, (byte) 2);
            RawMemory.putByte(p + RdmacmLayout.CP_INITIATOR_DEPTH, (byte) 1);
            RawMemory.putByte(p + RdmacmLayout.CP_RETRY_COUNT, (byte) 9); // more than 3 bits: capped at 7
            RawMemory.putByte(p + RdmacmLayout.CP_RNR_RETRY_COUNT, (byte) 7);
            assertEquals(0x2000L, CmParams.owner(ev), "a request goes to its listener");
            CmParams.Decoded d = CmParams.read(ev, false);
            assertEquals(0x1000L, d.id(), "the new id");
            assertEquals(CmEventType.CONNECT_REQUEST, d.event().type());
            assertArrayEquals(new byte[] {7, 8, 9}, d.event().privateData());
            ConnectionParameters r = d.request();
            assertArrayEquals(new byte[] {7, 8, 9}, r.privateData());
            assertEquals(2, r.responderResources());
            assertEquals(1, r.initiatorDepth());
            assertEquals(7, r.retryCount());
            assertEquals(7, r.rnrRetryCount());
            assertNull(d.event().ud());
            assertEquals(0L, d.multicastToken());
        } finally {
            RawMemory.free(data);
            RawMemory.free(ev);
        }
    }

    @Test
    void aMulticastJoinIsReadWithItsTokenAndGroup() {
        long ev = RawMemory.allocate(RdmacmLayout.EVENT_PARAM + RdmacmLayout.UD_PARAM_SIZE);
        try {
            RawMemory.zero(ev, RdmacmLayout.EVENT_PARAM + RdmacmLayout.UD_PARAM_SIZE);
            RawMemory.putAddress(ev + RdmacmLayout.EVENT_ID, 0x3000L);
            RawMemory.putInt(ev + RdmacmLayout.EVENT_EVENT, CmEventType.MULTICAST_JOIN.value());
            long p = ev + RdmacmLayout.EVENT_PARAM;
            RawMemory.putAddress(p + RdmacmLayout.UD_PRIVATE_DATA, 77L);
            RawMemory.putInt(p + RdmacmLayout.UD_QP_NUM, 0xFFFFFF);
            RawMemory.putInt(p + RdmacmLayout.UD_QKEY, 0x01234567);
            RawMemory.putByte(p + RdmacmLayout.UD_AH_ATTR + Layout.AA_PORT_NUM, (byte) 1);
            assertEquals(0x3000L, CmParams.owner(ev));
            CmParams.Decoded d = CmParams.read(ev, true);
            assertEquals(77L, d.multicastToken(), "the context given to rdma_join_multicast");
            assertEquals(0xFFFFFF, d.event().ud().remoteQpn());
            assertEquals(0x01234567, d.event().ud().remoteQkey());
            assertEquals(1, d.event().ud().addressVector().port());
            assertEquals(0L, CmParams.read(ev, false).multicastToken(), "a TCP id's events carry no param.ud");
        } finally {
            RawMemory.free(ev);
        }
    }
}
