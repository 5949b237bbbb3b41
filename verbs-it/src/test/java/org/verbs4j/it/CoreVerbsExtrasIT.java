package org.verbs4j.it;

import org.verbs4j.lab.QpPair;

import org.verbs4j.lab.Lab;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.verbs4j.api.AsyncEvent;
import org.verbs4j.api.AsyncEventType;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.Errno;
import org.verbs4j.api.Opcode;
import org.verbs4j.api.PortState;
import org.verbs4j.api.Rdma;
import org.verbs4j.api.ReceiveRequests;
import org.verbs4j.api.SendFlags;
import org.verbs4j.api.SendRequests;
import org.verbs4j.api.VerbsException;
import org.verbs4j.api.WcOpcode;
import org.verbs4j.api.WcStatus;

/** Fences, CQ resize and port events. */
class CoreVerbsExtrasIT {

    /** A fenced SEND starts only after the RDMA READ before it completed: it carries the bytes just read. */
    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void fencedSendCarriesWhatThePrecedingReadFetched(String device) {
        try (QpPair p = QpPair.open(device); SendRequests s = SendRequests.allocate(2, 1);
                ReceiveRequests r = ReceiveRequests.allocate(1, 1)) {
            byte[] data = new byte[512];
            for (int i = 0; i < data.length; i++) {
                data[i] = (byte) (i * 7 + 3);
            }
            p.b.mr.putBytes(10000, data);
            p.a.mr.fill(0, 4096, (byte) 0);
            r.at(0).wrId(30).sge(p.b.mr.address() + 20000, 4096, p.b.mr.lkey());
            p.b.qp.postReceive(r);
            s.at(0).clear().wrId(31).opcode(Opcode.RDMA_READ).flags(SendFlags.SIGNALED)
                    .sge(p.a.mr.address(), data.length, p.a.mr.lkey()).rdma(p.b.mr.address() + 10000, p.b.mr.rkey());
            s.at(1).clear().wrId(32).opcode(Opcode.SEND).flags(SendFlags.SIGNALED | SendFlags.FENCE)
                    .sge(p.a.mr.address(), data.length, p.a.mr.lkey());
            s.count(2);
            p.a.qp.postSend(s);
            List<QpPair.Wc> sent = QpPair.take(p.a.cq, 2);
            assertEquals(31, sent.get(0).wrId(), "the read completes first: " + sent);
            assertEquals(WcOpcode.RDMA_READ, sent.get(0).opcode());
            assertEquals(32, sent.get(1).wrId(), sent.toString());
            for (QpPair.Wc wc : sent) {
                assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
            }
            QpPair.Wc received = QpPair.takeOne(p.b.cq);
            assertEquals(WcStatus.SUCCESS, received.status(), received.toString());
            assertEquals(data.length, received.byteLen());
            assertArrayEquals(data, p.b.mr.getBytes(20000, data.length), "the fenced send carried the read's bytes");
        }
    }

    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void completionQueueResizesWhereTheDeviceCan(String device) {
        try (DeviceContext ctx = Rdma.open(device); CompletionQueue cq = ctx.createCompletionQueue(16)) {
            assertTrue(cq.capacity() >= 16, "capacity " + cq.capacity());
            try {
                cq.resize(256);
            } catch (VerbsException e) {
                assertTrue(e.getMessage().startsWith("ibv_resize_cq failed"), e.getMessage());
                assumeTrue(!(e.errno() == Errno.EOPNOTSUPP || e.errno() == Errno.ENOSYS),
                        device + " cannot resize CQs: " + e.getMessage());
                throw e;
            }
            assertTrue(cq.capacity() >= 256, "capacity after resize(256): " + cq.capacity());
            cq.resize(32);
            assertTrue(cq.capacity() >= 32 && cq.capacity() < 256, "capacity after resize(32): " + cq.capacity());
        }
    }

    /**
     * Taking the iWARP device's net device down and up raises PORT_ERR and then PORT_ACTIVE (siw follows its
     * netdev's carrier). Only siw here: rxe's GID table follows the netdev too, and other tests rely on it.
     */
    @Test
    void portEventsFollowTheLink() throws InterruptedException {
        String netdev = Lab.env("FABRIC_LAB_SIW_NETDEV");
        BlockingQueue<AsyncEvent> events = new LinkedBlockingQueue<>();
        try (DeviceContext ctx = Rdma.open(Lab.iwarpDevice())) {
            ctx.setAsyncEventListener(events::add);
            try {
                Lab.run("ip", "link", "set", netdev, "down");
                AsyncEvent down = events.poll(20, TimeUnit.SECONDS);
                assertNotNull(down, "no async event within 20 s after " + netdev + " went down");
                assertEquals(AsyncEventType.PORT_ERR, down.type(), down.toString());
                assertEquals(1, down.port());
                assertEquals(PortState.DOWN, ctx.queryPort(1).state());
            } finally {
                Lab.run("ip", "link", "set", netdev, "up");
            }
            AsyncEvent up = events.poll(20, TimeUnit.SECONDS);
            assertNotNull(up, "no async event within 20 s after " + netdev + " came back up");
            assertEquals(AsyncEventType.PORT_ACTIVE, up.type(), up.toString());
            for (int i = 0; i < 100 && ctx.queryPort(1).state() != PortState.ACTIVE; i++) {
                Thread.sleep(100);
            }
            assertEquals(PortState.ACTIVE, ctx.queryPort(1).state());
        }
    }
}
