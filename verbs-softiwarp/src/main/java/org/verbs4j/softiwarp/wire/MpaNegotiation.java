package org.verbs4j.softiwarp.wire;

/**
 * The decisions of an MPA handshake, as siw makes them, kept apart from the socket so they can be tested alone.
 */
final class MpaNegotiation {
    private MpaNegotiation() {
    }

    /** Fills an initiator's Request from its settings. */
    static void request(MpaSettings local, byte[] privateData, MpaFrame out) {
        out.request = true;
        out.reject = false;
        out.revision = local.revision();
        out.enhanced = true;
        out.crc = local.crcRequired();
        out.ird = local.ird();
        out.ord = local.ord();
        out.peerToPeer = false;
        out.rtr = 0;
        out.rfc7306Offer = local.rfc7306();
        out.rfc7306Accept = false; // never: an echoing responder would hand it back as if it had accepted
        out.privateData(privateData);
    }

    /**
     * Fills a responder's Reply to a decoded Request: revision echoed (at most ours), CRC if either side wants it,
     * ORD := min(request IRD, our ORD), IRD := min(request ORD, our IRD). Peer-to-peer mode
     * is not granted (P2P clear, no RTR type): this side has no ready-to-receive exchange yet. RFC 7306 is
     * accepted (the accept bit set, the offer bit cleared) only when the Request offers it and this side speaks it.
     */
    static void reply(MpaFrame req, MpaSettings local, boolean reject, byte[] privateData, MpaFrame out) {
        out.request = false;
        out.reject = reject;
        out.revision = Math.min(req.revision, local.revision());
        out.enhanced = true;
        out.crc = req.crc || local.crcRequired();
        if (req.carriesIrdOrd()) {
            out.ord = Math.min(req.ird, local.ord());
            out.ird = Math.min(req.ord, local.ird());
        } else {
            out.ord = local.ord();
            out.ird = local.ird();
        }
        out.peerToPeer = false;
        out.rtr = 0;
        out.rfc7306Offer = false;
        out.rfc7306Accept = !reject && req.rfc7306Offer && local.rfc7306();
        out.privateData(privateData);
    }

    /**
     * Whether a handshake turned RFC 7306 on: offered in the Request and accepted (its own bit) in the Reply. Linux
     * siw echoes the Request's flags, so its Reply carries the offer bit back but never the accept bit.
     */
    static boolean rfc7306(MpaFrame sent, MpaFrame reply) {
        return sent.rfc7306Offer && reply.rfc7306Accept && !reply.reject;
    }

    /**
     * Checks a Reply against what the initiator asked; the connection's IRD/ORD are then the reply's ORD and IRD.
     *
     * @throws WireException rejected, CRC refused, or IRD/ORD the initiator cannot honour
     */
    static void checkReply(MpaFrame sent, MpaFrame reply) throws WireException {
        if (reply.reject) {
            throw new WireException(WireError.MPA_REJECTED, "the responder rejected the connection",
                    reply.privateDataCopy());
        }
        if (reply.revision > sent.revision) {
            throw new WireException(WireError.MPA_BAD_REVISION,
                    "reply revision " + reply.revision + " above the request's " + sent.revision);
        }
        if (sent.crc && !reply.crc) {
            throw new WireException(WireError.MPA_CRC_REFUSED, "CRC asked for, the reply has C=0");
        }
        if (reply.peerToPeer) {
            throw new WireException(WireError.MPA_IRD_ORD_MISMATCH, "peer-to-peer mode granted, never asked for");
        }
        if (reply.carriesIrdOrd() && sent.carriesIrdOrd() && reply.ord > sent.ird) {
            throw new WireException(WireError.MPA_IRD_ORD_MISMATCH,
                    "reply ORD " + reply.ord + " above our IRD " + sent.ird);
        }
    }
}
