package org.verbs4j.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.Rdma;
import org.verbs4j.api.internal.RawMemory;
import org.verbs4j.lab.Lab;

/**
 * The lab runs the API's integration tests on two JDKs so that both ways of calling libibverbs are tested: this
 * test says which one a run really used. On JDK 17 to 21 jffi's native stub is loaded and native memory is read
 * with sun.misc.Unsafe; on JDK 22 and later verbs4j's multi-release jars call through java.lang.foreign, and
 * jffi's stub is never loaded (it is what makes the JDK warn).
 */
class BindingMechanismIT {

    @Test
    void theJvmsVersionPicksTheWayLibibverbsIsCalled() throws Exception {
        for (String device : Lab.devices()) {
            try (DeviceContext ctx = Rdma.open(device); ProtectionDomain pd = ctx.allocProtectionDomain()) {
                assertTrue(ctx.queryDevice().maxQp() > 0, device);
            }
        }
        boolean foreign = Runtime.version().feature() >= 22;
        assertEquals(foreign ? "java.lang.foreign" : "sun.misc.Unsafe", RawMemory.mechanism(),
                "Java " + Runtime.version());
        List<String> maps = Files.readAllLines(Path.of("/proc/self/maps"));
        List<String> jffi = maps.stream().filter(l -> l.contains("jffi")).collect(Collectors.toList());
        assertEquals(!foreign, !jffi.isEmpty(), "Java " + Runtime.version() + ", jffi's native stub mapped: " + jffi);
        assertTrue(maps.stream().anyMatch(l -> l.contains("libibverbs.so")), "libibverbs is mapped");
    }
}
