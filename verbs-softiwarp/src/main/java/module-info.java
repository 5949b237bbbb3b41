/**
 * A software RNIC in pure Java: iWARP (RDMAP over DDP over MPA, RFCs 5040, 5041 and 5044) over TCP,
 * meant to be wire-compatible with Linux siw. The {@link org.verbs4j.api.spi.VerbsBackend} {@code softiwarp} lists
 * its devices and makes their verbs objects (PDs, MRs, CQs, QPs, SRQs); a QP bound to an MPA stream by the
 * connection manager moves Sends, Writes and Reads over it (the data path); the wire layer is
 * {@code org.verbs4j.softiwarp.wire}. Applications use {@link org.verbs4j.softiwarp.SoftIwarp} to bind more software
 * devices to IP interfaces; everything else goes through {@code org.verbs4j.api}.
 */
module org.verbs4j.softiwarp {
    requires transitive org.verbs4j.api;
    requires org.slf4j;

    exports org.verbs4j.softiwarp;

    provides org.verbs4j.api.spi.VerbsBackend with org.verbs4j.softiwarp.SoftIwarpBackend;
}
