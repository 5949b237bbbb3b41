package org.verbs4j.transport.iwarp;

import org.verbs4j.lab.Lab;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.verbs4j.api.Access;
import org.verbs4j.api.AddressVector;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.Gid;
import org.verbs4j.api.GidEntry;
import org.verbs4j.api.PortAttributes;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.QpAttributes;
import org.verbs4j.api.QpConnector;
import org.verbs4j.api.QpInitAttributes;
import org.verbs4j.api.QpState;
import org.verbs4j.api.QpType;
import org.verbs4j.api.QueuePair;
import org.verbs4j.api.Rdma;
import org.verbs4j.api.RdmaDevice;
import org.verbs4j.api.TransportType;
import org.verbs4j.api.VerbsException;
import org.verbs4j.api.FabricOptions;
import org.verbs4j.api.spi.FabricProvider;
import org.verbs4j.api.spi.Fabrics;

/**
 * The iWARP provider on the fabric lab's real soft-iWARP device ({@code FABRIC_LAB_SIW_DEV}, siw0), with all
 * three providers on the class path (transport-ib and transport-roce are test dependencies here), so the
 * choice is a real one: siw0 must get iwarp and rxe0 roce, each from exactly one provider.
 */
class IwarpProviderIT {
    private static final int PORT = 1;

    private static List<String> serving(RdmaDevice device, PortAttributes port) {
        return Fabrics.providers().stream().filter(f -> f.serves(device, port)).map(FabricProvider::name)
                .collect(Collectors.toList());
    }

    @Test
    void forPortPicksIwarpForSiwAndSourceGidIsGid0() throws IOException {
        String name = Lab.env("FABRIC_LAB_SIW_DEV");
        RdmaDevice device = Rdma.device(name);
        assertEquals(TransportType.IWARP, device.transportType());
        assertEquals(3, Fabrics.providers().size(), "ib, roce and iwarp on the class path: " + Fabrics.providers());
        try (DeviceContext ctx = device.open()) {
            PortAttributes port = ctx.queryPort(PORT);
            List<GidEntry> table = ctx.queryGidTable();
            assertEquals(List.of("iwarp"), serving(device, port), name + " port " + port);
            FabricProvider f = Fabrics.forPort(device, port, FabricOptions.defaults());
            assertEquals("iwarp", f.name());
            assertTrue(f instanceof IwarpProvider, f.toString());

            GidEntry g = f.sourceGid(port, table, FabricOptions.defaults());
            assertNotNull(g, "siw has one GID (gid_tbl_len " + port.gidTableLength() + "): " + table);
            assertEquals(0, g.index());
            assertEquals(ctx.queryGidEntry(PORT, 0), g);
            String sysfs = Files.readString(Path.of("/sys/class/infiniband", name, "ports", "1", "gids", "0"),
                    StandardCharsets.US_ASCII).trim();
            assertEquals(Gid.parse(sysfs), g.gid());

            assertFalse(f.supportsManualConnection());
            UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
                    () -> f.localEndpoint(port, g, 1, 1));
            assertTrue(e.getMessage().contains("rdma_cm"), e.getMessage());
        }
    }

    @Test
    void bothLabDevicesGetExactlyOneProviderEach() {
        for (String[] devFabric : new String[][] {{Lab.env("FABRIC_LAB_RXE_DEV"), "roce"}, {Lab.env("FABRIC_LAB_SIW_DEV"), "iwarp"}}) {
            RdmaDevice device = Rdma.device(devFabric[0]);
            try (DeviceContext ctx = device.open()) {
                PortAttributes port = ctx.queryPort(PORT);
                assertEquals(List.of(devFabric[1]), serving(device, port), devFabric[0]);
                assertEquals(devFabric[1], Fabrics.forPort(device, port, null).name(), devFabric[0]);
            }
        }
    }

    /**
     * {@link QpConnector} refuses an iWARP port before touching the QP, and says what to use instead (rdma_cm,
     * or the endpoint API). Why iWARP is "rdma_cm only": siw creates the QP and takes INIT and RTR by hand, but refuses RTS
     * (EINVAL), since RTS needs the TCP socket of an MPA connection, which only the kernel's iw_cm hands over. The step that
     * fails and siw's error are printed (failsafe-reports/*-output.txt).
     */
    @Test
    void siwRefusesAQueuePairConnectedByHand() {
        String name = Lab.env("FABRIC_LAB_SIW_DEV");
        try (DeviceContext ctx = Rdma.open(name);
                ProtectionDomain pd = ctx.allocProtectionDomain();
                CompletionQueue cq = ctx.createCompletionQueue(8);
                QueuePair qp = pd.createQueuePair(new QpInitAttributes(QpType.RC, cq, cq).maxSendWr(2).maxRecvWr(2)
                        .maxSendSge(1).maxRecvSge(1))) {
            UnsupportedOperationException refused = assertThrows(UnsupportedOperationException.class,
                    () -> QpConnector.prepare(ctx, qp, PORT, FabricOptions.defaults()));
            System.out.println("QpConnector on " + name + ": " + refused.getMessage());
            assertTrue(refused.getMessage().startsWith(name + " port 1 is on the iwarp fabric"), refused.getMessage());
            assertTrue(refused.getMessage().contains("rdma_cm (org.verbs4j.api.cm.ConnectionManager)")
                    && refused.getMessage().contains("org.verbs4j.endpoint.Endpoints"), refused.getMessage());

            PortAttributes port = ctx.queryPort(PORT);
            GidEntry g = ctx.queryGidEntry(PORT, 0);
            // by hand, with the provider's transition builders where it has them (its addressVector refuses: rdma_cm only)
            FabricProvider f = Fabrics.forPort(ctx.device(), port, null);
            String[] step = {"INIT"};
            VerbsException e = assertThrows(VerbsException.class, () -> {
                qp.modify(f.initAttributes(port, Access.REMOTE_WRITE | Access.REMOTE_READ, null));
                step[0] = "RTR";
                qp.modify(new QpAttributes().state(QpState.RTR).pathMtu(port.activeMtu()).destQpNum(qp.qpNumber())
                        .rqPsn(0).maxDestRdAtomic(1).minRnrTimer(FabricProvider.DEFAULT_MIN_RNR_TIMER)
                        .addressVector(AddressVector.global(PORT, g.gid(), 0)));
                step[0] = "RTS";
                qp.modify(f.readyToSendAttributes(0, 1, null));
                step[0] = "none";
            }, "siw moved a QP to RTS without rdma_cm");
            System.out.println("siw refused the manual connection at " + step[0] + ": " + e.getMessage());
            assertEquals("ibv_modify_qp", e.verb(), e.getMessage());
            // seen in the lab (Linux 6.1): INIT and RTR are accepted, RTS fails with EINVAL ("no socket")
            assertEquals("RTS", step[0], e.getMessage());
            assertEquals(22, e.errno(), e.getMessage());
        }
    }
}
