package org.verbs4j.jnr;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides how the native libraries are found and says exactly what is missing when they are not.
 * Loaded once, lazily; a failure is remembered and reported, never thrown from a static initializer.
 */
final class NativeLibraries {
    private static final Logger LOG = LoggerFactory.getLogger(NativeLibraries.class);

    private static volatile Loaded loaded;

    private NativeLibraries() {
    }

    /** The outcome of loading: either the library or the reason it could not be loaded. */
    record Loaded(LibIbverbs ibverbs, String failure) {
    }

    static Loaded ibverbs() {
        Loaded l = loaded;
        if (l == null) {
            synchronized (NativeLibraries.class) {
                l = loaded;
                if (l == null) {
                    loaded = l = load();
                }
            }
        }
        return l;
    }

    private static Loaded load() {
        if (!System.getProperty("os.name", "").toLowerCase().contains("linux")) {
            return new Loaded(null, "RDMA verbs need Linux (this is " + System.getProperty("os.name") + ")");
        }
        String arch = System.getProperty("os.arch");
        if (!"amd64".equals(arch) && !"x86_64".equals(arch)) {
            return new Loaded(null, "verbs4j's native struct layouts are verified on x86_64 only (this is " + arch + ")");
        }
        NativeLibrary lib;
        try {
            lib = NativeLibrary.open("libibverbs.so.1");
        } catch (IllegalStateException e) {
            return new Loaded(null, e.getMessage());
        } catch (UnsatisfiedLinkError e) {
            return new Loaded(null, "libibverbs.so.1 could not be loaded (" + e.getMessage()
                    + "). Install rdma-core's user space: libibverbs1 and ibverbs-providers (Debian/Ubuntu), "
                    + "libibverbs (RHEL/Fedora), or MLNX_OFED / DOCA-OFED");
        }
        LOG.debug("loaded libibverbs.so.1 through {}", NativeLibrary.mechanism());
        return new Loaded(new LibIbverbs(lib), null);
    }
}
