package org.verbs4j.api;

import java.util.Objects;

/** One valid entry of a port's GID table ({@code struct ibv_gid_entry}). */
public final class GidEntry {
    private final int port;
    private final int index;
    private final Gid gid;
    private final GidType type;
    private final int netdevIfindex;

    public GidEntry(int port, int index, Gid gid, GidType type, int netdevIfindex) {
        this.port = port;
        this.index = index;
        this.gid = Objects.requireNonNull(gid, "gid");
        this.type = Objects.requireNonNull(type, "type");
        this.netdevIfindex = netdevIfindex;
    }

    /** Port number (1-based). */
    public int port() {
        return port;
    }

    /** Index in the port's GID table: the {@code sgid_index} / {@code -g} / {@code -x} value. */
    public int index() {
        return index;
    }

    public Gid gid() {
        return gid;
    }

    public GidType type() {
        return type;
    }

    /** ifindex of the net device the GID belongs to (RoCE), 0 when none. */
    public int netdevIfindex() {
        return netdevIfindex;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof GidEntry)) {
            return false;
        }
        GidEntry e = (GidEntry) o;
        return port == e.port && index == e.index && gid.equals(e.gid) && type == e.type
                && netdevIfindex == e.netdevIfindex;
    }

    @Override
    public int hashCode() {
        return Objects.hash(port, index, gid, type, netdevIfindex);
    }

    @Override
    public String toString() {
        return "GID[" + index + "] " + gid.toString(type) + " " + type.text() + (netdevIfindex != 0 ? " ifindex " + netdevIfindex : "")
                + " (port " + port + ")";
    }
}
