package org.verbs4j.api;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * A 128-bit Global Identifier ({@code union ibv_gid}), in network byte order as the wire carries it.
 *
 * <p>Two texts, the ones rdma-core's tools print: {@link #toString()} is the eight groups of four hex digits
 * {@code ibv_devinfo} prints for an IB or RoCE v1 GID ({@code fe80:0000:0000:0000:0c42:a103:0065:d6b6});
 * {@link #toInet6String()} is glibc's {@code inet_ntop(AF_INET6)} text, which {@code ibv_devinfo} prints for a
 * RoCE v2 GID and {@code ibv_rc_pingpong} for every GID ({@code ::ffff:10.77.0.1}). {@link #toString(GidType)}
 * picks the one {@code ibv_devinfo} prints for a GID table entry of that type.
 */
public final class Gid {
    /** Size in bytes. */
    public static final int SIZE = 16;
    /** The all-zero GID: no GID (what a port without one reports, and what {@link QpEndpoint} takes then). */
    public static final Gid ZERO = new Gid(new byte[SIZE]);

    private final byte[] raw;

    private Gid(byte[] raw) {
        this.raw = raw;
    }

    /**
     * A GID from its 16 raw bytes (copied).
     *
     * @param raw 16 bytes, network order (copied)
     * @return the GID
     */
    public static Gid of(byte[] raw) {
        if (raw.length != SIZE) {
            throw new IllegalArgumentException("a GID has 16 bytes, got " + raw.length);
        }
        return new Gid(raw.clone());
    }

    /**
     * A GID from the subnet prefix and interface id, each as a big-endian 64-bit value.
     *
     * @param subnetPrefix the upper 64 bits
     * @param interfaceId the lower 64 bits
     * @return the GID
     */
    public static Gid of(long subnetPrefix, long interfaceId) {
        byte[] b = new byte[SIZE];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (subnetPrefix >>> (56 - 8 * i));
            b[8 + i] = (byte) (interfaceId >>> (56 - 8 * i));
        }
        return new Gid(b);
    }

    /**
     * Parses {@code xxxx:xxxx:xxxx:xxxx:xxxx:xxxx:xxxx:xxxx} (the devinfo form), the 32-hex-digit form
     * {@code ibv_rc_pingpong} sends, or any IPv6 / IPv4 literal (an IPv4 address becomes the
     * IPv4-mapped GID {@code ::ffff:a.b.c.d} that RoCE v2 uses).
     *
     * @param text the text form
     * @return the GID
     */
    public static Gid parse(String text) {
        String t = text.trim();
        if (t.matches("(?i)[0-9a-f]{4}(:[0-9a-f]{4}){7}")) {
            return new Gid(HexFormat.of().parseHex(t.replace(":", "")));
        }
        if (t.matches("(?i)[0-9a-f]{32}")) {
            return new Gid(HexFormat.of().parseHex(t));
        }
        if (t.matches("[0-9.:a-fA-F]+") && (t.contains(":") || t.matches("\\d+\\.\\d+\\.\\d+\\.\\d+"))) {
            try {
                return ofAddress(InetAddress.getByName(t));
            } catch (UnknownHostException e) {
                // fall through to the error below
            }
        }
        throw new IllegalArgumentException("not a GID: '" + text + "'");
    }

    /**
     * The GID of an IP address: an IPv6 address as is, an IPv4 address IPv4-mapped.
     *
     * @param address an IPv4 or IPv6 address
     * @return the GID of the address (IPv4 as {@code ::ffff:a.b.c.d})
     */
    public static Gid ofAddress(InetAddress address) {
        byte[] a = address.getAddress();
        if (a.length == SIZE) {
            return new Gid(a);
        }
        byte[] b = new byte[SIZE];
        b[10] = (byte) 0xff;
        b[11] = (byte) 0xff;
        System.arraycopy(a, 0, b, 12, 4);
        return new Gid(b);
    }

    /** {@return a copy of the 16 bytes} */
    public byte[] raw() {
        return raw.clone();
    }

    /**
     * Byte {@code i} (0..15).
     *
     * @param i the index, from 0 to the count, exclusive
     * @return byte {@code i}
     */
    public byte get(int i) {
        return raw[i];
    }

    /** {@return the first 8 bytes as a big-endian value} */
    public long subnetPrefix() {
        return longAt(0);
    }

    /** {@return the last 8 bytes as a big-endian value} */
    public long interfaceId() {
        return longAt(8);
    }

    private long longAt(int off) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (raw[off + i] & 0xff);
        }
        return v;
    }

    /** {@return true when all 16 bytes are zero} */
    public boolean isZero() {
        for (byte b : raw) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }

    /** {@return true for {@code ::ffff:a.b.c.d}, the GID RoCE v2 derives from an IPv4 address} */
    public boolean isIpv4Mapped() {
        for (int i = 0; i < 10; i++) {
            if (raw[i] != 0) {
                return false;
            }
        }
        return raw[10] == (byte) 0xff && raw[11] == (byte) 0xff;
    }

    /** {@return true for an IPv6 link-local GID ({@code fe80::/64}), the default GID of IB and RoCE ports} */
    public boolean isLinkLocal() {
        return raw[0] == (byte) 0xfe && (raw[1] & 0xc0) == 0x80;
    }

    /** {@return the IP address this GID stands for (IPv4 for an IPv4-mapped GID)} */
    public InetAddress toInetAddress() {
        try {
            if (isIpv4Mapped()) {
                return InetAddress.getByAddress(Arrays.copyOfRange(raw, 12, 16));
            }
            return Inet6Address.getByAddress(null, raw, null);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // cannot happen for 4 or 16 bytes
        }
    }

    /** {@return the 32 hex digits without separators (the form {@code ibv_rc_pingpong} exchanges)} */
    public String toHex() {
        return HexFormat.of().formatHex(raw);
    }

    /**
     * The text glibc's {@code inet_ntop(AF_INET6, ...)} writes: lower-case hex groups without leading zeros,
     * the longest run (the first of equal runs, at least two groups) of zero groups as {@code ::}, and the
     * last 32 bits as a dotted quad for {@code ::ffff:a.b.c.d} and {@code ::a.b.c.d}.
     *
     * @return the IPv6 text of this GID
     */
    public String toInet6String() {
        int[] words = new int[8];
        for (int i = 0; i < 8; i++) {
            words[i] = ((raw[2 * i] & 0xff) << 8) | (raw[2 * i + 1] & 0xff);
        }
        int bestBase = -1;
        int bestLen = 0;
        int curBase = -1;
        int curLen = 0;
        for (int i = 0; i <= 8; i++) {
            if (i < 8 && words[i] == 0) {
                if (curBase == -1) {
                    curBase = i;
                    curLen = 0;
                }
                curLen++;
            } else if (curBase != -1) {
                if (curLen > bestLen) {
                    bestBase = curBase;
                    bestLen = curLen;
                }
                curBase = -1;
            }
        }
        if (bestLen < 2) {
            bestBase = -1;
        }
        StringBuilder sb = new StringBuilder(46);
        for (int i = 0; i < 8; i++) {
            if (bestBase != -1 && i >= bestBase && i < bestBase + bestLen) {
                if (i == bestBase) {
                    sb.append(':');
                }
                continue;
            }
            if (i != 0) {
                sb.append(':');
            }
            if (i == 6 && bestBase == 0 && (bestLen == 6 || (bestLen == 5 && words[5] == 0xffff))) {
                sb.append(raw[12] & 0xff).append('.').append(raw[13] & 0xff).append('.')
                        .append(raw[14] & 0xff).append('.').append(raw[15] & 0xff);
                return sb.toString();
            }
            sb.append(Integer.toHexString(words[i]));
        }
        if (bestBase != -1 && bestBase + bestLen == 8) {
            sb.append(':');
        }
        return sb.toString();
    }

    /**
     * The text {@code ibv_devinfo} prints for a GID table entry of {@code type}: {@link #toInet6String()} for
     * RoCE v2, {@link #toString()} for IB and RoCE v1 (and for a type it does not know).
     *
     * @param type the GID table entry's type
     * @return the text
     */
    public String toString(GidType type) {
        return type == GidType.ROCE_V2 ? toInet6String() : toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Gid && Arrays.equals(raw, ((Gid) o).raw);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(raw);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(39);
        for (int i = 0; i < SIZE; i += 2) {
            if (i > 0) {
                sb.append(':');
            }
            sb.append(String.format("%02x%02x", raw[i] & 0xff, raw[i + 1] & 0xff));
        }
        return sb.toString();
    }
}
