package org.verbs4j.api.cm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.verbs4j.api.AddressVector;
import org.verbs4j.api.Gid;

/** The UDP port space's value types, and the defaults that keep older ConnectionManager / CmId code compiling. */
class UdTypesTest {

    @Test
    void portSpaceValuesAreRdmaCmasOwn() {
        assertEquals(0x0106, PortSpace.TCP.value(), "RDMA_PS_TCP");
        assertEquals(0x0111, PortSpace.UDP.value(), "RDMA_PS_UDP");
        assertEquals(0x01234567, PortSpace.UDP_QKEY, "RDMA_UDP_QKEY");
    }

    @Test
    void udParametersCopyTheirPrivateData() {
        byte[] data = {1, 2, 3};
        AddressVector av = AddressVector.global(1, Gid.parse("::ffff:10.77.0.1"), 1);
        UdParameters p = new UdParameters(0x12, PortSpace.UDP_QKEY, av, data);
        data[0] = 9;
        assertArrayEquals(new byte[] {1, 2, 3}, p.privateData());
        p.privateData()[1] = 9;
        assertArrayEquals(new byte[] {1, 2, 3}, p.privateData());
        assertEquals(0, new UdParameters(0xFFFFFF, 0, av, null).privateData().length);
        assertTrue(p.toString().contains("qpn 0x12") && p.toString().contains("qkey 0x1234567"), p.toString());
    }

    @Test
    void cmEventKeepsItsFourArgumentConstructor() {
        CmEvent e = new CmEvent(CmEventType.ESTABLISHED, 9, 0, null);
        assertNull(e.ud());
        assertEquals(0, e.privateData().length);
    }

    @Test
    void aSidrRejectIsAnUnreachableCmRejectedException() {
        CmRejectedException e = new CmRejectedException("rdma_connect", CmEventType.UNREACHABLE, 2, new byte[] {7},
                "10.0.0.1:7000", "rejected");
        assertEquals(CmEventType.UNREACHABLE, e.event());
        assertEquals(2, e.status());
        assertArrayEquals(new byte[] {7}, e.privateData());
        assertEquals(CmEventType.REJECTED, new CmRejectedException("rdma_connect", 28, null, null, "").event());
    }

    @Test
    void olderImplementationsOfferTcpOnly() {
        CmId old = (CmId) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {CmId.class}, (proxy, m, args) -> {
                    if (m.isDefault()) {
                        return java.lang.reflect.InvocationHandler.invokeDefault(proxy, m, args);
                    }
                    throw new AssertionError(m.getName());
                });
        assertEquals(PortSpace.TCP, old.portSpace());
        assertThrows(UnsupportedOperationException.class, () -> old.connectDatagram(null, Duration.ofSeconds(1)));
        ConnectionManager cm = (ConnectionManager) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {ConnectionManager.class}, (proxy, m, args) -> {
                    if (m.isDefault()) {
                        return java.lang.reflect.InvocationHandler.invokeDefault(proxy, m, args);
                    }
                    if (m.getName().equals("createId")) {
                        return old;
                    }
                    throw new AssertionError(m.getName());
                });
        assertSame(old, cm.createId(PortSpace.TCP));
        assertThrows(UnsupportedOperationException.class, () -> cm.createId(PortSpace.UDP));
    }
}
