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
}
