/**
 * verbs4j, all of it: require this module (or depend on the {@code org.verbs4j:verbs4j} artifact) and
 * code against {@code org.verbs4j.api}, {@code org.verbs4j.api.cm} and {@code org.verbs4j.endpoint}. It
 * brings the libibverbs backend, the pure-Java software iWARP backend ({@code org.verbs4j.softiwarp}: a device
 * on any machine, nothing installed) and the InfiniBand, RoCE and iWARP fabric providers, so the same
 * program runs on every fabric. The module has no classes of its own.
 */
module org.verbs4j {
    requires transitive org.verbs4j.api;
    requires transitive org.verbs4j.endpoint;
    requires org.verbs4j.jnr;
    requires transitive org.verbs4j.softiwarp;
    requires org.verbs4j.transport.ib;
    requires org.verbs4j.transport.roce;
    requires org.verbs4j.transport.iwarp;
}
