package org.verbs4j.bench.perf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.verbs4j.api.Gid;
import org.verbs4j.lab.Async;

/**
 * perftest's exchange formats: what C perftest's sprintf writes, what its sscanf reads, the binary
 * {@code pingpong_dest} of its rdma_cm exchange ({@code -R}), and bad input.
 */
class PerfWireTest {
    static final String PEER = "/10.0.0.2:18515";
    static final Gid GID = Gid.of(new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xff, (byte) 0xff, 10, 77, 0, 1});

    private static String text(byte[] b) {
        int n = 0;
        while (b[n] != 0) {
            n++;
        }
        return new String(b, 0, n, StandardCharsets.US_ASCII);
    }

    @Test
    void keysWithoutGidAreKeyPrintFmt() {
        byte[] b = PerfWire.keys(new PerfWire.Keys(1, 16, 0x11, 0xabcdef, 0x1234, 0x5555aaaa0000L, null, 0));
        assertEquals(PerfWire.KEY_MSG_SIZE, b.length);
        // "%04x:%04x:%06x:%06x:%08x:%016llx:%08x", 58 characters and the NUL
        assertEquals("0001:0010:000011:abcdef:00001234:00005555aaaa0000:00000000", text(b));
        assertEquals(0, b[58]);
    }

    @Test
    void keysWithGidAreKeyPrintFmtGid() {
        byte[] b = PerfWire.keys(new PerfWire.Keys(0, 16, 0x11, 0x22, 0x33, 0x7f00L, GID, 0));
        assertEquals(PerfWire.KEY_MSG_SIZE_GID, b.length);
        assertEquals("0000:0010:000011:000022:00000033:0000000000007f00:"
                + "00:00:00:00:00:00:00:00:00:00:ff:ff:0a:4d:00:01:00000000:", text(b));
        assertEquals(0, b[107]);
    }

    @Test
    void keysRoundTrip() {
        PerfWire.Keys k = new PerfWire.Keys(0xffff, 0x10, 0xffffff, 0x123456, 0xfedcba98, 0xffff800012345678L, GID, 7);
        assertEquals(k, PerfWire.parseKeys(PerfWire.keys(k), true, PEER));
        PerfWire.Keys n = new PerfWire.Keys(3, 1, 2, 4, 5, 6, null, 0);
        assertEquals(n, PerfWire.parseKeys(PerfWire.keys(n), false, PEER));
    }

    @Test
    void parsesWhatCPerftestWrites() {
        // as ib_send_lat 4.5-0.17 on rxe wrote it in the lab (GID index 1, IPv4-mapped)
        byte[] b = new byte[PerfWire.KEY_MSG_SIZE_GID];
        byte[] t = ("0000:0000:000013:5a1f3c:00000a2b:000055d1c3b4e000:"
                + "00:00:00:00:00:00:00:00:00:00:ff:ff:0a:4d:00:01:00000000:").getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(t, 0, b, 0, t.length);
        PerfWire.Keys k = PerfWire.parseKeys(b, true, PEER);
        assertEquals(0x13, k.qpn());
        assertEquals(0x5a1f3c, k.psn());
        assertEquals(0xa2b, k.rkey());
        assertEquals(0x55d1c3b4e000L, k.vaddr());
        assertEquals(GID, k.gid());
    }

    @Test
    void aMessageOfTheOtherKindSaysSo() {
        byte[] shortOne = PerfWire.keys(new PerfWire.Keys(1, 1, 1, 1, 1, 1, null, 0));
        byte[] padded = new byte[PerfWire.KEY_MSG_SIZE_GID];
        System.arraycopy(shortOne, 0, padded, 0, shortOne.length);
        PerfChannel.ExchangeException e = assertThrows(PerfChannel.ExchangeException.class,
                () -> PerfWire.parseKeys(padded, true, PEER));
        assertTrue(e.getMessage().contains("it has no GID") && e.getMessage().contains(PEER), e.getMessage());
    }

    @Test
    void garbageKeysAreRefusedNamingThePeer() {
        for (String bad : new String[] {"GET / HTTP/1.1", "0001:0010:000011:abcdef:00001234:zz:00000000",
                "0001:0010:1000000:abcdef:00001234:0:00000000", ":::::::", ""}) {
            byte[] b = new byte[PerfWire.KEY_MSG_SIZE];
            byte[] t = bad.getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(t, 0, b, 0, t.length);
            PerfChannel.ExchangeException e = assertThrows(PerfChannel.ExchangeException.class,
                    () -> PerfWire.parseKeys(b, false, PEER), bad);
            assertTrue(e.getMessage().contains(PEER), e.getMessage());
        }
        byte[] noNul = new byte[PerfWire.KEY_MSG_SIZE];
        java.util.Arrays.fill(noNul, (byte) '0');
        assertThrows(PerfChannel.ExchangeException.class, () -> PerfWire.parseKeys(noNul, false, PEER));
        byte[] binary = new byte[PerfWire.KEY_MSG_SIZE];
        binary[0] = (byte) 0x80;
        assertThrows(PerfChannel.ExchangeException.class, () -> PerfWire.parseKeys(binary, false, PEER));
    }

    @Test
    void versionAndItsCheck() {
        byte[] v = PerfWire.version();
        assertEquals(16, v.length);
        assertEquals("6.06", text(v));
        assertEquals(6.06, PerfWire.checkVersion(v, PEER), 1e-9);
        byte[] old = new byte[16];
        System.arraycopy("5.60".getBytes(StandardCharsets.US_ASCII), 0, old, 0, 4);
        PerfChannel.ExchangeException e = assertThrows(PerfChannel.ExchangeException.class,
                () -> PerfWire.checkVersion(old, PEER));
        assertTrue(e.getMessage().contains("5.70"), e.getMessage());
        byte[] junk = new byte[16];
        System.arraycopy("SSH-2.0-Open".getBytes(StandardCharsets.US_ASCII), 0, junk, 0, 12);
        assertThrows(PerfChannel.ExchangeException.class, () -> PerfWire.checkVersion(junk, PEER));
    }

    @Test
    void mtuIsOneDigitAndANul() {
        assertArrayEquals(new byte[] {'3', 0}, PerfWire.mtu(3));
        assertEquals(5, PerfWire.parseMtu(new byte[] {'5', 0}, PEER));
        assertThrows(PerfChannel.ExchangeException.class, () -> PerfWire.parseMtu(new byte[] {'9', 0}, PEER));
        assertThrows(PerfChannel.ExchangeException.class, () -> PerfWire.parseMtu(new byte[] {'3', '3'}, PEER));
    }

    @Test
    void sysDataAndReportsAreBigEndian() {
        assertArrayEquals(new byte[] {0, 0, 0x10, 0}, PerfWire.int32(4096));
        assertEquals(0x0102030405060708L, PerfWire.getLong(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}));
        assertEquals(1.5, PerfWire.getDouble(PerfWire.putDouble(1.5)));
        assertThrows(PerfChannel.ExchangeException.class,
                () -> PerfWire.checkReport(new BandwidthStats.Result(64, -1, 0, 1, 1), PEER));
        assertThrows(PerfChannel.ExchangeException.class,
                () -> PerfWire.checkReport(new BandwidthStats.Result(64, 1, Double.NaN, 1, 1), PEER));
    }

    /** A whole exchange between two channels on loopback: start, a handshake, the reports, done. */
    @Test
    void twoChannelsTalk() throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        CompletableFuture<Object[]> server = Async.supply(() -> {
            try (PerfChannel c = PerfChannel.serve(port)) {
                int mtu = c.start(5);
                PerfWire.Keys k = c.handshake(new PerfWire.Keys(0, 1, 2, 3, 4, 5, GID, 0), "keys");
                BandwidthStats.Result r = c.exchangeReports(null);
                c.finish();
                return new Object[] {mtu, k, r, c.peerDone()};
            }
        });
        Object[] s;
        try (PerfChannel c = PerfChannel.connect("127.0.0.1", port)) {
            assertEquals(3, c.start(3));
            PerfWire.Keys k = c.handshake(new PerfWire.Keys(0, 1, 9, 8, 7, 6, GID, 0), "keys");
            assertEquals(2, k.qpn());
            assertEquals(new BandwidthStats.Result(0, 0, 0, 0, 0),
                    c.exchangeReports(new BandwidthStats.Result(64, 200, 10.5, 9.5, 0.15)));
            c.finish();
            s = server.get(30, TimeUnit.SECONDS);
        }
        assertEquals(3, s[0]);
        assertEquals(9, ((PerfWire.Keys) s[1]).qpn());
        assertEquals(new BandwidthStats.Result(64, 200, 10.5, 9.5, 0.15), s[2]);
        assertEquals(true, s[3]);
    }

    /** A peer that is not perftest (here: one that greets like a web client) fails the start at once. */
    @Test
    void aPeerThatIsNotPerftestFailsTheStart() throws Exception {
        try (ServerSocket ss = new ServerSocket(0)) {
            CompletableFuture<Void> fake = Async.run(() -> {
                try (Socket s = ss.accept(); OutputStream o = s.getOutputStream(); InputStream i = s.getInputStream()) {
                    o.write("HTTP/1.1 200 OK\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    o.flush();
                    i.read(new byte[64]);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            try (PerfChannel c = PerfChannel.connect("127.0.0.1", ss.getLocalPort())) {
                PerfChannel.ExchangeException e = assertThrows(PerfChannel.ExchangeException.class, () -> c.start(3));
                assertTrue(e.getMessage().contains("127.0.0.1"), e.getMessage());
            }
            fake.get(10, TimeUnit.SECONDS);
        }
    }

    // ---- the rdma_cm exchange (-R): perftest's struct pingpong_dest, one message per field ----

    @Test
    void destIsPingpongDestBigEndian() {
        byte[] b = PerfWire.dest(new PerfWire.Keys(0x0102, 0x10, 0x123456, 0xabcdef, 0x89abcdef, 0x1122334455667788L, GID,
                0x01020304));
        assertEquals(56, b.length);
        ByteBuffer in = ByteBuffer.wrap(b);
        // lid, out_reads, qpn, psn, rkey; 4 bytes of padding; vaddr; gid; srqn; gid_index
        assertEquals(0x0102, in.getInt(0));
        assertEquals(0x10, in.getInt(4));
        assertEquals(0x123456, in.getInt(8));
        assertEquals(0xabcdef, in.getInt(12));
        assertEquals(0x89abcdef, in.getInt(16));
        assertEquals(0x1122334455667788L, in.getLong(24));
        assertArrayEquals(GID.raw(), java.util.Arrays.copyOfRange(b, 32, 48));
        assertEquals(0x01020304, in.getInt(48));
        assertEquals(0, in.getInt(52));
    }

    @Test
    void destRoundTripAndWithoutGid() {
        PerfWire.Keys k = new PerfWire.Keys(0xffff, 0xffff, 0xffffff, 0xffffff, 0xfedcba98, 0xffff800012345678L, GID, 7);
        assertEquals(k, PerfWire.parseDest(PerfWire.dest(k), true, PEER));
        PerfWire.Keys n = new PerfWire.Keys(3, 1, 2, 4, 5, 6, null, 0);
        assertEquals(n, PerfWire.parseDest(PerfWire.dest(n), false, PEER));
        // no GID sends zeros, and the side that uses one reads GID 0
        assertEquals(Gid.ZERO, PerfWire.parseDest(PerfWire.dest(n), true, PEER).gid());
    }

    @Test
    void parsesWhatCPerftestSends() {
        // rdma_write_keys: htobe32/htobe64 fields; the padding is stack bytes, gid_index its own (-1 here)
        ByteBuffer b = ByteBuffer.allocate(56);
        b.putInt(0).putInt(128).putInt(0x11).putInt(0x5a5a5a).putInt(0x1234).putInt(0xdeadbeef).putLong(0x7f0012340000L);
        b.put(GID.raw()).putInt(0).putInt(-1);
        PerfWire.Keys k = PerfWire.parseDest(b.array(), true, PEER);
        assertEquals(new PerfWire.Keys(0, 128, 0x11, 0x5a5a5a, 0x1234, 0x7f0012340000L, GID, 0), k);
        // the keys perftest sends before the rdma_cm connection: all zeros
        assertEquals(new PerfWire.Keys(0, 0, 0, 0, 0, 0, Gid.ZERO, 0), PerfWire.parseDest(new byte[56], true, PEER));
    }

    @Test
    void hostileDestIsRefusedNamingThePeer() {
        for (int len : new int[] {0, 1, 55, 57, 108}) {
            PerfChannel.ExchangeException e = assertThrows(PerfChannel.ExchangeException.class,
                    () -> PerfWire.parseDest(new byte[len], true, PEER));
            assertTrue(e.getMessage().contains(PEER) && e.getMessage().contains(len + " bytes"), e.getMessage());
        }
        int[][] bad = {{0, -1}, {0, 0x10000}, {4, 0x10000}, {8, 0x1000000}, {8, -1}, {12, 0x1000000}, {12, Integer.MIN_VALUE}};
        String[] names = {"LID", "LID", "OUT", "QPN", "QPN", "PSN", "PSN"};
        for (int i = 0; i < bad.length; i++) {
            byte[] b = new byte[56];
            ByteBuffer.wrap(b).putInt(bad[i][0], bad[i][1]);
            PerfChannel.ExchangeException e = assertThrows(PerfChannel.ExchangeException.class,
                    () -> PerfWire.parseDest(b, true, PEER));
            assertTrue(e.getMessage().contains(PEER) && e.getMessage().contains(" " + names[i] + " "), e.getMessage());
        }
        // perftest's text keys over rdma_cm are 108 bytes: refused by size, not parsed
        byte[] text = PerfWire.keys(new PerfWire.Keys(0, 1, 2, 3, 4, 5, GID, 0));
        assertThrows(PerfChannel.ExchangeException.class, () -> PerfWire.parseDest(text, true, PEER));
    }

    /** One side of an in-memory link: messages as whole arrays, each receive checks its size as the rdma_cm one. */
    private static final class MemoryLink implements PerfChannel.Link {
        final BlockingQueue<byte[]> in;
        final BlockingQueue<byte[]> out;
        final List<Integer> sent = new ArrayList<>();

        MemoryLink(BlockingQueue<byte[]> in, BlockingQueue<byte[]> out) {
            this.in = in;
            this.out = out;
        }

        @Override
        public void send(byte[] b, String what) {
            sent.add(b.length);
            out.add(b.clone());
        }

        @Override
        public byte[] receive(int size, String what) {
            byte[] b;
            try {
                b = in.poll(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            if (b == null || b.length != size) {
                throw new PerfChannel.ExchangeException("the peer at " + peer() + " sent "
                        + (b == null ? "nothing" : b.length + " bytes") + " at the " + what);
            }
            return b;
        }

        @Override
        public String peer() {
            return "memory";
        }

        @Override
        public void close() {
        }
    }

    /** A whole rdma_cm-format exchange: the sizes of perftest's SENDs, in order, and the values. */
    @Test
    void twoChannelsTalkInTheRdmaCmFormat() throws Exception {
        BlockingQueue<byte[]> toServer = new LinkedBlockingQueue<>();
        BlockingQueue<byte[]> toClient = new LinkedBlockingQueue<>();
        MemoryLink serverLink = new MemoryLink(toServer, toClient);
        MemoryLink clientLink = new MemoryLink(toClient, toServer);
        CompletableFuture<Object[]> server = Async.supply(() -> {
            PerfChannel c = PerfChannel.over(serverLink, false);
            int mtu = c.start(5);
            PerfWire.Keys k = c.handshake(new PerfWire.Keys(0, 1, 2, 3, 4, 5, GID, 0), "keys");
            BandwidthStats.Result r = c.exchangeReports(null);
            c.finish();
            return new Object[] {mtu, k, r};
        });
        PerfChannel c = PerfChannel.over(clientLink, true);
        assertEquals(3, c.start(3));
        assertEquals(2, c.handshake(new PerfWire.Keys(0, 1, 9, 8, 7, 6, GID, 0), "keys").qpn());
        assertEquals(new BandwidthStats.Result(0, 0, 0, 0, 0),
                c.exchangeReports(new BandwidthStats.Result(64, 200, 10.5, 9.5, 0.15)));
        c.finish();
        Object[] s = server.get(30, TimeUnit.SECONDS);
        assertEquals(3, s[0]);
        assertEquals(9, ((PerfWire.Keys) s[1]).qpn());
        assertEquals(new BandwidthStats.Result(64, 200, 10.5, 9.5, 0.15), s[2]);
        // version, page size, cache line, MTU, keys, the five report fields; no "done"
        List<Integer> sizes = List.of(16, 4, 4, 2, 56, 8, 8, 8, 8, 8);
        assertEquals(sizes, clientLink.sent);
        assertEquals(sizes, serverLink.sent);
        assertTrue(toServer.isEmpty() && toClient.isEmpty());
    }

    /** A peer whose keys are text (the TCP format) over rdma_cm fails at the key exchange, naming it. */
    @Test
    void aPeerSendingTheWrongSizeFailsNamingTheStep() throws Exception {
        BlockingQueue<byte[]> toServer = new LinkedBlockingQueue<>();
        BlockingQueue<byte[]> toClient = new LinkedBlockingQueue<>();
        PerfChannel c = PerfChannel.over(new MemoryLink(toClient, toServer), true);
        toClient.add(PerfWire.keys(new PerfWire.Keys(0, 1, 2, 3, 4, 5, GID, 0)));
        PerfChannel.ExchangeException e = assertThrows(PerfChannel.ExchangeException.class,
                () -> c.handshake(new PerfWire.Keys(0, 1, 9, 8, 7, 6, GID, 0), "start of rdma_cm"));
        assertTrue(e.getMessage().contains("start of rdma_cm") && e.getMessage().contains("108 bytes"), e.getMessage());
        // a version that is not perftest's, with the right size, fails the version check
        toClient.add("HTTP/1.1 200 OK\0".getBytes(StandardCharsets.US_ASCII));
        assertEquals(16, toClient.peek().length);
        assertThrows(PerfChannel.ExchangeException.class, () -> c.start(3));
    }
}
