/**
 * The RoCE fabric provider: addressing, GID choice and connection rules of RoCE ports. It exports no
 * package; the API finds it as a {@link org.verbs4j.api.spi.FabricProvider} ({@code -Dverbs4j.fabric=roce}).
 */
module org.verbs4j.transport.roce {
    requires org.verbs4j.api;

    provides org.verbs4j.api.spi.FabricProvider with org.verbs4j.transport.roce.RoceProvider;
}
