package org.verbs4j.api.spi;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.verbs4j.api.Rdma;

/**
 * Finds the {@link VerbsBackend}s: every one on the class or module path, the available ones (whose devices are
 * listed together), and the one in use.
 */
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
     * The backends whose devices {@link Rdma#devices()} lists: every available one, highest priority first;
     * only the one named by {@value Rdma#BACKEND_PROPERTY} when that is set (empty when it is not available).
     *
     * @return the available backends, highest priority first
     */
    public static List<VerbsBackend> available() {
        return available(all(), System.getProperty(Rdma.BACKEND_PROPERTY));
    }

    static List<VerbsBackend> available(List<VerbsBackend> all, String wanted) {
        List<VerbsBackend> out = new ArrayList<>(all.size());
        for (VerbsBackend b : all) {
            if (wanted != null && !wanted.equals(b.name())) {
                continue;
            }
            if (b.unavailableReason() == null) {
                out.add(b);
            } else {
                LOG.debug("verbs4j backend {} is not available: {}", b.name(), b.unavailableReason());
            }
        }
        return out;
    }

    /**
     * The backend in use for what is not per device ({@link Rdma#backendName()}; the rdma_cm ids no device owns):
     * the available one named by {@value Rdma#BACKEND_PROPERTY} when set, else the available one with the
     * highest priority; {@code null} when none is available.
     *
     * @return the backend, or null when none is available
     */
    public static VerbsBackend inUse() {
        List<VerbsBackend> a = available();
        return a.isEmpty() ? null : a.get(0);
    }
}
