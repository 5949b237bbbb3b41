package org.verbs4j.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The devices integration tests run on: the fabric lab's (lab/run sets FABRIC_LAB_*), or a real
 * machine's when the same variables are set by hand. Integration tests fail, never skip, when a
 * device the lab promises is missing: a skipped lab must not look green. Shared by every module's tests
 * through verbs-api's test-jar (this package only).
 */
public final class Lab {
    private Lab() {
    }

    public static String env(String name) {
        String v = System.getenv(name);
        if (v == null || v.isEmpty()) {
            fail(name + " is not set: integration tests run inside the fabric lab (lab/run -- ...) "
                    + "or on a machine where FABRIC_LAB_RXE_DEV / FABRIC_LAB_SIW_DEV name real devices");
        }
        return v;
    }

    /** The RoCE device (Soft-RoCE rxe0 in the lab). */
    public static String roceDevice() {
        return env("FABRIC_LAB_RXE_DEV");
    }

    /** The iWARP device (soft-iWARP siw0 in the lab). */
    public static String iwarpDevice() {
        return env("FABRIC_LAB_SIW_DEV");
    }

    /** Both lab devices: tests parameterised over this run on every fabric. */
    public static List<String> devices() {
        return List.of(roceDevice(), iwarpDevice());
    }

    /** Every lab device with every one of {@code cases}: the arguments of a test parameterised over both. */
    public static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> devicesWith(Object... cases) {
        return devices().stream().flatMap(d -> java.util.Arrays.stream(cases)
                .map(c -> org.junit.jupiter.params.provider.Arguments.of(d, c)));
    }

    /** Runs a command, returns its stdout, fails the test on a non-zero exit. */
    public static String run(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                fail(String.join(" ", command) + " did not finish in 120 s");
            }
            String text = new String(out, StandardCharsets.UTF_8);
            assertEquals(0, p.exitValue(), String.join(" ", command) + " failed:\n" + text);
            return text;
        } catch (IOException e) {
            throw new AssertionError("cannot run " + String.join(" ", command) + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
