package org.verbs4j.api.spi;

import java.util.List;
import org.verbs4j.api.RdmaDevice;

/**
 * A way to reach RDMA devices: libibverbs through JNR today; a Java 22+ FFM binding or a pure-Java
 * software RNIC later. Found with {@link java.util.ServiceLoader}: list the implementation in
 * {@code META-INF/services/org.verbs4j.api.spi.VerbsBackend}.
 */
public interface VerbsBackend {

    /** {@return the backend's short name, e.g. {@code jnr}; selectable with {@code -Dverbs4j.backend=NAME}} */
    String name();

    /** {@return the backend's priority: higher wins when several are available} */
    int priority();

    /**
     * {@code null} when the backend can be used; otherwise why not, in words a user can act on
     * (e.g. "libibverbs.so.1 not found: install libibverbs1 and ibverbs-providers").
     *
     * @return null when usable, otherwise the reason
     */
    String unavailableReason();

    /**
     * {@return the devices this backend reaches, listed afresh on each call; each one opens itself ({@link
     * RdmaDevice#open()})}
     */
    List<RdmaDevice> devices();

    /**
     * Why {@link #devices()} is empty, as an errno: {@link org.verbs4j.api.Errno#ENOSYS} when this machine's
     * kernel has no RDMA support ({@code ibv_get_device_list} fails with ENOSYS, no
     * {@code /sys/class/infiniband}), {@link org.verbs4j.api.Errno#ENODEV} when it has but no device is there
     * (this default).
     *
     * @return ENOSYS or ENODEV
     */
    default int noDevicesErrno() {
        return org.verbs4j.api.Errno.ENODEV;
    }

    /**
     * A new rdma_cm connection manager (its own event channel and event thread). Backends without
     * librdmacm keep this default.
     *
     * @return the org.verbs4j.api.cm.connection manager
     */
    default org.verbs4j.api.cm.ConnectionManager connectionManager() {
        throw new UnsupportedOperationException("the " + name() + " backend has no rdma_cm connection manager");
    }
}
