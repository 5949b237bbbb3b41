/**
 * A software RNIC in pure Java: iWARP (RDMAP over DDP over MPA, RFCs 5040, 5041 and 5044) over TCP,
 * meant to be wire-compatible with Linux siw. Work in progress: the {@link org.verbs4j.api.spi.VerbsBackend}
 * {@code softiwarp} lists its devices and makes their verbs objects (PDs, MRs, CQs, QPs, SRQs), but moves no
 * data between QPs yet; the wire layer ({@code org.verbs4j.softiwarp.wire}) is being built.
 */
module org.verbs4j.softiwarp {
    requires org.verbs4j.api;
    requires org.slf4j;

    provides org.verbs4j.api.spi.VerbsBackend with org.verbs4j.softiwarp.SoftIwarpBackend;
}
