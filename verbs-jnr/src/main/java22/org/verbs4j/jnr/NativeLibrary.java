package org.verbs4j.jnr;

import java.lang.foreign.Arena;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;

/**
 * A loaded native library and its symbols, through {@code java.lang.foreign}'s {@link SymbolLookup} (JDK 22+):
 * nothing loads jffi's stub library on this path. Replaces the jffi class of this name in the multi-release jar.
 */
final class NativeLibrary {
    private final SymbolLookup lookup;

    private NativeLibrary(SymbolLookup lookup) {
        this.lookup = lookup;
    }

    /** {@return the call mechanism: "java.lang.foreign" here, "jffi" on JDK 17-21} */
    static String mechanism() {
        return "java.lang.foreign";
    }

    /**
     * Loads {@code soname} for the life of the process.
     *
     * @throws IllegalStateException when the JVM refuses native access to verbs4j, saying what to pass
     * @throws UnsatisfiedLinkError when the library is not found or cannot be loaded, with the loader's reason
     */
    static NativeLibrary open(String soname) {
        try {
            return new NativeLibrary(SymbolLookup.libraryLookup(soname, Arena.global()));
        } catch (IllegalArgumentException e) {
            throw new UnsatisfiedLinkError(e.getMessage());
        } catch (IllegalCallerException e) {
            throw new IllegalStateException(nativeAccessDenied(e), e);
        }
    }

    /** The C library: the linker's default lookup. */
    static NativeLibrary libc() {
        try {
            return new NativeLibrary(Linker.nativeLinker().defaultLookup());
        } catch (IllegalCallerException e) {
            throw new IllegalStateException(nativeAccessDenied(e), e);
        }
    }

    private static String nativeAccessDenied(IllegalCallerException e) {
        return "the JVM refused verbs4j native access (" + e.getMessage() + "): run java with "
                + "--enable-native-access=org.verbs4j.jnr,org.verbs4j.api (module path) or "
                + "--enable-native-access=ALL-UNNAMED (class path)";
    }

    /** {@return the address of {@code name}, or 0 when the library has no such symbol} */
    long symbol(String name) {
        return lookup.find(name).map(MemorySegment::address).orElse(0L);
    }
}
