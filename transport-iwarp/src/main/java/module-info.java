/**
 * The iWARP fabric provider: addressing, GID choice and connection rules of iWARP ports. It exports no
 * package; the API finds it as a {@link org.verbs4j.api.spi.FabricProvider} ({@code -Dverbs4j.fabric=iwarp}).
 */
module org.verbs4j.transport.iwarp {
    requires org.verbs4j.api;

    provides org.verbs4j.api.spi.FabricProvider with org.verbs4j.transport.iwarp.IwarpProvider;
}
