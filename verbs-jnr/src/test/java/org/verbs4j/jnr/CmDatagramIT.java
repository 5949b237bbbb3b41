package org.verbs4j.jnr;

import org.verbs4j.lab.QpPair;
import org.verbs4j.lab.CmSide;

import org.verbs4j.lab.Lab;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.verbs4j.lab.QpPair.pattern;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.verbs4j.api.Access;
import org.verbs4j.api.AddressHandle;
import org.verbs4j.api.AddressVector;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.Errno;
import org.verbs4j.api.Gid;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.Opcode;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.QpAttrMask;
import org.verbs4j.api.QpInitAttributes;
import org.verbs4j.api.QpState;
import org.verbs4j.api.QpType;
import org.verbs4j.api.QueuePair;
import org.verbs4j.api.Rdma;
import org.verbs4j.api.ReceiveRequests;
import org.verbs4j.api.SendFlags;
import org.verbs4j.api.SendRequests;
import org.verbs4j.api.VerbsException;
import org.verbs4j.api.WcFlags;
import org.verbs4j.api.WcOpcode;
import org.verbs4j.api.WcStatus;
import org.verbs4j.api.cm.CmEventType;
import org.verbs4j.api.cm.CmException;
import org.verbs4j.api.cm.CmId;
import org.verbs4j.api.cm.CmRejectedException;
import org.verbs4j.api.cm.ConnectionManager;
import org.verbs4j.api.cm.ConnectionParameters;
import org.verbs4j.api.cm.ConnectionRequest;
import org.verbs4j.api.cm.PortSpace;
import org.verbs4j.api.cm.UdParameters;
import org.verbs4j.api.spi.AbstractResource;
import org.verbs4j.lab.QpPair.Wc;
import org.verbs4j.lab.Async;

/**
 * rdma_cm's UDP port space: UD queue pairs made on rdma_cm ids, the SIDR exchange (the active side learns the
 * passive side's QP number, Q_Key and address), rejects, a port nobody listens on, and interop with rdma-core's
 * {@code udaddy} in both directions. RoCE (rxe0) only: siw has no UD, which the last test checks is reported
 * clearly.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class CmDatagramIT {
    private static final Duration T = Duration.ofSeconds(30);
    private static final int GRH = 40;
    /** udaddy's port (it has no option to change it). */
    private static final int UDADDY_PORT = 7174;
    /** How many datagrams of how many bytes the udaddy tests exchange ({@code udaddy -C 3 -S 100}). */
    private static final int UDADDY_COUNT = 3;
    private static final int UDADDY_SIZE = 100;

    private static InetSocketAddress rxe(int port) throws Exception {
        return new InetSocketAddress(InetAddress.getByName(Lab.env("FABRIC_LAB_RXE_IP")), port);
    }

    /** One side's verbs objects on a UDP CmId's context (see {@link CmSide}). */
    static final class Side extends CmSide {
        Side(CmId id) {
            super(id, QpType.UD, 32, 8192, Access.LOCAL_WRITE);
        }

        /** {@code n} receives of {@code size} bytes each (GRH included), at 1024-byte steps from {@code offset}. */
        void postReceives(int n, int offset, int size) {
            try (ReceiveRequests rrs = ReceiveRequests.allocate(n, 1)) {
                for (int i = 0; i < n; i++) {
                    rrs.at(i).wrId(100 + i).sge(mr.address() + offset + i * 1024L, size, mr.lkey());
                }
                rrs.count(n);
                qp.postReceive(rrs);
            }
        }

        /** {@code n} signaled SEND_WITH_IMM (imm = this QP's number, as udaddy sends) of {@code data} to {@code ah}. */
        void send(int n, byte[] data, AddressHandle ah, int remoteQpn, int qkey) {
            mr.putBytes(0, data);
            try (SendRequests wrs = SendRequests.allocate(1, 1)) {
                for (int i = 0; i < n; i++) {
                    wrs.at(0).wrId(200 + i).opcode(Opcode.SEND_WITH_IMM).immData(qp.qpNumber())
                            .flags(SendFlags.SIGNALED).sge(mr.address(), data.length, mr.lkey()).ud(ah, remoteQpn, qkey);
                    qp.postSend(wrs);
                    Wc wc = QpPair.takeOne(cq);
                    assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
                    assertEquals(WcOpcode.SEND, wc.opcode(), wc.toString());
                }
            }
        }
    }

    /** The address to answer a datagram from: the IPv4 source in the RoCE v2 GRH area, sent from our own RoCE v2 GID. */
    private static AddressVector replyAddress(DeviceContext ctx, byte[] grh) throws Exception {
        assertEquals(0x45, grh[20] & 0xff, "RoCE v2 over IPv4: the GRH area holds the IPv4 header at offset 20");
        InetAddress src = InetAddress.getByAddress(Arrays.copyOfRange(grh, 32, 36));
        return AddressVector.global(1, Gid.ofAddress(src), QpPair.roceV2Gid(ctx).index());
    }

    private static byte[] prefix(byte[] b, int n, int padTo) {
        assertEquals(padTo, b.length, "private data length (IB CM pads it to the message's size)");
        for (int i = n; i < b.length; i++) {
            assertEquals(0, b[i], "padding byte " + i);
        }
        return Arrays.copyOf(b, n);
    }

    private static CmId resolved(ConnectionManager cm, InetSocketAddress server) {
        return CmSide.resolved(cm, PortSpace.UDP, server, T);
    }

    @Test
    void udPingBetweenTwoJavaSidesOverRdmaCm() throws Exception {
        InetSocketAddress addr = rxe(7700);
        byte[] hello = "UD hello over SIDR".getBytes(StandardCharsets.US_ASCII);
        byte[] welcome = "UD welcome".getBytes(StandardCharsets.US_ASCII);
        int n = 3;
        int len = 200;
        try (ConnectionManager scm = Rdma.connectionManager(); ConnectionManager ccm = Rdma.connectionManager()) {
            CmId listener = CmSide.listen(scm, PortSpace.UDP, addr);
            assertEquals(PortSpace.UDP, listener.portSpace());
            CompletableFuture<Object[]> serverF = Async.supply(() -> {
                ConnectionRequest req = listener.awaitRequest(T);
                Side s = new Side(req.id());
                s.postReceives(n, 0, GRH + 1000);
                s.id.accept(ConnectionParameters.defaults().withPrivateData(welcome));
                s.id.awaitEstablished(T); // returns at once: a SIDR exchange has no third message
                return new Object[] {s, req};
            });
            Side c = new Side(resolved(ccm, addr));
            Side s = null;
            AddressHandle ah = null;
            AddressHandle back = null;
            try {
                assertEquals(QpState.RTS, c.qp.state(), "rdma_create_qp moves a UD QP to RTS");
                assertEquals(PortSpace.UDP_QKEY, c.qp.query(QpAttrMask.QKEY).qkey(), "RDMA_UDP_QKEY");
                c.postReceives(n, 4096, GRH + 1000);
                UdParameters peer = c.id.connectDatagram(hello, T);
                Object[] r = serverF.get(60, TimeUnit.SECONDS);
                s = (Side) r[0];
                ConnectionRequest req = (ConnectionRequest) r[1];
                System.out.println("connectDatagram -> " + peer);
                assertEquals(PortSpace.UDP, req.id().portSpace(), "a request id has its listener's port space");
                assertArrayEquals(hello, prefix(req.privateData(), hello.length,
                        ConnectionParameters.UD_CONNECT_PRIVATE_DATA_MAX));
                assertEquals(s.qp.qpNumber(), peer.remoteQpn(), "the SIDR reply names the accepting id's QP");
                assertEquals(PortSpace.UDP_QKEY, peer.remoteQkey());
                assertEquals(s.qp.query(QpAttrMask.QKEY).qkey(), peer.remoteQkey());
                assertArrayEquals(welcome, prefix(peer.privateData(), welcome.length,
                        ConnectionParameters.UD_ACCEPT_PRIVATE_DATA_MAX));
                AddressVector av = peer.addressVector();
                assertTrue(av.isGlobal(), "RoCE: the address has a GRH: " + av);
                assertEquals(Gid.ofAddress(addr.getAddress()), av.dgid(), av.toString());
                assertEquals(QpPair.roceV2Gid(c.ctx).index(), av.sgidIndex(), "rdma_cm picks the RoCE v2 GID: " + av);
                assertEquals(1, av.port());

                // client -> server: the receive holds the 40-byte GRH, then the payload
                ah = peer.createAddressHandle(c.pd);
                byte[] data = pattern(len, 5);
                c.send(n, data, ah, peer.remoteQpn(), peer.remoteQkey());
                List<Wc> got = QpPair.take(s.cq, n);
                byte[] grh = null;
                for (int i = 0; i < n; i++) {
                    Wc wc = got.get(i);
                    assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
                    assertEquals(WcOpcode.RECV, wc.opcode(), wc.toString());
                    assertEquals(100 + i, wc.wrId(), wc.toString());
                    assertEquals(GRH + len, wc.byteLen(), "byte_len counts the GRH: " + wc);
                    assertTrue((wc.flags() & WcFlags.GRH) != 0, wc.toString());
                    assertEquals(c.qp.qpNumber(), wc.srcQp(), wc.toString());
                    assertEquals(c.qp.qpNumber(), wc.imm(), wc.toString());
                    assertArrayEquals(data, s.mr.getBytes(i * 1024L + GRH, len), "payload after the GRH, datagram " + i);
                    grh = s.mr.getBytes(i * 1024L, GRH);
                }

                // server -> client, addressed from the GRH and the immediate data (what udaddy does)
                back = s.pd.createAddressHandle(replyAddress(s.ctx, grh));
                byte[] reply = pattern(len, 9);
                s.send(n, reply, back, got.get(0).imm(), PortSpace.UDP_QKEY);
                List<Wc> replies = QpPair.take(c.cq, n);
                for (int i = 0; i < n; i++) {
                    Wc wc = replies.get(i);
                    assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
                    assertEquals(GRH + len, wc.byteLen(), wc.toString());
                    assertEquals(s.qp.qpNumber(), wc.srcQp(), wc.toString());
                    assertArrayEquals(reply, c.mr.getBytes(4096 + i * 1024L + GRH, len), "reply " + i);
                }
                assertThrows(IllegalStateException.class, c.id::disconnect, "UD has no connection to end");
            } finally {
                CmSide.closeAll(ah, back, c, s, listener);
            }
        }
    }

    @Test
    void rejectWithPrivateDataEndsConnectDatagram() throws Exception {
        InetSocketAddress addr = rxe(7702);
        byte[] why = "no UD service for you".getBytes(StandardCharsets.US_ASCII);
        try (ConnectionManager cm = Rdma.connectionManager()) {
            CmId listener = CmSide.listen(cm, PortSpace.UDP, addr);
            CompletableFuture<byte[]> serverF = Async.supply(() -> {
                ConnectionRequest req = listener.awaitRequest(T);
                try {
                    assertThrows(IllegalArgumentException.class,
                            () -> req.id().reject(new byte[ConnectionParameters.UD_ACCEPT_PRIVATE_DATA_MAX + 1]));
                    assertThrows(IllegalStateException.class, () -> req.id().accept(ConnectionParameters.defaults()),
                            "accept on a UDP id needs its QP first");
                    req.id().reject(why);
                    return req.privateData();
                } finally {
                    req.id().close();
                }
            });
            CmId c = resolved(cm, addr);
            try {
                long t0 = System.nanoTime();
                CmRejectedException e = assertThrows(CmRejectedException.class,
                        () -> c.connectDatagram(new byte[] {4, 5, 6}, T));
                long ms = (System.nanoTime() - t0) / 1_000_000;
                System.out.println("UD reject on " + addr + " after " + ms + " ms: " + e.getMessage());
                assertEquals(CmEventType.UNREACHABLE, e.event(), "rdma_cm reports a SIDR reject as UNREACHABLE");
                assertEquals(2, e.status(), "SIDR status 2: rejected");
                assertTrue(e.getMessage().contains("application rejected"), e.getMessage());
                assertArrayEquals(why, prefix(e.privateData(), why.length, ConnectionParameters.UD_ACCEPT_PRIVATE_DATA_MAX));
                assertArrayEquals(new byte[] {4, 5, 6},
                        prefix(serverF.get(60, TimeUnit.SECONDS), 3, ConnectionParameters.UD_CONNECT_PRIVATE_DATA_MAX));
            } finally {
                c.close();
                listener.close();
            }
        }
    }

    @Test
    void connectDatagramToAPortNobodyListensOnFailsClearly() throws Exception {
        try (ConnectionManager cm = Rdma.connectionManager()) {
            // a TCP listener on the same port does not count: the port spaces are separate
            CmId tcp = cm.createId();
            tcp.bind(rxe(7704));
            tcp.listen(4);
            CmId c = resolved(cm, rxe(7704));
            try {
                long t0 = System.nanoTime();
                CmException e = assertThrows(CmException.class, () -> c.connectDatagram(null, Duration.ofSeconds(20)));
                long ms = (System.nanoTime() - t0) / 1_000_000;
                System.out.println("UD connect to a port nobody listens on -> " + e.getClass().getSimpleName() + " after "
                        + ms + " ms: " + e.getMessage());
                assertTrue(ms < 25_000, ms + " ms");
                assertEquals("rdma_connect", e.verb());
                assertTrue(e instanceof CmRejectedException, e.toString());
                assertEquals(CmEventType.UNREACHABLE, e.event(), e.getMessage());
                assertEquals(1, e.status(), "SIDR status 1: service ID not supported: " + e.getMessage());
                assertTrue(e.getMessage().contains("nobody listens"), e.getMessage());
            } finally {
                c.close();
                tcp.close();
            }
        }
    }

    @Test
    void portSpacesAreCheckedBeforeAnyNativeCall() throws Exception {
        try (ConnectionManager cm = Rdma.connectionManager(); CmId udp = cm.createId(PortSpace.UDP);
                CmId tcp = cm.createId(PortSpace.TCP)) {
            assertEquals(PortSpace.TCP, cm.createId().portSpace() /* closed with cm */);
            udp.bind(rxe(7706));
            tcp.bind(rxe(7706)); // same port number, other port space
            try (ProtectionDomain pd = udp.context().allocProtectionDomain();
                    CompletionQueue cq = udp.context().createCompletionQueue(4)) {
                IllegalArgumentException rc = assertThrows(IllegalArgumentException.class,
                        () -> udp.createQueuePair(pd, new QpInitAttributes(QpType.RC, cq, cq)));
                assertTrue(rc.getMessage().contains("UD"), rc.getMessage());
                IllegalArgumentException ud = assertThrows(IllegalArgumentException.class,
                        () -> tcp.createQueuePair(pd, new QpInitAttributes(QpType.UD, cq, cq)));
                assertTrue(ud.getMessage().contains("PortSpace.UDP"), ud.getMessage());
                assertNull(udp.queuePair());
            }
            assertThrows(IllegalStateException.class, () -> udp.connect(ConnectionParameters.defaults(), T));
            assertThrows(IllegalStateException.class, () -> tcp.connectDatagram(null, T));
            assertThrows(IllegalArgumentException.class,
                    () -> udp.connectDatagram(new byte[ConnectionParameters.UD_CONNECT_PRIVATE_DATA_MAX + 1], T));
            assertThrows(IllegalStateException.class, () -> udp.awaitDisconnected(T));
        }
    }

    /**
     * Two UDP ids on rxe0 join 239.7.7.7 (each with its QP, so librdmacm attaches it); one sends to the group's
     * address (remote QPN 0xFFFFFF), the other receives it; after leaving, nothing more arrives.
     */
    @Test
    void multicastJoinSendAndLeave() throws Exception {
        InetAddress group = InetAddress.getByName("239.7.7.7");
        try (ConnectionManager cm = Rdma.connectionManager()) {
            CmId sid = cm.createId(PortSpace.UDP);
            CmId rid = cm.createId(PortSpace.UDP);
            assertThrows(IllegalArgumentException.class, () -> sid.joinMulticast(InetAddress.getByName("10.1.2.3"), T));
            CmException unbound = assertThrows(CmException.class, () -> sid.joinMulticast(group, T));
            System.out.println("join on an unbound id -> " + unbound.getMessage());
            sid.bind(rxe(0));
            rid.bind(rxe(0));
            Side snd = new Side(sid);
            Side rcv = new Side(rid);
            AddressHandle ah = null;
            try {
                rcv.postReceives(4, 0, GRH + 1000);
                UdParameters joined = rcv.id.joinMulticast(group, T);
                UdParameters mc = snd.id.joinMulticast(group, T);
                System.out.println("joinMulticast(" + group.getHostAddress() + ") -> " + mc);
                assertEquals(0xFFFFFF, mc.remoteQpn(), "multicast QPN");
                assertEquals(PortSpace.UDP_QKEY, mc.remoteQkey());
                assertTrue(mc.addressVector().isGlobal(), mc.toString());
                assertEquals(Gid.ofAddress(group), mc.addressVector().dgid(), "RoCE v2: the IPv4-mapped group address");
                assertEquals(mc.addressVector().dgid(), joined.addressVector().dgid());
                assertEquals(0, mc.privateData().length);

                ah = mc.createAddressHandle(snd.pd);
                byte[] data = pattern(300, 11);
                snd.send(1, data, ah, mc.remoteQpn(), mc.remoteQkey());
                Wc wc = QpPair.takeOne(rcv.cq);
                assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
                assertEquals(GRH + data.length, wc.byteLen(), wc.toString());
                assertEquals(snd.qp.qpNumber(), wc.srcQp(), wc.toString());
                assertArrayEquals(data, rcv.mr.getBytes(GRH, data.length), "the group's datagram after the GRH");

                rcv.id.leaveMulticast(group);
                snd.send(1, data, ah, mc.remoteQpn(), mc.remoteQkey());
                assertEquals(List.of(), QpPair.drain(rcv.cq, 500), "nothing arrives after leaveMulticast");
                CmException twice = assertThrows(CmException.class, () -> rcv.id.leaveMulticast(group));
                assertTrue(twice.getMessage().contains("has not joined"), twice.getMessage());
                snd.id.leaveMulticast(group);
            } finally {
                QpPair.closeAllQuietly(null, ah);
                snd.close();
                rcv.close();
            }
        }
    }

    // ---------------------------------------------------------------- interop with rdma-core's udaddy

    /** udaddy (rdmacm-utils), started with {@code args}; its output is collected for the failure message. */
    private static final class Udaddy implements AutoCloseable {
        final Process p;
        final CompletableFuture<String> out;

        Udaddy(String... args) throws IOException {
            String[] cmd = new String[args.length + 1];
            cmd[0] = "udaddy";
            System.arraycopy(args, 0, cmd, 1, args.length);
            p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            out = Async.supply(() -> {
                try {
                    return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                } catch (IOException e) {
                    return "(output lost: " + e + ")";
                }
            });
        }

        /** Waits for udaddy to end; fails with its output unless it exits 0 within 60 s. */
        String awaitSuccess() throws Exception {
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                fail("udaddy did not finish within 60 s:\n" + out.get(10, TimeUnit.SECONDS));
            }
            String text = out.get(10, TimeUnit.SECONDS);
            System.out.println("udaddy:\n" + text);
            assertEquals(0, p.exitValue(), "udaddy failed:\n" + text);
            assertTrue(text.contains("data transfers complete"), text);
            return text;
        }

        @Override
        public void close() {
            if (p.isAlive()) {
                p.destroyForcibly();
            }
        }
    }

    /**
     * Java connects to {@code udaddy} (the server): 3 datagrams of 100 bytes with the client's QPN as immediate
     * data, then udaddy answers each with the first 100 bytes of its receive buffer, which is the GRH it got
     * followed by the first 60 bytes of our datagram.
     */
    @Test
    void javaClientToUdaddyServer() throws Exception {
        InetSocketAddress addr = rxe(UDADDY_PORT);
        int n = UDADDY_COUNT;
        int len = UDADDY_SIZE;
        try (Udaddy server = new Udaddy("-b", addr.getAddress().getHostAddress(), "-C", "" + n, "-S", "" + len);
                ConnectionManager cm = Rdma.connectionManager()) {
            Side c = null;
            AddressHandle ah = null;
            try {
                UdParameters peer = null;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (peer == null) { // udaddy may not be listening yet
                    if (c != null) {
                        c.close();
                    }
                    c = new Side(resolved(cm, addr));
                    c.postReceives(n, 4096, GRH + len);
                    try {
                        peer = c.id.connectDatagram(null, T);
                    } catch (CmRejectedException e) {
                        if (e.status() != 1 || System.nanoTime() - deadline > 0 || !server.p.isAlive()) {
                            throw e;
                        }
                        Thread.sleep(200);
                    }
                }
                System.out.println("udaddy server -> " + peer);
                assertEquals(PortSpace.UDP_QKEY, peer.remoteQkey());
                ah = peer.createAddressHandle(c.pd);
                byte[] data = pattern(len, 77);
                c.send(n, data, ah, peer.remoteQpn(), peer.remoteQkey());
                List<Wc> replies = QpPair.take(c.cq, n);
                for (int i = 0; i < n; i++) {
                    Wc wc = replies.get(i);
                    assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
                    assertEquals(WcOpcode.RECV, wc.opcode(), wc.toString());
                    assertEquals(GRH + len, wc.byteLen(), wc.toString());
                    assertEquals(peer.remoteQpn(), wc.srcQp(), "from the QP the SIDR reply named: " + wc);
                    assertTrue(wc.hasImm(), wc.toString());
                    assertEquals(peer.remoteQpn(), wc.imm(), "udaddy puts its QPN into the immediate data: " + wc);
                    long at = 4096 + i * 1024L + GRH; // skip our GRH
                    byte[] theirGrh = c.mr.getBytes(at, GRH);
                    assertEquals(0x45, theirGrh[20] & 0xff, "udaddy echoed the GRH area it received (IPv4 header)");
                    assertArrayEquals(Arrays.copyOf(data, len - GRH), c.mr.getBytes(at + GRH, len - GRH),
                            "udaddy echoed our datagram after its GRH, reply " + i);
                }
                server.awaitSuccess();
            } finally {
                CmSide.closeAll(ah, c);
            }
        }
    }

    /**
     * {@code udaddy -s} connects to a Java listener: Java accepts, receives udaddy's 3 datagrams (whose immediate
     * data is udaddy's QPN) and answers each, addressed from the GRH; udaddy exits 0 once it got all 3.
     */
    @Test
    void udaddyClientToJavaServer() throws Exception {
        InetSocketAddress addr = rxe(UDADDY_PORT);
        int n = UDADDY_COUNT;
        int len = UDADDY_SIZE;
        try (ConnectionManager cm = Rdma.connectionManager()) {
            CmId listener = CmSide.listen(cm, PortSpace.UDP, addr);
            Side s = null;
            AddressHandle back = null;
            try (Udaddy client = new Udaddy("-s", addr.getAddress().getHostAddress(), "-C", "" + n, "-S", "" + len)) {
                ConnectionRequest req = listener.awaitRequest(T);
                s = new Side(req.id());
                s.postReceives(n, 0, GRH + len);
                s.id.accept(ConnectionParameters.defaults());
                List<Wc> got = QpPair.take(s.cq, n);
                int udaddyQpn = got.get(0).imm();
                for (Wc wc : got) {
                    assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
                    assertEquals(GRH + len, wc.byteLen(), wc.toString());
                    assertEquals(wc.srcQp(), wc.imm(), "udaddy's immediate data is its QPN: " + wc);
                }
                back = s.pd.createAddressHandle(replyAddress(s.ctx, s.mr.getBytes(0, GRH)));
                s.send(n, pattern(len, 3), back, udaddyQpn, PortSpace.UDP_QKEY);
                client.awaitSuccess();
            } finally {
                CmSide.closeAll(back, s, listener);
            }
        }
    }

    // ---------------------------------------------------------------- iWARP

    /**
     * siw0: librdmacm lets a UDP id bind, listen and resolve on an iWARP device, but no UD QP can be made and
     * no SIDR request can be sent (bare EINVAL from rdma_connect). verbs4j says why at each step.
     */
    @Test
    void udOnIwarpIsRefusedClearly() throws Exception {
        InetSocketAddress addr = new InetSocketAddress(InetAddress.getByName(Lab.env("FABRIC_LAB_SIW_IP")), 7708);
        try (ConnectionManager cm = Rdma.connectionManager(); CmId listener = cm.createId(PortSpace.UDP);
                CmId c = cm.createId(PortSpace.UDP)) {
            listener.bind(addr);
            CmException l = assertThrows(CmException.class, () -> listener.listen(4));
            System.out.println("UD listen on " + Lab.iwarpDevice() + " -> " + l.getMessage());
            assertEquals("rdma_listen", l.verb());
            assertEquals(Errno.EOPNOTSUPP, l.errno());
            assertTrue(l.getMessage().contains("iWARP has no unreliable datagrams"), l.getMessage());

            c.resolveAddress(addr, T);
            c.resolveRoute(T);
            assertEquals(Lab.iwarpDevice(), c.context().device().name());
            try (ProtectionDomain pd = c.context().allocProtectionDomain();
                    CompletionQueue cq = c.context().createCompletionQueue(4)) {
                VerbsException q = assertThrows(VerbsException.class,
                        () -> c.createQueuePair(pd, new QpInitAttributes(QpType.UD, cq, cq)));
                System.out.println("UD QP on " + Lab.iwarpDevice() + " -> " + q.getMessage());
                assertEquals("rdma_create_qp", q.verb());
                assertEquals(Errno.EOPNOTSUPP, q.errno(), q.getMessage());
                assertTrue(q.getMessage().contains("iWARP has RC only"), q.getMessage());
                assertNull(c.queuePair());
                assertEquals(List.of(), ((AbstractResource) pd).openChildren(), "a failed create leaves nothing behind");
            }
            CmException e = assertThrows(CmException.class, () -> c.connectDatagram(null, T));
            System.out.println("UD connect on " + Lab.iwarpDevice() + " -> " + e.getMessage());
            assertEquals("rdma_connect", e.verb());
            assertEquals(Errno.EOPNOTSUPP, e.errno());
            assertTrue(e.getMessage().contains("iWARP has no unreliable datagrams"), e.getMessage());
            CmException j = assertThrows(CmException.class,
                    () -> listener.joinMulticast(InetAddress.getByName("239.7.7.8"), T));
            assertEquals("rdma_join_multicast", j.verb());
            assertEquals(Errno.EOPNOTSUPP, j.errno());
            assertTrue(j.getMessage().contains("iWARP has no unreliable datagrams"), j.getMessage());
        }
    }
}
