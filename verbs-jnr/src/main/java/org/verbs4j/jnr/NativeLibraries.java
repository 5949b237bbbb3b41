package org.verbs4j.jnr;

import jnr.ffi.LibraryLoader;
import jnr.ffi.LibraryOption;
import jnr.ffi.Runtime;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides how the native libraries are found and says exactly what is missing when they are not.
 * Loaded once, lazily; a failure is remembered and reported, never thrown from a static initializer.
 */
final class NativeLibraries {
    private static final Logger LOG = LoggerFactory.getLogger(NativeLibraries.class);
    private static final String[] SEARCH_PATHS = {"/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/lib64",
        "/lib/x86_64-linux-gnu", "/usr/local/lib", "/usr/local/lib64"};

    private static volatile Loaded loaded;

    private NativeLibraries() {
    }

    /** The outcome of loading: either the library or the reason it could not be loaded. */
    static final class Loaded {
        final LibIbverbs ibverbs;
        final Runtime runtime;
        final String failure;

        Loaded(LibIbverbs ibverbs, String failure) {
            this.ibverbs = ibverbs;
            this.runtime = ibverbs == null ? null : Runtime.getRuntime(ibverbs);
            this.failure = failure;
        }
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
        if (!"amd64".equals(System.getProperty("os.arch")) && !"x86_64".equals(System.getProperty("os.arch"))) {
            return new Loaded(null, "verbs4j's native layouts are verified for x86_64 only (this is "
                    + System.getProperty("os.arch") + ")");
        }
        Throwable last = null;
        // "ibverbs" finds libibverbs.so (the -dev symlink); runtime-only systems have just libibverbs.so.1
        for (String name : new String[] {"libibverbs.so.1", "ibverbs"}) {
            try {
                LibraryLoader<LibIbverbs> loader = LibraryLoader.create(LibIbverbs.class)
                        .option(LibraryOption.LoadNow, Boolean.TRUE);
                for (String p : SEARCH_PATHS) {
                    loader.search(p);
                }
                LibIbverbs lib = loader.load(name);
                LOG.debug("loaded {} through JNR", name);
                return new Loaded(lib, null);
            } catch (LinkageError | RuntimeException e) {
                last = e;
            }
        }
        return new Loaded(null, "libibverbs.so.1 could not be loaded (" + last
                + "). Install rdma-core's user space: libibverbs1 and ibverbs-providers (Debian/Ubuntu), "
                + "libibverbs (RHEL/Fedora), or MLNX_OFED / DOCA-OFED");
    }
}
