package org.verbs4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.verbs4j.api.Gid;
import org.verbs4j.examples.PingPongLab.Run;

/**
 * {@code examples/bin/loopback} on the lab's devices: on Soft-RoCE every step passes (two QPs connected by
 * {@link org.verbs4j.api.QpConnector}, every opcode's data checked, the blocking wait, the ping-pong); on
 * soft-iWARP it explains that iWARP QPs connect through rdma_cm only and exits with 2.
 */
class LoopbackIT {
    private static final List<String> STEPS = List.of("PD, completion channel fd ", "registered 2 x ",
            "SEND: ", "SEND_WITH_IMM: ", "RDMA_WRITE: ", "RDMA_WRITE_WITH_IMM: ", "RDMA_READ: ", "blocking wait: ",
            "ping-pong: ");

    private static Run loopback(String... args) throws Exception {
        PingPongLab.launcher(PingPongLab.Tool.RC); // fails clearly when the examples are not packaged
        List<String> cmd = new java.util.ArrayList<>();
        cmd.add(PingPongLab.moduleDir().resolve("bin/loopback").toString());
        cmd.addAll(List.of(args));
        return PingPongLab.run(cmd, Map.of());
    }

    @Test
    void everyStepPassesOnSoftRoce() throws Exception {
        String device = PingPongLab.roceDevice();
        Run r = loopback("-d", device, "-s", "4096", "-n", "20");
        String out = r.stdout();
        assertEquals(0, r.exit(), r.describe());
        assertTrue(out.startsWith("verbs4j loopback on " + device + " port 1 (transport InfiniBand, link layer "
                + "Ethernet)"), r.describe());
        assertTrue(out.contains("address GID " + Gid.parse(PingPongLab.roceIp()) + " (sgid_index "
                + PingPongLab.roceGidIndex() + ")"), "the fabric's choice of GID: " + r.describe());
        for (String step : STEPS) {
            assertTrue(out.contains("\nok    " + step), step + ": " + r.describe());
        }
        // both QPs: RTS towards each other with the PSNs and MTU asked for, read back with ibv_query_qp
        assertEquals(2, out.split("\nok    QP 0x[0-9a-f]+: RESET->INIT->RTR->RTS, ibv_query_qp: state RTS", -1).length - 1,
                r.describe());
        assertTrue(out.contains("\nok    ATOMIC_CMP_AND_SWP: ") || out.contains("\nskip  atomics: "), r.describe());
        assertFalse(out.contains("FAIL"), r.describe());
        assertTrue(out.stripTrailing().matches("(?s).*\nPASS  all \\d+ checks passed"), r.describe());
    }

    @Test
    void iwarpIsRefusedWithTheReason() throws Exception {
        Run r = loopback("-d", PingPongLab.iwarpDevice(), "-n", "1");
        assertEquals(2, r.exit(), r.describe());
        assertTrue(r.stdout().contains(PingPongLab.iwarpDevice() + " is an iWARP device")
                && r.stdout().contains("rdma_cm"), r.describe());
    }
}
