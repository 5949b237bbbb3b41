package org.verbs4j.softiwarp;

/**
 * Why a tagged access (an RDMA Write's or Read Response's placement, a Read Request's source, a local SGE) was
 * refused, with the error codes a Terminate carries for it: the RDMAP code (RFC 5040, section 4.8, layer 0, for a
 * Read Request's source) and the DDP tagged-buffer code (RFC 5041, section 7.2, layer 1, for a placement).
 * Checked in siw's order: STag, protection domain, rights, bounds.
 */
public enum TaggedAccessError {
    /** No valid region has this STag (never allocated, deregistered, or an old key byte). */
    INVALID_STAG(0x00, 0x00),
    /** The region belongs to another protection domain than the QP's. */
    STAG_NOT_ASSOCIATED(0x03, 0x02),
    /** The region lacks the access right the operation needs. */
    ACCESS_RIGHTS(0x02, 0x02),
    /** The tagged offset and length reach outside the region. */
    BASE_BOUNDS(0x01, 0x01),
    /** The tagged offset plus the length wraps around 2^64. */
    TO_WRAP(0x04, 0x03);

    private final int rdmapCode;
    private final int ddpCode;

    TaggedAccessError(int rdmapCode, int ddpCode) {
        this.rdmapCode = rdmapCode;
        this.ddpCode = ddpCode;
    }

    /** {@return the RDMAP error code (layer 0, protection error class), e.g. 0x00 for an invalid STag} */
    public int rdmapCode() {
        return rdmapCode;
    }

    /**
     * {@return the DDP tagged-buffer error code (layer 1, error type 1); siw reports a PD mismatch and a missing
     * right both as "STag not associated with the DDP stream"}
     */
    public int ddpCode() {
        return ddpCode;
    }
}
