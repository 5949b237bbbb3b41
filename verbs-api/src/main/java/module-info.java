/**
 * The verbs4j API: RDMA devices, protection domains, memory regions, completion queues, queue pairs,
 * shared receive queues, address handles, work requests and completions ({@code org.verbs4j.api}), and
 * the rdma_cm connection manager ({@code org.verbs4j.api.cm}). Pure Java; a backend module reaches the
 * devices and fabric provider modules know each fabric's rules, both found at run time.
 *
 * <p>The service provider interfaces ({@code org.verbs4j.api.spi}) are exported only to verbs4j's own modules,
 * and the raw native-memory access and struct layouts ({@code org.verbs4j.api.internal}) only to the backend.
 */
module org.verbs4j.api {
    requires org.slf4j;
    requires jdk.unsupported; // sun.misc.Unsafe, the native-memory access of the jffi path

    exports org.verbs4j.api;
    exports org.verbs4j.api.cm;

    // the backend and fabric-provider interfaces: for the modules that implement them, and the endpoints
    exports org.verbs4j.api.spi to org.verbs4j.jnr, org.verbs4j.transport.ib, org.verbs4j.transport.roce,
            org.verbs4j.transport.iwarp, org.verbs4j.endpoint, org.verbs4j.softiwarp;
    // raw native memory and the struct layouts: for the backend only
    exports org.verbs4j.api.internal to org.verbs4j.jnr, org.verbs4j.softiwarp;
    // the ibv_devinfo text parser: for verbs4j's own tests and tools
    exports org.verbs4j.api.tools to org.verbs4j.jnr, org.verbs4j.transport.ib, org.verbs4j.transport.roce,
            org.verbs4j.transport.iwarp;

    uses org.verbs4j.api.spi.VerbsBackend;
    uses org.verbs4j.api.spi.FabricProvider;
}
