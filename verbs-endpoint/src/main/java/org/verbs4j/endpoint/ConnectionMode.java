package org.verbs4j.endpoint;

/** How an {@link RdmaEndpoint} connects its queue pair. */
public enum ConnectionMode {
    /**
     * librdmacm: the device is the one that owns the IP address (listen) or routes to it (connect), and
     * rdma_cm moves the queue pair through INIT/RTR/RTS. Works on every fabric, and is the only way on iWARP.
     */
    RDMA_CM,
    /**
     * A TCP exchange (Netty) of QP number, PSN, LID/GID and buffer keys, as {@code ibv_rc_pingpong} does; the
     * fabric provider builds the INIT/RTR/RTS attributes. InfiniBand and RoCE only: iWARP connects through
     * rdma_cm. The device is {@link EndpointOptions#device(String)} (default: the first device with an
     * active port).
     */
    MANUAL
}
