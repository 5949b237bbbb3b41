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
 *
 * <p>{@code FABRIC_LAB_FABRICS} names the fabrics of the run: {@code roce,iwarp} (the default, the lab's rxe0
 * and siw0) or {@code iwarp} alone, as on a machine with nothing installed where the pure-Java software iWARP
 * device stands in ({@code FABRIC_LAB_SIW_DEV=jsiw_lo FABRIC_LAB_SIW_IP=127.0.0.1}); a test that asks for a
 * fabric the run does not have fails.
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
        if (!hasFabric("roce")) {
            fail("this run has no RoCE device (FABRIC_LAB_FABRICS=" + System.getenv("FABRIC_LAB_FABRICS") + ")");
        }
        return env("FABRIC_LAB_RXE_DEV");
    }

    /** The iWARP device (soft-iWARP siw0 in the lab). */
    public static String iwarpDevice() {
        if (!hasFabric("iwarp")) {
            fail("this run has no iWARP device (FABRIC_LAB_FABRICS=" + System.getenv("FABRIC_LAB_FABRICS") + ")");
        }
        return env("FABRIC_LAB_SIW_DEV");
    }

    /** Every device of the run (both lab devices, the RoCE one first): tests parameterised over this run on every fabric. */
    public static List<String> devices() {
        return hasFabric("roce") ? List.of(roceDevice(), iwarpDevice()) : List.of(iwarpDevice());
    }

    /** Whether the run has a device of {@code fabric} ({@code roce} or {@code iwarp}): see the class comment. */
    public static boolean hasFabric(String fabric) {
        String f = System.getenv("FABRIC_LAB_FABRICS");
        if (f == null || f.isBlank()) {
            return true;
        }
        if (!f.strip().matches("(roce|iwarp)(,(roce|iwarp))*")) {
            fail("FABRIC_LAB_FABRICS=" + f + ": a comma-separated list of roce and iwarp");
        }
        return List.of(f.strip().split(",")).contains(fabric);
    }

    /** Every lab device with every one of {@code cases}: the arguments of a test parameterised over both. */
    public static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> devicesWith(Object... cases) {
        return devices().stream().flatMap(d -> java.util.Arrays.stream(cases)
                .map(c -> org.junit.jupiter.params.provider.Arguments.of(d, c)));
    }

    /** {@code vendor_id} of Linux's soft-iWARP driver siw (siw.h SIW_VENDOR_ID, "bmt"). */
    public static final int SIW_VENDOR_ID = 0x626d74;

    /**
     * Whether {@code attrs} are Linux siw's (its vendor_id): for the few assertions that pin down a known bug of
     * that driver, so that a fixed siw shows up, while other iWARP devices are held to the correct behaviour.
     */
    public static boolean isLinuxSiw(org.verbs4j.api.DeviceAttributes attrs) {
        return attrs.vendorId() == SIW_VENDOR_ID;
    }

    /** Whether the kernel serves {@code device} (it is in /sys/class/infiniband): its verbs objects have file descriptors. */
    public static boolean isKernelDevice(String device) {
        return java.nio.file.Files.isDirectory(java.nio.file.Path.of("/sys/class/infiniband", device));
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
