package org.verbs4j.api.spi;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.verbs4j.api.Rdma;

/** Finds the {@link VerbsBackend}s: every one on the class or module path, and the one in use. */
public final class Backends {
    private static final Logger LOG = LoggerFactory.getLogger(Backends.class);
    private static volatile List<VerbsBackend> backends;

    private Backends() {
    }

    /** {@return every backend on the class or module path, available or not, highest priority first} */
    public static List<VerbsBackend> all() {
        List<VerbsBackend> b = backends;
        if (b == null) {
            List<VerbsBackend> found = new ArrayList<>();
            for (VerbsBackend backend : ServiceLoader.load(VerbsBackend.class, Backends.class.getClassLoader())) {
                found.add(backend);
            }
            found.sort(Comparator.comparingInt(VerbsBackend::priority).reversed());
            backends = b = List.copyOf(found);
        }
        return b;
    }

    /**
     * The backend in use: the available one named by {@value Rdma#BACKEND_PROPERTY} when set, else the
     * available one with the highest priority; {@code null} when none is available.
     *
     * @return the backend, or null when none is available
     */
    public static VerbsBackend inUse() {
        String wanted = System.getProperty(Rdma.BACKEND_PROPERTY);
        for (VerbsBackend b : all()) {
            if (wanted != null && !wanted.equals(b.name())) {
                continue;
            }
            if (b.unavailableReason() == null) {
                return b;
            }
            LOG.debug("verbs4j backend {} is not available: {}", b.name(), b.unavailableReason());
        }
        return null;
    }
}
