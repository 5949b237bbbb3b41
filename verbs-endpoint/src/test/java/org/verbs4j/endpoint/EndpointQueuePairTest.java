package org.verbs4j.endpoint;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.verbs4j.api.Opcode;
import org.verbs4j.api.SendFlags;
import org.verbs4j.api.SendRequests;

/** The escape hatch's contract, checked before anything is posted: no device needed. */
class EndpointQueuePairTest {
    private static SendRequests one(Opcode op, int flags, long wrId) {
        SendRequests wrs = SendRequests.allocate(2, 1);
        wrs.at(0).clear().wrId(wrId).opcode(op).flags(flags);
        return wrs;
    }

    @ParameterizedTest
    @EnumSource(value = Opcode.class, names = {"RDMA_WRITE", "RDMA_READ", "ATOMIC_CMP_AND_SWP", "ATOMIC_FETCH_AND_ADD"})
    void oneSidedSignaledRequestsPass(Opcode op) {
        try (SendRequests wrs = one(op, SendFlags.SIGNALED | SendFlags.FENCE, 5)) {
            EndpointQueuePair.check(wrs);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Opcode.class, names = {"SEND", "SEND_WITH_IMM", "SEND_WITH_INV", "RDMA_WRITE_WITH_IMM"})
    void whatTakesAPeerReceiveGoesThroughTheCredits(Opcode op) {
        try (SendRequests wrs = one(op, SendFlags.SIGNALED, 5)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> EndpointQueuePair.check(wrs));
            assertTrue(e.getMessage().contains("credits") && e.getMessage().contains("RdmaEndpoint.send"), e.getMessage());
        }
    }

    @ParameterizedTest
    @EnumSource(value = Opcode.class, names = {"LOCAL_INV", "BIND_MW", "TSO", "DRIVER1", "ATOMIC_WRITE"})
    void opcodesTheEndpointCannotAccountForAreRefused(Opcode op) {
        try (SendRequests wrs = one(op, SendFlags.SIGNALED, 5)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> EndpointQueuePair.check(wrs));
            assertTrue(e.getMessage().contains("only RDMA WRITE, RDMA READ and atomics"), e.getMessage());
        }
    }

    @Test
    void unsignaledAndTheEndpointsOwnIdAreRefused() {
        try (SendRequests wrs = one(Opcode.RDMA_WRITE, 0, 5)) {
            assertTrue(assertThrows(IllegalArgumentException.class, () -> EndpointQueuePair.check(wrs)).getMessage()
                    .contains("SendFlags.SIGNALED"));
        }
        try (SendRequests wrs = one(Opcode.RDMA_WRITE, SendFlags.SIGNALED, RdmaEndpoint.INTERNAL_WR_ID)) {
            assertTrue(assertThrows(IllegalArgumentException.class, () -> EndpointQueuePair.check(wrs)).getMessage()
                    .contains("the endpoint's own"));
        }
    }

    @Test
    void everyRequestOfAChainIsChecked() {
        try (SendRequests wrs = one(Opcode.RDMA_WRITE, SendFlags.SIGNALED, 1)) {
            wrs.at(1).clear().wrId(2).opcode(Opcode.SEND).flags(SendFlags.SIGNALED);
            EndpointQueuePair.check(wrs); // count 1: only the first is posted
            wrs.count(2);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> EndpointQueuePair.check(wrs));
            assertTrue(e.getMessage().startsWith("request 1 is a send"), e.getMessage());
        }
    }
}
