package org.verbs4j.softiwarp.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The wire layer against Linux siw in the lab: rdma-core's C {@code rping} on siw0 as the active side (its MPA
 * Request, its first FPDU: the client's buffer advert SEND) and as the passive side (its MPA Reply, its RDMA READ
 * Request for our advert, its go-ahead SEND after our Read Response), with CRC off and on. siw in 6.1 asks for
 * no CRC itself; CRC is turned on from our side (C=1 in our Request or Reply), which siw follows.
 */
class SiwWireIT {
    private static String ip;

    @BeforeAll
    static void lab() {
        assumeTrue("1".equals(System.getenv("FABRIC_LAB")), "needs the fabric lab (siw0)");
        ip = System.getenv("FABRIC_LAB_SIW_IP");
    }

    private static Process rping(File log, String... args) throws IOException {
        String[] cmd = new String[args.length + 1];
        cmd[0] = "rping";
        System.arraycopy(args, 0, cmd, 1, args.length);
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log).start();
    }

    private static String tail(File log) throws IOException {
        return log.exists() ? Files.readString(log.toPath()) : "";
    }

    @ParameterizedTest(name = "crc={0}")
    @ValueSource(booleans = {false, true})
    void siwActiveAgainstJavaPassive(boolean crc) throws Exception {
        File log = File.createTempFile("rping-c", ".log");
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress(ip, 0))) {
            int port = ((InetSocketAddress) server.getLocalAddress()).getPort();
            Process client = rping(log, "-c", "-a", ip, "-p", Integer.toString(port), "-C", "1", "-S", "64", "-v");
            try {
                server.configureBlocking(false);
                SocketChannel ch = null;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (ch == null && System.nanoTime() < deadline) {
                    ch = server.accept();
                    if (ch == null) {
                        Thread.sleep(10);
                    }
                }
                assertTrue(ch != null, "siw never connected: " + tail(log));
                MpaSettings settings = MpaSettings.siwDefaults().withCrcRequired(crc).withIrdOrd(1, 1)
                        .withTimeoutMillis(10_000);
                MpaConnection.Incoming in = MpaConnection.awaitRequest(ch, settings);
                System.out.printf("siw MPA Request: revision %d, C=%b, IRD %d, ORD %d, %d bytes of ULP data%n",
                        in.revision(), in.crcRequested(), in.ird(), in.ord(), in.privateData().length);
                assertEquals(2, in.revision());
                assertEquals(false, in.crcRequested(), "siw asks for no CRC by default");
                try (MpaConnection c = in.accept(new byte[0])) {
                    assertEquals(crc, c.crcEnabled());
                    FirstSegment first = new FirstSegment();
                    pollUntil(c, first, log);
                    System.out.printf("siw first FPDU (CRC %s): %s%n", crc ? "checked" : "off", first);
                    assertEquals("U op=3 last=true qn=0 msn=1 mo=0 len=16", first.header);
                    assertEquals(64, first.payload.getInt(12), "rping's advert: {be64 buf, be32 rkey, be32 size}");
                }
            } finally {
                client.destroy();
                client.waitFor(5, TimeUnit.SECONDS);
                System.out.println("rping -c said: " + tail(log).replace('\n', '|'));
                log.delete();
            }
        }
    }

    @ParameterizedTest(name = "crc={0}")
    @ValueSource(booleans = {false, true})
    void javaActiveAgainstSiwPassive(boolean crc) throws Exception {
        File log = File.createTempFile("rping-s", ".log");
        int port = 7300 + (crc ? 1 : 0);
        Process serverProcess = rping(log, "-s", "-a", ip, "-p", Integer.toString(port), "-C", "1", "-S", "64",
                "-v");
        try {
            SocketChannel ch = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (ch == null) {
                try {
                    ch = SocketChannel.open(new InetSocketAddress(ip, port));
                } catch (ConnectException notYet) {
                    assertTrue(System.nanoTime() < deadline, "rping -s never listened: " + tail(log));
                    Thread.sleep(50);
                }
            }
            MpaSettings settings = MpaSettings.siwDefaults().withCrcRequired(crc).withIrdOrd(1, 1)
                    .withTimeoutMillis(10_000);
            try (MpaConnection c = MpaConnection.connect(ch, settings, new byte[0])) {
                System.out.printf("siw MPA Reply: C=%b, IRD %d, ORD %d, %d bytes of ULP data%n", c.crcEnabled(),
                        c.ird(), c.ord(), c.peerPrivateData().length);
                assertEquals(crc, c.crcEnabled(), "siw echoes our C bit");
                ByteBuffer advert = ByteBuffer.allocate(16).putLong(0x10000L).putInt(0x1234).putInt(64).flip();
                c.send(advert);
                FirstSegment read = new FirstSegment();
                pollUntil(c, read, log);
                System.out.printf("siw Read Request (CRC %s): %s%n", crc ? "checked" : "off", read);
                assertEquals(0x1234, read.sourceStag);
                assertEquals(0x10000L, read.sourceOffset);
                assertEquals(64, read.length);
                byte[] data = new byte[64];
                for (int i = 0; i < data.length; i++) {
                    data[i] = (byte) ('A' + i % 26);
                }
                c.readResponse(read.sinkStag, read.sinkOffset, ByteBuffer.wrap(data));
                FirstSegment goAhead = new FirstSegment();
                pollUntil(c, goAhead, log);
                System.out.printf("siw after our Read Response: %s%n", goAhead);
                assertTrue(goAhead.header.startsWith("U op=3 last=true qn=0 msn=1 mo=0"), goAhead.toString());
            }
        } finally {
            serverProcess.destroy();
            serverProcess.waitFor(5, TimeUnit.SECONDS);
            System.out.println("rping -s said: " + tail(log).replace('\n', '|'));
            log.delete();
        }
    }

    private static void pollUntil(MpaConnection c, FirstSegment sink, File log) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (sink.header == null) {
            int n = c.poll(sink);
            assertTrue(n >= 0 || sink.header != null, "siw closed or terminated: " + sink + " / " + tail(log));
            assertTrue(System.nanoTime() < deadline, "no FPDU from siw: " + tail(log));
            if (n == 0) {
                Thread.onSpinWait();
            }
        }
    }

    /** Keeps the first segment only. */
    private static final class FirstSegment implements FpduSink {
        String header;
        ByteBuffer payload;
        int sinkStag;
        long sinkOffset;
        int length;
        int sourceStag;
        long sourceOffset;

        @Override
        public void onTagged(int opcode, boolean last, int stag, long taggedOffset, ByteBuffer data) {
            if (header == null) {
                header = "T op=" + opcode + " last=" + last + " stag=" + stag + " to=" + taggedOffset + " len="
                        + data.remaining();
                payload = copy(data);
            }
        }

        @Override
        public void onUntagged(int opcode, boolean last, int queue, int msn, int messageOffset, int invalidateStag,
                               ByteBuffer data) {
            if (header == null) {
                header = "U op=" + opcode + " last=" + last + " qn=" + queue + " msn=" + msn + " mo=" + messageOffset
                        + " len=" + data.remaining();
                payload = copy(data);
            }
        }

        @Override
        public void onReadRequest(int msn, int sink, long sinkTo, int size, int source, long sourceTo) {
            if (header == null) {
                header = "RR msn=" + msn;
                sinkStag = sink;
                sinkOffset = sinkTo;
                length = size;
                sourceStag = source;
                sourceOffset = sourceTo;
            }
        }

        @Override
        public void onTerminate(int layer, int errorType, int errorCode, ByteBuffer headerCopy) {
            if (header == null) {
                header = "TERM layer=" + layer + " etype=" + errorType + " code=" + errorCode;
                payload = copy(headerCopy);
            }
        }

        private static ByteBuffer copy(ByteBuffer data) {
            return ByteBuffer.allocate(data.remaining()).put(data.duplicate()).flip();
        }

        @Override
        public String toString() {
            String hex = payload == null ? "" : " payload " + HexFormat.of().formatHex(payload.array());
            String rr = header != null && header.startsWith("RR") ? String.format(
                    " sink %#x/%#x size %d source %#x/%#x", sinkStag, sinkOffset, length, sourceStag, sourceOffset)
                    : "";
            return header + rr + hex;
        }
    }
}
