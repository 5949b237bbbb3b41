package org.verbs4j.softiwarp;

import java.util.List;
import org.verbs4j.api.RdmaDevice;
import org.verbs4j.api.spi.VerbsBackend;

/**
 * The {@code softiwarp} backend: the pure-Java iWARP devices of {@link SoftIwarp}, needing no native code, so
 * it is available on every machine. Its priority is below libibverbs' ({@code jnr}), so the kernel's devices
 * come first in {@link org.verbs4j.api.Rdma#devices()}; {@code -Dverbs4j.backend=softiwarp} selects it alone.
 */
public final class SoftIwarpBackend implements VerbsBackend {
    /** The backend's name, the value of {@code -Dverbs4j.backend} that selects it. */
    public static final String NAME = "softiwarp";

    /** Made by {@link java.util.ServiceLoader}. */
    public SoftIwarpBackend() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int priority() {
        return 10;
    }

    @Override
    public String unavailableReason() {
        return null;
    }

    @Override
    public List<RdmaDevice> devices() {
        return SoftIwarp.devices();
    }

    /** {@return a new connection manager for the software devices (no event thread; see SoftConnectionManager)} */
    @Override
    public org.verbs4j.api.cm.ConnectionManager connectionManager() {
        return new SoftConnectionManager();
    }
}
