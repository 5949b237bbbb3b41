package org.verbs4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The README's main job as a user runs it, with no address and no RDMA device: {@code examples/bin/pingpong} runs
 * cm-pingpong between two JVMs over 127.0.0.1, verbs4j's software iWARP device {@code jsiw_lo}, checks every echo
 * and prints the round-trip latency. Runs on any machine: the README's test command runs it on the host, before the
 * lab (the lab's examples VM leaves it out: it needs no RDMA device). Where the lab's addresses are in the
 * environment they are taken out, so that the default applies.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class MainJobIT {
    static final int ITERS = 200;

    @Test
    void pingPongOnTheSoftwareDeviceWithNoArguments() throws Exception {
        PingPongLab.launcher(PingPongLab.Tool.RC); // fails clearly when the examples are not packaged
        String script = PingPongLab.moduleDir().resolve("bin/pingpong").toString();
        ProcessBuilder pb = new ProcessBuilder(script, "-n", Integer.toString(ITERS), "-p", "18590")
                .redirectErrorStream(true);
        pb.environment().remove("FABRIC_LAB_RXE_IP");
        pb.environment().remove("FABRIC_LAB_SIW_IP");
        pb.environment().put("VERBS4J_JAVA_OPTS", PingPongLab.JVM_OPTS);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(240, TimeUnit.SECONDS), out);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("=== verbs4j cm-pingpong via 127.0.0.1: " + ITERS + " round trips of 4096 bytes"), out);
        // the client checks every echo; pingpong exits 0 only when both sides did
        assertEquals(1, count(out, "data check: " + ITERS + " echoes of 4096 bytes matched"), out);
        // a second of warm-up first, not counted, which the server follows: as many echoes more
        java.util.regex.Matcher cw = CmPingPongIT.CLIENT_WARMUP.matcher(out);
        java.util.regex.Matcher sw = CmPingPongIT.SERVER_WARMUP.matcher(out);
        assertTrue(cw.find() && sw.find(), out);
        assertEquals(cw.group(1), sw.group(1), out);
        assertTrue(Long.parseLong(cw.group(1)) > 0, out);
        assertEquals(2, count(out, ITERS + " iters in "), out);
        String summary = out.substring(out.indexOf("=== ping-pong summary"));
        assertTrue(Pattern.compile("jsiw_lo \\(iwarp\\) +round trip \\[usec\\]: min [0-9.]+  median [0-9.]+ .*"
                + "one-way t_typical [0-9.]+").matcher(summary).find(), out);
    }

    private static int count(String text, String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }
}
