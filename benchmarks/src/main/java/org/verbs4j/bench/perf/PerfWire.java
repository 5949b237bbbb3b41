package org.verbs4j.bench.perf;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.verbs4j.api.Gid;

/**
 * The byte formats of perftest's exchange (perftest 4.5-0.17, which calls itself version 6.06), over TCP and
 * over rdma_cm ({@code -R}), written and parsed here and nowhere else; {@link PerfChannel} moves them. Both
 * carry the same fields in the same order; only the keys differ: text over TCP ({@link #keys}), perftest's
 * {@code struct pingpong_dest} over rdma_cm ({@link #dest}). Every parser takes a buffer of the fixed
 * size perftest sends and throws {@link PerfChannel.ExchangeException} naming the peer on anything else.
 */
final class PerfWire {
    /** What verbs4j-perf says it is in the version exchange: the perftest release whose exchange it speaks. */
    static final String VERSION = "6.06";
    /** perftest refuses a peer older than this ({@code check_version_compatibility}). */
    static final double OLDEST_PEER = 5.70;
    /** {@code MAX_VERSION}: the version string's bytes on the wire, NUL-padded. */
    static final int VERSION_BYTES = 16;
    /** {@code check_sys_data}: the page size, then the cache-line size, each a 32-bit big-endian exchange. */
    static final int PAGE_SIZE = 4096;
    static final int CACHE_LINE = 64;
    /** {@code check_mtu} (peer version 5.31 or later): the MTU enum as a decimal digit and its NUL. */
    static final int MTU_BYTES = 2;
    /** {@code KEY_MSG_SIZE}: the keys without a GID, {@code KEY_PRINT_FMT} and its NUL. */
    static final int KEY_MSG_SIZE = 59;
    /** {@code KEY_MSG_SIZE_GID}: the keys with a GID, {@code KEY_PRINT_FMT_GID} and its NUL. */
    static final int KEY_MSG_SIZE_GID = 108;
    /**
     * {@code sizeof(struct pingpong_dest)} on 64-bit Linux: what one SEND of perftest's rdma_cm exchange
     * ({@code -R}) carries at most, and the size of the receive it posts. The keys travel as the structure
     * itself, its integers big-endian: LID, OUT, QPN, PSN, RKEY (5 x 4 bytes), 4 bytes of padding, VADDR
     * (8), the GID (16 bytes), SRQN and the GID index (4 each).
     */
    static final int DEST_BYTES = 56;
    /** {@code ctx_close_connection}'s last word, with its NUL. */
    static final byte[] DONE = {'d', 'o', 'n', 'e', 0};

    private static final Pattern VERSION_NUMBER = Pattern.compile("\\d{1,3}(\\.\\d{1,6})?");
    private static final Pattern HEX = Pattern.compile("[0-9a-fA-F]{1,16}");

    /**
     * One side's queue pair as perftest's {@code pingpong_dest} carries it. {@code gid} is null when the side
     * has no GID index (InfiniBand without {@code -x}): then the message has no GID.
     */
    record Keys(int lid, int outReads, int qpn, int psn, int rkey, long vaddr, Gid gid, int srqn) {
    }

    private PerfWire() {
    }

    static byte[] version() {
        byte[] b = new byte[VERSION_BYTES];
        byte[] v = VERSION.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(v, 0, b, 0, v.length);
        return b;
    }

    /** The peer's version; throws when it is no version or older than {@link #OLDEST_PEER}. */
    static double checkVersion(byte[] b, String peer) {
        String s = cString(b, peer, "version");
        if (!VERSION_NUMBER.matcher(s).matches()) {
            throw new PerfChannel.ExchangeException("the peer at " + peer + " sent '" + printable(s)
                    + "' as its version: is it perftest (or verbs4j-perf) running one of the six tests?");
        }
        double v = Double.parseDouble(s);
        if (v < OLDEST_PEER) {
            throw new PerfChannel.ExchangeException("the peer at " + peer + " runs perftest version " + s
                    + ": perftest's exchange is not compatible with versions older than 5.70");
        }
        return v;
    }

    static byte[] int32(int v) {
        return ByteBuffer.allocate(4).putInt(v).array();
    }

    static byte[] mtu(int mtuEnum) {
        if (mtuEnum < 1 || mtuEnum > 5) {
            throw new IllegalArgumentException("MTU enum " + mtuEnum);
        }
        return new byte[] {(byte) ('0' + mtuEnum), 0};
    }

    /** The peer's MTU enum (1 = 256 bytes .. 5 = 4096 bytes). */
    static int parseMtu(byte[] b, String peer) {
        if (b.length != MTU_BYTES || b[0] < '1' || b[0] > '5' || b[1] != 0) {
            throw new PerfChannel.ExchangeException("the peer at " + peer + " sent " + hex(b)
                    + " as its MTU: perftest sends one digit 1..5 and a NUL");
        }
        return b[0] - '0';
    }

    /** {@code KEY_PRINT_FMT} or, with a GID, {@code KEY_PRINT_FMT_GID}, NUL-padded to the message size. */
    static byte[] keys(Keys k) {
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "%04x:%04x:%06x:%06x:%08x:%016x", k.lid(),
                k.outReads(), k.qpn(), k.psn(), k.rkey(), k.vaddr()));
        int size = KEY_MSG_SIZE;
        if (k.gid() != null) {
            for (byte g : k.gid().raw()) {
                s.append(String.format(Locale.ROOT, ":%02x", g & 0xff));
            }
            s.append(String.format(Locale.ROOT, ":%08x:", k.srqn()));
            size = KEY_MSG_SIZE_GID;
        } else {
            s.append(String.format(Locale.ROOT, ":%08x", k.srqn()));
        }
        byte[] text = s.toString().getBytes(StandardCharsets.US_ASCII);
        if (text.length >= size) {
            throw new IllegalArgumentException("keys do not fit perftest's message: " + s);
        }
        byte[] b = new byte[size];
        System.arraycopy(text, 0, b, 0, text.length);
        return b;
    }

    /**
     * The peer's keys from a message of {@link #KEY_MSG_SIZE} ({@code gid} false) or {@link #KEY_MSG_SIZE_GID}
     * bytes. A message of the other kind (one side has a GID index, the other none) is an error that says so.
     */
    static Keys parseKeys(byte[] b, boolean gid, String peer) {
        String s = cString(b, peer, "keys");
        String[] f = s.split(":", -1);
        // with a GID: 6 fields, 16 GID bytes, the SRQ number and the empty field after the last ':'
        int want = gid ? 24 : 7;
        if (f.length != want || gid && !f[23].isEmpty()) {
            boolean otherKind = gid ? f.length == 7 : f.length == 24;
            throw new PerfChannel.ExchangeException("the peer at " + peer + " sent keys '" + printable(s) + "'"
                    + (otherKind ? (gid ? ": it has no GID, this side uses one (run both sides with -x, or neither)"
                            : ": it sends a GID, this side uses none (run both sides with -x, or neither)")
                            : ": not perftest's " + (gid ? "LID:OUT:QPN:PSN:RKEY:VADDR:GID:SRQN:" : "LID:OUT:QPN:PSN:RKEY:VADDR:SRQN")));
        }
        long lid = field(f[0], 0xffff, "LID", s, peer);
        long out = field(f[1], 0xffff, "OUT", s, peer);
        long qpn = field(f[2], 0xffffff, "QPN", s, peer);
        long psn = field(f[3], 0xffffff, "PSN", s, peer);
        long rkey = field(f[4], 0xffffffffL, "RKEY", s, peer);
        long vaddr = field(f[5], -1, "VADDR", s, peer);
        Gid g = null;
        if (gid) {
            byte[] raw = new byte[Gid.SIZE];
            for (int i = 0; i < Gid.SIZE; i++) {
                raw[i] = (byte) field(f[6 + i], 0xff, "GID", s, peer);
            }
            g = Gid.of(raw);
        }
        long srqn = field(f[gid ? 22 : 6], 0xffffffffL, "SRQN", s, peer);
        return new Keys((int) lid, (int) out, (int) qpn, (int) psn, (int) rkey, vaddr, g, (int) srqn);
    }

    /** The keys as perftest's rdma_cm exchange sends them ({@code rdma_write_keys}): {@link #DEST_BYTES} bytes. */
    static byte[] dest(Keys k) {
        ByteBuffer b = ByteBuffer.allocate(DEST_BYTES);
        b.putInt(k.lid()).putInt(k.outReads()).putInt(k.qpn()).putInt(k.psn()).putInt(k.rkey()).putInt(0)
                .putLong(k.vaddr());
        b.put(k.gid() == null ? new byte[Gid.SIZE] : k.gid().raw());
        b.putInt(k.srqn()).putInt(0);
        return b.array();
    }

    /**
     * The peer's keys from one message of perftest's rdma_cm exchange ({@code rdma_read_keys}), which must be
     * exactly {@link #DEST_BYTES} bytes. The padding and the GID index are not read (perftest sends stack
     * bytes and its own index there); {@code gid} false leaves the GID out of the result (nothing to print).
     */
    static Keys parseDest(byte[] b, boolean gid, String peer) {
        if (b.length != DEST_BYTES) {
            throw new PerfChannel.ExchangeException("the peer at " + peer + " sent " + b.length + " bytes " + hex(b)
                    + " as its keys: perftest's rdma_cm exchange sends its pingpong_dest, " + DEST_BYTES + " bytes");
        }
        ByteBuffer in = ByteBuffer.wrap(b);
        int lid = in.getInt();
        int out = in.getInt();
        int qpn = in.getInt();
        int psn = in.getInt();
        int rkey = in.getInt();
        in.getInt();
        long vaddr = in.getLong();
        byte[] raw = new byte[Gid.SIZE];
        in.get(raw);
        int srqn = in.getInt();
        String bad = lid < 0 || lid > 0xffff ? "LID" : out < 0 || out > 0xffff ? "OUT" : qpn < 0 || qpn > 0xffffff ? "QPN"
                : psn < 0 || psn > 0xffffff ? "PSN" : null;
        if (bad != null) {
            throw new PerfChannel.ExchangeException("the peer at " + peer + " sent keys " + hex(b) + " whose " + bad
                    + " is out of range: not perftest's pingpong_dest (big-endian LID, OUT up to 0xffff, QPN, PSN up"
                    + " to 0xffffff)");
        }
        return new Keys(lid, out, qpn, psn, rkey, vaddr, gid ? Gid.of(raw) : null, srqn);
    }

    /** A bandwidth report from the peer: sizes and counts must not be negative, rates must be finite. */
    static BandwidthStats.Result checkReport(BandwidthStats.Result r, String peer) {
        if (r.bytes() < 0 || r.iterations() < 0 || !finite(r.peak()) || !finite(r.average()) || !finite(r.msgRateMpps())) {
            throw new PerfChannel.ExchangeException("the peer at " + peer + " sent a report that is no result: " + r);
        }
        return r;
    }

    static byte[] putLong(long v) {
        return ByteBuffer.allocate(8).putLong(v).array();
    }

    static byte[] putDouble(double v) {
        return ByteBuffer.allocate(8).putDouble(v).array();
    }

    static long getLong(byte[] b) {
        return ByteBuffer.wrap(b).getLong();
    }

    static double getDouble(byte[] b) {
        return ByteBuffer.wrap(b).getDouble();
    }

    private static boolean finite(double d) {
        return !Double.isNaN(d) && !Double.isInfinite(d) && d >= 0;
    }

    private static long field(String hexText, long max, String name, String s, String peer) {
        Matcher m = HEX.matcher(hexText);
        long v = m.matches() ? Long.parseUnsignedLong(hexText, 16) : 0;
        if (!m.matches() || max >= 0 && Long.compareUnsigned(v, max) > 0) {
            throw new PerfChannel.ExchangeException("the peer at " + peer + " sent keys '" + printable(s) + "' whose "
                    + name + " '" + printable(hexText) + "' is not a hex number" + (max >= 0 ? " up to 0x" + Long.toHexString(max) : ""));
        }
        return v;
    }

    /** The text before the first NUL, which must be in the buffer; ASCII only. */
    private static String cString(byte[] b, String peer, String what) {
        int n = 0;
        while (n < b.length && b[n] != 0) {
            if (b[n] < 0x20 || b[n] > 0x7e) {
                throw new PerfChannel.ExchangeException("the peer at " + peer + " sent " + hex(b) + " as its " + what
                        + ": not perftest's text");
            }
            n++;
        }
        if (n == b.length) {
            throw new PerfChannel.ExchangeException("the peer at " + peer + " sent " + hex(b) + " as its " + what
                    + ": not perftest's NUL-terminated text of " + b.length + " bytes");
        }
        return new String(b, 0, n, StandardCharsets.US_ASCII);
    }

    private static String printable(String s) {
        return s.length() > 120 ? s.substring(0, 120) + "..." : s;
    }

    static String hex(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < Math.min(b.length, 32); i++) {
            s.append(String.format(Locale.ROOT, "%02x", b[i] & 0xff));
        }
        return s + (b.length > 32 ? "..." : "") + " (hex)";
    }
}
