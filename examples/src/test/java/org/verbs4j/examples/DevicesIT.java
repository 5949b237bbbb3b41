package org.verbs4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.verbs4j.api.Rdma;
import org.verbs4j.examples.PingPongLab.Run;

/**
 * {@code examples/bin/devices} against rdma-core's {@code ibv_devinfo} on the lab's rxe0 and siw0: the same
 * text line for line, with and without {@code -v}; and one line on standard error with an errno exit status,
 * never a stack trace, for a device that is not there. Each run starts a JVM (about 14 s under the lab's
 * TCG), so the runs cover every device at once.
 */
class DevicesIT {
    /**
     * The only lines allowed to differ between the two runs: counters of packets the port dropped, which may
     * grow between {@code ibv_devinfo}'s query and ours. They are compared in form only.
     */
    private static final Pattern COUNTER = Pattern.compile("\\t\\t\\t(bad_pkey_cntr|qkey_viol_cntr):\\t\\t0x[0-9a-f]+");

    private static Run devices(String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(PingPongLab.moduleDir().resolve("bin/devices").toString());
        cmd.addAll(List.of(args));
        PingPongLab.launcher(PingPongLab.Tool.RC); // fails clearly when the examples are not packaged
        // libibverbs' devices only, as ibv_devinfo lists them (verbs4j also lists its software device jsiw_lo)
        return PingPongLab.run(cmd, Map.of("VERBS4J_JAVA_OPTS", "-D" + Rdma.BACKEND_PROPERTY + "=jnr"));
    }

    private static Run ibvDevinfo(String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add("ibv_devinfo");
        cmd.addAll(List.of(args));
        return PingPongLab.run(cmd, Map.of());
    }

    /** Runs both with {@code args}, asserts the same text line for line, and returns it. */
    private static String sameText(String... args) throws Exception {
        Run c = ibvDevinfo(args);
        Run java = devices(args);
        assertEquals(0, c.exit(), c.describe());
        assertEquals(0, java.exit(), java.describe());
        assertEquals("", java.stderr(), java.describe());
        String[] expected = c.stdout().split("\n", -1);
        String[] actual = java.stdout().split("\n", -1);
        for (int i = 0; i < Math.min(expected.length, actual.length); i++) {
            if (COUNTER.matcher(expected[i]).matches()) {
                assertTrue(COUNTER.matcher(actual[i]).matches()
                        && actual[i].startsWith(expected[i].substring(0, expected[i].indexOf(':'))),
                        "line " + (i + 1) + ": " + actual[i] + "\n" + c.describe() + java.describe());
                continue;
            }
            assertEquals(expected[i], actual[i], String.join(" ", args) + ", line " + (i + 1) + "\n" + c.describe()
                    + "\n" + java.describe());
        }
        assertEquals(expected.length, actual.length, "line count\n" + c.describe() + "\n" + java.describe());
        return java.stdout();
    }

    /** Every device of the lab (rxe0 and siw0) in one run, so that the suite starts few JVMs. */
    @Test
    void verboseIsIbvDevinfoVerboseOnSoftRoceAndSoftIwarp() throws Exception {
        String text = sameText("-v");
        assertTrue(text.contains("hca_id:\t" + PingPongLab.roceDevice() + "\n")
                && text.contains("hca_id:\t" + PingPongLab.iwarpDevice() + "\n"), text);
        assertTrue(text.contains(", RoCE v2\n") && text.contains("\tnum_comp_vectors:"), text);
    }

    @Test
    void withoutVerboseItIsIbvDevinfosToo() throws Exception {
        sameText();
    }

    /** Without a backend named, verbs4j lists libibverbs' devices first, then its own software iWARP device. */
    @Test
    void theSoftwareDeviceIsListedAfterLibibverbsDevices() throws Exception {
        List<String> cmd = List.of(PingPongLab.moduleDir().resolve("bin/devices").toString());
        Run all = PingPongLab.run(cmd, Map.of());
        assertEquals(0, all.exit(), all.describe());
        String out = all.stdout();
        int rxe = out.indexOf("hca_id:\t" + PingPongLab.roceDevice() + "\n");
        int siw = out.indexOf("hca_id:\t" + PingPongLab.iwarpDevice() + "\n");
        int soft = out.indexOf("hca_id:\tjsiw_lo\n");
        assertTrue(rxe >= 0 && siw >= 0 && soft > rxe && soft > siw, all.describe());
        assertTrue(out.substring(soft).contains("transport:\t\t\tiWARP (1)"), all.describe());
    }

    @Test
    void aMissingDeviceIsOneLineAndENODEV() throws Exception {
        Run r = devices("-d", "mlx5_9");
        assertEquals(19, r.exit(), r.describe());
        assertEquals("", r.stdout(), r.describe());
        assertEquals(1, r.stderr().strip().lines().count(), r.describe());
        assertTrue(r.stderr().contains("mlx5_9") && r.stderr().contains(PingPongLab.roceDevice())
                && r.stderr().contains("ENODEV"), r.describe());
        assertFalse(r.stderr().contains("Exception") || r.stderr().contains("\tat "), r.describe());
    }
}
