package org.verbs4j.softiwarp.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

class FpduTest {

    @Test
    void crc32cOfThirtyTwoZeroBytesGoesOnTheWireLittleEndian() {
        // RFC 3720 B.4's vector; siw puts the CRC32C value little-endian on the wire
        ByteBuffer b = ByteBuffer.allocate(36);
        assertEquals(0x8A9136AA, Fpdu.crc32c(b, 0, 32, new CRC32C()));
        b.putInt(32, Integer.reverseBytes(0x8A9136AA));
        assertEquals("aa36918a", HexFormat.of().formatHex(b.array(), 32, 36));
    }

    @Test
    void sealsSiwsWriteRtrFrameByteForByte() {
        // siw's zero-length WRITE RTR: STag 1, TO 0; its CRC as read from siw (design note)
        ByteBuffer b = ByteBuffer.allocate(32);
        b.put(2, (byte) 0xC1).put(3, (byte) 0x40).putInt(4, 1);
        Fpdu.seal(b, 0, Ddp.TAGGED_HEADER, true, new CRC32C());
        assertEquals(20, b.position());
        assertEquals("000ec14000000001" + "0000000000000000" + "ebd34c5f", HexFormat.of().formatHex(b.array(), 0, 20));
        Fpdu.seal(b, 0, Ddp.TAGGED_HEADER, false, new CRC32C());
        assertEquals(0, b.getInt(16), "CRC off: the field is there, zero");
    }

    @Test
    void padsToFourAndSizesFramesForTheMss() {
        assertEquals(0, Fpdu.padding(14));
        assertEquals(3, Fpdu.padding(15));
        assertEquals(1, Fpdu.padding(17));
        for (int ulpdu = 14; ulpdu < 40; ulpdu++) {
            int frame = Fpdu.frameLength(ulpdu);
            assertEquals(0, frame % 4, "ulpdu " + ulpdu);
            assertEquals(2 + ulpdu + Fpdu.padding(ulpdu) + 4, frame);
        }
        // siw with MSS 1448: 1428 payload bytes per Write segment, 1424 per Send segment, no pad
        int mulpdu = Fpdu.mulpduForMss(1448);
        assertEquals(1428, mulpdu - Ddp.TAGGED_HEADER);
        assertEquals(1424, mulpdu - Ddp.UNTAGGED_HEADER);
        assertEquals(0, Fpdu.padding(mulpdu));
        assertEquals(1448, Fpdu.frameLength(mulpdu));
    }

    @Test
    void deframerWaitsForWholeFramesAndChecksCrc() {
        ByteBuffer b = ByteBuffer.allocate(64);
        b.put(2, (byte) 0xC1).put(3, (byte) 0x40).putInt(4, 1);
        Fpdu.seal(b, 0, Ddp.TAGGED_HEADER, true, new CRC32C());
        b.flip();
        FpduDeframer d = new FpduDeframer(true, 0xFFFF);
        for (int cut = 0; cut < 20; cut++) {
            assertEquals(FpduDeframer.NEED_MORE, d.next(b.duplicate().limit(cut)));
        }
        assertEquals(20, d.next(b));
        assertEquals(0, b.position(), "next() looks, never consumes");
        assertEquals(14, d.ulpduLength());
        assertNull(d.error());

        b.put(9, (byte) 1);
        assertEquals(FpduDeframer.FAILED, d.next(b));
        assertEquals(WireError.FPDU_BAD_CRC, d.error());
        assertEquals(FpduDeframer.FAILED, d.next(b), "failed stays failed");
        assertEquals(20, new FpduDeframer(false, 0xFFFF).next(b), "CRC off: not checked");
    }

    @Test
    void deframerBoundsTheUlpduLength() {
        ByteBuffer b = ByteBuffer.allocate(8);
        b.putShort(0, (short) 1001);
        FpduDeframer d = new FpduDeframer(false, 1000);
        assertEquals(FpduDeframer.FAILED, d.next(b));
        assertEquals(WireError.FPDU_TOO_LONG, d.error());
        b.putShort(0, (short) 13);
        FpduDeframer e = new FpduDeframer(false, 1000);
        assertEquals(FpduDeframer.FAILED, e.next(b));
        assertEquals(WireError.FPDU_TOO_SHORT, e.error());
    }
}
