package org.verbs4j.softiwarp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.NetworkInterface;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.verbs4j.api.AtomicCapability;
import org.verbs4j.api.DeviceAttributes;
import org.verbs4j.api.DeviceCapability;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.GidEntry;
import org.verbs4j.api.LinkLayer;
import org.verbs4j.api.NodeType;
import org.verbs4j.api.PortAttributes;
import org.verbs4j.api.PortState;
import org.verbs4j.api.RdmaDevice;
import org.verbs4j.api.TransportType;
import org.verbs4j.api.VerbsException;

class SoftIwarpDeviceTest {

    private static RdmaDevice loopback() {
        return SoftIwarp.devices().stream().filter(d -> d.name().equals(SoftIwarp.LOOPBACK_NAME)).findFirst()
                .orElseThrow();
    }

    @Test
    void theLoopbackDeviceIsThereByDefaultAsAnIwarpRnicOfThisBackend() {
        RdmaDevice d = loopback();
        assertEquals(NodeType.RNIC, d.nodeType());
        assertEquals(TransportType.IWARP, d.transportType());
        assertEquals("softiwarp", d.backendName());
        assertTrue(d.progressesByPolling(), "a poll of a CQ reads the sockets: a memory-watching loop should poll");
        assertEquals(1, d.netDevices().size());
        assertTrue(d.toString().startsWith("jsiw_lo (iWARP, iWARP NIC, GUID "), d.toString());
    }

    @Test
    void aDeviceWithoutAMacTakesTheNameBytesAsSiwDoes() {
        try (DeviceContext ctx = loopback().open()) {
            byte[] raw = ctx.queryGid(1, 0).raw();
            assertArrayEquals("jsiw_l".getBytes(java.nio.charset.StandardCharsets.US_ASCII), Arrays.copyOf(raw, 6));
            assertArrayEquals(new byte[10], Arrays.copyOfRange(raw, 6, 16));
        }
    }

    /** FPDUs are cut to the interface's MSS, as siw cuts them to the socket's: 65,484 on a 65,536-byte lo. */
    @Test
    void theSendMssFollowsTheInterfaceMtu() throws Exception {
        SoftIwarpDevice d = (SoftIwarpDevice) loopback();
        int mtu = NetworkInterface.getByName(d.netdev()).getMTU();
        assumeTrue(mtu > 600, "lo's MTU " + mtu);
        java.net.InetAddress v4 = java.net.InetAddress.getLoopbackAddress();
        java.net.InetAddress v6 = java.net.InetAddress.getByName("::1");
        assertEquals(Math.min(0xFFFF, mtu - 52), SiwAttributes.sendMss(d, v4, v4));
        assertEquals(Math.min(0xFFFF, mtu - 72), SiwAttributes.sendMss(d, v6, v6));
        if (mtu == 65536) {
            assertEquals(65484, SiwAttributes.sendMss(d, v4, v4));
        }
    }

    /**
     * A device on another interface cuts FPDUs to that interface's MSS for a peer elsewhere, and to lo's for a peer
     * at an address of this host (Linux routes that connection through lo, and siw's socket has lo's MSS).
     */
    @Test
    void aPeerOnThisHostGetsTheLoopbacksMss() throws Exception {
        NetworkInterface other = null;
        java.net.InetAddress own = null;
        for (NetworkInterface ni : java.util.Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (ni.isUp() && !ni.isLoopback() && ni.getMTU() > 600 && ni.getMTU() < 60_000) {
                for (java.net.InetAddress a : java.util.Collections.list(ni.getInetAddresses())) {
                    if (a instanceof java.net.Inet4Address && other == null) {
                        other = ni;
                        own = a;
                    }
                }
            }
        }
        assumeTrue(other != null, "no interface but lo with an IPv4 address and an MTU under lo's");
        int lo = NetworkInterface.getByInetAddress(java.net.InetAddress.getLoopbackAddress()).getMTU();
        java.net.InetAddress elsewhere = java.net.InetAddress.getByName("198.51.100.1"); // TEST-NET-2
        assertEquals(other.getMTU() - 52, SiwAttributes.sendMss(other.getName(), own, elsewhere), other.getName());
        assertEquals(Math.min(0xFFFF, lo - 52), SiwAttributes.sendMss(other.getName(), own, own),
                "a peer at " + own + " on " + other.getName());
        assertEquals(Math.min(0xFFFF, lo - 52), SiwAttributes.sendMss(other.getName(), own,
                java.net.InetAddress.getByName("127.0.0.2")), "a peer at 127.0.0.2");
    }

    /** As the libibverbs backend's: a thread verbs4j-async-DEVICE from the first listener until close. */
    @Test
    void theAsyncEventThreadRunsFromTheListenerUntilClose() throws InterruptedException {
        DeviceContext ctx = loopback().open();
        String name = "verbs4j-async-" + ctx.device().name();
        Set<Thread> before = threads(name);
        ctx.setAsyncEventListener(ev -> { });
        Set<Thread> started = threads(name);
        started.removeAll(before);
        assertEquals(1, started.size(), "one event thread starts with the listener: " + started);
        ctx.close();
        Thread t = started.iterator().next();
        t.join(10_000);
        assertFalse(t.isAlive(), "the event thread ends with its context");
    }

    private static Set<Thread> threads(String name) {
        Set<Thread> s = new HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals(name) && t.isAlive()) {
                s.add(t);
            }
        }
        return s;
    }

    @Test
    void theGuidIsTheModifiedEui64OfTheMac() {
        byte[] mac = {0x52, 0x54, 0x00, 0x12, 0x34, 0x56};
        assertEquals(0x505400fffe123456L, SoftIwarpDevice.eui64(mac));
        assertEquals("5054:00ff:fe12:3456", RdmaDevice.formatGuid(SoftIwarpDevice.eui64(mac)));
    }

    @Test
    void aDeviceOnAnInterfaceWithAMacReportsThatMacAsItsGid() throws Exception {
        NetworkInterface withMac = null;
        for (NetworkInterface ni : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            byte[] hw = ni.getHardwareAddress();
            if (hw != null && hw.length == 6 && !ni.isLoopback()) {
                withMac = ni;
                break;
            }
        }
        assumeTrue(withMac != null, "no interface with a MAC on this machine");
        RdmaDevice d = SoftIwarp.addDevice("jsiw_test_mac", withMac.getName());
        try (DeviceContext ctx = d.open()) {
            byte[] gid = ctx.queryGid(1, 0).raw();
            assertArrayEquals(withMac.getHardwareAddress(), Arrays.copyOf(gid, 6));
            assertEquals(SoftIwarpDevice.eui64(withMac.getHardwareAddress()), d.guid());
            assertEquals(d.guid(), ctx.queryDevice().nodeGuid());
            assertEquals(java.util.List.of(withMac.getName()), d.netDevices());
        } finally {
            assertTrue(SoftIwarp.removeDevice("jsiw_test_mac"));
        }
        assertFalse(SoftIwarp.devices().contains(d));
    }

    @Test
    void addingADeviceOnAMissingInterfaceOrUnderATakenNameIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SoftIwarp.addDevice("jsiw_x", "no-such-if0"));
        assertTrue(e.getMessage().contains("no network interface named no-such-if0"), e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> SoftIwarp.addDevice(SoftIwarp.LOOPBACK_NAME, loopback().netDevices().get(0)));
    }

    @Test
    void thePropertyAddsItsDevicesAndSkipsTheEntriesThatAreWrong() {
        String lo = loopback().netDevices().get(0);
        int before = SoftIwarp.devices().size();
        assertEquals(2, SoftIwarp.addAll(" jsiw_p1=" + lo + ",garbage,=" + lo + ",jsiw_p2=no-such-if0, jsiw_p3 = " + lo
                + ",jsiw_p1=" + lo + ","));
        try {
            assertEquals(before + 2, SoftIwarp.devices().size());
            assertEquals(java.util.List.of(lo), SoftIwarp.devices().stream()
                    .filter(d -> d.name().equals("jsiw_p3")).findFirst().orElseThrow().netDevices());
        } finally {
            SoftIwarp.removeDevice("jsiw_p1");
            SoftIwarp.removeDevice("jsiw_p3");
        }
        assertEquals(before, SoftIwarp.devices().size());
    }

    @Test
    void theDeviceReportsWhatSiwReports() {
        // the values of `ibv_devinfo -v -d siw0` in the lab (Linux 6.1 siw on a virtio NIC), the limits aside
        try (DeviceContext ctx = loopback().open()) {
            DeviceAttributes a = ctx.queryDevice();
            // siw0 says ATOMIC_NONE; this device runs RFC 7306 atomics between verbs4j peers (not against siw)
            assertEquals(AtomicCapability.HCA, a.atomicCap());
            assertTrue(a.has(DeviceCapability.MEM_MGT_EXTENSIONS));
            assertEquals(1, a.physPortCnt());
            assertEquals(6, a.maxSge());
            assertEquals(1, a.maxSgeRd());
            assertEquals(128, a.maxQpRdAtom());
            assertEquals(128, a.maxQpInitRdAtom());
            assertEquals(0, a.maxAh(), "iWARP has no address handles");
            assertTrue(a.supportsSrq());
            assertEquals(loopback().guid(), a.nodeGuid());

            PortAttributes p = ctx.queryPort(1);
            assertEquals(LinkLayer.ETHERNET, p.linkLayer());
            assertEquals(PortState.ACTIVE, p.state(), "the loopback interface is up");
            assertEquals(5, p.physState());
            assertEquals(1, p.gidTableLength());
            assertEquals(0, p.pkeyTableLength());
            assertEquals(0x00090000, p.portCapFlags());
            assertEquals(1, p.activeWidth());
            assertEquals(1, p.activeSpeed());
            assertEquals(0, p.maxVlNum());
            assertEquals("0.0.0", a.firmwareVersion());
            assertEquals(a.nodeGuid(), a.sysImageGuid());
            assertEquals(-1L, a.maxMrSize());
            assertEquals(4096, a.pageSizeCap());
            assertEquals(0x00200000, a.deviceCapFlags());
            assertEquals(0, a.maxMw());
            assertEquals(0, a.maxPkeys());
            assertEquals(0, p.lid());
            assertEquals(0xffffffffL, p.maxMsgSize());

            GidEntry g = ctx.queryGidEntry(1, 0);
            assertEquals(ctx.queryGid(1, 0), g.gid());
            assertEquals(java.util.List.of(g), ctx.queryGidTable());
            assertEquals(1, ctx.queryPorts().size());
        }
    }

    @Test
    void aPortOrIndexOutsideTheTablesIsEinval() {
        try (DeviceContext ctx = loopback().open()) {
            assertEquals(22, assertThrows(VerbsException.class, () -> ctx.queryPort(2)).errno());
            assertEquals(22, assertThrows(VerbsException.class, () -> ctx.queryGid(1, 1)).errno());
            assertEquals(22, assertThrows(VerbsException.class, () -> ctx.queryPkey(0, 0)).errno());
            assertEquals(22, assertThrows(VerbsException.class, () -> ctx.queryPkey(1, 0)).errno(), "no P_Key table");
        }
    }

    @Test
    void aClosedContextRefusesQueries() {
        DeviceContext ctx = loopback().open();
        ctx.close();
        assertTrue(ctx.isClosed());
        assertThrows(IllegalStateException.class, ctx::queryDevice);
        assertThrows(IllegalStateException.class, ctx::allocProtectionDomain);
        ctx.close();
    }

    @Test
    void theMtuIsTheLargestIbMtuNotAboveTheInterfaces() {
        assertEquals(4096, SiwAttributes.ibMtu(65536).bytes());
        assertEquals(1024, SiwAttributes.ibMtu(1500).bytes());
        assertEquals(256, SiwAttributes.ibMtu(300).bytes());
    }
}
