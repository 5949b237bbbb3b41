package org.verbs4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * docs/sample-app, the separate application the README points a new user to, builds as written: Maven runs
 * offline on a copy of it against the verbs4j artifacts installed in the local repository (the test command's
 * {@code mvn install} has installed them by the time this module's tests run), and its versions are this
 * build's.
 */
class SampleAppTest {
    private static final Path SAMPLE = PingPongLab.moduleDir().getParent().resolve("docs/sample-app");

    private static String property(String name) {
        String v = System.getProperty(name);
        Assumptions.assumeTrue(v != null && !v.isEmpty() && !v.startsWith("${"), name + " is set by examples/pom.xml");
        return v;
    }

    private static String pomValue(String pom, String regex) {
        Matcher m = Pattern.compile(regex).matcher(pom);
        assertTrue(m.find(), "docs/sample-app/pom.xml has " + regex);
        return m.group(1);
    }

    @Test
    void declaresThisBuildsVersions() throws IOException {
        String pom = Files.readString(SAMPLE.resolve("pom.xml"), StandardCharsets.UTF_8);
        assertEquals(property("verbs4j.version"), pomValue(pom, "<verbs4j.version>([^<]+)</verbs4j.version>"));
        assertEquals(property("slf4j.version"),
                pomValue(pom, "<artifactId>slf4j-simple</artifactId>\\s*<version>([^<]+)</version>"));
    }

    @Test
    void packagesOfflineAgainstTheInstalledArtifacts() throws Exception {
        Path repo = Path.of(property("verbs4j.localRepository"));
        String version = property("verbs4j.version");
        Path installed = repo.resolve("org/verbs4j/verbs4j/" + version + "/verbs4j-" + version + ".jar");
        Path bom = repo.resolve("org/verbs4j/verbs4j-bom/" + version + "/verbs4j-bom-" + version + ".pom");
        Assumptions.assumeTrue(Files.isRegularFile(installed) && Files.isRegularFile(bom),
                "verbs4j " + version + " is not installed in " + repo + " (mvn install installs it before this test)");

        Path copy = PingPongLab.moduleDir().resolve("target/sample-app");
        copyTree(SAMPLE, copy);
        String mavenHome = System.getProperty("verbs4j.mavenHome", "");
        String mvn = !mavenHome.isEmpty() && Files.isExecutable(Path.of(mavenHome, "bin/mvn"))
                ? Path.of(mavenHome, "bin/mvn").toString() : "mvn";
        List<String> cmd = List.of(mvn, "-B", "-ntp", "-q", "-o", "-Dmaven.repo.local=" + repo, "package");
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(copy.toFile()).redirectErrorStream(true)
                .redirectOutput(copy.resolve("build.out").toFile());
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Process p = pb.start();
        boolean done = p.waitFor(120, TimeUnit.SECONDS);
        if (!done) {
            p.destroyForcibly();
        }
        String out = Files.readString(copy.resolve("build.out"), StandardCharsets.UTF_8);
        assertTrue(done, "mvn package of docs/sample-app took over 120 s:\n" + out);
        assertEquals(0, p.exitValue(), String.join(" ", cmd) + " in " + copy + ":\n" + out);
        assertTrue(Files.isRegularFile(copy.resolve("target/classes/com/example/rdma/ListDevices.class")), out);
    }

    private static void copyTree(Path from, Path to) throws IOException {
        if (Files.exists(to)) {
            try (Stream<Path> s = Files.walk(to)) {
                List<Path> all = new ArrayList<>(s.toList());
                for (int i = all.size() - 1; i >= 0; i--) {
                    Files.delete(all.get(i));
                }
            }
        }
        try (Stream<Path> s = Files.walk(from)) {
            for (Path f : s.filter(f -> !f.startsWith(from.resolve("target"))).toList()) {
                Files.copy(f, to.resolve(from.relativize(f).toString()));
            }
        }
    }
}
