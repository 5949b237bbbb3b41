package org.verbs4j.softiwarp.wire;

import java.nio.ByteBuffer;

/**
 * The receive path of one connection without the socket: deframes what TCP delivered, checks each DDP/RDMAP
 * header against its opcode's layout and the stream's sequencing, and hands the segments to an {@link FpduSink}.
 * The first error stops the stream; the offending frame stays at the buffer's position so a Terminate can copy
 * its headers.
 */
final class FpduReceiver {
    private final FpduDeframer deframer;
    private final DdpReassembly sequence = new DdpReassembly();
    private final boolean extensions;
    private WireError error;
    private boolean terminated;

    /**
     * @param extensions whether RFC 7306 opcodes were negotiated (never with siw)
     */
    FpduReceiver(boolean crcOn, int maxUlpdu, boolean extensions) {
        this.deframer = new FpduDeframer(crcOn, maxUlpdu);
        this.extensions = extensions;
    }

    /**
     * Delivers every complete FPDU from src's position to its limit; src's position ends at the first incomplete
     * frame (or at the offending one after an error).
     *
     * @return the number of segments delivered, or -1 after an error ({@link #error()}) or a Terminate
     */
    int receive(ByteBuffer src, FpduSink sink) {
        int delivered = 0;
        while (error == null && !terminated) {
            int frame = deframer.next(src);
            if (frame == FpduDeframer.NEED_MORE) {
                return delivered;
            }
            if (frame == FpduDeframer.FAILED) {
                error = deframer.error();
                break;
            }
            int at = src.position();
            int limit = src.limit();
            WireError why = deliver(src, at, deframer.ulpduLength(), sink);
            src.limit(limit).position(why == null ? at + frame : at);
            if (why != null) {
                error = why;
                break;
            }
            delivered++;
        }
        return -1;
    }

    WireError error() {
        return error;
    }

    boolean terminated() {
        return terminated;
    }

    private WireError deliver(ByteBuffer src, int at, int ulpdu, FpduSink sink) {
        int control = src.get(at + Ddp.CONTROL) & 0xFF;
        int rdmap = src.get(at + Ddp.RDMAP_CONTROL) & 0xFF;
        if ((control & Ddp.VERSION_MASK) != Ddp.VERSION) {
            return WireError.DDP_BAD_VERSION;
        }
        if (rdmap >>> Ddp.RDMAP_VERSION_SHIFT != Ddp.RDMAP_VERSION) {
            return WireError.RDMAP_BAD_VERSION;
        }
        int opcode = rdmap & Ddp.OPCODE_MASK;
        boolean tagged = (control & Ddp.FLAG_TAGGED) != 0;
        boolean last = (control & Ddp.FLAG_LAST) != 0;
        if (opcode > Rdmap.ATOMIC_RESPONSE || Rdmap.extension(opcode) && !extensions
                || tagged != Rdmap.tagged(opcode)) {
            return WireError.RDMAP_UNEXPECTED_OPCODE;
        }
        int payloadAt = at + Fpdu.LENGTH_FIELD + (tagged ? Ddp.TAGGED_HEADER : Ddp.UNTAGGED_HEADER);
        int payloadEnd = at + Fpdu.LENGTH_FIELD + ulpdu;
        if (payloadAt > payloadEnd) {
            return WireError.FPDU_TOO_SHORT;
        }
        int length = payloadEnd - payloadAt;
        if (tagged) {
            int stag = src.getInt(at + Ddp.STAG);
            long offset = src.getLong(at + Ddp.TAGGED_OFFSET);
            WireError why = sequence.tagged(stag, offset, length, last);
            if (why != null) {
                return why;
            }
            src.limit(payloadEnd).position(payloadAt);
            sink.onTagged(opcode, last, stag, offset, src);
            return null;
        }
        int queue = src.getInt(at + Ddp.QUEUE);
        int msn = src.getInt(at + Ddp.MSN);
        int offset = src.getInt(at + Ddp.MESSAGE_OFFSET);
        if (queue != Rdmap.queue(opcode)) {
            return WireError.DDP_BAD_QUEUE;
        }
        int fixed = Rdmap.fixedLength(opcode);
        if (fixed >= 0 && (length != fixed || !last || offset != 0)
                || opcode == Rdmap.TERMINATE && (length < Rdmap.TERMINATE_CONTROL_LENGTH || !last || offset != 0)) {
            return WireError.RDMAP_MALFORMED;
        }
        WireError why = sequence.untagged(queue, msn, offset, length, last);
        if (why != null) {
            return why;
        }
        if (opcode == Rdmap.READ_REQUEST) {
            sink.onReadRequest(msn, src.getInt(payloadAt + Rdmap.RR_SINK_STAG),
                    src.getLong(payloadAt + Rdmap.RR_SINK_TO), src.getInt(payloadAt + Rdmap.RR_SIZE),
                    src.getInt(payloadAt + Rdmap.RR_SOURCE_STAG), src.getLong(payloadAt + Rdmap.RR_SOURCE_TO));
        } else if (opcode == Rdmap.ATOMIC_REQUEST) {
            sink.onAtomicRequest(msn, src.getInt(payloadAt + Rdmap.AR_OPCODE) & 0xF,
                    src.getInt(payloadAt + Rdmap.AR_REQUEST_ID), src.getInt(payloadAt + Rdmap.AR_STAG),
                    src.getLong(payloadAt + Rdmap.AR_TO), src.getLong(payloadAt + Rdmap.AR_SWAP_ADD),
                    src.getLong(payloadAt + Rdmap.AR_SWAP_ADD_MASK), src.getLong(payloadAt + Rdmap.AR_COMPARE),
                    src.getLong(payloadAt + Rdmap.AR_COMPARE_MASK));
        } else if (opcode == Rdmap.ATOMIC_RESPONSE) {
            sink.onAtomicResponse(msn, src.getInt(payloadAt + Rdmap.AS_REQUEST_ID),
                    src.getLong(payloadAt + Rdmap.AS_VALUE));
        } else if (opcode == Rdmap.TERMINATE) {
            terminated = true;
            int layer = Rdmap.terminateLayer(src, payloadAt);
            int type = Rdmap.terminateErrorType(src, payloadAt);
            int code = Rdmap.terminateErrorCode(src, payloadAt);
            src.limit(payloadEnd).position(payloadAt + Rdmap.TERMINATE_CONTROL_LENGTH);
            sink.onTerminate(layer, type, code, src);
        } else {
            int invalidate = src.getInt(at + Ddp.INVALIDATE_STAG);
            src.limit(payloadEnd).position(payloadAt);
            sink.onUntagged(opcode, last, queue, msn, offset, invalidate, src);
        }
        return null;
    }
}
