package org.verbs4j.transport.iwarp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.verbs4j.api.Access;
import org.verbs4j.api.Gid;
import org.verbs4j.api.GidEntry;
import org.verbs4j.api.GidType;
import org.verbs4j.api.QpEndpoint;
import org.verbs4j.api.FabricOptions;
import org.verbs4j.transport.recorded.Recorded;
import org.verbs4j.transport.recorded.RecordedPort;

/** The iWARP provider on ports recorded on QLogic qedr, Chelsio cxgb4 and Intel i40iw adapters. */
class IwarpProviderTest {
    private final IwarpProvider iwarp = new IwarpProvider();
    private static final RecordedPort QEDR = Recorded.port(Recorded.QEDR, "qedr0", 1);

    static List<RecordedPort> allPorts() {
        return Recorded.allPorts();
    }

    @ParameterizedTest
    @MethodSource("allPorts")
    void servesExactlyTheRecordedIwarpPorts(RecordedPort p) {
        assertEquals(Recorded.expectedFabric(p).equals("iwarp"), iwarp.serves(p.device(), p.attributes()), p.toString());
    }

    @Test
    void refusesManualConnectionAndSaysToUseRdmaCm() {
        assertFalse(iwarp.supportsManualConnection());
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
                () -> iwarp.localEndpoint(QEDR.attributes(), null, 1, 1));
        assertTrue(e.getMessage().startsWith("iWARP queue pairs connect through rdma_cm only"), e.getMessage());
        assertTrue(e.getMessage().contains("use rdma_cm (the connection API)"), e.getMessage());
        QpEndpoint peer = new QpEndpoint(0, 1, 1, Gid.parse("10.0.0.1"));
        e = assertThrows(UnsupportedOperationException.class,
                () -> iwarp.addressVector(QEDR.attributes(), null, peer, FabricOptions.defaults()));
        assertTrue(e.getMessage().contains("rdma_cm"), e.getMessage());
    }

    @Test
    void iwarpTraits() {
        assertEquals("iwarp", iwarp.name());
        assertFalse(iwarp.supportsUnreliableDatagram());
        assertEquals(Access.REMOTE_WRITE, iwarp.readSinkExtraAccess());
        assertTrue(iwarp.activeSideSendsFirst());
        assertFalse(iwarp.hasRnrRetry());
    }

    @Test
    void sourceGidIsTheGid0OfThePortOrNull() {
        // the qedr post ends before its GID line (gid_tbl_len 1): nothing to return
        assertNull(iwarp.sourceGid(QEDR.attributes(), QEDR.gids(), null));
        // siw's one GID is its MAC-derived address, type IB; a two-port cxgb4 has one per port
        RecordedPort cxgb4p2 = Recorded.port(Recorded.CXGB4, "cxgb4_0", 2);
        GidEntry p1 = new GidEntry(1, 0, Gid.parse("0007:4347:4200:0000:0000:0000:0000:0000"), GidType.IB, 0);
        GidEntry p2 = new GidEntry(2, 0, Gid.parse("0007:4347:4200:0008:0000:0000:0000:0000"), GidType.IB, 0);
        assertEquals(p2, iwarp.sourceGid(cxgb4p2.attributes(), List.of(p1, p2), FabricOptions.defaults().gidIndex(3)));
        assertNull(iwarp.sourceGid(cxgb4p2.attributes(), List.of(p1), null));
    }
}
