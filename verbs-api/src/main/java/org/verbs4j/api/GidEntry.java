package org.verbs4j.api;

import java.util.Objects;

/** One valid entry of a port's GID table ({@code struct ibv_gid_entry}). */
public final class GidEntry {
    private final int port;
    private final int index;
    private final Gid gid;
    private final GidType type;
    private final int netdevIfindex;

    /**
     * One entry of a port's GID table ({@code struct ibv_gid_entry}).
     *
     * @param port          the port number, from 1
     * @param index         the index in the port's GID table
     * @param gid           the GID; not null
     * @param type          the GID type; not null
     * @param netdevIfindex the ifindex of the net device the GID belongs to (RoCE), 0 when none
     */
    public GidEntry(int port, int index, Gid gid, GidType type, int netdevIfindex) {
        this.port = port;
        this.index = index;
        this.gid = Objects.requireNonNull(gid, "gid");
        this.type = Objects.requireNonNull(type, "type");
        this.netdevIfindex = netdevIfindex;
    }

    /** {@return port number (1-based)} */
    public int port() {
        return port;
    }

    /** {@return index in the port's GID table: the {@code sgid_index} / {@code -g} / {@code -x} value} */
    public int index() {
        return index;
    }

    /** {@return the GID} */
    public Gid gid() {
        return gid;
    }

    /** {@return the type} */
    public GidType type() {
        return type;
    }

    /** {@return ifindex of the net device the GID belongs to (RoCE), 0 when none} */
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
