/**
 * The verbs4j API: RDMA devices, protection domains, memory regions, completion queues, queue pairs,
 * shared receive queues, address handles, work requests and completions ({@code org.verbs4j.api}), and
 * the rdma_cm connection manager ({@code org.verbs4j.api.cm}). Pure Java; a backend module reaches the
 * devices and fabric provider modules know each fabric's rules, both found at run time.
 *
 * <p>The service provider interfaces ({@code org.verbs4j.api.spi}) and the raw native-memory access that
 * backends use ({@code org.verbs4j.api.internal}) are exported only to verbs4j's own modules.
 */
module org.verbs4j.api {
    requires org.slf4j;
    requires jdk.unsupported; // sun.misc.Unsafe, the native-memory access of the jffi path

    exports org.verbs4j.api;
    exports org.verbs4j.api.cm;

    exports org.verbs4j.api.spi to org.verbs4j.jnr, org.verbs4j.transport.ib, org.verbs4j.transport.roce, org.verbs4j.transport.iwarp, org.verbs4j.endpoint;
    exports org.verbs4j.api.internal to org.verbs4j.jnr, org.verbs4j.transport.ib, org.verbs4j.transport.roce, org.verbs4j.transport.iwarp, org.verbs4j.endpoint;
    // the ibv_devinfo text parser: for verbs4j's own tests and tools
    exports org.verbs4j.api.tools to org.verbs4j.jnr, org.verbs4j.transport.ib, org.verbs4j.transport.roce,
            org.verbs4j.transport.iwarp;

    uses org.verbs4j.api.spi.VerbsBackend;
    uses org.verbs4j.api.spi.FabricProvider;
}
