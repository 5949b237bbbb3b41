package org.verbs4j.api.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.verbs4j.api.AddressVector;
import org.verbs4j.api.FabricOptions;
import org.verbs4j.api.Gid;
import org.verbs4j.api.GidEntry;
import org.verbs4j.api.GidType;
import org.verbs4j.api.PortAttributes;
import org.verbs4j.api.QpEndpoint;

/**
 * The base of the fabric providers: the name, and the pieces every fabric's rules are written with
 * (finding and listing a port's GID entries, checking what goes into a {@link QpEndpoint}, filling a GRH
 * from the options), so that a provider holds only what its fabric decides.
 *
 * <pre>{@code
 * public final class MyFabricProvider extends AbstractFabricProvider {
 *     public MyFabricProvider() {
 *         super("myfabric", "My fabric");
 *     }
 *     // serves, sourceGid, localEndpoint, addressVector: this fabric's rules
 * }
 * }</pre>
 */
public abstract class AbstractFabricProvider implements FabricProvider {
    private final String name;
    private final String fabric;

    /**
     * A provider with its two names.
     *
     * @param name   what {@link #name()} returns and {@link Fabrics#named} takes ({@code ib}, {@code roce}, ...)
     * @param fabric the fabric's name for people ({@code InfiniBand}, {@code RoCE}, ...), in {@link #toString()}
     */
    protected AbstractFabricProvider(String name, String fabric) {
        this.name = name;
        this.fabric = fabric;
    }

    @Override
    public final String name() {
        return name;
    }

    /** "RoCE fabric provider (roce)". */
    @Override
    public String toString() {
        return fabric + " fabric provider (" + name + ")";
    }

    /**
     * The entries of {@code port} in a GID table (a device's table lists every port's).
     *
     * @param port  the port whose entries to keep
     * @param table a GID table, possibly of several ports
     * @return a new list of the port's entries, in table order
     */
    protected static List<GidEntry> entriesOf(PortAttributes port, List<GidEntry> table) {
        List<GidEntry> out = new ArrayList<>();
        for (GidEntry e : table) {
            if (e.port() == port.portNumber()) {
                out.add(e);
            }
        }
        return out;
    }

    /**
     * Entry {@code index} of {@code port} in a GID table.
     *
     * @param port  the port
     * @param table a GID table, possibly of several ports
     * @param index the GID index
     * @return the entry, or {@code null} when the table has none at that index for that port
     */
    protected static GidEntry entry(PortAttributes port, List<GidEntry> table, int index) {
        for (GidEntry e : table) {
            if (e.port() == port.portNumber() && e.index() == index) {
                return e;
            }
        }
        return null;
    }

    /**
     * "[2] 0000:...:ffff:8cdd:3c0b RoCE v1 (IPv4 140.221.60.11), [3] ::ffff:140.221.60.11 RoCE v2, ...", or
     * "none": for error messages. Each GID is printed as {@code ibv_devinfo} prints it ({@link Gid#toString(GidType)}).
     *
     * @param entries the GID entries to describe
     * @return their description, or "none" when there are none
     */
    protected static String describe(List<GidEntry> entries) {
        if (entries.isEmpty()) {
            return "none";
        }
        return entries.stream().map(e -> "[" + e.index() + "] " + e.gid().toString(e.type()) + " " + e.type().text()
                + (e.gid().isIpv4Mapped() && e.type() != GidType.ROCE_V2
                        ? " (IPv4 " + e.gid().toInetAddress().getHostAddress() + ")" : ""))
                .collect(Collectors.joining(", "));
    }

    /**
     * The endpoint to send to the peer, after checking that the QP number and PSN fit their 24 bits.
     *
     * @param lid the local LID (0 where the fabric has none)
     * @param qpn the local QP number
     * @param psn the local initial PSN
     * @param gid the local GID, or null
     * @return the checked endpoint
     * @throws IllegalArgumentException when one does not
     */
    protected static QpEndpoint endpoint(int lid, int qpn, int psn, Gid gid) {
        check24("QP number", qpn);
        check24("PSN", psn);
        return new QpEndpoint(lid, qpn, psn, gid);
    }

    private static void check24(String what, int value) {
        if (value < 0 || value > 0xffffff) {
            throw new IllegalArgumentException(what + " " + value + " does not fit in 24 bits");
        }
    }

    /**
     * An option's value, or a fallback when it is unset.
     *
     * @param option   the option's value, negative (-1) when unset
     * @param fallback the value to use when it is unset
     * @return {@code option} when set, else {@code fallback}
     */
    protected static int valueOr(int option, int fallback) {
        return option >= 0 ? option : fallback;
    }

    /**
     * Adds a GRH to {@code av}: the peer's GID, our GID index, the options' hop limit (else
     * {@code defaultHopLimit}) and traffic class (else 0).
     *
     * @param av              the address vector to complete
     * @param dgid            the peer's GID
     * @param sgidIndex       the index of our GID in the port's table
     * @param options         the caller's choices (not null: the defaults already applied)
     * @param defaultHopLimit the hop limit when the options set none
     * @return {@code av}
     */
    protected static AddressVector withGrh(AddressVector av, Gid dgid, int sgidIndex, FabricOptions options,
            int defaultHopLimit) {
        return av.grh(dgid, sgidIndex).hopLimit(valueOr(options.hopLimit(), defaultHopLimit))
                .trafficClass(valueOr(options.trafficClass(), 0));
    }
}
