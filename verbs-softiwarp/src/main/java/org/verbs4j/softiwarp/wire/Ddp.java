package org.verbs4j.softiwarp.wire;

/**
 * DDP segment headers (RFC 5041 §4) with RDMAP's control byte (RFC 5040 §4), as offsets from the start of an FPDU
 * (its length field). Byte 2 is DDP control: T 0x80, L 0x40, DV 0x03 = 1. Byte 3 is RDMAP control: RV 0xC0 = 1,
 * opcode 0x0F. Tagged: STag at 4, tagged offset at 8, payload at 16. Untagged: Invalidate STag at 4, QN at 8,
 * MSN at 12, MO at 16, payload at 20.
 */
final class Ddp {
    static final int CONTROL = 2;
    static final int RDMAP_CONTROL = 3;
    static final int STAG = 4;
    static final int TAGGED_OFFSET = 8;
    static final int INVALIDATE_STAG = 4;
    static final int QUEUE = 8;
    static final int MSN = 12;
    static final int MESSAGE_OFFSET = 16;

    /** Header bytes counted in ULPDU_Length (all but the length field). */
    static final int TAGGED_HEADER = 14;
    static final int UNTAGGED_HEADER = 18;

    static final int FLAG_TAGGED = 0x80;
    static final int FLAG_LAST = 0x40;
    static final int VERSION_MASK = 0x03;
    static final int VERSION = 1;
    static final int RDMAP_VERSION_SHIFT = 6;
    static final int RDMAP_VERSION = 1;
    static final int OPCODE_MASK = 0x0F;

    /** Untagged queues (RFC 5040 §5.1). */
    static final int QN_SEND = 0;
    static final int QN_READ_REQUEST = 1;
    static final int QN_TERMINATE = 2;
    /**
     * RFC 7306: the Atomic Response queue (Atomic Requests share queue 1 with Read Requests, so they share its MSN
     * sequence and the IRD/ORD credits). Used only once both sides negotiated RFC 7306.
     */
    static final int QN_ATOMIC_RESPONSE = 3;
    static final int QUEUES = 4;

    private Ddp() {
    }

    static int control(boolean tagged, boolean last) {
        return (tagged ? FLAG_TAGGED : 0) | (last ? FLAG_LAST : 0) | VERSION;
    }

    static int rdmapControl(int opcode) {
        return RDMAP_VERSION << RDMAP_VERSION_SHIFT | opcode;
    }
}
