package org.verbs4j.api.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.verbs4j.api.AddressVector;
import org.verbs4j.api.FabricOptions;
import org.verbs4j.api.Gid;
import org.verbs4j.api.GidEntry;
import org.verbs4j.api.GidType;
import org.verbs4j.api.LinkLayer;
import org.verbs4j.api.Mtu;
import org.verbs4j.api.PortAttributes;
import org.verbs4j.api.PortState;
import org.verbs4j.api.QpEndpoint;
import org.verbs4j.api.RdmaDevice;

/** What {@link AbstractFabricProvider} gives every provider: name, description, GID table look-ups, checks. */
class AbstractFabricProviderTest {

    /** A provider that only exposes the helpers. */
    static final class Sample extends AbstractFabricProvider {
        Sample() {
            super("sample", "Sample");
        }

        @Override
        public boolean serves(RdmaDevice device, PortAttributes port) {
            return false;
        }

        @Override
        public GidEntry sourceGid(PortAttributes port, List<GidEntry> gidTable, FabricOptions options) {
            return entry(port, gidTable, valueOr(FabricOptions.orDefaults(options).gidIndex(), 0));
        }

        @Override
        public QpEndpoint localEndpoint(PortAttributes port, GidEntry sourceGid, int qpn, int psn) {
            return endpoint(port.lid(), qpn, psn, sourceGid.gid());
        }

        @Override
        public AddressVector addressVector(PortAttributes port, GidEntry sourceGid, QpEndpoint remote,
                FabricOptions options) {
            return withGrh(AddressVector.local(port.portNumber(), 0), remote.gid(), sourceGid.index(),
                    FabricOptions.orDefaults(options), 64);
        }
    }

    private static PortAttributes port(int number) {
        return new PortAttributes(number, PortState.ACTIVE, Mtu.MTU_4096, Mtu.MTU_1024, 16, 0, 1L << 31, 0, 0, 1, 7, 1,
                0, 1, 0, 18, 0, 2, 32, 5, LinkLayer.ETHERNET, 0, 0);
    }

    private static final Gid V4 = Gid.of(0L, 0x0000_ffff_8cdd_3c0bL); // ::ffff:140.221.60.11
    private static final Gid LINK_LOCAL = Gid.of(0xfe80_0000_0000_0000L, 0x0202_c9ff_fe00_0001L);
    private static final List<GidEntry> TABLE = List.of(
            new GidEntry(1, 0, LINK_LOCAL, GidType.ROCE_V1, 3),
            new GidEntry(1, 3, V4, GidType.ROCE_V2, 3),
            new GidEntry(2, 0, LINK_LOCAL, GidType.IB, 4));

    private final Sample sample = new Sample();

    @Test
    void nameAndDescription() {
        assertEquals("sample", sample.name());
        assertEquals("Sample fabric provider (sample)", sample.toString());
    }

    @Test
    void entriesAreLookedUpByPortAndIndex() {
        assertSame(TABLE.get(1), AbstractFabricProvider.entry(port(1), TABLE, 3));
        assertSame(TABLE.get(2), AbstractFabricProvider.entry(port(2), TABLE, 0));
        assertNull(AbstractFabricProvider.entry(port(2), TABLE, 3), "index 3 is port 1's");
        assertEquals(List.of(TABLE.get(0), TABLE.get(1)), AbstractFabricProvider.entriesOf(port(1), TABLE));
        assertEquals(List.of(), AbstractFabricProvider.entriesOf(port(3), TABLE));
        assertSame(TABLE.get(1), sample.sourceGid(port(1), TABLE, FabricOptions.defaults().gidIndex(3)));
    }

    @Test
    void describeListsIndexGidTypeAndTheIpv4Address() {
        assertEquals("none", AbstractFabricProvider.describe(List.of()));
        String d = AbstractFabricProvider.describe(AbstractFabricProvider.entriesOf(port(1), TABLE));
        // as ibv_devinfo prints them: a RoCE v2 GID in inet_ntop form, which shows the IPv4 address itself
        assertEquals("[0] " + LINK_LOCAL + " RoCE v1, [3] ::ffff:140.221.60.11 RoCE v2", d);
    }

    @Test
    void endpointChecksThe24BitFields() {
        QpEndpoint e = sample.localEndpoint(port(1), TABLE.get(1), 0xffffff, 0);
        assertEquals(7, e.lid());
        assertEquals(0xffffff, e.qpn());
        assertEquals(V4, e.gid());
        assertEquals("QP number 16777216 does not fit in 24 bits", assertThrows(IllegalArgumentException.class,
                () -> sample.localEndpoint(port(1), TABLE.get(1), 1 << 24, 0)).getMessage());
        assertEquals("PSN -1 does not fit in 24 bits", assertThrows(IllegalArgumentException.class,
                () -> sample.localEndpoint(port(1), TABLE.get(1), 1, -1)).getMessage());
    }

    @Test
    void theGrhTakesTheOptionsOrTheDefaults() {
        QpEndpoint remote = new QpEndpoint(0, 1, 1, V4);
        AddressVector av = sample.addressVector(port(1), TABLE.get(1), remote, null);
        assertTrue(av.isGlobal());
        assertEquals(V4, av.dgid());
        assertEquals(3, av.sgidIndex());
        assertEquals(64, av.hopLimit());
        assertEquals(0, av.trafficClass());
        AddressVector tuned = sample.addressVector(port(1), TABLE.get(1), remote,
                FabricOptions.defaults().hopLimit(5).trafficClass(106));
        assertEquals(5, tuned.hopLimit());
        assertEquals(106, tuned.trafficClass());
        assertEquals(9, AbstractFabricProvider.valueOr(9, 1));
        assertEquals(0, AbstractFabricProvider.valueOr(0, 1));
        assertEquals(1, AbstractFabricProvider.valueOr(-1, 1));
    }

    @Test
    void theDefaultsOfTheInterfaceStay() {
        assertTrue(sample.supportsManualConnection());
        assertTrue(sample.supportsUnreliableDatagram());
        assertTrue(sample.hasRnrRetry());
        assertFalse(sample.activeSideSendsFirst());
        assertEquals(0, sample.readSinkExtraAccess());
    }
}
