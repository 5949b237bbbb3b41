package org.verbs4j.softiwarp.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class MpaNegotiationTest {
    private static final byte[] NONE = new byte[0];

    @Test
    void responderCrossesIrdAndOrdAndCapsThem() {
        MpaFrame req = new MpaFrame();
        MpaNegotiation.request(MpaSettings.siwDefaults().withIrdOrd(200, 3), NONE, req);
        MpaFrame rep = new MpaFrame();
        MpaNegotiation.reply(req, MpaSettings.siwDefaults().withIrdOrd(16, 128), false, NONE, rep);
        assertEquals(128, rep.ord, "ORD := min(request IRD, ours)");
        assertEquals(3, rep.ird, "IRD := min(request ORD, ours)");
        assertFalse(rep.peerToPeer);
    }

    @Test
    void crcIsOnWhenEitherSideWantsIt() {
        for (boolean initiator : new boolean[] {false, true}) {
            for (boolean responder : new boolean[] {false, true}) {
                MpaFrame req = new MpaFrame();
                MpaNegotiation.request(MpaSettings.siwDefaults().withCrcRequired(initiator), NONE, req);
                MpaFrame rep = new MpaFrame();
                MpaNegotiation.reply(req, MpaSettings.siwDefaults().withCrcRequired(responder), false, NONE, rep);
                assertEquals(initiator || responder, rep.crc, initiator + "/" + responder);
            }
        }
    }

    @Test
    void replyRevisionIsAtMostTheRequests() {
        MpaFrame req = new MpaFrame();
        MpaNegotiation.request(MpaSettings.siwDefaults().withRevision(1), NONE, req);
        MpaFrame rep = new MpaFrame();
        MpaNegotiation.reply(req, MpaSettings.siwDefaults(), false, NONE, rep);
        assertEquals(1, rep.revision);
        assertFalse(rep.carriesIrdOrd());
    }

    @Test
    void initiatorRefusesRejectCrcDropAndTooLargeOrd() throws WireException {
        MpaFrame req = new MpaFrame();
        MpaNegotiation.request(MpaSettings.siwDefaults().withCrcRequired(true).withIrdOrd(4, 4), NONE, req);
        MpaFrame rep = new MpaFrame();
        MpaNegotiation.reply(req, MpaSettings.siwDefaults(), false, NONE, rep);
        MpaNegotiation.checkReply(req, rep);

        rep.reject = true;
        rep.privateData(new byte[] {42});
        WireException e = assertThrows(WireException.class, () -> MpaNegotiation.checkReply(req, rep));
        assertEquals(WireError.MPA_REJECTED, e.error());
        assertArrayEquals(new byte[] {42}, e.privateData());

        rep.reject = false;
        rep.crc = false;
        assertEquals(WireError.MPA_CRC_REFUSED,
                assertThrows(WireException.class, () -> MpaNegotiation.checkReply(req, rep)).error());

        rep.crc = true;
        rep.ord = 5;
        assertEquals(WireError.MPA_IRD_ORD_MISMATCH,
                assertThrows(WireException.class, () -> MpaNegotiation.checkReply(req, rep)).error());
        rep.ord = 4;
        rep.peerToPeer = true;
        assertTrue(assertThrows(WireException.class, () -> MpaNegotiation.checkReply(req, rep)).getMessage()
                .contains("peer-to-peer"));
    }

    /** RFC 7306 is on only when the initiator offers (bit 0x01) and the responder accepts (its own bit, 0x02). */
    @Test
    void rfc7306IsOnOnlyWhenOfferedAndAcceptedWithItsOwnBit() {
        for (boolean initiator : new boolean[] {false, true}) {
            for (boolean responder : new boolean[] {false, true}) {
                MpaFrame req = new MpaFrame();
                MpaNegotiation.request(MpaSettings.siwDefaults().withRfc7306(initiator), NONE, req);
                assertEquals(initiator, req.rfc7306Offer);
                assertFalse(req.rfc7306Accept, "an initiator never sets the accept bit: siw would echo it");
                MpaFrame rep = new MpaFrame();
                MpaNegotiation.reply(req, MpaSettings.siwDefaults().withRfc7306(responder), false, NONE, rep);
                assertEquals(initiator && responder, rep.rfc7306Accept, initiator + "/" + responder);
                assertFalse(rep.rfc7306Offer, "the reply clears the offer bit");
                assertEquals(initiator && responder, MpaNegotiation.rfc7306(req, rep));
            }
        }
        assertFalse(MpaSettings.siwDefaults().rfc7306(), "siw's defaults do not speak RFC 7306");
    }

    /** Linux siw echoes the Request's flag byte in its Reply: the offer comes back, which is not an acceptance. */
    @Test
    void anEchoedOfferIsNotAnAcceptance() {
        MpaFrame req = new MpaFrame();
        MpaNegotiation.request(MpaSettings.siwDefaults().withRfc7306(true), NONE, req);
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(req.encodedLength());
        req.encode(b);
        assertEquals(MpaFrame.FLAG_ENHANCED | MpaFrame.FLAG_RFC7306_OFFER, b.get(16) & 0xFF, "flags of the Request");
        MpaFrame echo = new MpaFrame();
        echo.request = false;
        echo.revision = 2;
        echo.rfc7306Offer = true; // what siw_accept sends back: the request's bits
        assertFalse(MpaNegotiation.rfc7306(req, echo));
        int siwBits = MpaFrame.FLAG_MARKERS | MpaFrame.FLAG_CRC | MpaFrame.FLAG_REJECT | MpaFrame.FLAG_ENHANCED | 0x08;
        assertEquals(0, (MpaFrame.FLAG_RFC7306_OFFER | MpaFrame.FLAG_RFC7306_ACCEPT) & siwBits,
                "neither bit is one of siw's (M, C, R, Enhanced, GSO 0x08)");
    }
}
