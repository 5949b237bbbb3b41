package org.verbs4j.examples;

import org.verbs4j.lab.Lab;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The examples run as a user's program does on the module path (examples/bin/run-example: {@code java -p
 * ... -m org.verbs4j.examples/...}): the module requires {@code org.verbs4j} alone, the launcher binds the
 * backend and the three fabric providers as services, and the program reaches the lab's real devices.
 */
class ModulePathIT {

    @Test
    void examplesModuleRequiresTheOneVerbs4jModuleOnly() {
        Path jar = PingPongLab.moduleDir().resolve("target/examples.jar");
        ModuleDescriptor d = ModuleFinder.of(jar).find("org.verbs4j.examples").orElseThrow().descriptor();
        assertTrue(!d.isAutomatic(), "examples.jar has a module-info");
        Set<String> requires = d.requires().stream().map(ModuleDescriptor.Requires::name)
                .filter(n -> !n.startsWith("java.") && !n.startsWith("jdk.")).collect(Collectors.toSet());
        assertEquals(Set.of("org.verbs4j"), requires, "what the examples need besides the JDK");
    }

    @Test
    void devicesRunsOnTheModulePathAndFindsBothLabDevices() throws Exception {
        String devices = PingPongLab.moduleDir().resolve("bin/devices").toString();
        PingPongLab.Run r = PingPongLab.run(List.of(devices), Map.of("VERBS4J_JAVA_OPTS", "--show-module-resolution"));
        assertEquals(0, r.exit(), r.describe());
        assertTrue(r.stdout().contains("root org.verbs4j.examples "), "run as a named module: " + r.describe());
        for (String bound : List.of("org.verbs4j.jnr", "org.verbs4j.transport.ib", "org.verbs4j.transport.roce",
                "org.verbs4j.transport.iwarp")) {
            assertTrue(r.stdout().contains("org.verbs4j.api binds " + bound + " "), bound + " bound: " + r.describe());
        }
        for (String dev : List.of(Lab.env("FABRIC_LAB_RXE_DEV"), Lab.env("FABRIC_LAB_SIW_DEV"))) {
            assertTrue(r.stdout().contains("hca_id:\t" + dev + "\n"), dev + " listed: " + r.describe());
        }
    }
}
