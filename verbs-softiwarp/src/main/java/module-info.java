/**
 * A software RNIC in pure Java: iWARP (RDMAP over DDP over MPA, RFCs 5040, 5041 and 5044) over TCP,
 * wire-compatible with Linux siw. Work in progress: the wire layer ({@code org.verbs4j.softiwarp.wire})
 * and the verbs resources ({@code org.verbs4j.softiwarp}) are being built; it is not yet registered as a
 * {@link org.verbs4j.api.spi.VerbsBackend}.
 */
module org.verbs4j.softiwarp {
    requires org.verbs4j.api;
    requires org.slf4j;

    provides org.verbs4j.api.spi.VerbsBackend with org.verbs4j.softiwarp.SoftIwarpBackend;
}
