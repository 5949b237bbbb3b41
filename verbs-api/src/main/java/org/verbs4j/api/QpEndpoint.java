package org.verbs4j.api;

import java.util.Objects;

/**
 * What one side of a manually connected queue pair tells the other out of band: LID, QP number, first
 * PSN and GID. {@link #toWire()} and {@link #parseWire} use the text {@code ibv_rc_pingpong} and
 * {@code ibv_ud_pingpong} exchange over TCP ({@code "%04x:%06x:%06x:%s"} with the GID as 32 hex digits),
 * so a Java peer can talk to those tools.
 *
 * @param lid the LID (InfiniBand; 0 on RoCE and iWARP)
 * @param qpn the queue pair number (24 bits)
 * @param psn the first packet sequence number (24 bits)
 * @param gid the GID ({@link Gid#ZERO} when there is none)
 */
public record QpEndpoint(int lid, int qpn, int psn, Gid gid) {

    /**
     * Checks that {@code gid} is given.
     *
     * @param lid the LID (InfiniBand; 0 on RoCE and iWARP)
     * @param qpn the queue pair number (24 bits)
     * @param psn the first packet sequence number (24 bits)
     * @param gid the GID ({@link Gid#ZERO} when there is none)
     * @throws NullPointerException when {@code gid} is null (use {@link Gid#ZERO})
     */
    public QpEndpoint {
        Objects.requireNonNull(gid, "gid (use Gid.ZERO when there is none)");
    }

    /**
     * The message of rdma-core's pingpong examples, {@code LLLL:QQQQQQ:PPPPPP:GGGG...}: 51 characters, sent
     * as 52 bytes with the trailing NUL.
     *
     * @return the 51 characters, without the NUL
     */
    public String toWire() {
        return String.format("%04x:%06x:%06x:%s", lid & 0xffff, qpn & 0xffffff, psn & 0xffffff, gid.toHex());
    }

    /**
     * Parses {@link #toWire()}'s form (a trailing NUL, as the C tools send it, is ignored).
     *
     * @param text the message (a trailing NUL is ignored)
     * @return the endpoint
     */
    public static QpEndpoint parseWire(String text) {
        String t = text.trim();
        int nul = t.indexOf('\0');
        if (nul >= 0) {
            t = t.substring(0, nul);
        }
        String[] p = t.split(":");
        if (p.length != 4 || p[3].length() != 32) {
            throw new IllegalArgumentException("not a LID:QPN:PSN:GID message: '" + text + "'");
        }
        try {
            return new QpEndpoint(Integer.parseInt(p[0], 16), Integer.parseInt(p[1], 16), Integer.parseInt(p[2], 16),
                    Gid.parse(p[3]));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a LID:QPN:PSN:GID message: '" + text + "'", e);
        }
    }
}
