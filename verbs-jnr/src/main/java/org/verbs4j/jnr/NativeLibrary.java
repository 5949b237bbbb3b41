package org.verbs4j.jnr;

import com.kenai.jffi.Library;

/**
 * A loaded native library and its symbols, through jffi (JDK 17-21). On JDK 22+ the multi-release jar's
 * {@code META-INF/versions/22} holds a class of this name over {@code java.lang.foreign}'s
 * {@code SymbolLookup} instead, with the same methods.
 */
final class NativeLibrary {
    private final Library library;

    private NativeLibrary(Library library) {
        this.library = library;
    }

    /** {@return the call mechanism: "jffi" here, "java.lang.foreign" on JDK 22+} */
    static String mechanism() {
        return "jffi";
    }

    /**
     * Loads {@code soname} once per process.
     *
     * @throws IllegalStateException when the mechanism itself cannot work (jffi's stub library), saying why
     * @throws UnsatisfiedLinkError when the library is not found or cannot be loaded, with the loader's reason
     */
    static NativeLibrary open(String soname) {
        Library lib;
        try {
            lib = Library.getCachedInstance(soname, Library.LAZY | Library.GLOBAL);
        } catch (LinkageError | RuntimeException e) {
            throw new IllegalStateException("jffi, JNR's native call layer, could not load its stub library (" + e
                    + "); check that jffi's native jar for linux-x86_64 is on the class path and that the "
                    + "temporary directory (java.io.tmpdir) allows executing files", e);
        }
        if (lib == null) {
            throw new UnsatisfiedLinkError(String.valueOf(Library.getLastError()));
        }
        return new NativeLibrary(lib);
    }

    /** The C library ({@code libc.so.6}). */
    static NativeLibrary libc() {
        return open("libc.so.6");
    }

    /** {@return the address of {@code name}, or 0 when the library has no such symbol} */
    long symbol(String name) {
        return library.getSymbolAddress(name);
    }
}
