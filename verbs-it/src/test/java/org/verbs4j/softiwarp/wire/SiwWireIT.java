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
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The wire layer against Linux siw in the lab: rdma-core's C {@code rping} on siw0 as the active side (its MPA
 * Request, its first FPDU: the client's buffer advert SEND) and as the passive side (its MPA Reply, its RDMA READ
 * Request for our advert, its go-ahead SEND after our Read Response), with CRC off and on. siw in 6.1 asks for
 * no CRC itself; CRC is turned on from our side (C=1 in our Request or Reply), which siw follows.
 */
class SiwWireIT {
    /**
     * How long the Java initiator waits for siw's MPA Reply (siw's own initiator waits 10 s). siw replies once rping
     * has accepted: in the emulated guest, with the other lab VM busy, that took more than 10 s, and once (CI,
     * 2026-12-06, rping had printed nothing) more than 30 s.
     */
    static final long REPLY_MILLIS = 60_000;

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

    /** rping's output, one line, at most 300 characters (with -v it prints every ping's data). */
    /** Connects to the rping server listening (soon) on {@code port}: tried for 20 s. */
    private static SocketChannel connectToRpingServer(int port, File log) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try {
                return SocketChannel.open(new InetSocketAddress(ip, port));
            } catch (ConnectException notYet) {
                assertTrue(System.nanoTime() < deadline, "rping -s never listened: " + tail(log));
                Thread.sleep(50);
            }
        }
    }

    private static String tail(File log) throws IOException {
        String all = log.exists() ? Files.readString(log.toPath()).replace('\n', '|') : "";
        return all.length() <= 300 ? all : all.substring(0, 150) + " ... " + all.substring(all.length() - 150);
    }

    @ParameterizedTest(name = "crc={0} size={1}")
    @CsvSource({"false,64", "true,64", "false,16384", "true,16384"})
    void siwActiveAgainstJavaPassive(boolean crc, int size) throws Exception {
        File log = File.createTempFile("rping-c", ".log");
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress(ip, 0))) {
            int port = ((InetSocketAddress) server.getLocalAddress()).getPort();
            Process client = rping(log, "-c", "-a", ip, "-p", Integer.toString(port), "-C", "1", "-S", Integer.toString(size), "-v");
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
                    assertEquals(size, first.payload.getInt(12), "rping's advert: {be64 buf, be32 rkey, be32 size}");
                    // read the advertised buffer: siw segments the Read Response as it likes (one FPDU on lo)
                    c.readRequest(0x99, 0, size, first.payload.getInt(8), first.payload.getLong(0));
                    Collecting response = new Collecting();
                    long deadline2 = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                    while (!response.last) {
                        assertTrue(c.poll(response) >= 0 && System.nanoTime() < deadline2, "no Read Response: "
                                + response.bytes.size() + " bytes, " + tail(log));
                    }
                    System.out.printf("siw Read Response (CRC %s): %d FPDUs, %d bytes, first %s%n",
                            crc ? "checked" : "off", response.segments, response.bytes.size(),
                            response.bytes.toString(java.nio.charset.StandardCharsets.US_ASCII)
                                    .substring(0, Math.min(24, response.bytes.size())));
                    assertEquals(size, response.bytes.size());
                    assertTrue(response.bytes.toString(java.nio.charset.StandardCharsets.US_ASCII)
                            .startsWith("rdma-ping-0: "), "rping's ping data");
                }
            } finally {
                client.destroy();
                client.waitFor(5, TimeUnit.SECONDS);
                System.out.println("rping -c said: " + tail(log));
                log.delete();
            }
        }
    }

    @ParameterizedTest(name = "crc={0} size={1}")
    @CsvSource({"false,64", "true,64", "false,16384", "true,16384"})
    void javaActiveAgainstSiwPassive(boolean crc, int size) throws Exception {
        File log = File.createTempFile("rping-s", ".log");
        int port = 7300 + (crc ? 1 : 0) + (size > 64 ? 2 : 0);
        Process serverProcess = rping(log, "-s", "-a", ip, "-p", Integer.toString(port), "-C", "1", "-S",
                Integer.toString(size), "-v");
        try {
            SocketChannel ch = connectToRpingServer(port, log);
            // siw replies when rping has accepted, after it made its verbs objects: in the emulated guest, with the
            // other lab VM busy, once more than 10 s after the TCP connect (rping had printed nothing yet)
            MpaSettings settings = MpaSettings.siwDefaults().withCrcRequired(crc).withIrdOrd(1, 1)
                    .withTimeoutMillis(REPLY_MILLIS);
            try (MpaConnection c = MpaConnection.connect(ch, settings, new byte[0])) {
                System.out.printf("siw MPA Reply: C=%b, IRD %d, ORD %d, %d bytes of ULP data%n", c.crcEnabled(),
                        c.ird(), c.ord(), c.peerPrivateData().length);
                assertEquals(crc, c.crcEnabled(), "siw echoes our C bit");
                ByteBuffer advert = ByteBuffer.allocate(16).putLong(0x10000L).putInt(0x1234).putInt(size).flip();
                c.send(advert);
                FirstSegment read = new FirstSegment();
                pollUntil(c, read, log);
                System.out.printf("siw Read Request (CRC %s): %s%n", crc ? "checked" : "off", read);
                assertEquals(0x1234, read.sourceStag);
                assertEquals(0x10000L, read.sourceOffset);
                assertEquals(size, read.length);
                // segmented at MSS 1448 as siw would on Ethernet: 1428 bytes per FPDU
                byte[] data = new byte[size];
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
            System.out.println("rping -s said: " + tail(log));
            log.delete();
        }
    }

    @org.junit.jupiter.api.Test
    void siwTerminatesAnOpcodeItDoesNotKnow() throws Exception {
        File log = File.createTempFile("rping-s", ".log");
        int port = 7310;
        Process serverProcess = rping(log, "-s", "-a", ip, "-p", Integer.toString(port), "-C", "1", "-v");
        try {
            SocketChannel ch = connectToRpingServer(port, log);
            try (MpaConnection c = MpaConnection.connect(ch, MpaSettings.siwDefaults().withIrdOrd(1, 1)
                    .withTimeoutMillis(REPLY_MILLIS), new byte[0])) {
                // RFC 7306 Immediate Data (opcode 8), which siw 6.1 does not have: written past the connection
                ByteBuffer frame = ByteBuffer.allocate(64);
                DdpSegmenter s = new DdpSegmenter(false, 1024);
                s.startUntagged(Rdmap.IMMEDIATE, Ddp.QN_SEND, 1, 0, ByteBuffer.allocate(8));
                assertTrue(s.writeTo(frame));
                frame.flip();
                while (frame.hasRemaining()) {
                    ch.write(frame);
                }
                FirstSegment term = new FirstSegment();
                pollUntil(c, term, log);
                System.out.printf("siw's answer to opcode 8: %s (first control byte as sent: %#04x)%n", term,
                        term.controlByte);
                assertTrue(term.header.startsWith("TERM"), term.toString());
                // siw 6.1 writes the control word as a host-order bitfield: etype in the high nibble on x86
                // (0x20 for RDMAP / remote operation error), not RFC 5040's layer-first order
                assertEquals(6, term.errorCode, "unexpected opcode");
            }
        } finally {
            serverProcess.destroy();
            serverProcess.waitFor(5, TimeUnit.SECONDS);
            System.out.println("rping -s said: " + tail(log));
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

    /** Collects tagged payload until a last segment. */
    private static final class Collecting implements FpduSink {
        final java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        int segments;
        boolean last;

        @Override
        public void onTagged(int opcode, boolean isLast, int stag, long taggedOffset, ByteBuffer data) {
            assertEquals(Rdmap.READ_RESPONSE, opcode);
            assertEquals(0x99, stag);
            assertEquals(bytes.size(), taggedOffset);
            segments++;
            last = isLast;
            while (data.hasRemaining()) {
                bytes.write(data.get());
            }
        }

        @Override
        public void onUntagged(int opcode, boolean isLast, int queue, int msn, int offset, int inv, ByteBuffer d) {
            throw new AssertionError("untagged opcode " + opcode + " before the Read Response");
        }

        @Override
        public void onReadRequest(int msn, int sink, long sinkTo, int size, int source, long sourceTo) {
            throw new AssertionError("Read Request before the Read Response");
        }

        @Override
        public void onTerminate(int layer, int errorType, int errorCode, ByteBuffer headerCopy) {
            throw new AssertionError("Terminate " + layer + "/" + errorType + "/" + errorCode);
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

        int controlByte;
        int errorCode;

        @Override
        public void onTerminate(int layer, int errorType, int code, ByteBuffer headerCopy) {
            if (header == null) {
                controlByte = layer << 4 | errorType;
                errorCode = code;
                header = "TERM layer=" + layer + " etype=" + errorType + " code=" + code;
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
