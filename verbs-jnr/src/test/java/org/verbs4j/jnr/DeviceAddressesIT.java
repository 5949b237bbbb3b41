package org.verbs4j.jnr;

import org.verbs4j.lab.Lab;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.verbs4j.api.Rdma;
import org.verbs4j.api.RdmaDevice;

/** Each lab device names the netdev it was created on and that netdev's address, the one to listen on. */
class DeviceAddressesIT {

    @ParameterizedTest
    @CsvSource({"FABRIC_LAB_RXE_DEV,FABRIC_LAB_RXE_NETDEV,FABRIC_LAB_RXE_IP",
            "FABRIC_LAB_SIW_DEV,FABRIC_LAB_SIW_NETDEV,FABRIC_LAB_SIW_IP"})
    void deviceKnowsItsNetDeviceAndAddress(String devVar, String netdevVar, String ipVar) throws Exception {
        RdmaDevice d = Rdma.device(Lab.env(devVar));
        assertEquals("jnr", d.backendName());
        assertFalse(d.progressesByPolling(), "a kernel device's data moves without polls");
        assertTrue(d.netDevices().contains(Lab.env(netdevVar)), d + " lists " + d.netDevices());
        assertEquals(InetAddress.getByName(Lab.env(ipVar)), d.addresses().get(0), d + " addresses " + d.addresses());
    }
}
