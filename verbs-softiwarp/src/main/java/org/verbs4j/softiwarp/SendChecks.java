package org.verbs4j.softiwarp;

import static org.verbs4j.api.internal.WrLayout.Wr.NUM_SGE;
import static org.verbs4j.api.internal.WrLayout.Wr.SGE_LENGTH;
import static org.verbs4j.api.internal.WrLayout.Wr.SGE_SIZE;
import static org.verbs4j.api.internal.WrLayout.Wr.SG_LIST;

import org.verbs4j.api.Errno;
import org.verbs4j.api.Opcode;
import org.verbs4j.api.QpCapabilities;
import org.verbs4j.api.SendFlags;
import org.verbs4j.api.internal.RawMemory;
import org.verbs4j.api.internal.WrLayout.SendWr;

/**
 * The checks {@code ibv_post_send} makes of each request before it is queued, as siw makes them: an opcode the
 * connection executes (immediate data and atomics only once the peer negotiated RFC 7306, which Linux siw never
 * does), a Read with exactly one SGE (siw's {@code max_sge_rd}), an atomic with one SGE of 8 bytes, inline data
 * only for Sends and Writes and no more than the QP's {@code max_inline_data}. Reads native memory only; allocates
 * nothing.
 */
final class SendChecks {
    private SendChecks() {
    }

    /**
     * {@return 0 when the request at {@code wr} can be queued, else the errno of the refusal}
     *
     * @param rfc7306 whether the QP's connection negotiated RFC 7306 (immediate data, atomics)
     */
    static int check(long wr, QpCapabilities caps, boolean rfc7306) {
        return why(wr, caps, rfc7306) == null ? 0 : Errno.EINVAL;
    }

    /** {@return why the request at {@code wr} is refused, or null} Only this text allocates, on a refusal. */
    static String why(long wr, QpCapabilities caps, boolean rfc7306) {
        int opcode = RawMemory.getInt(wr + SendWr.OPCODE_OFFSET);
        int flags = RawMemory.getInt(wr + SendWr.SEND_FLAGS_OFFSET);
        int numSge = RawMemory.getInt(wr + NUM_SGE);
        boolean read = opcode == Opcode.RDMA_READ.value();
        boolean atomic = opcode == Opcode.ATOMIC_CMP_AND_SWP.value() || opcode == Opcode.ATOMIC_FETCH_AND_ADD.value();
        boolean immediate = opcode == Opcode.SEND_WITH_IMM.value() || opcode == Opcode.RDMA_WRITE_WITH_IMM.value();
        if ((immediate || atomic) && !rfc7306) {
            // as siw refuses them at post (EINVAL, bad_wr on the request): RFC 5040's RDMAP has no immediate data
            // and no atomics; they are RFC 7306, which only two verbs4j peers agree on in the MPA handshake
            return "has opcode " + Opcode.of(opcode) + ", but the peer did not negotiate RFC 7306, which immediate "
                    + "data and atomics need (Linux siw, or a verbs4j peer with it off, speaks RFC 5040's RDMAP "
                    + "only); nothing was sent";
        }
        if (!read && !immediate && !atomic && opcode != Opcode.SEND.value() && opcode != Opcode.SEND_WITH_INV.value()
                && opcode != Opcode.RDMA_WRITE.value() && opcode != Opcode.LOCAL_INV.value()) {
            return "has opcode " + opcode + ", which the device does not execute";
        }
        if (atomic && (numSge != 1
                || (RawMemory.getInt(RawMemory.getAddress(wr + SG_LIST) + SGE_LENGTH) & 0xffffffffL) < 8)) {
            return "is an atomic (" + Opcode.of(opcode) + ") without exactly one SGE of at least 8 bytes for the "
                    + "original value";
        }
        if (read && numSge != 1) {
            return "is an RDMA Read with " + numSge + " SGEs: the device reads into exactly one (max_sge_rd 1)";
        }
        if ((flags & SendFlags.INLINE) != 0) {
            if (read || atomic) {
                return "asks for inline data, which only Sends and Writes carry";
            }
            long sges = RawMemory.getAddress(wr + SG_LIST);
            long total = 0;
            for (int j = 0; j < numSge; j++) {
                total += RawMemory.getInt(sges + (long) j * SGE_SIZE + SGE_LENGTH) & 0xffffffffL;
            }
            if (total > caps.maxInlineData()) {
                return "has " + total + " bytes inline; the QP takes at most " + caps.maxInlineData()
                        + " (max_inline_data)";
            }
        }
        return null;
    }

    /** {@return the completion opcode ({@code ibv_wc_opcode}) of a send request's opcode} */
    static int completionOpcode(int opcode) {
        if (opcode == Opcode.RDMA_WRITE.value() || opcode == Opcode.RDMA_WRITE_WITH_IMM.value()) {
            return WcCodes.WRITE;
        }
        if (opcode == Opcode.RDMA_READ.value()) {
            return WcCodes.READ;
        }
        if (opcode == Opcode.ATOMIC_CMP_AND_SWP.value()) {
            return WcCodes.COMP_SWAP;
        }
        if (opcode == Opcode.ATOMIC_FETCH_AND_ADD.value()) {
            return WcCodes.FETCH_ADD;
        }
        if (opcode == Opcode.LOCAL_INV.value()) {
            return WcCodes.LOCAL_INV;
        }
        return WcCodes.SEND;
    }
}
