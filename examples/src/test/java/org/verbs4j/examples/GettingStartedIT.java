package org.verbs4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.verbs4j.lab.Lab;
import org.verbs4j.examples.PingPongLab.Run;

/**
 * {@code examples/bin/getting-started}, the program docs/getting-started.md shows, on rxe0 (RoCE) and siw0
 * (iWARP): both endpoints connect on the device of the address, the RDMA WRITE's and the send's bytes arrive,
 * and the logging binding is there (no SLF4J warning on stderr). On the host, where the run has only the
 * software iWARP device, on jsiw_lo.
 */
class GettingStartedIT {
    @ParameterizedTest
    @CsvSource({"FABRIC_LAB_RXE, roce", "FABRIC_LAB_SIW, iwarp"})
    void writeAndSendArriveChecked(String lab, String fabric) throws Exception {
        Assumptions.assumeTrue(Lab.hasFabric(fabric), "this run has no " + fabric + " device");
        PingPongLab.launcher(PingPongLab.Tool.RC); // fails clearly when the examples are not packaged
        String launcher = PingPongLab.moduleDir().resolve("bin/getting-started").toString();
        Run r = PingPongLab.run(List.of(launcher, Lab.env(lab + "_IP"), "" + PingPongLab.nextPort()), Map.of());
        assertEquals(0, r.exit(), r.describe());
        assertEquals("connected on " + Lab.env(lab + "_DEV") + ", fabric " + fabric + "\n"
                + "RDMA WRITE: 21 bytes arrived and match \"written by RDMA WRITE\"\n"
                + "SEND: 13 bytes arrived and match \"hello by SEND\"\n", r.stdout(), r.describe());
        assertFalse(r.stderr().contains("SLF4J"), r.describe());
    }
}
