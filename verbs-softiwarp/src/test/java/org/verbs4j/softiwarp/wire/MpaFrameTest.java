package org.verbs4j.softiwarp.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class MpaFrameTest {

    private static ByteBuffer encode(MpaFrame f) {
        ByteBuffer b = ByteBuffer.allocate(f.encodedLength());
        f.encode(b);
        return b.flip();
    }

    @Test
    void siwInitiatorRequestIsTwentyFourBytesWithEnhancedWords() {
        MpaFrame f = new MpaFrame();
        MpaNegotiation.request(MpaSettings.siwDefaults().withIrdOrd(1, 1), new byte[0], f);
        ByteBuffer b = encode(f);
        assertEquals(24, b.remaining());
        byte[] bytes = new byte[24];
        b.get(bytes);
        assertEquals("MPA ID Req Frame", new String(bytes, 0, 16, StandardCharsets.US_ASCII));
        assertEquals("10020004" + "00010001", HexFormat.of().formatHex(bytes, 16, 24));
    }

    @Test
    void roundTripsFlagsWordsAndPrivateData() throws WireException {
        MpaFrame f = new MpaFrame();
        f.request = false;
        f.crc = true;
        f.reject = true;
        f.ird = 0x3FFF;
        f.ord = 7;
        f.peerToPeer = true;
        f.rtr = MpaFrame.RTR_SEND | MpaFrame.RTR_READ;
        f.privateData("why not".getBytes(StandardCharsets.US_ASCII));
        ByteBuffer b = encode(f);
        assertEquals(0x40 | 0x20 | 0x10, b.get(16) & 0xFF);
        assertEquals(0x8000 | 0x4000 | 0x3FFF, b.getShort(20) & 0xFFFF);
        assertEquals(0x4000 | 7, b.getShort(22) & 0xFFFF);
        MpaFrame g = new MpaFrame();
        assertEquals(b.remaining(), g.decode(b, false));
        assertFalse(b.hasRemaining());
        assertTrue(g.crc && g.reject && g.peerToPeer && g.carriesIrdOrd());
        assertEquals(0x3FFF, g.ird);
        assertEquals(7, g.ord);
        assertEquals(MpaFrame.RTR_SEND | MpaFrame.RTR_READ, g.rtr);
        assertArrayEquals("why not".getBytes(StandardCharsets.US_ASCII), g.privateDataCopy());
    }

    @Test
    void revisionOneHasNoWordsAndIsAccepted() throws WireException {
        MpaFrame f = new MpaFrame();
        f.request = true;
        f.revision = 1;
        f.ird = 5;
        f.privateData(new byte[] {1, 2, 3});
        ByteBuffer b = encode(f);
        assertEquals(23, b.remaining());
        assertEquals(0, b.get(16));
        MpaFrame g = new MpaFrame();
        assertEquals(23, g.decode(b, true));
        assertEquals(1, g.revision);
        assertFalse(g.carriesIrdOrd());
        assertEquals(0, g.ird);
        assertArrayEquals(new byte[] {1, 2, 3}, g.privateDataCopy());
    }

    @Test
    void incompleteFrameNeedsMoreAndLeavesTheBufferAlone() throws WireException {
        MpaFrame f = new MpaFrame();
        f.request = true;
        f.privateData(new byte[100]);
        ByteBuffer whole = encode(f);
        for (int cut = 0; cut < whole.remaining(); cut += 7) {
            ByteBuffer part = whole.duplicate().limit(cut);
            assertEquals(0, new MpaFrame().decode(part, true), "cut at " + cut);
            assertEquals(0, part.position());
        }
    }

    @Test
    void refusesWhatTheRfcForbids() {
        MpaFrame f = new MpaFrame();
        f.request = true;
        ByteBuffer good = encode(f);
        assertError(WireError.MPA_BAD_KEY, good.duplicate(), false);
        assertError(WireError.MPA_MARKERS_REFUSED, patched(good, 16, 0x80), true);
        assertError(WireError.MPA_BAD_REVISION, patched(good, 17, 3), true);
        assertError(WireError.MPA_BAD_REVISION, patched(good, 17, 0), true);
        ByteBuffer huge = patched(good, 18, 0x02);
        huge.put(19, (byte) 0x01);
        assertError(WireError.MPA_PRIVATE_DATA_TOO_LONG, huge, true);
        assertError(WireError.MPA_ENHANCED_TOO_SHORT, patched(good, 19, 3), true);
        // a wrong key is seen from its first byte, before the frame is complete
        assertError(WireError.MPA_BAD_KEY, ByteBuffer.wrap("GET / HTTP".getBytes(StandardCharsets.US_ASCII)), true);
    }

    @Test
    void privateDataIsBoundedTo512BytesWithTheWords() {
        MpaFrame f = new MpaFrame();
        f.privateData(new byte[508]);
        assertThrows(IllegalArgumentException.class, () -> f.privateData(new byte[509]));
        f.revision = 1;
        f.privateData(new byte[512]);
        assertEquals(532, f.encodedLength());
    }

    private static ByteBuffer patched(ByteBuffer good, int at, int value) {
        ByteBuffer b = ByteBuffer.allocate(good.remaining()).put(good.duplicate()).flip();
        b.put(at, (byte) value);
        return b;
    }

    private static void assertError(WireError expected, ByteBuffer b, boolean request) {
        WireException e = assertThrows(WireException.class, () -> new MpaFrame().decode(b, request));
        assertEquals(expected, e.error());
    }
}
