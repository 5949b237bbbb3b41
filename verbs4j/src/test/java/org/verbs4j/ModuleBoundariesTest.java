package org.verbs4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.lang.module.Configuration;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ResolvedModule;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * verbs4j on the module path (no device needed): the real module graph of the built jars, resolved from
 * {@code org.verbs4j} with service binding and loaded into a module layer, as {@code java -p ... -m} does.
 * A user's code sees org.verbs4j.api, org.verbs4j.api.cm and org.verbs4j.endpoint, and nothing else.
 */
class ModuleBoundariesTest {
    private static final Set<String> OURS = Set.of("org.verbs4j", "org.verbs4j.api", "org.verbs4j.jnr",
            "org.verbs4j.endpoint", "org.verbs4j.transport.ib", "org.verbs4j.transport.roce",
            "org.verbs4j.transport.iwarp", "org.verbs4j.softiwarp");
    /** verbs4j's modules that may get its SPI: those of {@code org.verbs4j}. */
    private static final Set<String> SPI_TARGETS = OURS;
    private static Configuration config;
    private static ModuleLayer layer;

    @BeforeAll
    static void resolve() {
        // the test's class path holds the library jars (or the reactor's target/classes) and their dependencies
        Path[] entries = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator)).map(Path::of)
                .filter(ModuleBoundariesTest::isLibraryOrDependency).toArray(Path[]::new);
        config = ModuleLayer.boot().configuration().resolveAndBind(ModuleFinder.of(entries), ModuleFinder.of(),
                Set.of("org.verbs4j"));
        layer = ModuleLayer.boot().defineModulesWithOneLoader(config, ClassLoader.getPlatformClassLoader());
    }

    private static boolean isLibraryOrDependency(Path p) {
        String s = p.toString();
        if (s.contains("test-classes") || s.contains("junit") || s.contains("opentest4j") || s.contains("apiguardian")
                || s.contains("surefire")) {
            return false;
        }
        return Files.isDirectory(p) ? Files.exists(p.resolve("module-info.class")) : s.endsWith(".jar");
    }

    private static ModuleDescriptor descriptor(String module) {
        return config.findModule(module).orElseThrow(() -> new AssertionError(module + " is not resolved"))
                .reference().descriptor();
    }

    private static Set<String> unqualifiedExports(String module) {
        return descriptor(module).exports().stream().filter(e -> !e.isQualified()).map(ModuleDescriptor.Exports::source)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    @Test
    void usersSeeTheApiTheConnectionManagerAndEndpointsOnly() {
        assertEquals(Set.of("org.verbs4j.api", "org.verbs4j.api.cm"), unqualifiedExports("org.verbs4j.api"));
        assertEquals(Set.of("org.verbs4j.endpoint"), unqualifiedExports("org.verbs4j.endpoint"));
        for (String m : Set.of("org.verbs4j", "org.verbs4j.jnr", "org.verbs4j.transport.ib", "org.verbs4j.transport.roce",
                "org.verbs4j.transport.iwarp")) {
            assertEquals(Set.of(), descriptor(m).exports(), m + " exports nothing");
        }
    }

    @Test
    void backendOnlyPackagesAreExportedToVerbs4jModulesOnly() {
        for (ModuleDescriptor.Exports e : descriptor("org.verbs4j.api").exports()) {
            if (e.isQualified()) {
                assertTrue(Set.of("org.verbs4j.api.spi", "org.verbs4j.api.internal", "org.verbs4j.api.tools")
                        .contains(e.source()), e.toString());
                assertTrue(SPI_TARGETS.containsAll(e.targets()), e + " goes to verbs4j's modules only");
            }
        }
        Module api = layer.findModule("org.verbs4j.api").orElseThrow();
        Module jnr = layer.findModule("org.verbs4j.jnr").orElseThrow();
        assertFalse(api.isExported("org.verbs4j.api.internal"), "internal is exported to everyone");
        assertFalse(api.isExported("org.verbs4j.api.spi"), "spi is exported to everyone");
        assertTrue(api.isExported("org.verbs4j.api.internal", jnr), "the backend cannot reach RawMemory");
        Module endpoint = layer.findModule("org.verbs4j.endpoint").orElseThrow();
        assertFalse(api.isExported("org.verbs4j.api.internal", endpoint), "raw memory is for the backend only");
    }

    @Test
    void oneModuleBringsTheBackendAndEveryFabricProvider() {
        Set<String> resolved = config.modules().stream().map(ResolvedModule::name).collect(Collectors.toSet());
        assertTrue(resolved.containsAll(OURS), "resolved " + resolved);
        assertTrue(descriptor("org.verbs4j.jnr").provides().stream()
                .anyMatch(p -> p.service().equals("org.verbs4j.api.spi.VerbsBackend")), "jnr provides the backend");
        assertTrue(descriptor("org.verbs4j.softiwarp").provides().stream()
                .anyMatch(p -> p.service().equals("org.verbs4j.api.spi.VerbsBackend")), "softiwarp provides a backend");
        for (String fabric : Set.of("ib", "roce", "iwarp")) {
            assertTrue(descriptor("org.verbs4j.transport." + fabric).provides().stream()
                    .anyMatch(p -> p.service().equals("org.verbs4j.api.spi.FabricProvider")), fabric + " provides");
        }
    }

    @Test
    void theApiFindsTheBackendThroughTheModuleGraph() throws Exception {
        Class<?> rdma = layer.findLoader("org.verbs4j.api").loadClass("org.verbs4j.api.Rdma");
        String name = (String) rdma.getMethod("backendName").invoke(null);
        String reason = (String) rdma.getMethod("unavailableReason").invoke(null);
        // with libibverbs installed the backend is in use; without it, it is named with what it is missing
        assertTrue("jnr".equals(name) || (reason != null && reason.contains("jnr: ")),
                "backend " + name + ", reason " + reason);
    }

    @Test
    void noExportedSignatureUsesATypeUsersCannotSee() throws Exception {
        // javac's -Xlint:exports, as a test: every public member of an exported class names only types a user
        // can see (exported packages, or the JDK's)
        Set<String> leaks = new TreeSet<>();
        for (String m : Set.of("org.verbs4j.api", "org.verbs4j.endpoint")) {
            ClassLoader loader = layer.findLoader(m);
            Set<String> exported = unqualifiedExports(m);
            try (var reader = config.findModule(m).orElseThrow().reference().open(); var entries = reader.list()) {
                for (String entry : (Iterable<String>) entries::iterator) {
                    if (!entry.endsWith(".class") || entry.equals("module-info.class")) {
                        continue;
                    }
                    String cls = entry.substring(0, entry.length() - ".class".length()).replace('/', '.');
                    if (exported.contains(cls.substring(0, cls.lastIndexOf('.')))) {
                        checkSignatures(Class.forName(cls, false, loader), leaks);
                    }
                }
            }
        }
        assertEquals(Set.of(), leaks, "exported signatures with types users cannot see");
    }

    private static void checkSignatures(Class<?> c, Set<String> leaks) {
        if (!visible(c.getModifiers())) {
            return;
        }
        java.util.List<Class<?>> used = new java.util.ArrayList<>();
        if (c.getSuperclass() != null) {
            used.add(c.getSuperclass());
        }
        used.addAll(Arrays.asList(c.getInterfaces()));
        for (Method m : c.getDeclaredMethods()) {
            if (visible(m.getModifiers()) && !m.isSynthetic()) {
                used.add(m.getReturnType());
                used.addAll(Arrays.asList(m.getParameterTypes()));
            }
        }
        for (var k : c.getDeclaredConstructors()) {
            if (visible(k.getModifiers())) {
                used.addAll(Arrays.asList(k.getParameterTypes()));
            }
        }
        for (var f : c.getDeclaredFields()) {
            if (visible(f.getModifiers())) {
                used.add(f.getType());
            }
        }
        for (Class<?> t : used) {
            while (t.isArray()) {
                t = t.getComponentType();
            }
            if (!t.isPrimitive() && !t.getModule().isExported(t.getPackageName())) {
                leaks.add(c.getName() + " uses " + t.getName());
            }
        }
    }

    private static boolean visible(int modifiers) {
        return java.lang.reflect.Modifier.isPublic(modifiers) || java.lang.reflect.Modifier.isProtected(modifiers);
    }

    @Test
    void userCodeCannotReachRawMemory() throws Exception {
        Class<?> raw = layer.findLoader("org.verbs4j.api").loadClass("org.verbs4j.api.internal.RawMemory");
        Method allocate = raw.getMethod("allocate", long.class);
        assertThrows(IllegalAccessException.class, () -> allocate.invoke(null, 8L));
    }
}
