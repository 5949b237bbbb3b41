package org.verbs4j.softiwarp.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class DdpTest {
    private static final int MULPDU = Fpdu.mulpduForMss(1448);

    private static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    @Test
    void segmentsAWriteAtTheMulpduWithGrowingTaggedOffset() {
        DdpSegmenter s = new DdpSegmenter(true, MULPDU);
        byte[] data = bytes(3000, 1);
        ByteBuffer tx = ByteBuffer.allocate(8192);
        s.startTagged(Rdmap.WRITE, 0x1234, 1000, ByteBuffer.wrap(data));
        assertTrue(s.writeTo(tx));
        // 1428 + 1428 + 144: two full 1448-byte FPDUs with no pad, then the rest
        assertEquals(1448 + 1448 + Fpdu.frameLength(14 + 144), tx.position());
        assertEquals(0x81, tx.get(2) & 0xFF, "non-last tagged");
        assertEquals(0xC1, tx.get(2 * 1448 + 2) & 0xFF, "last tagged");
        assertEquals(0x40, tx.get(3), "RDMAP version 1, opcode 0");
        RecordingSink sink = new RecordingSink();
        FpduReceiver r = new FpduReceiver(true, 0xFFFF, false);
        assertEquals(3, r.receive(tx.flip(), sink));
        assertEquals(List.of("T op=0 last=false stag=4660 to=1000 len=1428",
                "T op=0 last=false stag=4660 to=2428 len=1428",
                "T op=0 last=true stag=4660 to=3856 len=144"), sink.events);
        assertArrayEquals(data, sink.taggedBytes.toByteArray());
    }

    @Test
    void segmentsSendsWithMsnAndMoAndSurvivesASmallTransmitBuffer() {
        DdpSegmenter s = new DdpSegmenter(false, MULPDU);
        byte[] data = bytes(5000, 2);
        ByteBuffer wire = ByteBuffer.allocate(16384);
        ByteBuffer tx = ByteBuffer.allocate(1500);
        s.startUntagged(Rdmap.SEND_SE_INVALIDATE, Ddp.QN_SEND, 1, 77, ByteBuffer.wrap(data));
        int rounds = 0;
        boolean done;
        do {
            tx.clear();
            done = s.writeTo(tx);
            wire.put(tx.flip());
            rounds++;
        } while (!done);
        assertEquals(4, rounds, "one 1448-byte FPDU per round");
        s.startUntagged(Rdmap.SEND, Ddp.QN_SEND, 2, 0, ByteBuffer.allocate(0));
        assertTrue(s.writeTo(wire));
        RecordingSink sink = new RecordingSink();
        FpduReceiver r = new FpduReceiver(false, 0xFFFF, false);
        wire.flip();
        // fed one byte at a time, as TCP may
        ByteBuffer rx = ByteBuffer.allocate(Fpdu.MAX_FRAME);
        int delivered = 0;
        while (wire.hasRemaining()) {
            rx.put(wire.get());
            rx.flip();
            delivered += r.receive(rx, sink);
            rx.compact();
        }
        assertEquals(5, delivered);
        assertEquals("U op=6 last=false qn=0 msn=1 mo=0 inv=77 len=1424", sink.events.get(0));
        assertEquals("U op=6 last=true qn=0 msn=1 mo=4272 inv=77 len=728", sink.events.get(3));
        assertEquals("U op=3 last=true qn=0 msn=2 mo=0 inv=0 len=0", sink.events.get(4));
        assertArrayEquals(data, sink.untaggedBytes.toByteArray());
    }

    /**
     * A message from a {@link Gather} with views goes out as gathered batches (headers and trailers in the transmit
     * buffer, payloads from the application's memory) that put exactly the bytes of the copying path on the wire:
     * CRC on and off, tagged and untagged, segments of a 1448-byte MSS (several batches) and of loopback's, lengths
     * around {@link DdpSegmenter#VIEW_MIN} (below it the segments are copied), several batches, and an unaligned start.
     */
    @Test
    void gatheredBatchesPutTheCopysBytesOnTheWire() {
        for (boolean crcOn : new boolean[] {false, true}) {
            for (int mss : new int[] {1448, 9000, 65495}) {
                for (int length : new int[] {100, 8191, 8192, 20_000, 65536, 400_000}) {
                    for (boolean tagged : new boolean[] {false, true}) {
                        for (int base : new int[] {0, 3}) {
                            String what = "crc " + crcOn + ", mss " + mss + ", " + length + " B, tagged " + tagged
                                    + ", at " + base;
                            int mulpdu = Fpdu.mulpduForMss(mss);
                            ByteBuffer region = ByteBuffer.allocateDirect(length + base);
                            region.put(bytes(length + base, length + base)).clear();
                            long address = org.verbs4j.api.internal.RawMemory.addressOf(region);
                            Gather copying = (off, dst, n) ->
                                    org.verbs4j.api.internal.RawMemory.copy(address + base + off, dst, n);
                            ByteBuffer[] slots = new ByteBuffer[Gather.MAX_VIEWS];
                            int[] viewed = {0};
                            Gather viewing = new Gather() {
                                @Override
                                public void copy(long off, long dst, int n) {
                                    copying.copy(off, dst, n);
                                }

                                @Override
                                public ByteBuffer view(long off, int n, int slot) {
                                    if (slots[slot] == null) {
                                        slots[slot] = region.duplicate();
                                    }
                                    viewed[0]++;
                                    ByteBuffer v = slots[slot];
                                    v.limit(v.capacity()).position(base + (int) off);
                                    return v.limit(base + (int) off + n);
                                }
                            };
                            byte[] copied = segment(new DdpSegmenter(crcOn, mulpdu), copying, tagged, length, false);
                            byte[] gathered = segment(new DdpSegmenter(crcOn, mulpdu), viewing, tagged, length, true);
                            assertArrayEquals(copied, gathered, what);
                            assertEquals(Math.min(length, mulpdu - (tagged ? 14 : 18)) >= DdpSegmenter.VIEW_MIN,
                                    viewed[0] > 0, what + ": viewed " + viewed[0]);
                            // and the receiver takes it back whole
                            RecordingSink sink = new RecordingSink();
                            assertTrue(new FpduReceiver(crcOn, 0xFFFF, false).receive(ByteBuffer.wrap(gathered), sink) > 0);
                            byte[] payload = (tagged ? sink.taggedBytes : sink.untaggedBytes).toByteArray();
                            byte[] expected = new byte[length];
                            region.duplicate().position(base).get(expected);
                            assertArrayEquals(expected, payload, what);
                        }
                    }
                }
            }
        }
    }

    /** The wire bytes of one message: FPDUs written whole into the transmit buffer, or gathered batches. */
    private static byte[] segment(DdpSegmenter s, Gather g, boolean tagged, int length, boolean gathering) {
        if (tagged) {
            s.startTagged(Rdmap.WRITE, 0x42, 4096, g, length);
        } else {
            s.startUntagged(Rdmap.SEND, Ddp.QN_SEND, 1, 0, g, length);
        }
        java.io.ByteArrayOutputStream wire = new java.io.ByteArrayOutputStream();
        ByteBuffer tx = ByteBuffer.allocateDirect(Fpdu.MAX_FRAME + 64);
        ByteBuffer[] iov = new ByteBuffer[DdpSegmenter.MAX_IOV];
        ByteBuffer[] parts = new ByteBuffer[DdpSegmenter.MAX_BATCH + 1];
        for (int i = 0; i < parts.length; i++) {
            parts[i] = tx.duplicate();
        }
        while (!s.done()) {
            tx.clear();
            int n = gathering ? s.writeTo(tx, iov, parts) : 0;
            if (!gathering) {
                s.writeTo(tx);
            }
            tx.flip();
            if (n == 0) {
                drainTo(tx, wire);
            }
            for (int i = 0; i < n; i++) {
                drainTo(iov[i], wire);
            }
        }
        return wire.toByteArray();
    }

    private static void drainTo(ByteBuffer b, java.io.ByteArrayOutputStream out) {
        byte[] a = new byte[b.remaining()];
        b.get(a);
        out.write(a, 0, a.length);
    }

    @Test
    void reassemblyChecksMsnMoAndTaggedContinuation() {
        DdpReassembly q = new DdpReassembly();
        assertNull(q.untagged(0, 1, 0, 100, false));
        assertEquals(WireError.DDP_BAD_OFFSET, q.untagged(0, 1, 99, 1, true));
        assertNull(q.untagged(0, 1, 100, 5, true));
        assertEquals(WireError.DDP_BAD_MSN, q.untagged(0, 1, 0, 5, true));
        assertNull(q.untagged(1, 1, 0, 28, true), "queues count separately");
        assertEquals(2, q.expectedMsn(0));
        assertNull(q.tagged(5, 0, 10, false));
        assertNull(q.untagged(0, 2, 0, 1, true), "a Send may come between segments of a Write");
        assertEquals(WireError.DDP_BAD_TAGGED_CONTINUATION, q.tagged(6, 10, 10, true));
        assertEquals(WireError.DDP_BAD_TAGGED_CONTINUATION, q.tagged(5, 11, 10, true));
        assertNull(q.tagged(5, 10, 10, true));
        assertNull(q.tagged(6, 0, 1, true), "a closed Write lets another STag start");
    }

    @Test
    void receiverRefusesHeadersThatBreakTheirOpcodesRules() {
        assertRefused(WireError.DDP_BAD_VERSION, frame(0xC2, 0x40, 0, 14));
        assertRefused(WireError.RDMAP_BAD_VERSION, frame(0xC1, 0x80, 0, 14));
        assertRefused(WireError.RDMAP_UNEXPECTED_OPCODE, frame(0x41, 0x40, 0, 18), "untagged Write");
        assertRefused(WireError.RDMAP_UNEXPECTED_OPCODE, frame(0xC1, 0x43, 0, 18), "tagged Send");
        assertRefused(WireError.RDMAP_UNEXPECTED_OPCODE, frame(0x41, 0x48, 0, 26), "RFC 7306 not negotiated");
        assertRefused(WireError.RDMAP_UNEXPECTED_OPCODE, frame(0x41, 0x4C, 0, 18), "opcode 12");
        assertRefused(WireError.FPDU_TOO_SHORT, frame(0x41, 0x43, 0, 14), "untagged header needs 18");
        assertRefused(WireError.DDP_BAD_QUEUE, frame(0x41, 0x43, 1, 18), "Send on queue 1");
        assertRefused(WireError.RDMAP_MALFORMED, frame(0x41, 0x41, 1, 18 + 27), "Read Request of 27 bytes");
        assertRefused(WireError.RDMAP_MALFORMED, frame(0x01, 0x41, 1, 18 + 28), "Read Request without L");
        assertRefused(WireError.RDMAP_MALFORMED, frame(0x41, 0x47, 2, 18 + 3), "Terminate without control word");
    }

    @Test
    void readRequestAndTerminateRoundTrip() {
        ByteBuffer wire = ByteBuffer.allocate(512);
        DdpSegmenter s = new DdpSegmenter(true, MULPDU);
        ByteBuffer body = ByteBuffer.allocate(Rdmap.READ_REQUEST_LENGTH);
        Rdmap.putReadRequest(body, 0, 11, 0x1000, 65536, 22, 0x2000);
        s.startUntagged(Rdmap.READ_REQUEST, Ddp.QN_READ_REQUEST, 1, 0, body);
        assertTrue(s.writeTo(wire));
        assertEquals(48 + 4, wire.position(), "siw: a 48-byte Read Request header, then the CRC field");
        assertEquals(46, wire.getShort(0));
        ByteBuffer term = ByteBuffer.allocate(64);
        int n = Rdmap.putTerminate(term, 0, 1, 2, 0x03, wire, 0, 48);
        assertEquals(4 + Rdmap.TERMINATE_MAX_COPY, n);
        assertEquals(0x12, term.get(0), "RFC 5040 order: layer in the high nibble");
        assertEquals(0x80 | 0x40 | 0x20, term.get(2) & 0xFF, "length, DDP and RDMAP headers copied");
        s.startUntagged(Rdmap.TERMINATE, Ddp.QN_TERMINATE, 1, 0, term.limit(n));
        assertTrue(s.writeTo(wire));
        RecordingSink sink = new RecordingSink();
        FpduReceiver r = new FpduReceiver(true, 0xFFFF, false);
        assertEquals(-1, r.receive(wire.flip(), sink), "a Terminate ends the stream");
        assertTrue(r.terminated());
        assertNull(r.error());
        assertEquals(List.of("RR msn=1 sink=11/4096 len=65536 src=22/8192",
                "TERM layer=1 etype=2 code=3 copy=48"), sink.events);
    }

    @Test
    void extensionsAreDecodedOnlyWhenNegotiated() {
        ByteBuffer wire = ByteBuffer.allocate(256);
        DdpSegmenter s = new DdpSegmenter(false, MULPDU);
        ByteBuffer ar = ByteBuffer.allocate(Rdmap.ATOMIC_REQUEST_LENGTH);
        Rdmap.putAtomicRequest(ar, 0, Rdmap.ATOMIC_COMPARE_SWAP, 9, 5, 64, 1, -1, 2, -1);
        s.startUntagged(Rdmap.ATOMIC_REQUEST, Ddp.QN_READ_REQUEST, 1, 0, ar);
        assertTrue(s.writeTo(wire));
        ByteBuffer imm = ByteBuffer.allocate(8).putLong(0, 0x0102030405060708L);
        s.startUntagged(Rdmap.IMMEDIATE, Ddp.QN_SEND, 1, 0, imm);
        assertTrue(s.writeTo(wire));
        ByteBuffer as = ByteBuffer.allocate(Rdmap.ATOMIC_RESPONSE_LENGTH);
        Rdmap.putAtomicResponse(as, 0, 9, 0x1122334455667788L);
        s.startUntagged(Rdmap.ATOMIC_RESPONSE, Ddp.QN_ATOMIC_RESPONSE, 1, 0, as);
        assertTrue(s.writeTo(wire));
        RecordingSink sink = new RecordingSink();
        assertEquals(3, new FpduReceiver(false, 0xFFFF, true).receive(wire.flip(), sink));
        assertEquals("AR msn=1 op=2 id=9 stag=5 to=64 swapAdd=1/-1 compare=2/-1", sink.events.get(0));
        assertEquals("U op=8 last=true qn=0 msn=1 mo=0 inv=0 len=8", sink.events.get(1));
        assertEquals("AS msn=1 id=9 value=1234605616436508552", sink.events.get(2));
        FpduReceiver plain = new FpduReceiver(false, 0xFFFF, false);
        assertEquals(-1, plain.receive(wire.position(0), new RecordingSink()));
        assertEquals(WireError.RDMAP_UNEXPECTED_OPCODE, plain.error());
        assertFalse(Rdmap.extension(Rdmap.TERMINATE));
    }

    /** RFC 7306's queues: Atomic Requests share queue 1 with Read Requests, responses go on queue 3. */
    @Test
    void atomicRequestsOnQueueOneAndResponsesOnQueueThree() {
        assertEquals(1, Rdmap.queue(Rdmap.ATOMIC_REQUEST));
        assertEquals(3, Rdmap.queue(Rdmap.ATOMIC_RESPONSE));
        assertEquals(0, Rdmap.queue(Rdmap.IMMEDIATE));
        assertEquals(0, Rdmap.queue(Rdmap.IMMEDIATE_SE));
        ByteBuffer wire = ByteBuffer.allocate(256);
        DdpSegmenter s = new DdpSegmenter(false, MULPDU);
        ByteBuffer ar = ByteBuffer.allocate(Rdmap.ATOMIC_REQUEST_LENGTH);
        Rdmap.putAtomicRequest(ar, 0, Rdmap.ATOMIC_FETCH_ADD, 1, 5, 64, 1, 0, 0, 0);
        s.startUntagged(Rdmap.ATOMIC_REQUEST, Ddp.QN_ATOMIC_RESPONSE, 1, 0, ar); // on the wrong queue
        assertTrue(s.writeTo(wire));
        FpduReceiver r = new FpduReceiver(false, 0xFFFF, true);
        assertEquals(-1, r.receive(wire.flip(), new RecordingSink()));
        assertEquals(WireError.DDP_BAD_QUEUE, r.error());
    }

    /** An FPDU with the given control bytes, queue and ULPDU length, zero elsewhere, CRC off. */
    private static ByteBuffer frame(int ddp, int rdmap, int queue, int ulpdu) {
        ByteBuffer b = ByteBuffer.allocate(Fpdu.frameLength(ulpdu));
        b.putShort(0, (short) ulpdu).put(2, (byte) ddp).put(3, (byte) rdmap);
        if (ulpdu >= 10) {
            b.putInt(8, queue);
        }
        if (ulpdu >= 14) {
            b.putInt(12, 1);
        }
        return b;
    }

    private static void assertRefused(WireError expected, ByteBuffer frame) {
        assertRefused(expected, frame, "");
    }

    private static void assertRefused(WireError expected, ByteBuffer frame, String what) {
        FpduReceiver r = new FpduReceiver(false, 0xFFFF, false);
        RecordingSink sink = new RecordingSink();
        assertEquals(-1, r.receive(frame, sink), what);
        assertEquals(expected, r.error(), what);
        assertEquals(0, frame.position(), "the offending frame stays for the Terminate's copy");
        assertTrue(sink.events.isEmpty());
    }
}
