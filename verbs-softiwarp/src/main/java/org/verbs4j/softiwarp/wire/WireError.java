package org.verbs4j.softiwarp.wire;

/**
 * Every way a peer's bytes can be refused by the wire layer. Parsers return (or the connection throws, inside a
 * {@link WireException}) exactly one of these; nothing else escapes a parser. Where the error is reported to the
 * peer, {@link #layer()}, {@link #errorType()} and {@link #errorCode()} are the Terminate codes of RFC 5040 §7.2
 * (RDMAP layer 0, DDP layer 1, LLP/MPA layer 2).
 */
public enum WireError {
    /** The first 16 bytes are not "MPA ID Req Frame" / "MPA ID Rep Frame" as expected. */
    MPA_BAD_KEY(2, 0, 0x04),
    /** The peer asked for markers (M bit); markers are never supported. */
    MPA_MARKERS_REFUSED(2, 0, 0x03),
    /** An MPA revision other than 1 or 2. */
    MPA_BAD_REVISION(2, 0, 0x04),
    /** Private data longer than the 512 bytes RFC 5044 allows. */
    MPA_PRIVATE_DATA_TOO_LONG(2, 0, 0x04),
    /** Revision 2 with the enhanced flag but fewer than the 4 bytes of IRD/ORD words. */
    MPA_ENHANCED_TOO_SHORT(2, 0, 0x04),
    /** The peer's IRD/ORD cannot be honoured (its ORD exceeds our IRD). */
    MPA_IRD_ORD_MISMATCH(2, 0, 0x04),
    /** We require CRC and the responder did not turn it on. */
    MPA_CRC_REFUSED(2, 0, 0x04),
    /** The responder rejected the connection (R bit); its private data is in the exception. */
    MPA_REJECTED(2, 0, 0x04),
    /** No complete MPA frame within the time-out. */
    MPA_TIMEOUT(2, 0, 0x01),
    /** Nothing could be written for the time-out: the peer stopped reading. */
    PEER_NOT_READING(2, 0, 0x01),
    /** The TCP connection closed before the frame was complete. */
    CONNECTION_CLOSED(2, 0, 0x01),
    /** The FPDU's CRC32C does not match its bytes. */
    FPDU_BAD_CRC(2, 0, 0x02),
    /** The ULPDU length exceeds the negotiated receive MULPDU. */
    FPDU_TOO_LONG(1, 2, 0x05),
    /** The ULPDU length is shorter than the DDP/RDMAP header its opcode needs. */
    FPDU_TOO_SHORT(1, 0, 0x00),
    /** DDP version other than 1. */
    DDP_BAD_VERSION(1, 2, 0x06),
    /** An untagged segment for a queue number its opcode does not use. */
    DDP_BAD_QUEUE(1, 2, 0x01),
    /** An untagged segment whose message sequence number is not the one expected. */
    DDP_BAD_MSN(1, 2, 0x03),
    /** An untagged segment whose message offset is not the one expected. */
    DDP_BAD_OFFSET(1, 2, 0x04),
    /** A tagged continuation whose STag or tagged offset does not continue the open message. */
    DDP_BAD_TAGGED_CONTINUATION(1, 1, 0x00),
    /** RDMAP version other than 1. */
    RDMAP_BAD_VERSION(0, 2, 0x05),
    /** An opcode that is unknown, not negotiated, or on the wrong buffer model (tagged/untagged). */
    RDMAP_UNEXPECTED_OPCODE(0, 2, 0x06),
    /** A Read Request or Terminate whose fixed layout is violated (length, L bit, offset). */
    RDMAP_MALFORMED(0, 2, 0xFF);

    private final int layer;
    private final int errorType;
    private final int errorCode;

    WireError(int layer, int errorType, int errorCode) {
        this.layer = layer;
        this.errorType = errorType;
        this.errorCode = errorCode;
    }

    /**
     * The Terminate layer for this error.
     *
     * @return 0 RDMAP, 1 DDP, 2 LLP (MPA)
     */
    public int layer() {
        return layer;
    }

    /**
     * The Terminate error type within {@link #layer()}.
     *
     * @return the 4-bit error type
     */
    public int errorType() {
        return errorType;
    }

    /**
     * The Terminate error code within {@link #errorType()}.
     *
     * @return the 8-bit error code
     */
    public int errorCode() {
        return errorCode;
    }
}
