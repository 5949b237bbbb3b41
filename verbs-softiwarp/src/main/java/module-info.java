/**
 * A software RNIC in pure Java: iWARP (RDMAP over DDP over MPA, RFCs 5040, 5041 and 5044) over TCP,
 * meant to be wire-compatible with Linux siw. The {@link org.verbs4j.api.spi.VerbsBackend} {@code softiwarp} lists
 * its devices and makes their verbs objects (PDs, MRs, CQs, QPs, SRQs); a QP bound to an MPA stream by the
 * connection manager moves Sends, Writes and Reads over it (the data path); the wire layer is
 * {@code org.verbs4j.softiwarp.wire}.
 */
module org.verbs4j.softiwarp {
    requires org.verbs4j.api;
    requires org.slf4j;

    provides org.verbs4j.api.spi.VerbsBackend with org.verbs4j.softiwarp.SoftIwarpBackend;
}
