package org.verbs4j.bench.perf;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.verbs4j.api.Gid;

/**
 * What perftest prints, character for character (perftest 4.5-0.17, Debian 12's {@code perftest} package):
 * the separator, the test header block ({@code ctx_print_test_info}), the address lines
 * ({@code ctx_print_pingpong_data}), the column titles and the result lines ({@code REPORT_FMT*}), with C's
 * {@code printf} conventions ({@code %-7.2f}, {@code %#06x}, tabs included).
 */
public final class PerfFormat {
    public static final String RESULT_LINE = "---------------------------------------------------------------------------------------";
    public static final String LAT_COLUMNS = " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]"
            + "    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] ";
    public static final String LAT_DURATION_COLUMNS = " #bytes        #iterations       t_avg[usec]    tps average";
    public static final String BW_COLUMNS = " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]";
    public static final String BW_COLUMNS_GBITS = " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]";

    private PerfFormat() {
    }

    /** What the header block shows (perftest's {@code ctx_print_test_info}); {@code eventVector} -1 without -e. */
    record Header(PerfTest test, String device, String transport, boolean client, int txDepth, int rxDepth, int cqMod,
            int mtuBytes, String linkType, int gidIndex, int inlineSize, int outReads, boolean rdmaCm, int tos,
            int eventVector, boolean duplex, String connection, int postList) {
    }

    /** The header block, from the separator above the title to the separator below it. */
    static List<String> header(Header h) {
        List<String> l = new ArrayList<>();
        l.add(RESULT_LINE);
        // perftest's title: the verb, then "Bidirectional " and "Post List " before "BW "
        String kind = (h.duplex() ? " Bidirectional" : "") + (h.postList() > 1 ? " Post List" : "");
        l.add("                    " + h.test().title().replace(" BW ", kind + " BW "));
        if (h.eventVector() >= 0) {
            l.add(" Test with events. Using " + h.device() + "_comp" + h.eventVector());
        }
        l.add(" Dual-port       : OFF\t\tDevice         : " + h.device());
        l.add(" Number of qps   : 1\t\tTransport type : " + h.transport());
        l.add(" Connection type : " + h.connection() + "\t\tUsing SRQ      : OFF");
        l.add(" PCIe relax order: OFF");
        l.add(" ibv_wr* API     : OFF");
        if (h.client() || h.duplex()) {
            l.add(" TX depth        : " + h.txDepth());
        }
        if (h.postList() > 1) {
            l.add(" Post List       : " + h.postList());
        }
        if (h.test().verb == PerfTest.Verb.SEND && !h.client()) {
            l.add(" RX depth        : " + h.rxDepth());
        }
        if (h.test().bandwidth) {
            l.add(" CQ Moderation   : " + h.cqMod());
        }
        l.add(" Mtu             : " + h.mtuBytes() + "[B]");
        l.add(" Link type       : " + h.linkType());
        if (h.gidIndex() >= 0) {
            l.add(" GID index       : " + h.gidIndex());
        }
        if (h.test().verb != PerfTest.Verb.READ) {
            l.add(" Max inline data : " + h.inlineSize() + "[B]");
        } else {
            l.add(" Outstand reads  : " + h.outReads());
        }
        l.add(" rdma_cm QPs\t : " + (h.rdmaCm() ? "ON" : "OFF"));
        // perftest's -R moves its exchange to rdma_cm too, and so does verbs4j-perf's
        String exchange = " Data ex. method : " + (h.rdmaCm() ? "rdma_cm" : "Ethernet");
        if (h.rdmaCm() && h.tos() >= 0) {
            exchange += " \tTOS    : " + h.tos();
        }
        l.add(exchange);
        if (h.rdmaCm() && !h.client()) {
            l.add(RESULT_LINE);
            l.add(" Waiting for client rdma_cm QP to connect");
            l.add(" Please run the same command with the IB/RoCE interface IP");
        }
        l.add(RESULT_LINE);
        return l;
    }

    /** The server's banner before it waits for a client. */
    static List<String> waitingBanner() {
        return List.of("", "************************************", "* Waiting for client to connect... *",
                "************************************");
    }

    /**
     * One side's address line: {@code " local address: LID 0000 QPN 0x0012 PSN 0x25efc9"}, with
     * {@code " OUT 0x80"} for read tests and {@code " RKey ... VAddr ..."} for RDMA tests.
     */
    static String addressLine(boolean local, int lid, int qpn, int psn, PerfTest test, int outReads, int rkey, long vaddr) {
        StringBuilder b = new StringBuilder();
        b.append(' ').append(local ? "local" : "remote").append(" address: LID ").append(altHex(lid, 4))
                .append(" QPN ").append(altHex(qpn, 6)).append(" PSN ").append(altHex(psn, 6));
        if (test.verb == PerfTest.Verb.READ) {
            b.append(" OUT ").append(altHex(outReads, 4));
        }
        if (test.verb != PerfTest.Verb.SEND) {
            b.append(" RKey ").append(altHex(rkey & 0xffffffffL, 8)).append(" VAddr ").append(altHex(vaddr, 16));
        }
        return b.toString();
    }

    /** {@code " GID: 00:00:...:255:255:10:77:00:01"}: the 16 bytes in decimal, as perftest's {@code %02d}. */
    static String gidLine(Gid gid) {
        StringBuilder b = new StringBuilder(" GID: ");
        byte[] raw = gid.raw();
        for (int i = 0; i < raw.length; i++) {
            if (i > 0) {
                b.append(':');
            }
            b.append(String.format(Locale.ROOT, "%02d", raw[i] & 0xff));
        }
        return b.toString();
    }

    /** C's {@code %#0Nx}: {@code 0x} and zero padding to N characters in all; a plain zero-padded 0 for zero. */
    static String altHex(long value, int width) {
        if (value == 0) {
            return "0".repeat(width);
        }
        String hex = Long.toHexString(value);
        int digits = Math.max(hex.length(), width - 2);
        return "0x" + "0".repeat(digits - hex.length()) + hex;
    }

    /** {@code REPORT_FMT_LAT}: one latency result line. */
    static String latencyLine(LatencyStats.Result r) {
        return String.format(Locale.ROOT, " %-7d %d          %-7.2f        %-7.2f      %-7.2f  \t       %-7.2f     \t%-7.2f"
                + "\t\t%-7.2f \t\t%-7.2f", r.bytes(), r.iterations(), r.min(), r.max(), r.typical(), r.average(),
                r.stdev(), r.p99(), r.p999());
    }

    /** {@code REPORT_FMT_LAT_DUR}: one duration-mode latency line. */
    static String latencyDurationLine(LatencyStats.DurationResult r) {
        return String.format(Locale.ROOT, " %-7d       %d            %-7.2f        %-7.2f", r.bytes(), r.iterations(),
                r.average(), r.tps());
    }

    /** {@code REPORT_FMT} (MB/sec, and Gb/sec from 0.1 up) or {@code REPORT_FMT_EXT} (Gb/sec below 0.1). */
    static String bandwidthLine(BandwidthStats.Result r, boolean gbits) {
        if (gbits && r.average() < 0.1) {
            return String.format(Locale.ROOT, " %-7d    %d           %-7.6f            %-7.6f            %-7.6f", r.bytes(),
                    r.iterations(), r.peak(), r.average(), r.msgRateMpps());
        }
        return String.format(Locale.ROOT, " %-7d    %-10d       %-7.2f            %-7.2f\t\t   %-7.6f", r.bytes(),
                r.iterations(), r.peak(), r.average(), r.msgRateMpps());
    }

    /** C's {@code %g}: 6 significant digits, trailing zeros dropped, exponent form outside 1e-4..1e6. */
    static String cG(double v) {
        if (v == 0) {
            return "0";
        }
        if (Double.isNaN(v)) {
            return "nan";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "inf" : "-inf";
        }
        // C: the exponent X of the %e form with 5 decimals decides; -4 <= X < 6 prints %f with 5 - X decimals
        String e = String.format(Locale.ROOT, "%.5e", v);
        int x = Integer.parseInt(e.substring(e.indexOf('e') + 1));
        if (x < -4 || x >= 6) {
            String mant = stripZeros(e.substring(0, e.indexOf('e')));
            return mant + "e" + (x < 0 ? "-" : "+") + (Math.abs(x) < 10 ? "0" : "") + Math.abs(x);
        }
        String s = String.format(Locale.ROOT, "%." + (5 - x) + "f", v);
        return stripZeros(s);
    }

    private static String stripZeros(String s) {
        if (s.indexOf('.') < 0) {
            return s;
        }
        int end = s.length();
        while (end > 0 && s.charAt(end - 1) == '0') {
            end--;
        }
        if (end > 0 && s.charAt(end - 1) == '.') {
            end--;
        }
        return s.substring(0, end);
    }
}
