/**
 * The verbs4j backend over rdma-core's libibverbs and librdmacm, called through jffi. It exports no
 * package: applications use {@code org.verbs4j.api}, and this module is found as its
 * {@link org.verbs4j.api.spi.VerbsBackend} ({@code -Dverbs4j.backend=jnr}).
 */
module org.verbs4j.jnr {
    requires org.verbs4j.api;
    requires org.slf4j;
    requires org.jnrproject.jffi;

    provides org.verbs4j.api.spi.VerbsBackend with org.verbs4j.jnr.JnrBackend;
}
