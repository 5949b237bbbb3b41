package org.verbs4j.it;

import org.verbs4j.lab.QpPair;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.verbs4j.lab.QpPair.pattern;
import static org.verbs4j.lab.QpPair.takeOne;

import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.verbs4j.api.Access;
import org.verbs4j.api.AddressHandle;
import org.verbs4j.api.AddressVector;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.Errno;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.Opcode;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.QpAttributes;
import org.verbs4j.api.QpConnector;
import org.verbs4j.api.QpInitAttributes;
import org.verbs4j.api.QpState;
import org.verbs4j.api.QpType;
import org.verbs4j.api.QueuePair;
import org.verbs4j.api.Rdma;
import org.verbs4j.api.ReceiveRequests;
import org.verbs4j.api.SendFlags;
import org.verbs4j.api.SendRequests;
import org.verbs4j.api.TransportType;
import org.verbs4j.api.VerbsException;
import org.verbs4j.api.WcFlags;
import org.verbs4j.api.WcOpcode;
import org.verbs4j.api.WcStatus;
import org.verbs4j.api.spi.AbstractResource;
import org.verbs4j.lab.QpPair.Wc;

/**
 * Unreliable datagram: two UD queue pairs of one device exchange datagrams through an address handle. The
 * receive buffer starts with the 40-byte GRH, the completion says so (GRH flag), names the sender's QP and
 * counts the GRH in byte_len. Where the device cannot create UD queue pairs (iWARP has RC only) the test
 * asserts the error is clear instead.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class CoreVerbsDatagramIT {
    static final int GRH = 40;
    static final int QKEY = 0x11111111;

    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void datagramWithGrhThroughAnAddressHandle(String device) {
        try (DeviceContext ctx = Rdma.open(device); ProtectionDomain pd = ctx.allocProtectionDomain();
                CompletionQueue sendCq = ctx.createCompletionQueue(32); CompletionQueue recvCq = ctx.createCompletionQueue(32)) {
            QueuePair sender;
            try {
                sender = pd.createQueuePair(ud(sendCq));
            } catch (VerbsException e) {
                assertEquals(TransportType.IWARP, ctx.device().transportType(), device + " is an InfiniBand-transport "
                        + "device: it must create UD queue pairs, but: " + e.getMessage());
                assertEquals("ibv_create_qp", e.verb(), e.getMessage());
                assertTrue(e.errno() == Errno.EOPNOTSUPP || e.errno() == Errno.EINVAL, e.getMessage());
                assertTrue(e.getMessage().contains("UD") && e.getMessage().contains(device), e.getMessage());
                assertTrue(e.hint().contains("does not support UD"), "the hint says why: " + e.getMessage());
                assertEquals(List.of(), ((AbstractResource) pd).openChildren(), "a failed create leaves nothing behind");
                // the CQ is not held by the QP that was never made
                assertEquals(List.of(), ((AbstractResource) sendCq).openChildren(), "users of the CQ");
                Assumptions.abort(device + " cannot create UD queue pairs (" + ctx.device().transportType().text()
                        + "); the error was clear: " + e.getMessage());
                return;
            }
            try (QueuePair s = sender; QueuePair r = pd.createQueuePair(ud(recvCq));
                    MemoryRegion sbuf = pd.allocateMemory(4096, Access.LOCAL_WRITE);
                    MemoryRegion rbuf = pd.allocateMemory(4096, Access.LOCAL_WRITE);
                    SendRequests wrs = SendRequests.allocate(2, 1); ReceiveRequests rrs = ReceiveRequests.allocate(4, 1)) {
                toRts(ctx, s, 0x100);
                toRts(ctx, r, 0x200);
                AddressVector own = QpPair.ownAddress(ctx);
                try (AddressHandle ah = pd.createAddressHandle(own)) {
                    assertEquals(own, ah.addressVector());
                    assertEquals(pd, ah.protectionDomain());

                    int payload = 200;
                    byte[] data = pattern(payload, 42);
                    sbuf.putBytes(0, data);
                    rbuf.fill(0, 4096, (byte) 0xaa);
                    for (int i = 0; i < 3; i++) {
                        rrs.at(i).wrId(0x700 + i).sge(rbuf.address() + i * 1024L, GRH + 1000, rbuf.lkey());
                    }
                    rrs.count(3);
                    r.postReceive(rrs);

                    // a datagram with the right Q_Key
                    wrs.at(0).wrId(0x600).opcode(Opcode.SEND).flags(SendFlags.SIGNALED).sge(sbuf.address(), payload,
                            sbuf.lkey()).ud(ah, r.qpNumber(), QKEY);
                    s.postSend(wrs);
                    Wc sent = takeOne(sendCq);
                    assertEquals(WcStatus.SUCCESS, sent.status(), sent.toString());
                    assertEquals(0x600, sent.wrId());
                    assertEquals(WcOpcode.SEND, sent.opcode(), sent.toString());
                    assertEquals(s.qpNumber(), sent.qpNum(), sent.toString());
                    Wc got = takeOne(recvCq);
                    assertEquals(WcStatus.SUCCESS, got.status(), got.toString());
                    assertEquals(0x700, got.wrId(), got.toString());
                    assertEquals(WcOpcode.RECV, got.opcode(), got.toString());
                    assertEquals(payload + GRH, got.byteLen(), "byte_len counts the 40-byte GRH: " + got);
                    assertTrue((got.flags() & WcFlags.GRH) != 0, "GRH flag: " + got);
                    assertEquals(s.qpNumber(), got.srcQp(), "src_qp is the sender's QPN: " + got);
                    assertEquals(r.qpNumber(), got.qpNum(), "qp_num is the receiver's: " + got);
                    assertArrayEquals(data, rbuf.getBytes(GRH, payload), "payload after the GRH");
                    assertGrh(rbuf.getBytes(0, GRH), own, device);

                    // with immediate data
                    wrs.at(0).wrId(0x601).opcode(Opcode.SEND_WITH_IMM).immData(0x12345678).sge(sbuf.address(), 10,
                            sbuf.lkey());
                    s.postSend(wrs);
                    assertEquals(WcStatus.SUCCESS, takeOne(sendCq).status());
                    Wc imm = takeOne(recvCq);
                    assertEquals(0x701, imm.wrId(), imm.toString());
                    assertEquals(10 + GRH, imm.byteLen(), imm.toString());
                    assertTrue(imm.hasImm(), imm.toString());
                    assertEquals(0x12345678, imm.imm(), imm.toString());

                    // a wrong Q_Key: the sender completes, the receiver drops the datagram silently
                    wrs.at(0).wrId(0x602).opcode(Opcode.SEND).ud(ah, r.qpNumber(), QKEY + 1);
                    s.postSend(wrs);
                    Wc bad = takeOne(sendCq);
                    assertEquals(WcStatus.SUCCESS, bad.status(), "UD sends complete whether or not they arrive: " + bad);
                    assertEquals(List.of(), QpPair.drain(recvCq, 500), "datagram with a wrong Q_Key must be dropped");

                    // the third receive is still there for the next good datagram
                    wrs.at(0).wrId(0x603).ud(ah, r.qpNumber(), QKEY);
                    s.postSend(wrs);
                    assertEquals(WcStatus.SUCCESS, takeOne(sendCq).status());
                    assertEquals(0x702, takeOne(recvCq).wrId());
                }
                // a closed address handle cannot be put into a request
                AddressHandle closed = pd.createAddressHandle(own);
                closed.close();
                closed.close();
                IllegalStateException e = assertThrows(IllegalStateException.class,
                        () -> wrs.at(0).ud(closed, r.qpNumber(), QKEY));
                assertTrue(e.getMessage().contains("AddressHandle") && e.getMessage().contains("closed"), e.getMessage());
            }
        }
    }

    /**
     * RoCE v2 over IPv4 (the lab's rxe): the GRH area holds 20 unused bytes, then the packet's IPv4 header
     * (version 4, IHL 5, protocol UDP, source and destination the port's own address). On InfiniBand and
     * RoCE v1 it is a real GRH (IP version 6).
     */
    private static void assertGrh(byte[] grh, AddressVector own, String device) {
        byte[] gid = own.dgid().raw();
        if (own.isGlobal() && own.dgid().isIpv4Mapped()) {
            assertEquals(0x45, grh[20] & 0xff, device + ": IPv4 header (version 4, IHL 5) at GRH offset 20");
            assertEquals(17, grh[20 + 9] & 0xff, "IPv4 protocol UDP");
            byte[] ip = {gid[12], gid[13], gid[14], gid[15]};
            byte[] src = {grh[32], grh[33], grh[34], grh[35]};
            byte[] dst = {grh[36], grh[37], grh[38], grh[39]};
            assertArrayEquals(ip, src, "source IP " + addr(src) + ", the port's " + addr(ip));
            assertArrayEquals(ip, dst, "destination IP " + addr(dst));
        } else {
            assertEquals(6, (grh[0] & 0xf0) >> 4, device + ": GRH IP version 6");
            byte[] dgid = new byte[16];
            System.arraycopy(grh, 24, dgid, 0, 16);
            assertArrayEquals(gid, dgid, "GRH destination GID");
        }
    }

    private static String addr(byte[] ip) {
        try {
            return InetAddress.getByAddress(ip).getHostAddress();
        } catch (java.net.UnknownHostException e) {
            return java.util.Arrays.toString(ip);
        }
    }

    private static QpInitAttributes ud(CompletionQueue cq) {
        return new QpInitAttributes(QpType.UD, cq, cq).maxSendWr(16).maxRecvWr(16).maxSendSge(1).maxRecvSge(1);
    }

    /** UD through QpConnector: INIT takes the Q_Key instead of access flags, RTR only the state, RTS the SQ PSN. */
    private static void toRts(DeviceContext ctx, QueuePair qp, int psn) {
        QpConnector.builder(ctx, qp).port(QpPair.PORT).qkey(QKEY).psn(psn).prepare().connect(null);
        QpAttributes q = qp.query(org.verbs4j.api.QpAttrMask.STATE | org.verbs4j.api.QpAttrMask.QKEY);
        assertEquals(QpState.RTS, q.state());
        assertEquals(QKEY, q.qkey(), "qkey read back");
    }
}
