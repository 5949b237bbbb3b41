package org.verbs4j.endpoint;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.verbs4j.api.Mtu;

/**
 * What two endpoints tell each other when they connect (rdma_cm private data, or after the QP address in the
 * TCP exchange): 48 bytes, big-endian.
 *
 * <pre>
 *  0 u32 magic 'V4JE'     4 u8 version (1)   5 u8 flags (bit 0: credits)   6 u8 path MTU (enum ibv_mtu, 0 = none)
 *  7 u8 reserved
 *  8 u32 receive depth   12 u32 message size
 * 16 u64 RDMA region address   24 u32 RDMA region rkey   28 u64 RDMA region length
 * 36 u64 credit word address   44 u32 credit word rkey
 * </pre>
 */
record Handshake(boolean credits, int receiveDepth, int messageSize, long regionAddress, int regionRkey,
        long regionLength, long creditAddress, int creditRkey, int mtu) {

    static final int MAGIC = 0x56344A45; // "V4JE"
    static final int VERSION = 1;
    static final int SIZE = 48;
    private static final int FLAG_CREDITS = 1;

    byte[] encode() {
        ByteBuffer b = ByteBuffer.allocate(SIZE).order(ByteOrder.BIG_ENDIAN);
        b.putInt(MAGIC).put((byte) VERSION).put((byte) (credits ? FLAG_CREDITS : 0)).put((byte) mtu).put((byte) 0)
                .putInt(receiveDepth).putInt(messageSize)
                .putLong(regionAddress).putInt(regionRkey).putLong(regionLength)
                .putLong(creditAddress).putInt(creditRkey);
        return b.array();
    }

    /**
     * Parses the peer's handshake; {@code data} may be longer (rdma_cm pads private data with zeros on IB/RoCE).
     *
     * @throws EndpointException when the peer is not a verbs4j endpoint or speaks another version
     */
    static Handshake decode(byte[] data, String peer) {
        if (data == null || data.length < SIZE) {
            throw new EndpointException("the peer " + peer + " sent " + (data == null ? 0 : data.length)
                    + " bytes of connection data, not a verbs4j endpoint handshake (" + SIZE
                    + " bytes): is it a verbs4j endpoint (not rping, perftest or another tool)?");
        }
        ByteBuffer b = ByteBuffer.wrap(data).order(ByteOrder.BIG_ENDIAN);
        int magic = b.getInt();
        if (magic != MAGIC) {
            throw new EndpointException(String.format("the peer %s is not a verbs4j endpoint (handshake magic 0x%08x, "
                    + "expected 0x%08x)", peer, magic, MAGIC));
        }
        int version = b.get() & 0xff;
        if (version != VERSION) {
            throw new EndpointException("the peer " + peer + " speaks verbs4j endpoint handshake version " + version
                    + "; this verbs4j speaks " + VERSION + ": use the same verbs4j version on both sides");
        }
        int flags = b.get() & 0xff;
        int mtu = b.get() & 0xff;
        b.get();
        int depth = b.getInt();
        int size = b.getInt();
        long ra = b.getLong();
        int rk = b.getInt();
        long rl = b.getLong();
        long ca = b.getLong();
        int ck = b.getInt();
        if (depth <= 0 || size <= 0 || rl < 0) {
            throw new EndpointException("the peer " + peer + " sent an invalid handshake (receive depth " + depth
                    + ", message size " + size + ", region length " + rl + ")");
        }
        if (mtu != 0 && Mtu.of(mtu) == null) {
            throw new EndpointException("the peer " + peer + " sent an invalid handshake: path MTU " + mtu
                    + " is not an ibv_mtu value (0 for none, 1..5 for 256..4096 bytes)");
        }
        return new Handshake((flags & FLAG_CREDITS) != 0, depth, size, ra, rk, rl, ca, ck, mtu);
    }
}
