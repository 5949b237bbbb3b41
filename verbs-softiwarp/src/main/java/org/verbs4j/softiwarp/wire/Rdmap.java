package org.verbs4j.softiwarp.wire;

import java.nio.ByteBuffer;

/**
 * RDMAP (RFC 5040) opcodes and the fixed layouts that follow a DDP header: Read Request, Terminate, and RFC 7306's
 * Immediate Data and Atomic messages. The RFC 7306 codecs are verbs4j-to-verbs4j extensions: Linux siw has none of
 * them, so they are only ever sent once both sides negotiated them. Offsets below are from the start of the payload
 * (after the DDP header), big-endian.
 */
final class Rdmap {
    static final int WRITE = 0;
    static final int READ_REQUEST = 1;
    static final int READ_RESPONSE = 2;
    static final int SEND = 3;
    static final int SEND_INVALIDATE = 4;
    static final int SEND_SE = 5;
    static final int SEND_SE_INVALIDATE = 6;
    static final int TERMINATE = 7;
    /** RFC 7306 (extension): Immediate Data, 8 bytes. */
    static final int IMMEDIATE = 8;
    /** RFC 7306 (extension): Immediate Data with Solicited Event. */
    static final int IMMEDIATE_SE = 9;
    /** RFC 7306 (extension): Atomic Request. */
    static final int ATOMIC_REQUEST = 10;
    /** RFC 7306 (extension): Atomic Response. */
    static final int ATOMIC_RESPONSE = 11;

    /** Read Request: sink STag, sink TO, size, source STag, source TO. */
    static final int RR_SINK_STAG = 0;
    static final int RR_SINK_TO = 4;
    static final int RR_SIZE = 12;
    static final int RR_SOURCE_STAG = 16;
    static final int RR_SOURCE_TO = 20;
    static final int READ_REQUEST_LENGTH = 28;

    /** Terminate control word: layer/etype, error code, header-copy bits M D R. */
    static final int TERMINATE_CONTROL_LENGTH = 4;
    static final int TERM_COPY_MPA_LENGTH = 0x80;
    static final int TERM_COPY_DDP_HEADER = 0x40;
    static final int TERM_COPY_RDMAP_HEADER = 0x20;
    /** The longest header copy: length field, untagged DDP header, Read Request. */
    static final int TERMINATE_MAX_COPY = Fpdu.LENGTH_FIELD + Ddp.UNTAGGED_HEADER + READ_REQUEST_LENGTH;

    /**
     * Immediate Data: 8 bytes, opaque to RDMAP. verbs4j puts the verbs' 32-bit {@code imm_data} (as it lies in
     * the work request, network order) in bytes 0-3 and a verbs4j mark in bytes 4-7:
     * {@link #IMMEDIATE_ALONE} for an RDMA Write with immediate (a Write, then this message, which takes a
     * receive), {@link #IMMEDIATE_FOR_SEND} for a Send with immediate (this message, then the Send, which takes
     * the receive and carries the 32 bits into its completion).
     */
    static final int IMMEDIATE_LENGTH = 8;
    static final int IMM_DATA = 0;
    static final int IMM_MARK = 4;
    static final int IMMEDIATE_ALONE = 0;
    static final int IMMEDIATE_FOR_SEND = 1;
    /** Atomic Request: op (low 4 bits of a word), request id, remote STag, remote TO, add/swap, mask, compare, mask. */
    static final int AR_OPCODE = 0;
    static final int AR_REQUEST_ID = 4;
    static final int AR_STAG = 8;
    static final int AR_TO = 12;
    static final int AR_SWAP_ADD = 20;
    static final int AR_SWAP_ADD_MASK = 28;
    static final int AR_COMPARE = 36;
    static final int AR_COMPARE_MASK = 44;
    static final int ATOMIC_REQUEST_LENGTH = 52;
    /** RFC 7306 atomic operation codes (low 4 bits of the first word of an Atomic Request). */
    static final int ATOMIC_FETCH_ADD = 0;
    static final int ATOMIC_SWAP = 1;
    static final int ATOMIC_COMPARE_SWAP = 2;
    /** Atomic Response: original request id, original remote value. */
    static final int AS_REQUEST_ID = 0;
    static final int AS_VALUE = 4;
    static final int ATOMIC_RESPONSE_LENGTH = 12;

    private Rdmap() {
    }

    static boolean tagged(int opcode) {
        return opcode == WRITE || opcode == READ_RESPONSE;
    }

    static boolean extension(int opcode) {
        return opcode >= IMMEDIATE && opcode <= ATOMIC_RESPONSE;
    }

    static boolean solicited(int opcode) {
        return opcode == SEND_SE || opcode == SEND_SE_INVALIDATE || opcode == IMMEDIATE_SE;
    }

    static boolean invalidates(int opcode) {
        return opcode == SEND_INVALIDATE || opcode == SEND_SE_INVALIDATE;
    }

    /** The untagged queue an opcode uses, or -1 for tagged or unknown opcodes. */
    static int queue(int opcode) {
        switch (opcode) {
            case SEND: case SEND_INVALIDATE: case SEND_SE: case SEND_SE_INVALIDATE: case IMMEDIATE: case IMMEDIATE_SE:
                return Ddp.QN_SEND;
            case READ_REQUEST: case ATOMIC_REQUEST:
                return Ddp.QN_READ_REQUEST;
            case TERMINATE:
                return Ddp.QN_TERMINATE;
            case ATOMIC_RESPONSE:
                return Ddp.QN_ATOMIC_RESPONSE;
            default:
                return -1;
        }
    }

    /** The exact payload length a single-segment opcode needs, -1 for variable-length opcodes. */
    static int fixedLength(int opcode) {
        switch (opcode) {
            case READ_REQUEST: return READ_REQUEST_LENGTH;
            case IMMEDIATE: case IMMEDIATE_SE: return IMMEDIATE_LENGTH;
            case ATOMIC_REQUEST: return ATOMIC_REQUEST_LENGTH;
            case ATOMIC_RESPONSE: return ATOMIC_RESPONSE_LENGTH;
            default: return -1;
        }
    }

    static void putReadRequest(ByteBuffer dst, int at, int sinkStag, long sinkTo, int size, int sourceStag,
                               long sourceTo) {
        dst.putInt(at + RR_SINK_STAG, sinkStag);
        dst.putLong(at + RR_SINK_TO, sinkTo);
        dst.putInt(at + RR_SIZE, size);
        dst.putInt(at + RR_SOURCE_STAG, sourceStag);
        dst.putLong(at + RR_SOURCE_TO, sourceTo);
    }

    /**
     * Writes a Terminate control word in RFC 5040 §4.8 bit order (layer in the high nibble of the first byte) and
     * the copy of the offending FPDU's headers. Linux siw 6.1 does not use this order: seen in the lab, its
     * Terminate for an unknown opcode starts {@code 20 06} (error type in the high nibble, layer in the low) and
     * carries no header copy; presumably it misreads ours the same way. A Terminate ends the stream either way.
     * <p>
     * Copies {@code copyLength} bytes from the offending FPDU's length field on (at most
     * {@link #TERMINATE_MAX_COPY}); returns the payload length written.
     */
    static int putTerminate(ByteBuffer dst, int at, int layer, int errorType, int errorCode, ByteBuffer offending,
                            int offendingAt, int copyLength) {
        int copy = Math.min(copyLength, TERMINATE_MAX_COPY);
        int bits = 0;
        if (copy >= Fpdu.LENGTH_FIELD) {
            bits |= TERM_COPY_MPA_LENGTH;
        }
        if (copy >= Fpdu.LENGTH_FIELD + Ddp.TAGGED_HEADER) {
            bits |= TERM_COPY_DDP_HEADER;
        }
        if (copy > Fpdu.LENGTH_FIELD + Ddp.UNTAGGED_HEADER) {
            bits |= TERM_COPY_RDMAP_HEADER;
        }
        dst.put(at, (byte) ((layer & 0xF) << 4 | (errorType & 0xF)));
        dst.put(at + 1, (byte) errorCode);
        dst.put(at + 2, (byte) bits);
        dst.put(at + 3, (byte) 0);
        for (int i = 0; i < copy; i++) {
            dst.put(at + TERMINATE_CONTROL_LENGTH + i, offending.get(offendingAt + i));
        }
        return TERMINATE_CONTROL_LENGTH + copy;
    }

    static int terminateLayer(ByteBuffer src, int at) {
        return (src.get(at) & 0xF0) >>> 4;
    }

    static int terminateErrorType(ByteBuffer src, int at) {
        return src.get(at) & 0x0F;
    }

    static int terminateErrorCode(ByteBuffer src, int at) {
        return src.get(at + 1) & 0xFF;
    }

    static void putAtomicRequest(ByteBuffer dst, int at, int atomicOpcode, int requestId, int stag, long to,
                                 long swapAdd, long swapAddMask, long compare, long compareMask) {
        dst.putInt(at + AR_OPCODE, atomicOpcode & 0xF);
        dst.putInt(at + AR_REQUEST_ID, requestId);
        dst.putInt(at + AR_STAG, stag);
        dst.putLong(at + AR_TO, to);
        dst.putLong(at + AR_SWAP_ADD, swapAdd);
        dst.putLong(at + AR_SWAP_ADD_MASK, swapAddMask);
        dst.putLong(at + AR_COMPARE, compare);
        dst.putLong(at + AR_COMPARE_MASK, compareMask);
    }

    static void putImmediate(ByteBuffer dst, int at, int immData, int mark) {
        dst.putInt(at + IMM_DATA, immData);
        dst.putInt(at + IMM_MARK, mark);
    }

    static void putAtomicResponse(ByteBuffer dst, int at, int requestId, long originalValue) {
        dst.putInt(at + AS_REQUEST_ID, requestId);
        dst.putLong(at + AS_VALUE, originalValue);
    }
}
