/**
 * The InfiniBand fabric provider: addressing, GID choice and connection rules of InfiniBand ports. It exports no
 * package; the API finds it as a {@link org.verbs4j.api.spi.FabricProvider} ({@code -Dverbs4j.fabric=ib}).
 */
module org.verbs4j.transport.ib {
    requires org.verbs4j.api;

    provides org.verbs4j.api.spi.FabricProvider with org.verbs4j.transport.ib.InfiniBandProvider;
}
