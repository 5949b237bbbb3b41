package org.verbs4j.softiwarp.wire;

/**
 * One side's MPA and framing choices, immutable. {@link #siwDefaults()} behaves as Linux siw does by default: MPA
 * revision 2 with the enhanced IRD/ORD words, CRC only when the peer asks for it. RFC 6581's peer-to-peer mode
 * (ready-to-receive frames) is not offered, nor granted: the Reply never sets P2P.
 *
 * <pre>{@code
 * MpaSettings crcOn = MpaSettings.siwDefaults().withCrcRequired(true).withIrdOrd(16, 16);
 * }</pre>
 */
public final class MpaSettings {
    /** The IRD/ORD ceiling siw uses (SIW_MAX_IRD_QP, SIW_MAX_ORD_QP). */
    public static final int SIW_MAX_IRD_ORD = 128;
    /** The largest ULPDU a 16-bit length field can carry. */
    public static final int MAX_ULPDU = 0xFFFF;

    private final int revision;
    private final boolean crcRequired;
    private final int ird;
    private final int ord;
    private final int sendMss;
    private final int receiveMaxUlpdu;
    private final long timeoutMillis;
    private final boolean rfc7306;

    private MpaSettings(int revision, boolean crcRequired, int ird, int ord, int sendMss,
                        int receiveMaxUlpdu, long timeoutMillis) {
        this(revision, crcRequired, ird, ord, sendMss, receiveMaxUlpdu, timeoutMillis, false);
    }

    private MpaSettings(int revision, boolean crcRequired, int ird, int ord, int sendMss,
                        int receiveMaxUlpdu, long timeoutMillis, boolean rfc7306) {
        if (revision != 1 && revision != 2) {
            throw new IllegalArgumentException("MPA revision " + revision + ", only 1 and 2");
        }
        if (ird < 0 || ird > MpaFrame.IRD_ORD_MASK || ord < 0 || ord > MpaFrame.IRD_ORD_MASK) {
            throw new IllegalArgumentException("IRD " + ird + " / ORD " + ord);
        }
        if (sendMss < 64 || sendMss > MAX_ULPDU) {
            throw new IllegalArgumentException("MSS " + sendMss);
        }
        if (receiveMaxUlpdu < 64 || receiveMaxUlpdu > MAX_ULPDU) {
            throw new IllegalArgumentException("receive MULPDU " + receiveMaxUlpdu);
        }
        if (timeoutMillis <= 0) {
            throw new IllegalArgumentException("time-out " + timeoutMillis + " ms");
        }
        this.revision = revision;
        this.crcRequired = crcRequired;
        this.ird = ird;
        this.ord = ord;
        this.sendMss = sendMss;
        this.receiveMaxUlpdu = receiveMaxUlpdu;
        this.timeoutMillis = timeoutMillis;
        this.rfc7306 = rfc7306;
    }

    /**
     * Revision 2, CRC if the peer asks, IRD = ORD = 1, MSS 1448 (Ethernet), any receive ULPDU, 5 s time-out.
     *
     * @return the defaults
     */
    public static MpaSettings siwDefaults() {
        return new MpaSettings(2, false, 1, 1, 1448, MAX_ULPDU, 5000);
    }

    /**
     * With another MPA revision to send: 2 (RFC 6581, IRD/ORD exchanged) or 1 (RFC 5044 alone).
     *
     * @param newRevision 1 or 2
     * @return a copy with the revision
     */
    public MpaSettings withRevision(int newRevision) {
        return new MpaSettings(newRevision, crcRequired, ird, ord, sendMss, receiveMaxUlpdu,
                timeoutMillis, rfc7306);
    }

    /**
     * With CRC32C asked for (initiator) or imposed (responder); without, CRC is on only if the peer asks.
     *
     * @param required whether this side insists on CRC
     * @return a copy with the choice
     */
    public MpaSettings withCrcRequired(boolean required) {
        return new MpaSettings(revision, required, ird, ord, sendMss, receiveMaxUlpdu, timeoutMillis, rfc7306);
    }

    /**
     * With the inbound (IRD) and outbound (ORD) RDMA READ depths this side offers.
     *
     * @param newIrd reads the peer may have outstanding at us
     * @param newOrd reads we want outstanding at the peer
     * @return a copy with the depths
     */
    public MpaSettings withIrdOrd(int newIrd, int newOrd) {
        return new MpaSettings(revision, crcRequired, newIrd, newOrd, sendMss, receiveMaxUlpdu,
                timeoutMillis, rfc7306);
    }

    /**
     * With the TCP MSS the send side segments for (siw: one FPDU per TCP segment of MSS rounded down to 8).
     *
     * @param mss the maximum segment size in bytes
     * @return a copy with the MSS
     */
    public MpaSettings withSendMss(int mss) {
        return new MpaSettings(revision, crcRequired, ird, ord, mss, receiveMaxUlpdu, timeoutMillis, rfc7306);
    }

    /**
     * With a bound on the ULPDU length accepted from the peer; longer FPDUs are {@link WireError#FPDU_TOO_LONG}.
     *
     * @param maxUlpdu at most {@link #MAX_ULPDU}
     * @return a copy with the bound
     */
    public MpaSettings withReceiveMaxUlpdu(int maxUlpdu) {
        return new MpaSettings(revision, crcRequired, ird, ord, sendMss, maxUlpdu, timeoutMillis, rfc7306);
    }

    /**
     * With the time the handshake may take before {@link WireError#MPA_TIMEOUT}.
     *
     * @param millis the time-out in milliseconds
     * @return a copy with the time-out
     */
    public MpaSettings withTimeoutMillis(long millis) {
        return new MpaSettings(revision, crcRequired, ird, ord, sendMss, receiveMaxUlpdu, millis, rfc7306);
    }

    /**
     * With RFC 7306 (immediate data and atomics) offered (initiator) or accepted (responder), or not. The
     * extensions are a verbs4j-to-verbs4j agreement made with reserved bits of the MPA frames (see
     * {@code docs/softiwarp.md}): a Linux siw peer never turns them on, whichever side it is.
     *
     * @param on whether this side speaks RFC 7306
     * @return a copy with the choice
     */
    public MpaSettings withRfc7306(boolean on) {
        return new MpaSettings(revision, crcRequired, ird, ord, sendMss, receiveMaxUlpdu, timeoutMillis, on);
    }

    /**
     * Whether this side offers or accepts RFC 7306; off in {@link #siwDefaults()}.
     *
     * @return the choice
     */
    public boolean rfc7306() {
        return rfc7306;
    }

    /**
     * The MPA revision this side sends.
     *
     * @return 1 or 2
     */
    public int revision() {
        return revision;
    }

    /**
     * Whether this side insists on CRC32C.
     *
     * @return the choice
     */
    public boolean crcRequired() {
        return crcRequired;
    }

    /**
     * The inbound RDMA READ depth offered.
     *
     * @return the IRD
     */
    public int ird() {
        return ird;
    }

    /**
     * The outbound RDMA READ depth wanted.
     *
     * @return the ORD
     */
    public int ord() {
        return ord;
    }

    /**
     * The TCP MSS the send side segments for.
     *
     * @return bytes
     */
    public int sendMss() {
        return sendMss;
    }

    /**
     * The longest ULPDU accepted from the peer.
     *
     * @return bytes
     */
    public int receiveMaxUlpdu() {
        return receiveMaxUlpdu;
    }

    /**
     * The handshake time-out.
     *
     * @return milliseconds
     */
    public long timeoutMillis() {
        return timeoutMillis;
    }
}
