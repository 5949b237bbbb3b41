package org.verbs4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.verbs4j.examples.PingPongLab.Run;

/**
 * verbs4j programs on JDK 22+ (the JDK at {@code -Dverbs4j.jdk22.home}, Temurin 25 by default) print no JVM
 * warning: their launchers give verbs4j's modules native access, the backend calls libibverbs through
 * {@code java.lang.foreign} (not jffi's {@code System::load}, a restricted method: JEP 472), and raw memory is
 * read through memory segments (not {@code sun.misc.Unsafe}'s memory methods, which JDK 24+ warn about: JEP 498).
 * Runs where no RDMA device is: the software device {@code jsiw_lo} and the libibverbs backend's loading.
 */
class NoJvmWarningsIT {
    private static final Path JDK = Path.of(System.getProperty("verbs4j.jdk22.home", "/usr/lib/jvm/temurin-25-jdk-amd64"));

    private static Map<String, String> env(String javaOpts) {
        assertTrue(Files.isExecutable(JDK.resolve("bin/java")), "no JDK 22+ at " + JDK + " (-Dverbs4j.jdk22.home)");
        return Map.of("JAVA_HOME", JDK.toString(), "VERBS4J_JAVA_OPTS", javaOpts);
    }

    private static void assertNoWarning(Run r) {
        assertFalse(r.stderr().contains("WARNING") || r.stdout().contains("WARNING"), "a JVM warning:\n" + r.describe());
    }

    @Test
    void devicesListingLoadsLibibverbsThroughTheLinker() throws Exception {
        PingPongLab.launcher(PingPongLab.Tool.RC); // fails clearly when the examples are not packaged
        String launcher = PingPongLab.moduleDir().resolve("bin/devices").toString();
        // debug logging shows which mechanism loaded libibverbs, and a SLF4J binding is there
        Run r = PingPongLab.run(List.of(launcher), env("-Dorg.slf4j.simpleLogger.log.org.verbs4j.jnr=debug"));
        assertEquals(0, r.exit(), r.describe());
        assertTrue(r.stdout().contains("jsiw_lo"), r.describe());
        assertNoWarning(r);
        String all = r.stdout() + r.stderr();
        if (Files.exists(Path.of("/usr/lib/x86_64-linux-gnu/libibverbs.so.1")) || Files.exists(Path.of("/usr/lib64/libibverbs.so.1"))) {
            assertTrue(all.contains("loaded libibverbs.so.1 through java.lang.foreign"), r.describe());
        }
    }

    @Test
    void gettingStartedOnTheSoftwareDevice() throws Exception {
        PingPongLab.launcher(PingPongLab.Tool.RC);
        String launcher = PingPongLab.moduleDir().resolve("bin/getting-started").toString();
        Run r = PingPongLab.run(List.of(launcher, "127.0.0.1", "" + PingPongLab.nextPort()), env(""));
        assertEquals(0, r.exit(), r.describe());
        assertEquals("connected on jsiw_lo, fabric iwarp\n"
                + "RDMA WRITE: 21 bytes arrived and match \"written by RDMA WRITE\"\n"
                + "SEND: 13 bytes arrived and match \"hello by SEND\"\n", r.stdout(), r.describe());
        assertNoWarning(r);
    }
}
