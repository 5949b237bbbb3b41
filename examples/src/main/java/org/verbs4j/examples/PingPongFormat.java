package org.verbs4j.examples;

import java.math.BigDecimal;
import java.math.RoundingMode;
import org.verbs4j.api.Gid;
import org.verbs4j.api.QpEndpoint;

/**
 * The text the rdma-core pingpong tools print, character for character: glibc's {@code inet_ntop(AF_INET6)}
 * for GIDs ({@link Gid#toInet6String()}), {@code printf("%.2f")} for the results, and the address and result lines.
 */
final class PingPongFormat {
    private PingPongFormat() {
    }

    /**
     * {@code printf("%.2f", v)} as glibc does it: the exact binary value rounded half-to-even (Java's
     * {@code %.2f} rounds the shortest decimal form half-up, which differs on values like 0.125), and
     * {@code inf} / {@code -nan} for the special values.
     */
    static String f2(double v) {
        if (Double.isNaN(v)) {
            // 0.0f / 0 on x86 is the default NaN, which has its sign bit set: glibc prints "-nan"
            return (Double.doubleToRawLongBits(v) < 0 ? "-" : "") + "nan";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "inf" : "-inf";
        }
        String s = new BigDecimal(v).setScale(2, RoundingMode.HALF_EVEN).toPlainString();
        if (v < 0 || (v == 0 && Double.doubleToRawLongBits(v) != 0)) {
            return s.startsWith("-") ? s : "-" + s;
        }
        return s;
    }

    /**
     * {@code "  local address:  LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s"}. {@code ibv_ud_pingpong}
     * prints a colon instead of the comma before "GID" in its local line ({@code udLocalLine}).
     */
    static String localLine(QpEndpoint me, boolean udLocalLine) {
        return String.format("  local address:  LID 0x%04x, QPN 0x%06x, PSN 0x%06x%s GID %s", me.lid(), me.qpn(),
                me.psn(), udLocalLine ? ":" : ",", me.gid().toInet6String());
    }

    /** {@code "  remote address: LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s"}. */
    static String remoteLine(QpEndpoint peer) {
        return String.format("  remote address: LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s", peer.lid(), peer.qpn(),
                peer.psn(), peer.gid().toInet6String());
    }

    /**
     * The two result lines, computed as the C tools compute them: {@code float usec} from the elapsed
     * microseconds, {@code (long long) size * iters * 2} bytes, Mbit/s in double, usec/iter in float.
     */
    static String[] resultLines(long size, long iters, long elapsedMicros) {
        float usec = (float) elapsedMicros;
        long bytes = size * iters * 2;
        float perIter = usec / (float) iters;
        return new String[] {
            bytes + " bytes in " + f2(usec / 1000000.) + " seconds = " + f2(bytes * 8. / usec) + " Mbit/sec",
            (int) iters + " iters in " + f2(usec / 1000000.) + " seconds = " + f2(perIter) + " usec/iter"
        };
    }
}
