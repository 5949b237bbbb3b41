package org.verbs4j.softiwarp.wire;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * An MPA Request or Reply frame (RFC 5044 §7.1) with RFC 6581's enhanced IRD/ORD words: one mutable object per
 * handshake, encoded into and decoded from a big-endian buffer. Field layout as Linux siw sends it:
 * key (16) | flags (1) | revision (1) | PD_Length (2, includes the 4 enhanced bytes) | IRD word (2) | ORD word (2) |
 * ULP private data.
 */
final class MpaFrame {
    static final int KEY_LENGTH = 16;
    static final int HEADER_LENGTH = 20;
    static final int ENHANCED_LENGTH = 4;
    /** RFC 5044 §7.1: PD_Length at most 512, the enhanced words included. */
    static final int MAX_PRIVATE_DATA = 512;
    static final int MAX_FRAME = HEADER_LENGTH + MAX_PRIVATE_DATA;

    static final int FLAG_MARKERS = 0x80;
    static final int FLAG_CRC = 0x40;
    static final int FLAG_REJECT = 0x20;
    /** siw's "enhanced" flag: the first 4 private-data bytes are RFC 6581's IRD and ORD words. */
    static final int FLAG_ENHANCED = 0x10;
    /**
     * verbs4j, in a Request: "I speak RFC 7306 (immediate data, atomics)". A bit RFC 5044 reserves ("set to zero on
     * transmit, not checked on receive"); siw's own bits are M, C, R, Enhanced and its GSO bit 0x08, so the low
     * three bits are free. siw (as responder) checks only M, C and Enhanced in a Request, and echoes the Request's
     * flag byte in its Reply: so the offer alone, echoed, never means yes.
     */
    static final int FLAG_RFC7306_OFFER = 0x01;
    /**
     * verbs4j, in a Reply: "I accept RFC 7306". A different bit from the offer, which an initiator never sets, so
     * an echoing responder (Linux siw) cannot turn the extensions on by accident.
     */
    static final int FLAG_RFC7306_ACCEPT = 0x02;

    static final int IRD_ORD_MASK = 0x3FFF;
    /** In the IRD word. */
    static final int WORD_PEER_TO_PEER = 0x8000;
    /** In the IRD word: zero-length SEND as ready-to-receive. */
    static final int WORD_RTR_SEND = 0x4000;
    /** In the ORD word: zero-length RDMA WRITE as ready-to-receive. */
    static final int WORD_RTR_WRITE = 0x8000;
    /** In the ORD word: zero-length RDMA READ as ready-to-receive. */
    static final int WORD_RTR_READ = 0x4000;

    /** RTR types, as a bit set independent of which word carries them. */
    static final int RTR_SEND = 1;
    static final int RTR_WRITE = 2;
    static final int RTR_READ = 4;

    private static final byte[] REQUEST_KEY = "MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] REPLY_KEY = "MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII);

    boolean request;
    boolean crc;
    boolean reject;
    int revision = 2;
    /** Only meaningful with revision 2. */
    boolean enhanced = true;
    int ird;
    int ord;
    boolean peerToPeer;
    int rtr;
    /** {@link #FLAG_RFC7306_OFFER}; meaningful in a Request. */
    boolean rfc7306Offer;
    /** {@link #FLAG_RFC7306_ACCEPT}; meaningful in a Reply. */
    boolean rfc7306Accept;
    final byte[] privateData = new byte[MAX_PRIVATE_DATA];
    int privateDataLength;

    MpaFrame privateData(byte[] data) {
        int max = MAX_PRIVATE_DATA - (carriesIrdOrd() ? ENHANCED_LENGTH : 0);
        if (data.length > max) {
            throw new IllegalArgumentException("private data of " + data.length + " bytes, at most " + max);
        }
        System.arraycopy(data, 0, privateData, 0, data.length);
        privateDataLength = data.length;
        return this;
    }

    byte[] privateDataCopy() {
        return Arrays.copyOf(privateData, privateDataLength);
    }

    boolean carriesIrdOrd() {
        return revision == 2 && enhanced;
    }

    int encodedLength() {
        return HEADER_LENGTH + (carriesIrdOrd() ? ENHANCED_LENGTH : 0) + privateDataLength;
    }

    /** Writes the frame at dst's position, which advances. */
    void encode(ByteBuffer dst) {
        if (ird < 0 || ird > IRD_ORD_MASK || ord < 0 || ord > IRD_ORD_MASK) {
            throw new IllegalArgumentException("IRD " + ird + " / ORD " + ord + " outside 0.." + IRD_ORD_MASK);
        }
        if (revision != 1 && revision != 2) {
            throw new IllegalArgumentException("MPA revision " + revision);
        }
        int pdLength = encodedLength() - HEADER_LENGTH;
        dst.put(request ? REQUEST_KEY : REPLY_KEY);
        dst.put((byte) ((crc ? FLAG_CRC : 0) | (reject ? FLAG_REJECT : 0) | (carriesIrdOrd() ? FLAG_ENHANCED : 0)
                | (rfc7306Offer ? FLAG_RFC7306_OFFER : 0) | (rfc7306Accept ? FLAG_RFC7306_ACCEPT : 0)));
        dst.put((byte) revision);
        dst.putShort((short) pdLength);
        if (carriesIrdOrd()) {
            int irdWord = ird | (peerToPeer ? WORD_PEER_TO_PEER : 0) | ((rtr & RTR_SEND) != 0 ? WORD_RTR_SEND : 0);
            int ordWord = ord | ((rtr & RTR_WRITE) != 0 ? WORD_RTR_WRITE : 0)
                    | ((rtr & RTR_READ) != 0 ? WORD_RTR_READ : 0);
            dst.putShort((short) irdWord);
            dst.putShort((short) ordWord);
        }
        dst.put(privateData, 0, privateDataLength);
    }

    /**
     * Decodes one frame from src (big-endian) if it is all there.
     *
     * @param expectRequest whether a Request (else a Reply) is expected
     * @return the frame's length, src's position advanced past it; or 0 when more bytes are needed (src untouched)
     * @throws WireException when the bytes are not an acceptable frame
     */
    int decode(ByteBuffer src, boolean expectRequest) throws WireException {
        int p = src.position();
        int available = src.remaining();
        byte[] key = expectRequest ? REQUEST_KEY : REPLY_KEY;
        for (int i = 0; i < Math.min(KEY_LENGTH, available); i++) {
            if (src.get(p + i) != key[i]) {
                throw new WireException(WireError.MPA_BAD_KEY, "byte " + i + " of the key is 0x"
                        + Integer.toHexString(src.get(p + i) & 0xFF) + ", expected \"" + new String(key,
                        StandardCharsets.US_ASCII) + '"');
            }
        }
        if (available < HEADER_LENGTH) {
            return 0;
        }
        int flags = src.get(p + KEY_LENGTH) & 0xFF;
        int rev = src.get(p + KEY_LENGTH + 1) & 0xFF;
        int pdLength = src.getShort(p + KEY_LENGTH + 2) & 0xFFFF;
        if ((flags & FLAG_MARKERS) != 0) {
            throw new WireException(WireError.MPA_MARKERS_REFUSED, "the peer asks for MPA markers");
        }
        if (rev != 1 && rev != 2) {
            throw new WireException(WireError.MPA_BAD_REVISION, "revision " + rev + ", only 1 and 2 are spoken");
        }
        if (pdLength > MAX_PRIVATE_DATA) {
            throw new WireException(WireError.MPA_PRIVATE_DATA_TOO_LONG, "PD_Length " + pdLength);
        }
        boolean withWords = rev == 2 && (flags & FLAG_ENHANCED) != 0;
        if (withWords && pdLength < ENHANCED_LENGTH) {
            throw new WireException(WireError.MPA_ENHANCED_TOO_SHORT, "PD_Length " + pdLength);
        }
        if (available < HEADER_LENGTH + pdLength) {
            return 0;
        }
        request = expectRequest;
        crc = (flags & FLAG_CRC) != 0;
        reject = (flags & FLAG_REJECT) != 0;
        rfc7306Offer = (flags & FLAG_RFC7306_OFFER) != 0;
        rfc7306Accept = (flags & FLAG_RFC7306_ACCEPT) != 0;
        revision = rev;
        enhanced = withWords;
        int dataAt = p + HEADER_LENGTH;
        if (withWords) {
            int irdWord = src.getShort(dataAt) & 0xFFFF;
            int ordWord = src.getShort(dataAt + 2) & 0xFFFF;
            ird = irdWord & IRD_ORD_MASK;
            ord = ordWord & IRD_ORD_MASK;
            peerToPeer = (irdWord & WORD_PEER_TO_PEER) != 0;
            rtr = ((irdWord & WORD_RTR_SEND) != 0 ? RTR_SEND : 0) | ((ordWord & WORD_RTR_WRITE) != 0 ? RTR_WRITE : 0)
                    | ((ordWord & WORD_RTR_READ) != 0 ? RTR_READ : 0);
            dataAt += ENHANCED_LENGTH;
        } else {
            ird = 0;
            ord = 0;
            peerToPeer = false;
            rtr = 0;
        }
        privateDataLength = HEADER_LENGTH + pdLength - (dataAt - p);
        src.get(dataAt, privateData, 0, privateDataLength);
        src.position(p + HEADER_LENGTH + pdLength);
        return HEADER_LENGTH + pdLength;
    }
}
