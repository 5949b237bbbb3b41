package org.verbs4j.examples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.verbs4j.api.Access;
import org.verbs4j.api.Opcode;
import org.verbs4j.api.QpAttrMask;
import org.verbs4j.api.QpState;
import org.verbs4j.api.QpType;
import org.verbs4j.api.Rdma;
import org.verbs4j.api.ReceiveRequests;
import org.verbs4j.api.SendFlags;
import org.verbs4j.api.SendRequests;
import org.verbs4j.api.WcOpcode;
import org.verbs4j.api.WcStatus;
import org.verbs4j.api.cm.CmId;
import org.verbs4j.api.cm.ConnectionManager;
import org.verbs4j.api.cm.ConnectionParameters;
import org.verbs4j.api.cm.ConnectionRequest;
import org.verbs4j.api.cm.PortSpace;
import org.verbs4j.examples.PingPongLab.PairRun;
import org.verbs4j.examples.PingPongLab.Run;
import org.verbs4j.lab.CmSide;
import org.verbs4j.lab.Lab;
import org.verbs4j.lab.QpPair;
import org.verbs4j.lab.QpPair.Wc;
import org.verbs4j.softiwarp.SoftIwarp;
import org.verbs4j.lab.Async;

/**
 * The software iWARP backend (verbs-softiwarp) against Linux's kernel siw (siw0) in the lab, data checked,
 * with MPA CRC32C on and off:
 * <ul>
 * <li>rdma-core's C {@code rping} on siw0 against {@code examples/bin/rping} on the software backend, each as the
 * server and as the client, {@code -v -V}, 23 B (rping's least) to 65535 B (the Java tool's most), 1000 pings at one
 * size and 20 or 30 at the others (the lab's emulation: about 12 ms a ping);</li>
 * <li>{@code cm-pingpong} on siw0 (libibverbs backend) against {@code cm-pingpong} on the software backend,
 * {@code -c}, each as the server;</li>
 * <li>in this JVM, both backends at once: one side connects to the other and RDMA WRITEs and READs 1 MiB, then
 * the passive side WRITEs and READs 1 MiB back; and a software passive side that Sends as soon as it accepted.</li>
 * </ul>
 * The processes' software device {@value #SOFT_DEVICE} sits on siw0's own netdev (fab1, 10.77.1.1): each process
 * uses one backend only, so the kernel's siw0 on the same netdev does not matter to it, and a TCP connection
 * between two ports of 10.77.1.1 is what siw and the Java side see on a real link. In this JVM, where libibverbs'
 * siw0 and the software device must own different addresses (rdma_cm ids go to the backend whose device owns
 * their address), the software device {@value #JVM_SOFT_DEVICE} sits on a dummy netdev of its own
 * ({@value #JVM_NETDEV}, {@value #JVM_SOFT_IP}).
 */
class SoftIwarpInteropIT {
    static final String SOFT_DEVICE = "jsiw0";
    static final String JVM_SOFT_DEVICE = "jsiw1";
    static final String JVM_NETDEV = "jsw0";
    static final String JVM_SOFT_IP = "10.77.2.1";
    static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final Pattern NEGOTIATED = Pattern.compile(
            "(connected|accepted) \\S+ (->|<-) \\S+ \\(IRD (\\d+), ORD (\\d+), CRC (true|false)\\)");
    private static final Pattern DESCRIBE = Pattern.compile(
            "  (server|client): device (\\S+) port 1, fabric (\\S+), (rdma_cm|TCP exchange), message (\\d+) bytes");

    static String siwIp() {
        return Lab.env("FABRIC_LAB_SIW_IP");
    }

    /**
     * The environment of a Java tool on the software backend: its one device on siw0's netdev, CRC asked for or not,
     * and SoftCmId's debug line that says what MPA negotiated ({@link #assertNegotiated}).
     */
    static Map<String, String> softEnv(boolean crc) {
        return Map.of("VERBS4J_JAVA_OPTS", "-Dverbs4j.backend=softiwarp -Dverbs4j.softiwarp.loopback=false "
                + "-Dverbs4j.softiwarp.devices=" + SOFT_DEVICE + "=" + Lab.env("FABRIC_LAB_SIW_NETDEV")
                + " -Dverbs4j.softiwarp.crc=" + crc
                + " -Dorg.slf4j.simpleLogger.log.org.verbs4j.softiwarp.SoftCmId=debug");
    }

    /** The software side's connection negotiated CRC as asked ("connected ... (IRD i, ORD o, CRC c)"). */
    static void assertNegotiated(Run soft, boolean crc, PairRun pr) {
        Matcher m = NEGOTIATED.matcher(soft.stderr());
        assertTrue(m.find(), "no MPA result in the software side's log\n" + pr.describe());
        assertEquals(Boolean.toString(crc), m.group(5), "MPA CRC\n" + pr.describe());
        System.out.println("  software side: " + m.group(0));
    }

    static Map<String, String> jnrEnv() {
        return Map.of("VERBS4J_JAVA_OPTS", "-Dverbs4j.backend=jnr");
    }

    /**
     * A server, then once {@code ready} holds (it listens) a client; both to their end (a server that outlives its
     * client by {@link RpingLab#SERVER_AFTER_CLIENT_SECONDS} is killed).
     */
    static PairRun pair(String name, List<String> serverCmd, Map<String, String> serverEnv, List<String> clientCmd,
            Map<String, String> clientEnv, Predicate<Path> ready) throws IOException, InterruptedException {
        Path dir = Files.createDirectories(PingPongLab.moduleDir().resolve("target/interop-it"));
        Path out = dir.resolve(name + "-server.out");
        Path err = dir.resolve(name + "-server.err");
        RpingLab.Server s = new RpingLab.Server(serverCmd, PingPongLab.start(serverCmd, out, err, serverEnv), out, err);
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(PingPongLab.PROCESS_TIMEOUT_SECONDS);
            while (!ready.test(out)) {
                if (!s.process().isAlive()) {
                    fail("the server exited before it listened:\n" + s.finish().describe());
                }
                if (System.nanoTime() > deadline) {
                    fail("the server did not listen in time:\n" + s.kill().describe());
                }
                Thread.sleep(100);
            }
            Path cOut = dir.resolve(name + "-client.out");
            Path cErr = dir.resolve(name + "-client.err");
            Run c = PingPongLab.finish(clientCmd, PingPongLab.start(clientCmd, cOut, cErr, clientEnv), cOut, cErr);
            return new PairRun(s.finish(RpingLab.SERVER_AFTER_CLIENT_SECONDS), c);
        } finally {
            if (s.process().isAlive()) {
                s.process().destroyForcibly();
            }
        }
    }

    /**
     * The server listens on {@code ip:port}: the software backend's TCP socket ({@code /proc/net/tcp}), or C rping's
     * rdma_cm id ({@code rdma resource show cm_id}, a process per look: under emulation only where needed).
     */
    static Predicate<Path> listensOn(boolean javaServer, String ip, int port) {
        return out -> {
            try {
                return javaServer ? PingPongLab.listening(port) : RpingLab.listening(ip, port);
            } catch (IOException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        };
    }

    // ---- rping ----

    /**
     * rping, C on siw0 against Java on the software backend, {@code -v -V}: both print exactly rping's ping data for
     * every ping (the server: what it READ from the client; the client: what the server WROTE back), C's {@code -V}
     * finds no mismatch, both end with 0.
     */
    @ParameterizedTest(name = "java {0}, crc {1}, -S {2} -C {3}")
    @CsvSource({
        "server, false, 64, 1000",
        "server, true, 65535, 20",
        "client, true, 23, 30",
        "client, false, 65535, 20"})
    void rpingAgainstSiw(String javaRole, boolean crc, int size, int count) throws Exception {
        boolean javaServer = javaRole.equals("server");
        String ip = siwIp();
        int port = RpingLab.nextPort();
        List<String> server = RpingLab.command(javaServer, RpingIT.serverArgs(ip, port, "-v", "-V", "-S", "" + size));
        List<String> client = RpingLab.command(!javaServer, RpingIT.clientArgs(ip, port, "-v", "-V", "-S", "" + size,
                "-C", "" + count));
        long t0 = System.nanoTime();
        PairRun pr = pair("rping-java-" + javaRole + "-crc-" + crc + "-" + size, server,
                javaServer ? softEnv(crc) : Map.of(), client, javaServer ? Map.of() : softEnv(crc),
                listensOn(javaServer, ip, port));
        assertEquals(0, pr.client().exit(), "client exit status\n" + pr.describe());
        assertEquals(0, pr.server().exit(), "server exit status\n" + pr.describe());
        assertEquals(RpingIT.pingLines("ping data: ", size, 0, count), pr.client().stdout().lines().toList(),
                "the client's ping data lines\n" + pr.describe());
        assertEquals(RpingIT.pingLines("server ping data: ", size, 0, count), pr.server().stdout().lines().toList(),
                "the server's ping data lines\n" + pr.describe());
        assertFalse(pr.client().stderr().contains("mismatch"), pr.describe());
        assertTrue(pr.server().stderr().contains("server DISCONNECT EVENT..."), pr.describe());
        Run java = javaServer ? pr.server() : pr.client();
        assertNegotiated(java, crc, pr);
        Matcher m = RpingIT.summary(javaServer ? RpingIT.SERVER_SUMMARY : RpingIT.CLIENT_SUMMARY, java);
        assertEquals(count, Integer.parseInt(m.group(1)), pr.describe());
        assertEquals(size, Integer.parseInt(m.group(2)), pr.describe());
        assertTrue(m.group(7) != null, "-V reported\n" + pr.describe());
        System.out.printf("rping java %s crc %b -S %d -C %d: %.1f s, java side: %s%n", javaRole, crc, size, count,
                (System.nanoTime() - t0) / 1e9, m.group(0));
    }

    // ---- cm-pingpong ----

    /** cm-pingpong on libibverbs' siw0 against cm-pingpong on the software backend, {@code -c}, both roles. */
    @ParameterizedTest(name = "java-soft {0}, crc {1}, -s {2}")
    @CsvSource({"server, true, 65536", "client, false, 1"})
    void cmPingPongAgainstSiw(String softRole, boolean crc, int size) throws Exception {
        boolean softServer = softRole.equals("server");
        String ip = siwIp();
        int port = PingPongLab.nextPort();
        int iters = 20;
        List<String> server = new ArrayList<>(List.of(CmPingPongIT.launcher(), "-b", ip, "-p", "" + port,
                "-s", "" + size, "-n", "" + iters, "-r", "4", "-c"));
        List<String> client = new ArrayList<>(List.of(CmPingPongIT.launcher(), "-p", "" + port, "-s", "" + size,
                "-n", "" + iters, "-r", "4", "-c", ip));
        PairRun pr = pair("cm-soft-" + softRole + "-crc-" + crc + "-" + size, server,
                softServer ? softEnv(crc) : jnrEnv(), client, softServer ? jnrEnv() : softEnv(crc), out -> {
                    try {
                        return Files.exists(out) && Files.readString(out, StandardCharsets.UTF_8)
                                .contains("waiting for a connection");
                    } catch (IOException e) {
                        return false;
                    }
                });
        assertEquals(0, pr.server().exit(), pr.describe());
        assertEquals(0, pr.client().exit(), pr.describe());
        for (Run r : List.of(pr.server(), pr.client())) {
            Matcher d = CmPingPongIT.find(DESCRIBE, r.stdout(), pr);
            boolean soft = (r == pr.server()) == softServer;
            assertEquals(soft ? SOFT_DEVICE : Lab.env("FABRIC_LAB_SIW_DEV"), d.group(2), pr.describe());
            assertEquals("iwarp", d.group(3), pr.describe());
            assertEquals("rdma_cm", d.group(4), pr.describe());
            assertEquals(size, Integer.parseInt(d.group(5)), pr.describe());
            Matcher b = CmPingPongIT.find(PingPongLab.BYTES, r.stdout(), pr);
            assertEquals(2L * size * iters, Long.parseLong(b.group(1)), pr.describe());
            Matcher it = CmPingPongIT.find(PingPongLab.ITERS, r.stdout(), pr);
            assertEquals(iters, Integer.parseInt(it.group(1)), pr.describe());
        }
        assertTrue(pr.client().stdout().contains("data check: " + iters + " echoes of " + size + " bytes matched"),
                pr.describe());
        assertNegotiated(softServer ? pr.server() : pr.client(), crc, pr);
    }

    // ---- 1 MiB RDMA WRITE and READ, in this JVM ----

    static final int MIB = 1 << 20;

    static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        int x = seed * 0x9E3779B1;
        for (int i = 0; i < length; i++) {
            x = x * 1103515245 + 12345;
            b[i] = (byte) (x >>> 16);
        }
        return b;
    }

    /** Runs {@code args} (ip ...) and fails on a non-zero status unless {@code ok} accepts its output. */
    static void sh(Predicate<String> ok, String... args) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(args).redirectErrorStream(true).start();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), String.join(" ", args));
        if (p.exitValue() != 0 && !ok.test(text)) {
            fail(String.join(" ", args) + " -> " + p.exitValue() + ": " + text);
        }
    }

    /** The dummy netdev of the software device of this JVM, and the device (once). */
    static synchronized void jvmSoftDevice() throws IOException, InterruptedException {
        if (Rdma.devices().stream().anyMatch(d -> d.name().equals(JVM_SOFT_DEVICE))) {
            return;
        }
        sh(t -> t.contains("File exists"), "ip", "link", "add", JVM_NETDEV, "type", "dummy");
        sh(t -> t.contains("File exists"), "ip", "addr", "add", JVM_SOFT_IP + "/24", "dev", JVM_NETDEV);
        sh(t -> false, "ip", "link", "set", JVM_NETDEV, "up");
        SoftIwarp.addDevice(JVM_SOFT_DEVICE, JVM_NETDEV);
    }

    /** One-sided 1 MiB from {@code from} into {@code to}, then a Send that {@code to} receives (the data is placed). */
    static void oneSided(CmSide from, CmSide to, Opcode op, long localOffset, long remoteOffset) {
        try (SendRequests s = SendRequests.allocate(2, 1); ReceiveRequests r = ReceiveRequests.allocate(1, 1)) {
            r.at(0).wrId(0x52).sge(to.mr.address() + 2L * MIB, 64, to.mr.lkey());
            to.qp.postReceive(r);
            s.at(0).wrId(0x51).opcode(op).flags(SendFlags.SIGNALED).sge(from.mr.address() + localOffset, MIB,
                    from.mr.lkey()).rdma(to.mr.address() + remoteOffset, to.mr.rkey());
            from.qp.postSend(s);
            Wc w = QpPair.takeOne(from.cq);
            assertEquals(WcStatus.SUCCESS, w.status(), op + " on " + from.id.context().device().name() + ": " + w);
            assertEquals(op == Opcode.RDMA_READ ? WcOpcode.RDMA_READ : WcOpcode.RDMA_WRITE, w.opcode(), w.toString());
            assertEquals(MIB, w.byteLen(), w.toString());
            s.at(0).wrId(0x53).opcode(Opcode.SEND).flags(SendFlags.SIGNALED).sge(from.mr.address() + 3L * MIB, 16,
                    from.mr.lkey());
            from.qp.postSend(s);
            Wc sent = QpPair.takeOne(from.cq);
            assertEquals(WcStatus.SUCCESS, sent.status(), sent.toString());
            Wc got = QpPair.takeOne(to.cq);
            assertEquals(WcStatus.SUCCESS, got.status(), got.toString());
            assertEquals(16, got.byteLen(), got.toString());
        }
    }

    /**
     * The software device and siw0 connect through rdma_cm in this JVM (both backends at once; {@code active} says
     * which side connects), then the active side RDMA WRITEs 1 MiB into the passive side's region and RDMA READs
     * 1 MiB of it, and the passive side does the same back. Every byte is compared.
     */
    @ParameterizedTest(name = "active {0}, crc {1}")
    @CsvSource({"software, true", "siw, false"})
    void oneMebibyteReadAndWriteBothWays(String active, boolean crc) throws Exception {
        jvmSoftDevice();
        System.setProperty("verbs4j.softiwarp.crc", Boolean.toString(crc)); // read when the software manager is made
        boolean softActive = active.equals("software");
        InetAddress softIp = InetAddress.getByName(JVM_SOFT_IP);
        InetAddress siwIp = InetAddress.getByName(siwIp());
        InetSocketAddress server = new InetSocketAddress(softActive ? siwIp : softIp, RpingLab.nextPort());
        int access = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ;
        ConnectionParameters params = ConnectionParameters.defaults().withResponderResources(4).withInitiatorDepth(4);
        long t0 = System.nanoTime();
        try (ConnectionManager cm = Rdma.connectionManager()) {
            CmId listener = CmSide.listen(cm, PortSpace.TCP, server);
            CmSide first = null;
            CmSide second = null;
            try {
                CmId id = cm.createId();
                id.bind(new InetSocketAddress(softActive ? softIp : siwIp, 0));
                id.resolveAddress(server, TIMEOUT);
                id.resolveRoute(TIMEOUT);
                first = new CmSide(id, QpType.RC, 16, 4 * MIB, access);
                CmSide connector = first;
                CompletableFuture<byte[]> connecting = Async.supply(
                        () -> connector.id.connect(params, TIMEOUT));
                ConnectionRequest req = listener.awaitRequest(TIMEOUT);
                second = new CmSide(req.id(), QpType.RC, 16, 4 * MIB, access);
                second.id.accept(params);
                second.id.awaitEstablished(TIMEOUT);
                connecting.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                assertEquals(softActive ? JVM_SOFT_DEVICE : Lab.env("FABRIC_LAB_SIW_DEV"), first.ctx.device().name());
                assertEquals(softActive ? Lab.env("FABRIC_LAB_SIW_DEV") : JVM_SOFT_DEVICE, second.ctx.device().name());
                String from = softActive ? "software" : "siw";
                String to = softActive ? "siw" : "software";

                byte[] a = pattern(MIB, 1);
                byte[] b = pattern(MIB, 2);
                first.mr.putBytes(0, a);
                second.mr.putBytes(MIB, b);
                oneSided(first, second, Opcode.RDMA_WRITE, 0, 0);
                assertArrayEquals(a, second.mr.getBytes(0, MIB), from + " WRITE 1 MiB -> " + to);
                oneSided(first, second, Opcode.RDMA_READ, MIB, MIB);
                assertArrayEquals(b, first.mr.getBytes(MIB, MIB), from + " READ 1 MiB <- " + to);

                byte[] c = pattern(MIB, 3);
                byte[] d = pattern(MIB, 4);
                second.mr.putBytes(0, c);
                first.mr.putBytes(MIB, d);
                oneSided(second, first, Opcode.RDMA_WRITE, 0, 0);
                assertArrayEquals(c, first.mr.getBytes(0, MIB), to + " WRITE 1 MiB -> " + from);
                oneSided(second, first, Opcode.RDMA_READ, MIB, MIB);
                assertArrayEquals(d, second.mr.getBytes(MIB, MIB), to + " READ 1 MiB <- " + from);
                System.out.printf("1 MiB WRITE and READ each way, %s active, crc %b: %.1f s%n", active, crc,
                        (System.nanoTime() - t0) / 1e9);
                first.id.disconnect();
            } finally {
                CmSide.closeAll(first, second, listener);
            }
        }
    }

    /**
     * The software side is passive and Sends the moment its accept returns, before siw (active) has read the MPA
     * Reply: siw must still connect (it refuses bytes behind the Reply in the same read, EPROTO) and receive the
     * Send.
     */
    @Test
    void aSoftwarePassiveSideThatSendsAtOnce() throws Exception {
        jvmSoftDevice();
        System.setProperty("verbs4j.softiwarp.crc", "false");
        InetSocketAddress server = new InetSocketAddress(InetAddress.getByName(JVM_SOFT_IP), RpingLab.nextPort());
        int access = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ;
        ConnectionParameters params = ConnectionParameters.defaults().withResponderResources(1).withInitiatorDepth(1);
        try (ConnectionManager cm = Rdma.connectionManager(); SendRequests s = SendRequests.allocate(1, 1);
                ReceiveRequests r = ReceiveRequests.allocate(1, 1)) {
            CmId listener = CmSide.listen(cm, PortSpace.TCP, server);
            CmSide siw = null;
            CmSide soft = null;
            try {
                CmId id = cm.createId();
                id.bind(new InetSocketAddress(InetAddress.getByName(siwIp()), 0));
                id.resolveAddress(server, TIMEOUT);
                id.resolveRoute(TIMEOUT);
                siw = new CmSide(id, QpType.RC, 16, 4096, access);
                r.at(0).wrId(0x61).sge(siw.mr.address(), 64, siw.mr.lkey());
                siw.qp.postReceive(r);
                CmSide connector = siw;
                CompletableFuture<byte[]> connecting = Async.supply(
                        () -> connector.id.connect(params, TIMEOUT));
                ConnectionRequest req = listener.awaitRequest(TIMEOUT);
                soft = new CmSide(req.id(), QpType.RC, 16, 4096, access);
                soft.mr.putBytes(0, "sent at once".getBytes(StandardCharsets.US_ASCII));
                s.at(0).wrId(0x62).opcode(Opcode.SEND).flags(SendFlags.SIGNALED).sge(soft.mr.address(), 12,
                        soft.mr.lkey());
                soft.id.accept(params);
                soft.qp.postSend(s);
                connecting.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                Wc got = QpPair.takeOne(siw.cq);
                assertEquals(WcStatus.SUCCESS, got.status(), got.toString());
                assertEquals("sent at once", new String(siw.mr.getBytes(0, 12), StandardCharsets.US_ASCII));
                Wc sent = QpPair.takeOne(soft.cq);
                assertEquals(WcStatus.SUCCESS, sent.status(), sent.toString());
                siw.id.disconnect();
            } finally {
                CmSide.closeAll(siw, soft, listener);
            }
        }
    }

    /** Polls {@code qp}'s state until it is ERR or {@code millis} passed; returns the last state seen. */
    static QpState awaitError(CmSide side, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        QpState st;
        while ((st = side.qp.query(QpAttrMask.STATE).state()) != QpState.ERR && System.nanoTime() - deadline < 0) {
            Thread.sleep(20);
        }
        return st;
    }

    /**
     * Protection across the two implementations: a one-sided operation with a wrong remote key. {@code from} does
     * {@code op} against {@code to}'s region with its rkey + 1 (no such STag): the target refuses it with a
     * Terminate and no byte of its region changes; the Terminate ends the connection, so the source's operation (a
     * READ) or its next signaled Send (after a WRITE) completes with an error, and the software side's QP (the
     * one that sent the Terminate or received it) is in ERR. When the software side READs, the error is siw's
     * refusal itself, as its Terminate spells it (see below). When siw WRITEs, siw's QP leaves RTS.
     */
    @ParameterizedTest(name = "{0} from the {1} side")
    @CsvSource({"RDMA_READ, software", "RDMA_WRITE, software", "RDMA_READ, siw", "RDMA_WRITE, siw"})
    void aWrongRemoteKeyIsTerminatedEachWay(Opcode op, String source) throws Exception {
        jvmSoftDevice();
        System.setProperty("verbs4j.softiwarp.crc", "true");
        boolean softSource = source.equals("software");
        InetAddress softIp = InetAddress.getByName(JVM_SOFT_IP);
        InetAddress siwIp = InetAddress.getByName(siwIp());
        // the source connects: its address binds the id, the target's listens
        InetSocketAddress server = new InetSocketAddress(softSource ? siwIp : softIp, RpingLab.nextPort());
        int access = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ;
        ConnectionParameters params = ConnectionParameters.defaults().withResponderResources(1).withInitiatorDepth(1);
        try (ConnectionManager cm = Rdma.connectionManager(); SendRequests s = SendRequests.allocate(1, 1)) {
            CmId listener = CmSide.listen(cm, PortSpace.TCP, server);
            CmSide from = null;
            CmSide to = null;
            try {
                CmId id = cm.createId();
                id.bind(new InetSocketAddress(softSource ? softIp : siwIp, 0));
                id.resolveAddress(server, TIMEOUT);
                id.resolveRoute(TIMEOUT);
                from = new CmSide(id, QpType.RC, 16, 8192, access);
                CmSide connector = from;
                CompletableFuture<byte[]> connecting = Async.supply(
                        () -> connector.id.connect(params, TIMEOUT));
                ConnectionRequest req = listener.awaitRequest(TIMEOUT);
                to = new CmSide(req.id(), QpType.RC, 16, 8192, access);
                to.id.accept(params);
                to.id.awaitEstablished(TIMEOUT);
                connecting.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                byte[] target = pattern(4096, 7);
                to.mr.putBytes(0, target);
                byte[] own = pattern(4096, 8);
                from.mr.putBytes(0, own);
                String what = op + " with a wrong rkey from " + source + " to " + (softSource ? "siw" : "software");

                s.at(0).wrId(0x71).opcode(op).flags(SendFlags.SIGNALED).sge(from.mr.address(), 4096, from.mr.lkey())
                        .rdma(to.mr.address(), to.mr.rkey() + 1);
                from.qp.postSend(s);
                Wc w = QpPair.takeOne(from.cq);
                if (op == Opcode.RDMA_WRITE && w.status() == WcStatus.SUCCESS) {
                    // a WRITE completes when sent: the next signaled message meets the Terminate's end
                    s.at(0).wrId(0x72).opcode(Opcode.SEND).flags(SendFlags.SIGNALED)
                            .sge(from.mr.address(), 16, from.mr.lkey());
                    Thread.sleep(500);
                    try {
                        from.qp.postSend(s);
                    } catch (RuntimeException e) {
                        w = null; // the QP is already in ERR: posting is refused (the software side says so)
                    }
                    if (w != null) {
                        List<Wc> got = QpPair.drain(from.cq, 10_000);
                        QpState st = from.qp.query(QpAttrMask.STATE).state();
                        if (got.isEmpty() && !softSource) {
                            // Linux siw, told by a Terminate and then a close: its QP goes to IDLE (reported as
                            // RESET) and the Send posted meanwhile never completes (pinned; siw drops it)
                            assertNotEquals(QpState.RTS, st, what + ": siw's QP stayed in RTS");
                            w = null;
                        } else {
                            assertFalse(got.isEmpty(), what + ": no completion for the Send after it in 10 s; "
                                    + source + "'s QP is " + st);
                            w = got.get(0);
                        }
                    }
                }
                assertTrue(w == null || w.status() != WcStatus.SUCCESS, what + ": the source saw no error: " + w);
                if (softSource && op == Opcode.RDMA_READ) {
                    // siw refuses the Read with RDMAP / remote protection / invalid STag, but its Terminate control
                    // word is a little-endian bitfield: the layer and type nibbles come swapped (0x10, RFC 5040
                    // order 0x01), which reads as DDP / local catastrophic: a remote operation error (pinned)
                    assertEquals(WcStatus.REM_OP_ERR, w.status(), what + ": " + w);
                }
                CmSide soft = softSource ? from : to;
                assertEquals(QpState.ERR, awaitError(soft, 10_000), what + ": the software side's QP");
                assertArrayEquals(target, to.mr.getBytes(0, 4096), what + ": the target's region changed");
                if (op == Opcode.RDMA_READ) {
                    assertArrayEquals(own, from.mr.getBytes(0, 4096), what + ": the source's buffer changed");
                }
                System.out.printf("%s: source %s, software QP ERR%n", what, w);
            } finally {
                CmSide.closeAll(from, to, listener);
            }
        }
    }
}
